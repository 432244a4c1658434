"""The derivation of Result 1 (paper, Appendix C "Derivation of Result 1"), executed.

Each function implements one step of the appendix, at finite ``D`` (random matrices) or in the
limit (the deterministic order-parameter system), so that the chapter ``book/derivation.md`` can
check each step against the next:

* **Reduction** (App. C.2, Eqs. generalization_trace, F_series, generalization_from_F):
  :func:`mixed_moments`, :func:`error_from_moments`.
* **Extended matrix** (App. C.3, Eqs. G13_factorization, G13_identification):
  :func:`extended_matrix`, :func:`resolvent_blocks`.
* **Order parameters and exact identities** (App. C.4, Eqs. def_m ... def_c, basic_111 ...
  basic_444): :func:`order_parameters`, :func:`exact_identities`.
* **Cavity relations** (App. C.5-C.8, Eqs. s12 ... s43, b11, b21, beta14 ... beta44,
  c12 ... c44): :func:`cavity_predictions`, :func:`cavity_residuals`.
* **Closed system** (App. C.9, Eqs. closed_u_summary, closed_v_summary, closed_mixed_summary):
  :func:`solve_u_sector`, :func:`solve_v_sector`, :func:`solve_mixed_sector`,
  :func:`closed_system`.
* **lambda = 0 solution** (App. C.10, Eqs. u_sector_explicit, v_sector_explicit,
  m13_explicit ... m24_explicit): :func:`explicit_solution`.
* **lambda >= 0 error curve** (App. C.2 + C.9): the closed system's sectors continued to a
  torus, from which :mod:`cotbook.theory.ridge` reads ``E_t``.

Conventions are the appendix's: ``S = X X^T`` with ``x_l ~ N(0, I/D)`` (so ``Tr S / D -> alpha``),
``v_mu = X_mu y_mu / alpha``, ``B = (1/M) sum w v^T``, ``C = (1/M) sum v v^T + (lam/2) I``,
``A = B C^{-1}`` (the loss carries ``lam/2 |A|^2``), ``c = 1 + (1 + sigma2)/alpha`` with
``sigma2`` the noise *variance*.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from math import comb

import numpy as np

from .. import _checks, tasks
from . import _torus, domain
from .exact import result1

__all__ = [
    "Problem",
    "sample_problem",
    "mixed_moments",
    "error_from_moments",
    "series_F",
    "extended_matrix",
    "resolvent_blocks",
    "order_parameters",
    "IDENTITIES",
    "tex",
    "exact_identities",
    "cavity_predictions",
    "cavity_residuals",
    "Point",
    "solve_u_sector",
    "solve_v_sector",
    "solve_mixed_sector",
    "closed_system",
    "explicit_solution",
    "M_NAMES",
    "FAMILIES",
    "cavity_scaling",
    "fit_order",
]

M_NAMES = ("m11", "m12", "m21", "m22", "m33", "m34", "m43", "m44", "m13", "m14", "m23", "m24")
"""The twelve primary order parameters of Eq. (def_m)."""


# --------------------------------------------------------------------------------------------
# finite-D problem
# --------------------------------------------------------------------------------------------
class Problem:
    """One finite-``D`` realisation: ``B``, ``C``, ``A = B C^{-1}``, ``S = X X^T`` and the design.

    ``alpha = L/D`` and ``tau = M/D`` are the *realised* ratios; ``c = 1 + (1 + sigma2)/alpha``.
    """

    def __init__(self, B, C, X, sigma2, lam, M):
        self.B = B
        self.C = C
        self.X = X
        self.D, self.L = X.shape
        self.M = M
        self.S = X @ X.T
        self.A = np.linalg.solve(C, B.T).T  # A C = B, C symmetric
        self.alpha = self.L / self.D
        self.tau = self.M / self.D
        self.sigma2 = sigma2
        self.lam = lam
        self.c = 1.0 + (1.0 + sigma2) / self.alpha


def sample_problem(D, alpha, tau, sigma2, lam, rng) -> Problem:
    """Sample ``B``, ``C`` (App. C.1, "Preliminaries") from ``M = round(tau D)`` pretraining tasks
    and one noiseless test design ``X`` (``L = round(alpha D)`` columns ``N(0, I/D)``).

    Pretraining features ``(w_mu, v_mu)`` come from :func:`cotbook.tasks.sample_features`
    (``v_mu = X_mu y_mu / alpha`` in distribution).  ``lam = 0`` needs ``M > D``.
    """
    D = _checks.positive_int("D", D)
    alpha = domain.alpha(alpha)
    tau = _checks.positive("tau", tau)
    sigma2 = domain.sigma2(sigma2)
    lam = _checks.nonnegative("lam", lam)
    L, M = round(alpha * D), round(tau * D)
    if L < 1 or M < 1:
        raise ValueError(f"alpha * D and tau * D must round to >= 1 (got L={L}, M={M})")
    if lam == 0 and M <= D:
        raise ValueError(f"lam must be > 0 when tau * D <= D (M={M}, D={D})")
    w, v = tasks.sample_features(D, L, M, sigma2, rng)
    B = w.T @ v / M
    C = v.T @ v / M + (lam / 2) * np.eye(D)
    X = rng.standard_normal((D, L)) / np.sqrt(D)
    return Problem(B, C, X, sigma2, lam, M)


# --------------------------------------------------------------------------------------------
# Step 1: the reduction (App. C.2)
# --------------------------------------------------------------------------------------------
def mixed_moments(A, S, p_max):
    """``mu[p, q] = (1/D) Tr[(A S)^p (S A^T)^q]`` for ``p, q <= p_max`` (App. C.2, Eq. F_series).

    Uses ``(S A^T)^q = ((A S)^q)^T`` and ``Tr(P Q^T) = sum(P * Q)``.
    """
    A = _checks.array("A", A, ndim=2)
    S = _checks.array("S", S, ndim=2)
    if A.shape != S.shape or A.shape[0] != A.shape[1]:
        raise ValueError(f"A and S must be square of the same shape, got {A.shape}, {S.shape}")
    p_max = _checks.nonneg_int("p_max", p_max)
    D = A.shape[0]
    AS = A @ S
    powers = [np.eye(D)]
    for _ in range(p_max):
        powers.append(AS @ powers[-1])
    P = np.stack(powers).reshape(p_max + 1, -1)
    return P @ P.T / D


def error_from_moments(moments, alpha, t):
    """``E_t`` as the binomial double sum of App. C.2 (Eq. generalization_trace expanded):

    ``E_t = sum_{p,q<=t} C(t,p) C(t,q) (-1/alpha)^{p+q} mu[p, q]``.
    """
    mu = _checks.array("moments", moments, ndim=2)
    alpha = domain.alpha(alpha)
    t = _checks.nonneg_int("t", t)
    if mu.shape[0] <= t or mu.shape[1] <= t:
        raise ValueError(f"moments must be at least ({t + 1}, {t + 1}), got {mu.shape}")
    a = np.array([comb(t, p) * (-1.0 / alpha) ** p for p in range(t + 1)])
    return float(a @ mu[: t + 1, : t + 1] @ a)


def series_F(moments, u, v):
    """The truncated power series ``sum_{p,q} u^p v^q mu[p, q]`` of F (App. C.2, Eq. F_series)."""
    mu = _checks.array("moments", moments, ndim=2)
    u = _checks.real("u", u)
    v = _checks.real("v", v)
    pu = u ** np.arange(mu.shape[0])
    pv = v ** np.arange(mu.shape[1])
    return float(pu @ mu @ pv)


# --------------------------------------------------------------------------------------------
# Step 2: the extended matrix (App. C.3)
# --------------------------------------------------------------------------------------------
def _check_uv(u, v):
    return _checks.real("u", u), _checks.real("v", v)


def extended_matrix(B, C, S, u, v):
    """``M(u, v)`` of App. C.3 (4 x 4 blocks of size D):

    ``[[I, -uB, -I, 0], [-S, C, 0, 0], [0, 0, I, -vS], [0, 0, -B^T, C]]``.
    """
    u, v = _check_uv(u, v)
    D = S.shape[0]
    eye, Z = np.eye(D), np.zeros((D, D))
    return np.block([[eye, -u * B, -eye, Z], [-S, C, Z, Z], [Z, Z, eye, -v * S], [Z, Z, -B.T, C]])


def resolvent_blocks(prob: Problem, u, v, *, method="schur"):
    """The ``D x D`` blocks ``G[a][b]`` (a, b = 0..3) of ``G = M(u, v)^{-1}`` (App. C.3).

    ``method="full"`` inverts the ``4D x 4D`` matrix; ``method="schur"`` uses the block formulas
    that follow from the upper block-triangular structure (Eq. G13_factorization) and the Schur
    complements ``(I - u A S)^{-1}`` and ``(I - v S A^T)^{-1}``:

    ``G11 = K, G12 = u K A, G21 = C^{-1} S K, G22 = C^{-1} (I + u S K A)``,
    ``G33 = H, G34 = v H S C^{-1}, G43 = A^T H, G44 = C^{-1} (I + v B^T H S C^{-1})``,
    ``G13 = G11 G33, G14 = G11 G34, G23 = G21 G33, G24 = G21 G34`` (K, H the two resolvents).
    """
    u, v = _check_uv(u, v)
    if method not in ("schur", "full"):
        raise ValueError(f"method must be 'schur' or 'full', got {method!r}")
    D = prob.D
    if method == "full":
        G = np.linalg.inv(extended_matrix(prob.B, prob.C, prob.S, u, v))
        return [[G[a * D : (a + 1) * D, b * D : (b + 1) * D] for b in range(4)] for a in range(4)]
    eye = np.eye(D)
    A, S, Cinv = prob.A, prob.S, np.linalg.inv(prob.C)
    K = np.linalg.inv(eye - u * A @ S)
    H = np.linalg.inv(eye - v * S @ A.T)
    G11, G12 = K, u * K @ A
    G21 = Cinv @ S @ K
    G22 = Cinv + u * G21 @ A
    SC = S @ Cinv
    G33, G34 = H, v * H @ SC
    G43 = A.T @ H
    G44 = Cinv + v * G43 @ SC
    Z = np.zeros((D, D))
    return [
        [G11, G12, G11 @ G33, G11 @ G34],
        [G21, G22, G21 @ G33, G21 @ G34],
        [Z, Z, G33, G34],
        [Z, Z, G43, G44],
    ]


# --------------------------------------------------------------------------------------------
# Step 3: order parameters and the twelve exact identities (App. C.4)
# --------------------------------------------------------------------------------------------
_S_NAMES = ("s12", "s13", "s22", "s23", "s33", "s43")
_B_NAMES = ("b11", "b21")
_BETA_NAMES = ("beta14", "beta24", "beta34", "beta44")
_C_NAMES = ("c12", "c14", "c22", "c24", "c34", "c44")


def _tr(P, Q):
    """(1/D) Tr(P Q)."""
    return float(np.sum(P * Q.T)) / P.shape[0]


def order_parameters(prob: Problem, blocks) -> dict:
    """The normalised traces of App. C.4 at finite D.

    ``m_ab = Tr G_ab / D`` (Eq. def_m) and the inserted traces ``s_ab = Tr(G_ab S)/D``
    (Eq. def_s), ``b_ab = Tr(G_ab B)/D`` (def_b), ``beta_ab = Tr(G_ab B^T)/D`` (def_beta),
    ``c_ab = Tr(G_ab C)/D`` (def_c).  ``blocks`` from :func:`resolvent_blocks`.
    """
    G = blocks
    D = prob.D
    out = {}
    for name in M_NAMES:
        a, b = int(name[1]) - 1, int(name[2]) - 1
        out[name] = float(np.trace(G[a][b])) / D
    for names, mat in (
        (_S_NAMES, prob.S),
        (_B_NAMES, prob.B),
        (_BETA_NAMES, prob.B.T),
        (_C_NAMES, prob.C),
    ):
        for name in names:
            a, b = int(name[-2]) - 1, int(name[-1]) - 1
            out[name] = _tr(G[a][b], mat)
    return out


IDENTITIES = {
    "(1,1)": "m11 - s12 = 1",
    "(1,2)": "-u b11 + c12 = 0",
    "(1,3)": "-m11 + m13 - beta14 = 0",
    "(1,4)": "-v s13 + c14 = 0",
    "(2,1)": "m21 - s22 = 0",
    "(2,2)": "-u b21 + c22 = 1",
    "(2,3)": "-m21 + m23 - beta24 = 0",
    "(2,4)": "-v s23 + c24 = 0",
    "(3,3)": "m33 - beta34 = 1",
    "(3,4)": "-v s33 + c34 = 0",
    "(4,3)": "m43 - beta44 = 0",
    "(4,4)": "-v s43 + c44 = 1",
}
"""The twelve block identities of ``G M = I`` (App. C.4, Eqs. basic_111 ... basic_444)."""


_TRACE_NAME = re.compile(r"\b(m|s|b|beta|c)(\d)(\d)\b")


def tex(text: str) -> str:
    """``text`` with every trace name of App. C.4 (``m11``, ``s12``, ``b21``, ``beta14``,
    ``c44``: :data:`M_NAMES` and the inserted traces of :func:`order_parameters`) written as
    LaTeX (``m_{11}``, ``\\beta_{14}``), for tables; the rest of ``text`` is kept as it is.

    >>> tex("-m11 + m13 - beta14 = 0")
    '-m_{11} + m_{13} - \\\\beta_{14} = 0'
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {text!r}")

    def _name(match):
        letter = "\\beta" if match[1] == "beta" else match[1]
        return f"{letter}_{{{match[2]}{match[3]}}}"

    return _TRACE_NAME.sub(_name, text)


