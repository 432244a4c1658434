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
* **lambda >= 0 error curve** (App. C.2 + C.9): :func:`ridge_curve`, the Taylor coefficients
  ``E_t = [x^t y^t] m13(u(x), v(y)) / ((1-x)(1-y))`` with ``u(x) = -x / (alpha (1 - x))``
  (the change of variables of the paper's Appendix D), extracted by a 2-D FFT on a torus.

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
from typing import NamedTuple

import numpy as np

from .. import _checks, tasks
from .._threads import on_one_blas_thread
from . import _torus, domain, result1

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
    "RIDGE_RTOL",
    "RIDGE_T_MAX",
    "RIDGE_N_MAX",
    "R_ABOVE",
    "RidgeCurve",
    "RidgeAccuracyError",
    "ridge_curve",
    "M_NAMES",
    "FAMILIES",
    "cavity_scaling",
    "fit_order",
    "depth_map",
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


def _u_residual(u, m12, m22, p: Point):
    """Eq. closed_u_summary with m11 and m21 eliminated (unknowns m12, m22)."""
    alpha, tau, c, lam = p.alpha, p.tau, p.c, p.lam
    m11 = 1 + alpha * m12 / (1 - m12)
    m21 = alpha * m22 / (1 - m12)
    D1 = tau - u * m21 + c * m22
    k = c + lam / 2
    r1 = -u * m11 + k * m12 + (u * m21 - c * m22) * (c * m12 - u * m11) / D1
    r2 = -u * m21 + k * m22 + (u * m21 - c * m22) * (c * m22 - u * m21) / D1 - 1
    return r1, r2


def _v_residual(v, m34, m44, p: Point):
    """Eq. closed_v_summary with m33 and m43 eliminated (unknowns m34, m44)."""
    alpha, tau, c, lam = p.alpha, p.tau, p.c, p.lam
    D2 = tau - m34 + c * m44
    W = c * m44 - m34
    m33 = 1 + m34 - m34 * W / D2
    m43 = m44 - m44 * W / D2
    k = c + lam / 2
    r1 = -v * alpha * m33 / (1 - v * m43) + k * m34 - c * m34 * W / D2
    r2 = -v * alpha * m43 / (1 - v * m43) + k * m44 - c * m44 * W / D2 - 1
    return r1, r2


def _newton2(fun, z, x0, y0, steps=40, tol=1e-13):
    """Vectorised Newton for two holomorphic equations in two unknowns (finite-difference
    Jacobian; the residual itself is exact, so the iteration still converges to round-off)."""
    x, y = x0.copy(), y0.copy()
    for _ in range(steps):
        f1, f2 = fun(z, x, y)
        hx = 1e-7 * np.maximum(1.0, np.abs(x))
        hy = 1e-7 * np.maximum(1.0, np.abs(y))
        a1, a2 = fun(z, x + hx, y)
        b1, b2 = fun(z, x, y + hy)
        j11, j21 = (a1 - f1) / hx, (a2 - f2) / hx
        j12, j22 = (b1 - f1) / hy, (b2 - f2) / hy
        det = j11 * j22 - j12 * j21
        dx = (j22 * f1 - j12 * f2) / det
        dy = (-j21 * f1 + j11 * f2) / det
        x, y = x - dx, y - dy
        if np.all(np.abs(dx) <= tol * np.maximum(1, np.abs(x))) and np.all(
            np.abs(dy) <= tol * np.maximum(1, np.abs(y))
        ):
            f1, f2 = fun(z, x, y)
            return x, y, float(np.max(np.abs(np.concatenate([np.ravel(f1), np.ravel(f2)]))))
    f1, f2 = fun(z, x, y)
    return x, y, float(np.max(np.abs(np.concatenate([np.ravel(f1), np.ravel(f2)]))))


def _continue(fun, z, y0, n_steps):
    """Follow the solution branch from z = 0 (x = 0, y = y0) to z along the ray s z, s in [0, 1]."""
    z = np.asarray(z, dtype=complex)
    x = np.zeros(z.shape, dtype=complex)
    y = np.full(z.shape, y0, dtype=complex)
    worst = 0.0
    for s in np.linspace(0, 1, n_steps + 1)[1:]:
        x, y, res = _newton2(fun, s * z, x, y)
        worst = res
    if not worst < 1e-10:
        raise ArithmeticError(f"closed system: Newton continuation did not converge (res {worst})")
    return x, y


def _as_output(z, *arrays):
    real = not np.iscomplexobj(z)
    out = []
    for a in arrays:
        a = np.asarray(a)
        if real:
            a = a.real
        out.append(a if a.ndim else a[()])
    return out


def _solve_sector(residual, z, p: Point, n_steps, x=None):
    """Continue the two free unknowns of one sector from z = 0 to z; returns (z, a, b).

    With ``x`` (the nodes of a torus circle, ``z = u(x)``, ``|x| > 1``) the path is the ray in
    the z-plane up to ``u(x0)``, ``x0 = 0.9 x/|x|``, then the radial segment from ``x0`` to ``x``
    in the x-plane: the path from 0 to ``x`` inside the polydisc where B is analytic.  The ray
    from 0 straight to ``u(x)`` can leave it (for real ``x > 1``, ``u(x) > 0`` lies beyond the
    sector's cut, which the radial path passes around through ``u = infinity``)."""
    z = np.asarray(z)

    def fun(zz, a, b):
        return residual(zz, a, b, p)

    if x is None:
        a, b = _continue(fun, z, _m22_at_zero(p), n_steps)
        return z, a, b
    x0 = x * (_RAY_R / np.abs(x))
    a, b = _continue(fun, -x0 / (p.alpha * (1 - x0)), _m22_at_zero(p), n_steps)
    for s in np.linspace(0, 1, _RADIAL_STEPS + 1)[1:]:
        xs = x0 + s * (x - x0)
        a, b, res = _newton2(fun, -xs / (p.alpha * (1 - xs)), a, b)
    if not res < 1e-10:
        raise ArithmeticError(f"closed system: radial continuation did not converge (res {res})")
    return z, a, b


def _u_sector(u, p: Point, n_steps=16, x=None) -> dict:
    u, m12, m22 = _solve_sector(_u_residual, u, p, n_steps, x)
    m11 = 1 + p.alpha * m12 / (1 - m12)
    m21 = p.alpha * m22 / (1 - m12)
    names = ("m11", "m12", "m21", "m22")
    return dict(zip(names, _as_output(u, m11, m12, m21, m22), strict=True))


def _v_sector(v, p: Point, n_steps=16, x=None) -> dict:
    v, m34, m44 = _solve_sector(_v_residual, v, p, n_steps, x)
    D2 = p.tau - m34 + p.c * m44
    W = p.c * m44 - m34
    m33 = 1 + m34 - m34 * W / D2
    m43 = m44 - m44 * W / D2
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
    Mx[..., 1, 3] = -t2 + t2 * c * (m22 - u * m21) / D1
    rhs[..., 1] = m21 * one
    # eq 3: v alpha m13/(e12 e43) - (lam/2) m14 - (c tau/D2)(m14 - m24 (c m12 - u m11)/D1) = 0
    Mx[..., 2, 0] = v * alpha / (e12 * e43)
    Mx[..., 2, 1] = -lam / 2 - c * t2
    Mx[..., 2, 3] = c * t2 * (c * m12 - u * m11) / D1
    # eq 4: v alpha (m23/e43 + m22 m13/(e12 e43)) - (lam/2) m24 - (c tau/D2) m24 (1 - Y/D1) = 0
    Mx[..., 3, 0] = v * alpha * m22 / (e12 * e43)
    Mx[..., 3, 2] = v * alpha / e43
    Mx[..., 3, 3] = -lam / 2 - c * t2 * (1 - (c * m22 - u * m21) / D1)
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
# Step 5: E_t for lambda >= 0
# --------------------------------------------------------------------------------------------
RIDGE_T_MAX = 2000
"""Deepest ``t_max`` of :func:`ridge_curve` (its torus has ``n >= 2 t_max + 8`` points per
circle)."""

RIDGE_N_MAX = 8192
"""Most points per circle :func:`ridge_curve` uses: ``n = 8192`` holds ``n^2`` complex values
(1.1 GB; about 3.3 GB at the peak of one torus) and takes about 11 s per radius on one core
(``n = 4096``: 2-3 s)."""

RIDGE_RTOL = 1e-6
"""Default relative accuracy of :func:`ridge_curve` (with ``atol = 1e-12``)."""

_RADII = tuple(0.95 * 0.9**k for k in range(45))  # 0.95 .. 0.0093: the radius ladder
_R_BELOW = 0.999  # the bisection's band below |x| = 1 ends here
R_ABOVE = 1.03
"""The smallest torus radius beyond ``|x| = 1`` that :func:`ridge_curve` tries: nearer 1,
removing the poles at 1 cancels about ``1/(r - 1)^2`` digits (a torus at r = 1.01 fails its
check by round-off)."""
_R_CAP = 2.0  # the largest radius the bisection above the ladder tries
_RAY_R = 0.9  # beyond |x| = 1, sectors follow the ray in u to |x| = 0.9, then the x-radius
_RADIAL_STEPS = 128  # Newton steps along that radial segment
_POLE_NODES = 64  # nodes of the circle around x = 1 whose means give F(x, 1), F(1, y), F(1, 1)
_REFINE_RTOL = 1e-3  # the bisection stops when its passing and failing radii are this close


def _torus_coefficients(p: Point, r, n):
    """``b[s, t] r^{s+t}`` for ``B(x, y) = m13(u(x), v(y)) / ((1-x)(1-y))`` on the torus
    ``|x| = |y| = r < 1`` with ``n`` points per circle (2-D FFT), ``u(x) = -x/(alpha(1-x))``;
    also ``max |B|`` on the torus."""
    x = r * np.exp(2j * np.pi * np.arange(n) / n)
    z, U, V = _circle_sectors(p, x)
    with np.errstate(all="ignore"):
        F = _torus.m13_on_torus(z, *U, z, *V, p.alpha, p.tau, p.c, p.lam)
        Bxy = F / ((1 - x)[:, None] * (1 - x)[None, :])
    if not np.all(np.isfinite(Bxy)):
        raise ArithmeticError("closed system: B is not finite on the torus")
    return np.fft.fft2(Bxy) / (n * n), float(np.abs(Bxy).max())


def _circle_sectors(p: Point, x):
    """``u(x)`` and the u- and v-sector unknowns the mixed sector needs, at the nodes ``x``
    (continued radially in x where ``|x| > 1``, see ``_solve_sector``)."""
    z = -x / (p.alpha * (1 - x))
    path = x if np.max(np.abs(x)) > 1 else None
    with np.errstate(all="ignore"):  # a node whose Newton path fails raises ArithmeticError
        us, vs = _u_sector(z, p, x=path), _v_sector(z, p, x=path)
    U = [np.ascontiguousarray(us[k], dtype=complex) for k in ("m11", "m12", "m21", "m22")]
    V = [np.ascontiguousarray(vs[k], dtype=complex) for k in ("m34", "m43", "m44")]
    return z, U, V


def _m13(p: Point, rows, cols):
    """``m13(u(x_i), v(y_j))`` for two node sets given as ``_circle_sectors`` output."""
    (zu, U, _), (zv, _, V) = rows, cols
    with np.errstate(all="ignore"):
        F = _torus.m13_on_torus(zu, *U, zv, *V, p.alpha, p.tau, p.c, p.lam)
    if not np.all(np.isfinite(F)):
        raise ArithmeticError("closed system: m13 is not finite on the torus")
    return F


def _beyond_curve(p: Point, r, n, t_max, failures=None):
    """``(E, err, aliased)`` on a torus of radius ``r > 1``, or ``None`` where it fails.

    ``F = m13(u(x), v(y))`` is analytic at ``x = 1`` and ``y = 1`` (``u = infinity`` is a
    regular point of the sectors), but ``B = F / ((1-x)(1-y))`` has poles there wherever
    ``E_inf = F(1, 1) > 0``.  They are taken out exactly::

        B = K / ((1-x)(1-y)) + G(x) / (1-y) + H(y) / (1-x) + Bh(x, y),
        K = F(1, 1),  G = (F(x, 1) - K) / (1-x),  H = (F(1, y) - K) / (1-y),

    with ``Bh`` analytic in the polydisc of F, so ``E_t = K + g_t + h_t + bh_tt``.  ``F(x, 1)``,
    ``F(1, y)`` and ``K`` are means over ``M = 64`` nodes of the circle ``|x - 1| = (r-1)/2``
    (Cauchy's formula; their error is bounded by the difference to every second node, plus
    ``8 u max|F|`` for the rounding of the mean ``K``: where ``E_inf = 0`` it is round-off).  ``G``,
    ``H`` and ``Bh`` are read off 1-D and 2-D FFTs on the circle ``|x| = r`` (nodes half a step
    off the real axis) with the check of ``_torus_curve`` on each; the bound adds their
    ``2 max(nu, floor) r^-t`` (1-D) and ``r^-2t`` (2-D) terms, the floors carrying the
    cancellation in the numerators of ``G``, ``H`` and ``Bh`` near ``x = 1``."""
    u = np.finfo(float).eps
    x = r * np.exp(2j * np.pi * (np.arange(n) + 0.5) / n)
    near = 1 + (r - 1) / 2 * np.exp(2j * np.pi * (np.arange(_POLE_NODES) + 0.5) / _POLE_NODES)
    try:
        ring, one = _circle_sectors(p, x), _circle_sectors(p, near)
        Fxy, Fx1, F1y, F11 = (
            _m13(p, a, b) for a, b in ((ring, ring), (ring, one), (one, ring), (one, one))
        )
    except (ArithmeticError, np.linalg.LinAlgError):
        _failed(failures, np.inf, np.inf)
        return None
    K, fx1, f1y = F11.mean(), Fx1.mean(1), F1y.mean(0)
    dK = abs(F11[::2, ::2].mean() - K)
    dx1 = float(np.abs(Fx1[:, ::2].mean(1) - fx1).max())
    d1y = float(np.abs(F1y[::2].mean(0) - f1y).max())
    maxF = float(max(np.abs(Fxy).max(), np.abs(F11).max()))
    if max(dK, dx1, d1y) > 1e-12 * maxF:
        _failed(failures, np.inf, np.inf)  # Cauchy's means not converged: a singularity near 1
        return None
    w = 1 - x
    wmin = float(np.abs(w).min())
    Bh = (Fxy - fx1[:, None] - f1y[None, :] + K) / (w[:, None] * w[None, :])
    G, H = (fx1 - K) / w, (f1y - K) / w
    phase = np.exp(-1j * np.pi * np.arange(n) / n)  # x_j = r w^(j + 1/2)
    cb = np.fft.fft2(Bh) / (n * n) * phase[:, None] * phase[None, :]
    cg, ch = np.fft.fft(G) / n * phase, np.fft.fft(H) / n * phase
    half = n // 2
    nu = max(float(np.abs(cb[half:, :]).max()), float(np.abs(cb[:half, half:]).max()))
    nu_g, nu_h = float(np.abs(cg[half:]).max()), float(np.abs(ch[half:]).max())
    floor = u * float(np.abs(Bh).max()) + (dx1 + d1y + dK + 4 * u * maxF) / wmin**2
    floor_g = u * float(np.abs(G).max()) + (dx1 + dK + 2 * u * maxF) / wmin
    floor_h = u * float(np.abs(H).max()) + (d1y + dK + 2 * u * maxF) / wmin
    t = np.arange(t_max + 1)
    with np.errstate(over="ignore"):
        E = np.real(K + (cg[t] + ch[t]) * r ** (-1.0 * t) + cb[t, t] * r ** (-2.0 * t))
    scale = max(float(np.abs(Bh).max()), float(np.abs(G).max()), float(np.abs(H).max()), maxF)
    if max(nu, nu_g, nu_h) > 1e-12 * scale or abs(E[0] - 1.0) > 1e-10:
        _failed(failures, max(nu, nu_g, nu_h) / scale, abs(E[0] - 1.0))
        return None
    with np.errstate(over="ignore"):
        err = (
            2.0 * max(nu, floor) * r ** (-2.0 * t)
            + 2.0 * (max(nu_g, floor_g) + max(nu_h, floor_h)) * r ** (-1.0 * t)
            + dK
            + 8 * u * float(np.abs(F11).max())  # rounding of the mean K
        )
    return E, err, bool(nu > floor or nu_g > floor_g or nu_h > floor_h)


def _failed(failures, nu_rel, e0_off):
    """Note in ``failures`` (a list, or ``None``) whether a torus that failed the check did so
    softly, as aliasing does (``nu`` and ``|E_0 - 1|`` below 1e-6: more points per circle may
    accept it), or hard (a singularity inside)."""
    if failures is not None:
        failures.append(bool(nu_rel <= 1e-6 and e0_off <= 1e-6))


class RidgeCurve(NamedTuple):
    """The error curve of the closed system (:func:`ridge_curve`), its error bound and the
    torus radius used."""

    E: np.ndarray
    """``E_0 .. E_{t_max}`` (``E_0 = 1`` exactly, every ``E_t >= 0``)."""
    error: np.ndarray
    """Bound on ``|E_t - exact|`` at each depth (see :func:`ridge_curve`)."""
    radius: float
    """Radius ``r`` of the torus ``|x| = |y| = r`` the coefficients were read on."""


class RidgeAccuracyError(domain.AccuracyError):
    """:func:`ridge_curve` could not certify the curve; ``certified_to`` is the deepest depth
    to which it was certified (every shallower one too), ``None`` where no torus served;
    ``radius`` and ``n`` name the torus that certified it: ``ridge_curve(..., certified_to,
    n=n, radius=radius)`` returns that curve (a search for ``certified_to`` alone may take
    another torus)."""

    def __init__(self, message, certified_to, radius=None, n=None):
        super().__init__(message)
        self.certified_to = certified_to
        self.radius = radius
        self.n = n


def _torus_curve(p: Point, r, n, t_max, failures=None):
    """The curve on one torus, or ``None`` where the torus fails the analyticity check.

    The FFT of ``B`` on ``|x| = |y| = r`` holds ``b[s, t] r^{s+t}`` in its bins ``s, t < n/2``
    only if ``B`` is analytic in the polydisc of radius ``r``: a singularity inside adds a
    principal part, i.e. *negative* powers, which land in the bins ``>= n/2``.  Those bins also
    hold the aliased Taylor coefficients of degree ``>= n/2``, so their largest modulus ``nu``
    bounds both a principal part and the aliasing of the bins read.  The torus is accepted when
    ``nu <= 1e-12 max|B|`` and the constant term is ``E_0 = B(0, 0) = 1`` to ``1e-10``; the error
    of ``E_t`` is then ``2 max(nu, u max|B|) / r^{2t}`` (``u`` the unit roundoff; the FFT's
    rounding error per bin shows in ``nu`` itself).  Returns ``(E, err, aliased)``:
    ``aliased`` says that ``nu`` sets the bound (``nu > u max|B|``), so more points per circle
    would lower it (measured: at rounding level ``nu`` is 0.01-0.06 ``u max|B|``).  A torus
    beyond ``|x| = 1`` goes through ``_beyond_curve``, which takes the poles of B at ``x = 1``
    and ``y = 1`` out first.
    """
    if r > 1:
        return _beyond_curve(p, r, n, t_max, failures)
    try:
        coef, bmax = _torus_coefficients(p, r, n)
    except (ArithmeticError, np.linalg.LinAlgError):
        _failed(failures, np.inf, np.inf)
        return None
    half = n // 2
    nu = max(float(np.abs(coef[half:, :]).max()), float(np.abs(coef[:half, half:]).max()))
    if nu > 1e-12 * bmax or abs(coef[0, 0] - 1.0) > 1e-10:
        _failed(failures, nu / bmax, abs(coef[0, 0] - 1.0))
        return None
    t = np.arange(t_max + 1)
    floor = np.finfo(float).eps * bmax
    with np.errstate(over="ignore"):
        scale = r ** (-2.0 * t)
        E = np.real(coef[t, t]) * scale
        err = 2.0 * max(nu, floor) * scale
    return E, err, bool(nu > floor)


@on_one_blas_thread
def ridge_curve(
    alpha, tau, sigma2, t_max, *, lam, n=None, radius=None, rtol=RIDGE_RTOL, atol=1e-12
):
    """``E_0 .. E_{t_max}`` in the limit, for any ``lam >= 0``, from the closed system (App. C.9).

    ``E_t = [x^t y^t] B(x, y)`` with ``B = m13(u(x), v(y)) / ((1-x)(1-y))`` and
    ``u(x) = -x / (alpha (1 - x))``: summing ``x^s (I - A S/alpha)^s`` over ``s`` gives
    ``(I - u(x) A S)^{-1} / (1 - x)``, so B generates the mixed moments of the CoT error
    (App. C.2, Eq. generalization_from_F, with the change of variables of App. D).  The diagonal
    coefficients are read off a 2-D FFT of B on the torus ``|x| = |y| = r`` (``n`` points per
    circle, default the larger of 512 and the power of two >= ``2 t_max + 8``).

    **Which torus.**  The coefficients are those of the Taylor series only if B is analytic in
    the polydisc ``|x|, |y| <= r``.  Each torus on the ladder ``r = 0.95 * 0.9^k`` is checked
    (see ``_torus_curve``): a singularity inside puts negative powers into the FFT, and the
    constant term must be ``E_0 = 1``.  The largest torus that passes is used if the next
    passing torus below it gives the same curve within the two error bounds (a second,
    independent contour); otherwise the search goes on down the ladder.  If that curve is not
    certified, a bisection in ``r`` (see ``_refine``) looks for the torus that certifies most
    depths among those that pass the check and agree with the ladder's curve: the bound
    ``2 max(nu, u max|B|) r^-2t`` grows more slowly with ``t`` on a larger torus.  It searches
    two bands apart, from the ladder's radius to 0.999 and, where the ladder's top rung 0.95
    passed, from 1.03 to 2: B has poles at ``x = 1`` and ``y = 1`` where ``E_inf > 0``, so
    every torus near ``r = 1`` fails; beyond it they are taken out exactly (``_beyond_curve``)
    and the sectors are continued radially in x (``_solve_sector``).  ``radius`` fixes the
    torus instead, with the same checks.

    **Certified output.**  ``E_0 = 1`` exactly and ``E_t >= 0``: a value more negative than its
    error bound is an :class:`~cotbook.theory.domain.AccuracyError`, one within it is
    returned as 0.  Every depth must meet ``error_t <= rtol |E_t| + atol``, else
    ``AccuracyError`` names the first depth that does not and the accuracy it reached (a
    :class:`RidgeAccuracyError`, whose ``certified_to`` is the deepest depth certified).

    **Points per circle.**  Without ``n`` the search starts at the default; ``n`` doubles while
    no two tori of the ladder agree, then, after each bisection, until the curve is certified
    or :data:`RIDGE_N_MAX` is reached: a larger ``n`` moves the radius where aliasing stops a
    torus, ``(r/R)^(n/2) ~ 1e-12``, closer to B's singularity ``R``.  A refusal names the
    deepest depth certified and the torus (``radius``, ``n``) that certified it, which returns
    it when given.  Measured with ``t_max = 1000`` at ``sigma2 = 0.01`` and ``lam`` = 1e-5 and
    0.1: ``(alpha, tau) = (2, 3), (2, 10), (4, 10), (0.5, 10)`` and ``(2, 0.5)`` at
    ``lam = 0.1`` are certified to ``t = 1000`` (4-20 s; 55 s at ``(2, 3, 1e-5)``, whose
    singularity lies inside ``r = 1``: ``r = 0.984``, ``n = 8192``).  ``(2, 0.5, lam = 1e-3)``
    refuses at ``t = 177``: its singularity lies just beyond ``x = 1``.  Before the bisection
    the ladder's ``r <= 0.95`` certified 63-173.

    Parameters
    ----------
    alpha, tau : float
        ``L/D > 0``, ``M/D > 0`` (``tau > 1`` when ``lam = 0``).
    sigma2 : float
        Noise variance ``>= 0``.
    t_max : int
        Deepest CoT step, ``0 <= t_max <=`` :data:`RIDGE_T_MAX`.
    lam : float
        Ridge ``>= 0`` (the loss carries ``lam/2 |A|^2``).
    n : int, optional
        Points per circle of the torus, ``2 t_max + 8 <= n <= 2 RIDGE_T_MAX + 8`` rounded up to
        a power of two (fixed: no escalation).
    radius : float, optional
        A fixed torus radius in ``(0, 2]`` (not 1) instead of the search.
    rtol, atol : float
        Accuracy required at every depth: ``error_t <= rtol |E_t| + atol``.

    Returns
    -------
    RidgeCurve
        ``E`` (``E_0 .. E_{t_max}``), its ``error`` bound and the ``radius`` used.

    Examples
    --------
    >>> curve = ridge_curve(2.0, 3.0, 0.01, 3, lam=0.1)
    >>> curve.E.round(6).tolist(), curve.radius
    ([1.0, 0.481043, 0.267786, 0.184779], 0.95)
    """
    p = Point.of(alpha, tau, sigma2, lam)
    t_max = _checks.nonneg_int("t_max", t_max)
    if t_max > RIDGE_T_MAX:
        raise ValueError(f"t_max must be <= {RIDGE_T_MAX} (RIDGE_T_MAX) when lam > 0, got {t_max}")
    n_cap = RIDGE_N_MAX
    n_given = n is not None
    if n is None:
        n = max(512, 1 << (2 * t_max + 8 - 1).bit_length())
    n = _checks.positive_int("n", n)
    if not 2 * t_max + 8 <= n <= n_cap:
        raise ValueError(
            f"n must be in [2 t_max + 8, {n_cap}] = [{2 * t_max + 8}, {n_cap}], got {n}"
        )
    rtol = _checks.positive("rtol", rtol)
    atol = _checks.positive("atol", atol)
    if radius is not None:
        r = _checks.positive("radius", radius)
        if r > _R_CAP or r == 1:
            raise ValueError(f"radius must be in (0, {_R_CAP:g}] and not 1, got {radius!r}")
        found = _torus_curve(p, r, n, t_max)
        if found is None:
            raise RidgeAccuracyError(
                f"ridge_curve: the torus of radius {r:g} fails the analyticity check at "
                f"{p} (a singularity of B inside it, or aliasing)",
                None,
            )
        return _certified(p, *found[:2], r, n, rtol, atol)
    # the ladder: n escalates until two of its tori agree (if the largest failed the check by
    # aliasing, a larger n accepts it); then the bisection above the torus the ladder used, at
    # this n and at each doubling
    refused, base, bands = None, None, []
    while True:
        if base is None:
            found = _ladder(p, n, t_max)
            if found is not None:
                E, err, r, aliased = found
                try:
                    return _certified(p, E, err, r, n, rtol, atol)
                except RidgeAccuracyError as refusal:
                    refused = refusal
                k = _RADII.index(r)
                base = (E, err)
                # below |x| = 1 and, above the top rung, beyond it: B's poles at x = 1 (where
                # E_inf > 0) make every torus near r = 1 fail, so the two are searched apart
                bands = [[r, _R_BELOW]]  # a rung above that failed by aliasing may pass later
                if not k:
                    bands.insert(0, [R_ABOVE, _R_CAP])
        for band in list(bands):
            found, edge, soft = _refine(p, n, t_max, base, *band, rtol, atol)
            if found is None:
                if not soft:  # every torus tried encloses a singularity: drop the band
                    bands.remove(band)
                continue
            # aliasing stops a torus at n points once (r/R)^(n/2) ~ 1e-12, so the failing radius
            # nearest below the singularity R satisfies R ~ edge exp(55/n): the next n searches
            # up to there (a failure of any other cause only narrows the search)
            E, err, band[0], aliased = found
            band[1] = min(band[1], edge * math.exp(64 / n))
            try:
                return _certified(p, E, err, band[0], n, rtol, atol)
            except RidgeAccuracyError as refusal:
                if _reach(refusal) > _reach(refused):
                    refused = refusal
        if n_given or 2 * n > n_cap or (base is not None and not bands):
            raise refused if refused is not None else _no_torus(p)
        n *= 2


def _refine(p: Point, n, t_max, base, lo, hi, rtol, atol):
    """``(E, err, r, aliased)`` on the torus in ``(lo, hi)`` that certifies the most leading
    depths (``err_t <= rtol |E_t| + atol``) among those a bisection in ``r`` tries, to relative
    width :data:`_REFINE_RTOL`, at ``n`` points per circle; each must pass the check and agree
    with the ladder's curve ``base = (E, err)`` within both bounds (``None`` if none does); the
    smallest radius the bisection moved down from (``hi`` if none); and whether any torus
    failed the check softly, as aliasing does (see ``_failed``).  The band beyond ``|x| = 1``
    (``lo = 1.03``) is entered only if its lowest torus passes.

    The bisection moves up past a torus whose bound rounding sets and down past one whose bound
    aliasing sets (or that fails): its error ``2 max(nu, u max|B|) r^-2t`` falls with ``r``
    while rounding sets it, but near the singularity ``nu`` grows like ``(r/R)^(n/2)``, faster
    than ``r^-2t`` falls for ``t < n/4``.  Measured at ``(2, 3, 0.01, lam = 1e-5)``,
    ``n = 2048``: ``r = 0.9742`` (aliased) certifies ``t <= 438``, ``r = 0.9773`` only 281."""
    best, best_depth, failures = None, -1, []
    first = lo if lo == R_ABOVE else None  # the band beyond |x| = 1 starts at its lowest torus
    while hi > lo * (1 + _REFINE_RTOL):
        r, first = (first, None) if first else (math.sqrt(lo * hi), None)
        found = _torus_curve(p, r, n, t_max, failures)
        with np.errstate(invalid="ignore"):
            agrees = found is not None and np.all(np.abs(found[0] - base[0]) <= found[1] + base[1])
        if not agrees:
            if r == R_ABOVE:  # no torus beyond |x| = 1 at this n
                break
            hi = r
            continue
        E, err, aliased = found
        with np.errstate(invalid="ignore"):
            bad = ~(err <= rtol * np.abs(E) + atol)
        depth = int(np.argmax(bad)) if bad.any() else len(E)
        if depth > best_depth:
            best, best_depth = (E, err, r, aliased), depth
        if depth == len(E):  # every depth certified: no larger torus is needed
            break
        if aliased:
            hi = r
        else:
            lo = r
    return best, hi, any(failures)


def _reach(err: RidgeAccuracyError) -> int:
    return -1 if err.certified_to is None else err.certified_to


def _no_torus(p: Point) -> RidgeAccuracyError:
    return RidgeAccuracyError(
        f"ridge_curve: no two tori of radii in [{_RADII[-1]:.3g}, {_RADII[0]}] passed the "
        f"analyticity check and agreed at {p}",
        None,
    )


def _ladder(p: Point, n, t_max):
    """``(E, err, r, aliased)`` on the largest torus of the ladder that passes the check and
    agrees with the next passing one below it within both bounds (:func:`ridge_curve`);
    ``None`` where no two do."""
    curves: dict = {}

    def at(k):  # the curve on rung k of the ladder (None: fails the check), computed once
        if k not in curves:
            curves[k] = _torus_curve(p, _RADII[k], n, t_max)
        return curves[k]

    # coarse descent (every 4th rung) to the first passing rung, then up while rungs pass
    k = next((k for k in range(0, len(_RADII), 4) if at(k) is not None), None)
    if k is None:
        return None
    top = k
    while top > max(0, k - 3) and at(top - 1) is not None:
        top -= 1
    for j in range(top, len(_RADII) - 1):
        if at(j) is None or at(j + 1) is None:
            continue
        (E1, err1, aliased), (E2, err2, _) = at(j), at(j + 1)
        with np.errstate(invalid="ignore"):
            if np.all(np.abs(E1 - E2) <= err1 + err2):
                return E1, err1, _RADII[j], aliased
    return None


def _certified(p: Point, E, err, r, n, rtol, atol) -> RidgeCurve:
    """Apply the invariants and the accuracy rule of :func:`ridge_curve`."""
    E = E.copy()
    E[0], err = 1.0, err.copy()
    err[0] = 0.0
    with np.errstate(invalid="ignore"):
        bad = ~(np.isfinite(E) & np.isfinite(err) & (err <= rtol * np.abs(E) + atol))
    if bad.any():
        t = int(np.argmax(bad))
        raise RidgeAccuracyError(
            f"ridge_curve: E_{t} at {p} is known to +-{err[t]:.3g} (value {E[t]:.6g}, torus radius "
            f"{r:.6g}, n = {n}), more than rtol |E_t| + atol = {rtol * abs(E[t]) + atol:.3g}",
            t - 1,
            r,
            n,
        )
    if np.any(E < -err):
        t = int(np.argmax(E < -err))
        raise RidgeAccuracyError(
            f"ridge_curve: E_{t} = {E[t]:.6g} < 0 beyond its error bound {err[t]:.3g} at {p} "
            f"(torus radius {r:.6g}, n = {n})",
            t - 1,
            r,
            n,
        )
    return RidgeCurve(np.maximum(E, 0.0), err, r)


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


def depth_map(alpha, sigma2, taus, lams, t_max) -> dict:
    """For each ``lam``: the optimal depth ``t*(tau)`` (capped at ``t_max``) and ``E_{t*}``.

    An interior minimum (``t* < t_max``) means overthinking within the horizon: E_t rises again.
    Returns ``{lam: {"t_star": int array, "E_star": array, "E_end": array}}`` over ``taus``.
    """
    out = {}
    for lam in lams:
        ts, es, ee = [], [], []
        for tau in taus:
            E = ridge_curve(alpha, tau, sigma2, t_max, lam=lam).E
            ts.append(int(np.argmin(E)))  # the first minimum on ties
            es.append(E[ts[-1]])
            ee.append(E[-1])
        out[lam] = {"t_star": np.array(ts), "E_star": np.array(es), "E_end": np.array(ee)}
    return out