def exact_identities(op: dict, u, v) -> dict:
    """Residuals (left side minus right side) of the twelve identities in :data:`IDENTITIES`."""
    u, v = _check_uv(u, v)
    o = op
    return {
        "(1,1)": o["m11"] - o["s12"] - 1,
        "(1,2)": -u * o["b11"] + o["c12"],
        "(1,3)": -o["m11"] + o["m13"] - o["beta14"],
        "(1,4)": -v * o["s13"] + o["c14"],
        "(2,1)": o["m21"] - o["s22"],
        "(2,2)": -u * o["b21"] + o["c22"] - 1,
        "(2,3)": -o["m21"] + o["m23"] - o["beta24"],
        "(2,4)": -v * o["s23"] + o["c24"],
        "(3,3)": o["m33"] - o["beta34"] - 1,
        "(3,4)": -v * o["s33"] + o["c34"],
        "(4,3)": o["m43"] - o["beta44"],
        "(4,4)": -v * o["s43"] + o["c44"] - 1,
    }


# --------------------------------------------------------------------------------------------
# Step 3b: the cavity relations (App. C.5 - C.8)
# --------------------------------------------------------------------------------------------
def cavity_predictions(m: dict, u, v, alpha, tau, c, lam) -> dict:
    """The inserted traces predicted by the cavity relations from the twelve ``m_ab``.

    S-cavity (App. C.5, Eqs. s12 ... s43), B-cavity (C.6, Eqs. b11, b21), B^T-cavity (C.7,
    Eqs. beta14 ... beta44) and C-cavity (C.8, Eqs. c12 ... c44), written with
    ``D1 = tau - u m21 + c m22`` and ``D2 = tau - m34 + c m44``; the formulas are the paper's as
    printed.  ``m`` values may be arrays (or complex).
    """
    m11, m12, m21, m22 = m["m11"], m["m12"], m["m21"], m["m22"]
    m33, m34, m43, m44 = m["m33"], m["m34"], m["m43"], m["m44"]
    m13, m14, m23, m24 = m["m13"], m["m14"], m["m23"], m["m24"]
    D1 = tau - u * m21 + c * m22
    D2 = tau - m34 + c * m44
    e12, e43 = 1 - m12, 1 - v * m43
    X1 = c * m12 - u * m11  # (c m12 - u m11)
    Y1 = c * m22 - u * m21
    W2 = c * m44 - m34
    h = lam / 2
    return {
        "s12": alpha * m12 / e12,
        "s13": alpha * m13 / (e12 * e43),
        "s22": alpha * m22 / e12,
        "s23": alpha * (m23 / e43 + m22 * m13 / (e12 * e43)),
        "s33": alpha * m33 / e43,
        "s43": alpha * m43 / e43,
        "b11": m11 - m21 * X1 / D1,
        "b21": m21 - m21 * Y1 / D1,
        "beta14": m14 - tau * c * m24 * (m12 - u * m11) / (D1 * D2) - m14 * W2 / D2,
        "beta24": m24 - tau * c * m24 * (m22 - u * m21) / (D1 * D2) - m24 * W2 / D2,
        "beta34": m34 - m34 * W2 / D2,
        "beta44": m44 - m44 * W2 / D2,
        "c12": h * m12 + c * m12 - c * m22 * X1 / D1,
        "c22": h * m22 + c * m22 - c * m22 * Y1 / D1,
        "c14": h * m14 + c * m14 - tau * c * m24 * X1 / (D1 * D2) - c * m14 * W2 / D2,
        "c24": h * m24 + c * m24 - tau * c * m24 * Y1 / (D1 * D2) - c * m24 * W2 / D2,
        "c34": h * m34 + c * m34 - c * m34 * W2 / D2,
        "c44": h * m44 + c * m44 - c * m44 * W2 / D2,
    }


def cavity_residuals(prob: Problem, op: dict, u, v) -> dict:
    """``inserted trace - cavity prediction`` for the 18 inserted traces, at finite D.

    The predictions use the finite-D ``m_ab`` of ``op`` and the realised ``alpha = L/D``,
    ``tau = M/D`` and ``c = 1 + (1 + sigma2)/alpha``.
    """
    u, v = _check_uv(u, v)
    pred = cavity_predictions(op, u, v, prob.alpha, prob.tau, prob.c, prob.lam)
    return {k: op[k] - pred[k] for k in pred}


# --------------------------------------------------------------------------------------------
# Step 4: the closed system (App. C.9)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Point:
    """A validated point of the closed system, with ``c = 1 + (1 + sigma2)/alpha`` computed
    once.  Every public function of this step validates its input into one :class:`Point` (use
    :meth:`of`); the private solvers take it as it is."""

    alpha: float
    tau: float
    sigma2: float
    lam: float
    c: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "c", 1 + (1 + self.sigma2) / self.alpha)

    def __str__(self):
        return f"(alpha={self.alpha:g}, tau={self.tau:g}, sigma2={self.sigma2:g}, lam={self.lam:g})"

    @property
    def system(self) -> tuple:
        """``(alpha, tau, c, lam)``, the constants of the closed system's equations."""
        return self.alpha, self.tau, self.c, self.lam

    @classmethod
    def of(cls, alpha, tau, sigma2, lam) -> Point:
        """Validate ``alpha``, ``tau`` (``> 1`` when ``lam = 0``), ``sigma2``, ``lam`` on the
        domain of :mod:`cotbook.theory.domain`; ``ValueError`` naming the parameter otherwise."""
        alpha = domain.alpha(alpha)
        tau = domain.tau(tau, ridge=True)
        sigma2 = domain.sigma2(sigma2)
        lam = domain.lam(lam)
        if lam == 0 and tau <= 1:
            raise ValueError(
                f"tau must be > 1 when lam = 0 (C is singular for tau <= 1), got {tau!r}"
            )
        return cls(alpha, tau, sigma2, lam)


def _m22_at_zero(p: Point):
    """``Tr C^{-1} / D`` in the limit (the u-sector at u = 0): the positive root of
    ``(lam c / 2) m^2 + (c tau + lam tau / 2 - c) m - tau = 0``."""
    c, tau, lam = p.c, p.tau, p.lam
    a, b = lam * c / 2, c * tau + lam * tau / 2 - c
    if a == 0:
        return tau / b
    return 2 * tau / (b + math.sqrt(b * b + 4 * a * tau))


_NEWTON_TOL = 1e-10
"""A sector solve is accepted when each residual is below this, relative to the sum of the
moduli of its terms (``1 + ...``: never stricter than ``1e-10`` absolute).  Relative, because
a term can be large where the sectors approach a singularity, and its rounding with it.  (The
residuals are written so that ``Tr C^-1 / D`` itself, about ``2 (1 - tau)/lam`` at ``tau < 1``,
cancels in no term: see :func:`cotbook.theory._torus.u_system`.)"""


def _as_output(z, *arrays):
    real = not np.iscomplexobj(z)
    out = []
    for a in arrays:
        a = np.asarray(a)
        if real:
            a = a.real
        out.append(a if a.ndim else a[()])
    return out


_RAY_R = 0.9  # beyond |x| = 1, sectors follow the ray in u to |x| = 0.9, then the x-radius
_RADIAL_STEPS = 128  # Newton steps along that radial segment


def _solve_sector(v_sector, z, p: Point, n_steps, x=None, start=None, path_steps=_RADIAL_STEPS):
    """Continue the two free unknowns of one sector from z = 0 to z; returns (z, a, b).

    Newton's method with the analytic Jacobian at each of ``n_steps`` points of the ray ``s z``
    (compiled, node by node: :func:`cotbook.theory._torus.sector_continuation`), starting from
    the exact values at 0.  With ``x`` (the nodes of a torus circle, ``z = u(x)``, ``|x| > 1``)
    the path is the ray in the z-plane up to ``u(x0)``, ``x0 = 0.9 x/|x|``, then the radial
    segment from ``x0`` to ``x`` in the x-plane: the path from 0 to ``x`` inside the polydisc
    where B is analytic.  The ray from 0 straight to ``u(x)`` can leave it (for real ``x > 1``,
    ``u(x) > 0`` lies beyond the sector's cut, which the radial path passes around through
    ``u = infinity``).  With ``start`` (a point per node) the ray ends at the image of
    ``start`` instead and the segment runs from ``start`` to ``x`` in ``path_steps`` steps.
    ``ArithmeticError`` where a node's residual stays above :data:`_NEWTON_TOL`."""
    z = np.asarray(z)
    nodes = np.ascontiguousarray(np.ravel(z), dtype=complex)
    if x is None:
        x0 = xs = np.empty(0, dtype=complex)
    else:
        xs = np.ascontiguousarray(np.ravel(x), dtype=complex)
        x0 = xs * (_RAY_R / np.abs(xs)) if start is None else np.ravel(start).astype(complex)
    with np.errstate(all="ignore"):
        a, b, ray, radial = _torus.sector_continuation(
            v_sector, nodes, x0, xs, _m22_at_zero(p), n_steps, path_steps, *p.system
        )
    for what, res in (("Newton continuation", ray), ("radial continuation", radial)):
        if not np.all(res < _NEWTON_TOL):
            raise ArithmeticError(f"closed system: {what} did not converge (res {np.max(res)})")
    return z, a.reshape(z.shape), b.reshape(z.shape)


def _u_sector(u, p: Point, n_steps=16, x=None, **path) -> dict:
    u, m12, m22 = _solve_sector(False, u, p, n_steps, x, **path)
    m11 = 1 + p.alpha * m12 / (1 - m12)
    m21 = p.alpha * m22 / (1 - m12)
    names = ("m11", "m12", "m21", "m22")
    return dict(zip(names, _as_output(u, m11, m12, m21, m22), strict=True))


def _v_sector(v, p: Point, n_steps=16, x=None, **path) -> dict:
    v, m34, m44 = _solve_sector(True, v, p, n_steps, x, **path)
    T = p.tau / (p.tau - m34 + p.c * m44)  # 1 - W/D2, W = c m44 - m34 (no cancellation)
    m33 = 1 + m34 * T
    m43 = m44 * T
    names = ("m33", "m34", "m43", "m44")
    return dict(zip(names, _as_output(v, m33, m34, m43, m44), strict=True))


def solve_u_sector(u, alpha, tau, sigma2, lam, *, n_steps=16) -> dict:
    """``m11, m12, m21, m22`` at ``u`` from App. C.9, Eq. closed_u_summary (any lam >= 0).

    ``m11 = 1 + alpha m12/(1 - m12)``, ``m21 = alpha m22/(1 - m12)`` and the two remaining
    equations are solved for ``(m12, m22)`` by Newton's method, continued from the exact value at
    ``u = 0`` (``m12 = 0``, ``m22 = Tr C^{-1}/D``) along the ray ``s u``: this selects the branch
    analytic at the origin (the one whose Taylor coefficients are the moments).  ``u`` real or
    complex (scalar or array); real ``u`` must lie before the spectrum of ``A S`` starts.
    """
    n_steps = _checks.positive_int("n_steps", n_steps)
    return _u_sector(u, Point.of(alpha, tau, sigma2, lam), n_steps)


def solve_v_sector(v, alpha, tau, sigma2, lam, *, n_steps=16) -> dict:
    """``m33, m34, m43, m44`` at ``v`` from App. C.9, Eq. closed_v_summary (any lam >= 0).

    ``m33`` and ``m43`` are explicit in ``(m34, m44)``; the other two equations are solved by
    Newton's method continued from ``v = 0`` (``m34 = 0``, ``m44 = Tr C^{-1}/D``).
    """
    n_steps = _checks.positive_int("n_steps", n_steps)
    return _v_sector(v, Point.of(alpha, tau, sigma2, lam), n_steps)


def solve_mixed_sector(us: dict, vs: dict, u, v, alpha, tau, sigma2, lam) -> dict:
    """``m13, m14, m23, m24`` from the linear system of App. C.9, Eq. closed_mixed_summary.

    ``us`` and ``vs`` are the sector solutions at ``u`` and ``v`` (arrays broadcast against each
    other, e.g. ``u[:, None]`` and ``v[None, :]`` for a grid).  Unknown order (m13, m14, m23, m24).
    """
    return _mixed_sector(us, vs, u, v, Point.of(alpha, tau, sigma2, lam))


def _mixed_sector(us, vs, u, v, p: Point) -> dict:
    alpha, tau, c, lam = p.alpha, p.tau, p.c, p.lam
    u = np.asarray(u)
    v = np.asarray(v)
    m11, m12, m21, m22 = (np.asarray(us[k]) for k in ("m11", "m12", "m21", "m22"))
    m34, m43, m44 = (np.asarray(vs[k]) for k in ("m34", "m43", "m44"))
    D1 = tau - u * m21 + c * m22
    D2 = tau - m34 + c * m44
    e12, e43 = 1 - m12, 1 - v * m43
    shape = np.broadcast_shapes(D1.shape, D2.shape, u.shape, v.shape)
    dtype = np.result_type(D1, D2, u, v, float)
    Mx = np.zeros(shape + (4, 4), dtype=dtype)
    rhs = np.zeros(shape + (4,), dtype=dtype)
    t2 = tau / D2
    one = np.ones(shape)
    # eq 1: m13 - (tau/D2) m14 + (tau/D2) c (m12 - u m11)/D1 m24 = m11
    Mx[..., 0, 0] = one
    Mx[..., 0, 1] = -t2 * one
    Mx[..., 0, 3] = t2 * c * (m12 - u * m11) / D1
    rhs[..., 0] = m11 * one
    # eq 2: m23 - (tau/D2) m24 + (tau/D2) c (m22 - u m21)/D1 m24 = m21
    Mx[..., 1, 2] = one
    Mx[..., 1, 3] = -t2 * (tau + (c - 1) * u * m21) / D1  # -t2 (1 - c (m22 - u m21)/D1)
    rhs[..., 1] = m21 * one
    # eq 3: v alpha m13/(e12 e43) - (lam/2) m14 - (c tau/D2)(m14 - m24 (c m12 - u m11)/D1) = 0
    Mx[..., 2, 0] = v * alpha / (e12 * e43)
    Mx[..., 2, 1] = -lam / 2 - c * t2
    Mx[..., 2, 3] = c * t2 * (c * m12 - u * m11) / D1
    # eq 4: v alpha (m23/e43 + m22 m13/(e12 e43)) - (lam/2) m24 - (c tau/D2) m24 (1 - Y/D1) = 0
    Mx[..., 3, 0] = v * alpha * m22 / (e12 * e43)
    Mx[..., 3, 2] = v * alpha / e43
    Mx[..., 3, 3] = -lam / 2 - c * t2 * tau / D1  # 1 - Y/D1 = tau/D1, Y = c m22 - u m21
    sol = np.linalg.solve(Mx, rhs[..., None])[..., 0]
    names = ("m13", "m14", "m23", "m24")
    return {k: (sol[..., i] if sol.ndim > 1 else sol[i]) for i, k in enumerate(names)}


def closed_system(u, v, alpha, tau, sigma2, lam) -> dict:
    """All twelve ``m_ab(u, v)`` from the closed system (App. C.9): u-sector, v-sector, then the
    linear mixed sector.  Scalars ``u``, ``v`` (real or complex); returns a dict of scalars."""
    p = Point.of(alpha, tau, sigma2, lam)
    us, vs = _u_sector(u, p), _v_sector(v, p)
    out = {**us, **vs, **_mixed_sector(us, vs, u, v, p)}
    return {k: out[k] for k in M_NAMES}


def explicit_solution(u, v, alpha, tau, sigma2) -> dict:
    """The lambda = 0 solution of App. C.10, as printed (Eqs. u_sector_explicit_1-4,
    v_sector_explicit_1-4, m13_explicit ... m24_explicit), for ``u, v != 0``.

    ``m11 = g(u)``, ``m12 = u g(u)/c``, ``m21 = tau (g(u) - 1)/((tau - 1) u)``,
    ``m22 = tau g(u)/((tau - 1) c)``; ``m33 = g(v)``, ``m43 = g(v)/c``,
    ``m34 = tau (g(v) - 1)/(tau - 1)``, ``m44 = tau g(v)/((tau - 1) c)``; and the mixed block
    with ``Delta = alpha - (g(u)-1)(g(v)-1)[1 + (c-1)/(tau-1) (alpha + g(u) + g(v) - 1)]``.
    """
    p = Point.of(alpha, tau, sigma2, 0.0)
    alpha, tau, sigma2, c = p.alpha, p.tau, p.sigma2, p.c
    u, v = _check_uv(u, v)
    if u == 0 or v == 0:
        raise ValueError("u and v must be nonzero (m21 is given as u m21 in the paper)")
    gu, gv = float(result1.g(u, alpha, sigma2)), float(result1.g(v, alpha, sigma2))
    r = tau / (tau - 1)
    Delta = alpha - (gu - 1) * (gv - 1) * (1 + (c - 1) / (tau - 1) * (alpha + gu + gv - 1))
    return {
        "m11": gu,
        "m12": u * gu / c,
        "m21": r * (gu - 1) / u,
        "m22": r * gu / c,
        "m33": gv,
        "m34": r * (gv - 1),
        "m43": gv / c,
        "m44": r * gv / c,
        "m13": alpha * gu * gv / Delta,
        "m14": r * gu * (gv - 1) * (alpha + gu - 1) / Delta,
        "m23": r * gu * gv * (alpha + gu - 1) * (alpha + gv - 1) / (c * Delta),
        "m24": r**3 * gu * (gv - 1) * (alpha + gu - 1) * (alpha + gu + gv - 1) / (c * Delta),
    }


# --------------------------------------------------------------------------------------------
# studies used by the chapter
# --------------------------------------------------------------------------------------------
FAMILIES = {"s": _S_NAMES, "b": _B_NAMES, "beta": _BETA_NAMES, "c": _C_NAMES}
"""The four families of cavity relations (App. C.5 - C.8)."""


def cavity_scaling(dims, seeds, alpha, tau, sigma2, lam, u, v) -> dict:
    """Root-mean-square cavity residual of each family in :data:`FAMILIES` against ``D``.

    ``dims`` and ``seeds`` have the same length: ``seeds[i]`` independent realisations at
    ``dims[i]`` (seeded ``default_rng(1000 * D + k)``).  Returns ``{family: array over dims}``.
    """
    if len(dims) != len(seeds) or not len(dims):
        raise ValueError("dims and seeds must be non-empty and of the same length")
    out = {f: np.empty(len(dims)) for f in FAMILIES}
    for i, (D, n_seeds) in enumerate(zip(dims, seeds, strict=True)):
        n_seeds = _checks.positive_int("seeds", n_seeds)
        sq = {f: [] for f in FAMILIES}
        for k in range(n_seeds):
            prob = sample_problem(D, alpha, tau, sigma2, lam, np.random.default_rng(1000 * D + k))
            op = order_parameters(prob, resolvent_blocks(prob, u, v))
            res = cavity_residuals(prob, op, u, v)
            for f, names in FAMILIES.items():
                sq[f].extend(res[name] ** 2 for name in names)
        for f in FAMILIES:
            out[f][i] = math.sqrt(float(np.mean(sq[f])))
    return out


def fit_order(dims, values) -> float:
    """Least-squares slope of ``log(values)`` against ``log(dims)``: the residual is O(D^slope)."""
    x = np.log(_checks.array("dims", dims, ndim=1))
    y = np.log(_checks.array("values", values, ndim=1))
    if x.shape != y.shape or x.size < 2:
        raise ValueError("dims and values must have the same length >= 2")
    return float(np.polyfit(x, y, 1)[0])
