"""The lambda = 0 engine: the error curve E_t of Result 1 from its closed form.

(lambda > 0 is the closed system of Appendix C.9, :mod:`cotbook.theory.derivation`; the face
:func:`cotbook.theory.error_curve` dispatches between the two.)

Notation follows the paper: ``alpha = L/D``, ``tau = M/D``, ``sigma2`` = noise *variance*
sigma^2, ``t`` = CoT depth, ``c = 1 + (1 + sigma2)/alpha`` and
``beta = (1 + sigma2)/(alpha (tau - 1))``.

Three ways to get E_0, ..., E_T (all evaluate Result 1 exactly; they differ in cost and in how
rounding errors are controlled):

``method="recursion"``
    The paper's own algorithm (Appendix "Numerical evaluation of the theoretical prediction"):
    the h_n recurrence, the 2-D coefficient recursion ``D(x,y) B(x,y) = alpha p(x) p(y)`` and
    ``E_t = b_{t,t}``, in mpmath.  O(T^4) (we use the symmetry b_{m,n} = b_{n,m} and mpmath's
    ``fdot`` for the inner sums).  This is the reference.

``method="lagrange"`` / ``method="lagrange_mp"``
    Lagrange-Buermann inversion (derived in ``book/numerics.md``).  With a = 1 - h(x) one has
    x = a / phi(a), phi(a) = (alpha + sigma2 a + a^2)/(alpha + 1 + sigma2), and Result 1 becomes

        E_t = [a^t b^t]  R(a) phi(a)^t R(b) phi(b)^t * alpha / D(a, b),
        R(a) = (alpha - a^2)/(alpha - a),
        D(a, b) = alpha - gamma a b + beta a b (a + b),   gamma = 1 + beta (alpha + 1).

    1/D is a *rational* function whose coefficients Q_{n,m} = [a^m b^n] alpha/D obey a
    three-term recurrence, so E_t = w_t^T Q w_t is a finite quadratic form (O(t^2) per depth,
    O(T^3) for the whole curve, a single BLAS-3 product).  ``lagrange`` runs it in float64 with a
    running (a-priori) error bound; ``lagrange_mp`` runs the same sums in mpmath.  In float64 the
    vectors w_t carry one binary exponent per entry (their entries span far more than the
    float64 range at depths in the thousands), so no entry is lost to underflow and the bound
    covers every operation actually performed.

``method="auto"`` (default)
    float64 Lagrange plus its a-priori (worst-case) rounding-error bound; every depth whose
    bound exceeds ``rtol * max(|E_t|, tiny)`` (or whose float64 evaluation overflowed) is first
    recomputed by contour integrals through the saddle points (:mod:`cotbook.theory.contour`,
    well conditioned at any depth), then in x87 extended precision (long double, where
    available and cheap) and, if that still fails, with ``lagrange_mp`` at a precision chosen
    from the bound, and that value is confirmed by a second run at 15 more digits.  If the
    two disagree by more than ``rtol`` an :class:`AccuracyError` is raised.  Nothing is
    returned that has not been vouched for to ``rtol`` (default 1e-10).

Astronomically small / large values: results are float64.  ``tiny = 1e-300`` is the absolute
floor of the accuracy criterion, i.e. an E_t below ~1e-290 is guaranteed to an absolute error
of ``rtol * 1e-300`` only (it may be returned as a subnormal number or 0.0 when it underflows).
E_t above the float64 range (deep overthinking, e.g. tau -> 1) is returned as ``+inf``; this is
a correct statement that E_t > 1.8e308, never a NaN.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from .._checks import nonneg_int, positive, positive_int
from . import _recurrences, contour, domain

__all__ = [
    "AccuracyError",
    "g",
    "m13",
    "h_coefficients",
    "ridgeless_curve",
    "error_grid",
    "error_at",
    "errors_at",
    "derivative_formula",
    "negative_singular_root",
    "RTOL_DEFAULT",
    "TINY",
]

#: Relative accuracy the ``lambda = 0`` evaluators certify unless told otherwise.
RTOL_DEFAULT = 1e-10
#: Absolute floor of the accuracy rule, ``bound <= rtol * max(|E_t|, TINY)``.
TINY = 1e-300
_U = np.finfo(float).eps / 2  # unit roundoff of float64
# float64 Lagrange (``_lagrange_float``): entries of Q below this are flushed to zero (avoids
# denormal arithmetic in the BLAS product); the bound accounts for them (fq (sum |w|)^2).
_Q_FLUSH = np.finfo(float).tiny * 1e8
_METHODS = ("auto", "recursion", "lagrange", "lagrange_mp")
# extended precision tier only if long double really is wider than double on this platform
_HAVE_LONGDOUBLE = np.finfo(np.longdouble).eps < np.finfo(np.float64).eps / 100


class AccuracyError(ArithmeticError):
    """Raised when a method cannot certify the requested accuracy."""


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------
def _params(alpha, tau, sigma2):
    alpha = domain.alpha(alpha)
    tau = domain.tau(tau)
    sigma2 = domain.sigma2(sigma2)
    return alpha, tau, sigma2


def _rtol(rtol):
    rtol = positive("rtol", rtol)
    if rtol < 1e-30 or rtol >= 1:
        raise ValueError(f"rtol must be a finite number in [1e-30, 1), got {rtol!r}")
    return rtol


def _dps(dps, default):
    if dps is None:
        return default
    if isinstance(dps, bool) or not isinstance(dps, int) or dps < 15 or dps > 10000:
        raise ValueError(f"dps must be an integer in [15, 10000], got {dps!r}")
    return dps


def _complex_array(name, value):
    arr = np.asarray(value)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise ValueError(f"{name} must be a finite real or complex number/array, got {value!r}")
    if arr.dtype == bool:
        raise ValueError(f"{name} must be a finite real or complex number/array, got {value!r}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN/inf), got {value!r}")
    return arr


# --------------------------------------------------------------------------------------------
# closed forms of Result 1
# --------------------------------------------------------------------------------------------
def g(u, alpha, sigma2):
    """Wishart resolvent g(u) of Result 1 (Appendix "Explicit solution in lambda=0").

    g(u) = (c + u(1-alpha) - sqrt((c + u(1-alpha))^2 - 4 c u)) / (2u),  c = 1 + (1+sigma2)/alpha,

    on the branch analytic at u = 0 with g(0) = 1.  Evaluated in the rationalised form
    g = 2c / (A + s), A = c + u(1-alpha), s^2 = A^2 - 4cu, with the square root ``s`` chosen on
    the same side as ``A`` (Re(s conj(A)) >= 0).  That is the analytic branch in the disc
    ``|u| < |u_b|`` around 0 (``u_b`` the nearer branch point), and its continuation along rays
    from 0 elsewhere.  Accepts real or complex scalars/arrays; returns complex for complex input.
    """
    alpha = domain.alpha(alpha)
    sigma2 = domain.sigma2(sigma2)
    u = _complex_array("u", u)
    c = 1.0 + (1.0 + sigma2) / alpha
    uc = u.astype(complex)
    A = c + uc * (1.0 - alpha)
    s = np.sqrt(A * A - 4.0 * c * uc)
    s = np.where((s * np.conj(A)).real < 0, -s, s)
    out = 2.0 * c / (A + s)
    if not np.iscomplexobj(u):
        if np.any(np.abs(out.imag) > 1e-12 * np.maximum(1.0, np.abs(out.real))):
            raise ValueError(
                "u is on the branch cut of g (real u beyond a branch point of the square root); "
                "pass complex u to choose a side"
            )
        out = out.real
    return out if out.ndim else out[()]


def m13(u, v, alpha, tau, sigma2):
    """Result 1's two-point function F(u, v) = m_13(u, v) (lambda = 0).

    F = alpha g(u) g(v) / (alpha - (g(u)-1)(g(v)-1) [1 + beta (alpha + g(u) + g(v) - 1)]),
    beta = (1+sigma2)/(alpha (tau - 1)).  Real or complex u, v (broadcast).
    """
    alpha, tau, sigma2 = _params(alpha, tau, sigma2)
    gu = np.asarray(g(u, alpha, sigma2))
    gv = np.asarray(g(v, alpha, sigma2))
    beta = (1.0 + sigma2) / (alpha * (tau - 1.0))
    den = alpha - (gu - 1.0) * (gv - 1.0) * (1.0 + beta * (alpha + gu + gv - 1.0))
    with np.errstate(divide="raise", invalid="raise"):
        out = alpha * gu * gv / den
    return out if np.ndim(out) else out[()]


def h_coefficients(alpha, sigma2, n_max, *, dps=None):
    """Taylor coefficients h_0..h_{n_max} of h(x) = g(-x/(alpha(1-x))).

    Appendix "Numerical evaluation": from x h^2 + (alpha c - (2+sigma2) x) h - alpha c (1-x) = 0,
    h_0 = 1 and h_n = ((2+sigma2) h_{n-1} - sum_{k<n} h_k h_{n-1-k} - alpha c [n=1]) / (alpha c).

    Returns float64 (computed in mpmath at ``dps`` digits, default 30, then rounded), so the
    result is correctly rounded up to underflow.  (All h_n for n >= 1 are <= 0: h = 1 - a(x) with
    a(x) a series with nonnegative coefficients by Lagrange inversion.)
    """
    alpha = domain.alpha(alpha)
    sigma2 = domain.sigma2(sigma2)
    n_max = nonneg_int("n_max", n_max)
    dps = _dps(dps, 30)
    with mp.workdps(dps):
        h = _h_mp(mp.mpf(alpha), mp.mpf(sigma2), n_max)
        return np.array([float(x) for x in h])


def _h_mp(al, s2, n_max):
    ac = al + 1 + s2  # alpha * c
    h = [mp.mpf(1)]
    for n in range(1, n_max + 1):
        sm = mp.fdot(h[:n], h[n - 1 :: -1])
        h.append(((2 + s2) * h[n - 1] - sm - (ac if n == 1 else 0)) / ac)
    return h


# --------------------------------------------------------------------------------------------
# the reference: the appendix recursion (mpmath, O(T^4))
# --------------------------------------------------------------------------------------------
def _recursion_dps(t_max):
    return max(40, 20 + t_max // 2)


def _error_curve_recursion(alpha, tau, sigma2, t_max, dps):
    """Appendix "Numerical evaluation of the theoretical prediction": b_{m,n} recursion."""
    with mp.workdps(dps):
        al, s2, ta = mp.mpf(alpha), mp.mpf(sigma2), mp.mpf(tau)
        T = t_max
        beta = (1 + s2) / (al * (ta - 1))
        gam = 1 + beta * (al + 1)
        h = _h_mp(al, s2, T)
        r = [h[0] - 1] + h[1:]
        p = []
        acc = mp.mpf(0)
        for n in range(T + 1):  # p = h/(1-x)
            acc += h[n]
            p.append(acc)
        r2 = [mp.fdot(r[: n + 1], r[n::-1]) for n in range(T + 1)]
        # d_{i,j} for i, j >= 1 (r_0 = 0, so d_{i,0} = d_{0,j} = 0 except d_{0,0} = alpha)
        d = [
            [-(gam * r[i] + beta * r2[i]) * r[j] - beta * r[i] * r2[j] for j in range(T + 1)]
            for i in range(T + 1)
        ]
        b = [[None] * (T + 1) for _ in range(T + 1)]
        for m in range(T + 1):
            for n in range(m, T + 1):
                if m == 0:
                    val = p[0] * p[n]  # no (i >= 1) terms
                else:
                    s = mp.fsum(
                        mp.fdot(d[i][1 : n + 1], b[m - i][n - 1 :: -1]) for i in range(1, m + 1)
                    )
                    val = p[m] * p[n] - s / al
                b[m][n] = val
                b[n][m] = val
        return np.array([float(b[t][t]) for t in range(T + 1)])


# --------------------------------------------------------------------------------------------
# Lagrange-Buermann quadratic form
# --------------------------------------------------------------------------------------------
def _lagrange_coeffs_rounded(alpha, tau, sigma2, rho):
    """g1, g2, (phi~_0, phi~_1, phi~_2), q = rho/alpha and 1 - alpha for the float64 inputs and
    this float64 rho, each computed at 40 digits and rounded once (relative error <= u), so that
    a coefficient raised to the power k contributes k roundings to the a-priori bound."""
    with mp.workdps(40):
        al, ta, s2, r = mp.mpf(alpha), mp.mpf(tau), mp.mpf(sigma2), mp.mpf(rho)
        K = al + 1 + s2
        beta = (1 + s2) / (al * (ta - 1))
        gam = 1 + beta * (al + 1)
        vals = (gam * r * r / al, beta * r**3 / al, al / (K * r), s2 / K, r / K, r / al, 1 - al)
        g1, g2, p0, p1, p2, q, c1 = (float(x) for x in vals)
    return g1, g2, (p0, p1, p2), q, c1


def _Q_matrix(g1, g2, T, absolute=False):
    """Q[n, m] = [a^m b^n] alpha / D(rho a, rho b) (three-term recurrence)."""
    return _Q_matrices(g1, g2, T, (1.0 if absolute else -1.0,))[0]


def _Q_matrices(g1, g2, T, signs):
    """:func:`_Q_matrix` with ``g2`` multiplied by each sign, in one compiled recurrence:
    (-1,) is Q, (+1,) the matrix of |Q| (every term of Q with its sign dropped)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _recurrences.q_matrices(float(g1), float(g2), int(T), np.array(signs, dtype=float))


def negative_singular_root(alpha, tau, sigma2):
    """``|a_-|``: the negative real root ``a_-`` of the symmetric singular condition of Result
    2's appendix, ``a^2 [1 + beta (alpha + 1 - 2a)] = alpha`` (unique for ``a < 0``).

    It is also the radius of the largest torus ``|a| = |b| = r`` on which ``D(a, b)`` (Lagrange
    form) does not vanish, so ``r = |a_-|`` keeps the scaled coefficients of ``1/D`` bounded.
    """
    alpha, tau, sigma2 = _params(alpha, tau, sigma2)
    beta = (1.0 + sigma2) / (alpha * (tau - 1.0))
    gam = 1.0 + beta * (alpha + 1.0)
    # s > 0 solves s^2 (gam + 2 beta s) = alpha; f is increasing and convex on s > 0
    s = math.sqrt(alpha / gam)
    for _ in range(200):
        f = s * s * (gam + 2 * beta * s) - alpha
        df = 2 * s * gam + 6 * beta * s * s
        s_new = s - f / df
        if abs(s_new - s) <= 4 * _U * s:
            s = s_new
            break
        s = s_new
    return s


def _pow2(d):
    """2.0**d for integer arrays d <= 0 (exact), and 0.0 where d < -960 (bit construction)."""
    b = d + 1023
    b[b < 63] = 0
    return (b << 52).view(np.float64)


def _ext_powers(q, n):
    """q^0..q^{n-1} as (mantissa, exponent) arrays, relative error <= k u at index k."""
    m = np.empty(n)
    e = np.empty(n, dtype=np.int64)
    mk, ek = 0.5, 1
    for k in range(n):
        m[k], e[k] = mk, ek
        mk, de = math.frexp(mk * q)
        ek += de
    return m, e


class _RPhi:
    """v_t = R~ phi~^t (coefficients 0..T), as P + (1 - alpha) N with
    P = [1, q] * phi~^t and N = [0, 0, q^2, q^3, ...] * phi~^t; both have nonnegative terms only.

    Two representations, both exact up to the usual few roundings per operation *relative to
    each entry itself* (no entry is ever lost to underflow or flushing):

    * fast: one array per row scaled by a power of two, used while every structurally nonzero
      entry is >= 2^-800 of its row's maximum (then no product or sum in a step can underflow:
      the phi~ coefficients are checked to lie in [2^-100, 2^100]);
    * per-entry: a mantissa in [0.5, 1) and an integer exponent for each entry, once the entries
      span more than that (q = rho/alpha > 1 and T in the thousands: the entries that depth t
      reads are then 10^-140 .. 10^-500 of the largest, which only later depths read).
    """

    SENT = -(1 << 40)  # exponent of a zero entry (per-entry representation)
    FAST_MIN = 2.0**-800
    DROP = 2.0**-960  # window entries below this (relative to the window scale) are dropped

    def __init__(self, q, ph, n):
        self.n = n
        self.ph = ph
        self.pm = [math.frexp(p) for p in ph]  # ph_i = pm_i[0] * 2**pm_i[1]; ph0, ph2 > 0
        M = np.zeros((2, n))
        X = np.full((2, n), self.SENT, dtype=np.int64)
        M[0, 0], X[0, 0] = 0.5, 1
        if n >= 2:
            M[0, 1], X[0, 1] = math.frexp(q)
        if n >= 3:
            mq, xq = _ext_powers(q, n)
            M[1, 2:], X[1, 2:] = mq[2:], xq[2:]
        self.M, self.X = M, X
        self.steps = 0
        nz = [p for p in ph if p != 0.0]
        self.fast = min(nz) >= 2.0**-100 and max(nz) <= 2.0**100 and self._to_fast()

    def _to_fast(self):
        V = np.zeros((2, self.n))
        sc = np.zeros(2, dtype=np.int64)
        for r in (0, 1):
            nz = self.M[r] != 0.0
            if not nz.any():
                continue
            xr = self.X[r][nz]
            top = int(xr.max())
            if int(xr.min()) < top - 799:
                return False
            V[r] = self.M[r] * _pow2(self.X[r] - top)
            sc[r] = top
        self.V, self.sc = V, sc
        return True

    def _to_ext(self):
        M, de = np.frexp(self.V)
        X = de.astype(np.int64) + self.sc[:, None]
        X[M == 0.0] = self.SENT
        self.M, self.X = M, X
        self.fast = False

    def step(self):
        """v <- phi~ v (coefficients 0..T)."""
        ph, pm = self.ph, self.pm
        self.steps += 1
        if self.fast:
            V = self.V
            S = ph[0] * V
            if ph[1] != 0.0:
                S[:, 1:] += ph[1] * V[:, :-1]
            S[:, 2:] += ph[2] * V[:, :-2]
            mx = S.max(axis=1)
            for r in (0, 1):
                if mx[r] > 0.0:
                    e = math.frexp(mx[r])[1]
                    S[r] *= math.ldexp(1.0, -e)
                    self.sc[r] += e
            self.V = S
            kp = min(self.n, 2 * self.steps + 2)  # P_k > 0 exactly for k <= 2 steps + 1
            if S[0, :kp].min() < self.FAST_MIN or (self.n > 2 and S[1, 2:].min() < self.FAST_MIN):
                self._to_ext()
            return
        X, M = self.X, self.M
        te0 = X + pm[0][1]
        emax = te0.copy()
        if ph[1] != 0.0:
            te1 = X[:, :-1] + pm[1][1]
            np.maximum(emax[:, 1:], te1, out=emax[:, 1:])
        te2 = X[:, :-2] + pm[2][1]
        np.maximum(emax[:, 2:], te2, out=emax[:, 2:])
        S = (pm[0][0] * M) * _pow2(te0 - emax)
        if ph[1] != 0.0:
            S[:, 1:] += (pm[1][0] * M[:, :-1]) * _pow2(te1 - emax[:, 1:])
        S[:, 2:] += (pm[2][0] * M[:, :-2]) * _pow2(te2 - emax[:, 2:])
        M, de = np.frexp(S)
        X = emax + de
        X[M == 0.0] = self.SENT
        self.M, self.X = M, X

    def window(self, t):
        """(p, nn, ew): P_{t-m}, N_{t-m} (m = 0..t) times 2^-ew, ew an integer such that the
        window's largest entry is in [0.5, 1); entries below DROP are set to 0."""
        if self.fast:
            segs = [self.V[r, t::-1] for r in (0, 1)]
            tops = [s.max() for s in segs]
            ex = [int(self.sc[r]) + math.frexp(tops[r])[1] for r in (0, 1) if tops[r] > 0.0]
            ew = max(ex)
            out = []
            for r in (0, 1):
                if tops[r] > 0.0 and int(self.sc[r]) - ew >= -2000:
                    x = segs[r] * math.ldexp(1.0, int(self.sc[r]) - ew)
                    x[x < self.DROP] = 0.0
                else:
                    x = np.zeros(t + 1)
                out.append(x)
            return out[0], out[1], ew
        ew = int(self.X[:, : t + 1].max())
        p = self.M[0, t::-1] * _pow2(self.X[0, t::-1] - ew)
        nn = self.M[1, t::-1] * _pow2(self.X[1, t::-1] - ew)
        return p, nn, ew


_LEAN_N = 512  # curves up to this many depths try _lean_windows first


def _lean_windows(q, ph, c1, n):
    """The windows of all depths ``0 .. n-1`` at once, as :class:`_RPhi` makes them one by one.

    Column ``t`` of ``W`` is ``w_m = v_t[t - m]`` (``m <= t``), ``v_t = P_t + (1 - alpha) N_t``,
    scaled by ``2^-L[t]`` so that the window's largest entry of ``P_t`` or ``N_t`` is in
    [0.5, 1); ``Wa`` the same with ``|1 - alpha|``.  The rows ``P_t``, ``N_t`` are run without
    rescaling, so this is used only when every structurally positive entry stays within
    ``[2^-900, 2^900]``: then each entry carries the same few roundings relative to itself as in
    ``_RPhi`` and the a-priori bound is unchanged.  ``None`` otherwise (and for ``n > 512``).
    """
    if n > _LEAN_N:
        return None
    first = np.zeros((2, n))  # P_0 = [1, q], N_0 = [0, 0, q^2, q^3, ...]
    first[0, 0] = 1.0
    if n >= 2:
        first[0, 1] = q
    if n >= 3:
        first[1, 2:] = np.power(q, np.arange(2, n, dtype=float))
    with np.errstate(all="ignore"):
        PN = _recurrences.rphi_rows(first, *ph)  # PN[t, 0] = P_t, PN[t, 1] = N_t
    P, N = PN[:, 0], PN[:, 1]
    k = np.arange(n)
    support = k[None, :] <= 2 * k[:, None] + 1  # P_t[k] > 0 exactly there
    pos = np.concatenate([P[support], N[:, 2:].ravel()])
    if pos.size and not (
        np.all(np.isfinite(pos)) and pos.min() >= 2.0**-900 and pos.max() <= 2.0**900
    ):
        return None
    lag = k[None, :] - k[:, None]  # t - m, for row m and column t
    inside = lag >= 0
    cols = np.broadcast_to(k[None, :], (n, n))
    idx = np.where(inside, lag, 0)
    Pw = np.where(inside, P[cols, idx], 0.0)
    Nw = np.where(inside, N[cols, idx], 0.0)
    top = np.maximum(Pw.max(axis=0), Nw.max(axis=0))
    L = np.frexp(top)[1].astype(np.int64)
    scale = np.ldexp(1.0, -L)
    Pw *= scale
    Nw *= scale
    return Pw + c1 * Nw, Pw + abs(c1) * Nw, L


def _lagrange_float(alpha, tau, sigma2, t_max, rho=None, want_bound=True):
    """float64 E_0..E_T and an a-priori rounding-error bound for each depth.

    Lagrange-Buermann form of Result 1 (Appendix "Numerical evaluation of the theoretical
    prediction" evaluates the same E_t by its b_{m,n} recursion; derivation in
    ``book/numerics.md``).  Scaling a -> rho a (exact for any rho > 0) with rho = |a_-| keeps Q
    bounded.  The vectors v_t = R~ phi~^t (truncated to degree T) are carried by :class:`_RPhi`
    as P + (1 - alpha) N, two recurrences with nonnegative terms, so every entry is known to a
    few roundings per step relative to itself, however small it is compared with the other
    entries (the entries that depth t reads, indices <= t, can be 10^-500 of the largest when
    q = rho/alpha > 1: a vector normalised by one common scale loses them to underflow or
    flushing, and that lost mass returns at later depths).  Depth t normalises its window
    (entries 0..t) by an exact power of two, so the scale of E_t carries no rounding either
    (a running natural log of the scale, ~1300 at T = 2000, would cost ~T ulps of it).
    """
    T = t_max
    rho = negative_singular_root(alpha, tau, sigma2) if rho is None else rho
    g1, g2, ph, q, c1 = _lagrange_coeffs_rounded(alpha, tau, sigma2, rho)
    if want_bound:
        Q, Qa = _Q_matrices(g1, g2, T, (-1.0, 1.0))
    else:
        Q, Qa = _Q_matrix(g1, g2, T), None
    with np.errstate(over="ignore", invalid="ignore"):
        if not (np.all(np.isfinite(Q)) and (Qa is None or np.all(np.isfinite(Qa)))):
            raise AccuracyError("float64 Lagrange: coefficients of 1/D overflow")
    fq = _Q_FLUSH
    Q[np.abs(Q) < fq] = 0.0
    if Qa is not None:
        Qa[Qa < fq] = 0.0
    n = T + 1
    lean = _lean_windows(q, ph, c1, n)
    vec = _RPhi(q, ph, n) if lean is None else None
    F = (1.0 + abs(c1)) * _RPhi.DROP  # |dropped window entry| < F (window units)
    E = np.empty(n)
    EA = np.empty(n)  # sum |w| |Q| |w|
    EV = np.empty(n)  # sum wa |Q| |w|, wa = P + |1 - alpha| N >= |w|
    EVs = np.empty(n)  # sum wa |Q w|
    NA = np.empty(n)  # sum wa^2
    S1 = np.zeros(n)  # sum_{n, m <= t} Qa_nm |w_m|
    S2 = np.zeros(n)  # sum_{n, m <= t} Qa_nm
    SW = np.zeros(n)  # (sum_m |w_m|)^2
    UF = np.zeros(n)  # underflowing products
    block = 512
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if Qa is not None:  # S2[t] = sum of Qa over the square [0, t]^2 (Qa is symmetric)
            S2[:] = np.cumsum(2.0 * np.tril(Qa, -1).sum(axis=1) + np.diagonal(Qa))
        for t0 in range(0, n, block):
            t1 = min(n, t0 + block)
            if lean is not None:
                W, Wa = lean[0][:t1, t0:t1], lean[1][:t1, t0:t1]
                L = lean[2][t0:t1]
            else:
                W = np.zeros((t1, t1 - t0))
                Wa = np.zeros((t1, t1 - t0)) if want_bound else None
                L = np.empty(t1 - t0, dtype=np.int64)
                for j, t in enumerate(range(t0, t1)):
                    p, nn, ew = vec.window(t)
                    W[: t + 1, j] = p + c1 * nn
                    if want_bound:
                        Wa[: t + 1, j] = p + abs(c1) * nn
                    L[j] = ew
                    if t < T:
                        vec.step()
            QW = Q[:t1, :t1] @ W
            e = np.einsum("ij,ij->j", W, QW)
            E[t0:t1] = np.ldexp(e, 2 * L)
            if want_bound:
                Wb = np.abs(W)
                QWa = Qa[:t1, :t1] @ Wb
                EA[t0:t1] = np.ldexp(np.einsum("ij,ij->j", Wb, QWa), 2 * L)
                EV[t0:t1] = np.ldexp(np.einsum("ij,ij->j", Wa, QWa), 2 * L)
                EVs[t0:t1] = np.ldexp(np.einsum("ij,ij->j", Wa, np.abs(QW)), 2 * L)
                NA[t0:t1] = np.ldexp(np.einsum("ij,ij->j", Wa, Wa), 2 * L)
                cs = np.cumsum(QWa, axis=0)
                cw = np.cumsum(Wb, axis=0)
                idx = np.arange(t0, t1)
                S1[t0:t1] = np.ldexp(cs[idx, idx - t0], 2 * L)
                SW[t0:t1] = np.ldexp(cw[idx, idx - t0] ** 2, 2 * L)
                S2[t0:t1] = np.ldexp(S2[t0:t1], 2 * L)
                UF[t0:t1] = np.ldexp((idx + 1.0) ** 2 * 2.0**-1000, 2 * L)
    if not want_bound:
        return E, None
    t = np.arange(n)
    # A-priori bound.  The coefficients g1, g2, phi~_i, q, 1 - alpha are rounded once (u each).
    # (i) Q and the form: every term of sum |w| |Q| |w| suffers at most 4t roundings in Q (rows
    # n <= t: <= n recurrence steps of 3 roundings and one coefficient factor each) + 2t + 2 in
    # the matmul / einsum (<= t + 1 nonzero terms) + 2 products: kq = 6t + 4 (+ 4 spare).
    # (ii) The window: each w_m = P_m + (1 - alpha) N_m is known to kv u relative to
    # wa_m = P_m + |1 - alpha| N_m (not to |w_m|: P and N may cancel when alpha > 1), with
    # kv = 4t (phi~ steps: 3 roundings and one coefficient) + 2t (q^k) + 3 (+ 3 spare); w enters
    # E_t twice: |dE| <= 2 kv u sum wa |Q w| to first order, the second-order terms being
    # 2 kv kq u^2 sum wa |Q| |w| + (kv u)^2 (1 + kq u) |wa|^2 max_n sum_m |Q_nm| (Q symmetric).
    # (iii) Window entries below F (relative to the window's power-of-two scale) were dropped:
    # |dE| <= 2 F sum |Q||w| + F^2 sum |Q|; entries of Q below fq were flushed: |dE| <=
    # fq (sum |w|)^2; products that underflow add < (t+1)^2 2^-1000 per unit scale.
    kq = 6.0 * t + 8
    kv = 6.0 * t + 6
    rows = np.maximum.accumulate(Qa.sum(axis=1))
    with np.errstate(over="ignore", invalid="ignore"):
        first = (kq * _U * EA + 2 * kv * _U * EVs) / (1 - (kq + 2 * kv) * _U)
        second = 2 * kv * kq * _U * _U * EV + (kv * _U) ** 2 * (1 + kq * _U) * NA * rows
        bound = first + second + 2.0 * F * S1 + F * F * S2 + fq * SW + UF
    return E, bound


def _lagrange_mp(alpha, tau, sigma2, t_max, dps, depths=None):
    """Same quadratic form in mpmath at ``dps`` digits; returns dict t -> mpf."""
    T = t_max
    depths = list(range(T + 1)) if depths is None else sorted(depths)
    with mp.workdps(dps):
        al, ta, s2 = mp.mpf(alpha), mp.mpf(tau), mp.mpf(sigma2)
        K = al + 1 + s2
        beta = (1 + s2) / (al * (ta - 1))
        gam = 1 + beta * (al + 1)
        rho = al if alpha < 1 else mp.sqrt(al)
        g1 = gam * rho**2 / al
        g2 = beta * rho**3 / al
        ph0, ph1, ph2 = al / (K * rho), s2 / K, rho / K
        Q = [[mp.mpf(0)] * (T + 1) for _ in range(T + 1)]
        Q[0][0] = mp.mpf(1)
        zero = mp.mpf(0)
        for n in range(1, T + 1):
            a1, a2 = Q[n - 1], Q[n - 2] if n >= 2 else None
            row = Q[n]
            for m in range(1, T + 1):
                x = g1 * a1[m - 1]
                y = a1[m - 2] if m >= 2 else zero
                if a2 is not None:
                    y += a2[m - 1]
                row[m] = x - g2 * y
        ratio = rho / al
        R = [mp.mpf(1), ratio] + [(1 - al) * ratio**k for k in range(2, T + 1)]
        v = R[: T + 1]
        out = {}
        want = set(depths)
        for t in range(max(depths) + 1):
            if t in want:
                w = v[t::-1]
                out[t] = mp.fsum(w[n] * mp.fdot(Q[n][: t + 1], w) for n in range(t + 1))
            v = [
                ph0 * v[k] + (ph1 * v[k - 1] if k >= 1 else 0) + (ph2 * v[k - 2] if k >= 2 else 0)
                for k in range(T + 1)
            ]
        return out


def _to_float(x):
    f = float(x)
    if math.isnan(f):
        raise AccuracyError("internal error: NaN produced")
    return f


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------
RECURSION_T_MAX = 160
"""Deepest ``t_max`` of ``method="recursion"`` (O(T^4) mpmath: about a minute at 160)."""
MP_T_MAX = 300
"""Deepest ``t_max`` of ``method="lagrange_mp"`` and of the mpmath tier of ``"auto"``."""
CURVE_T_MAX = 5000
"""Deepest ``t_max`` of ``method="auto"``/``"lagrange"``: the float64 quadratic form stores two
``(t_max+1)^2`` matrices (400 MB at 5000)."""
DEPTH_T_MAX = 100_000
"""Deepest single depth of :func:`error_at` and :func:`error_grid`.  The contour tier
(:mod:`cotbook.theory.contour`) takes milliseconds at any depth; the streamed quadratic form,
O(t^2) per point, is tried only up to :data:`STREAM_T_MAX`."""
STREAM_T_MAX = 20_000
"""Deepest depth of the streamed single-depth quadratic form (about 6 s at 20000 in extended
precision)."""
_CONTOUR_FIRST = 200  # from this depth on, single depths try the contours before the forms
_GRID_ENTRIES = 1 << 22  # (t + 3) * points held at once by error_grid (~12 arrays: 400 MB)


def _point(alpha, tau, sigma2):
    return f"(alpha={alpha:g}, tau={tau:g}, sigma2={sigma2:g})"


def _certified(E, bound, rtol):
    """Where ``E`` is vouched for: finite value and bound, ``bound <= rtol max(|E|, TINY)``."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.isfinite(E) & np.isfinite(bound) & (bound <= rtol * np.maximum(np.abs(E), TINY))


def _reached(E, bound):
    """The relative accuracy a (value, bound) pair reached, for error messages."""
    if not (math.isfinite(E) and math.isfinite(bound)):
        return "none (a quantity left the floating-point range)"
    return f"{bound / max(abs(E), TINY):.3g}"


def ridgeless_curve(alpha, tau, sigma2, t_max, *, method="auto", dps=None, rtol=None):
    """E_0, ..., E_{t_max} of Result 1 (lambda = 0) as a float64 array of length t_max + 1.

    The closed form of Result 1, evaluated as described in the module docstring.  Readers call
    it through :func:`cotbook.theory.error_curve` (``lam=0``).

    Parameters
    ----------
    alpha, tau, sigma2 : float
        The point, on the domain of :mod:`cotbook.theory.domain` (``tau > 1``).
    t_max : int
        Deepest depth, ``>= 0`` and at most :data:`RECURSION_T_MAX` (``"recursion"``),
        :data:`MP_T_MAX` (``"lagrange_mp"``) or :data:`CURVE_T_MAX` (``"auto"``, ``"lagrange"``),
        checked before any work.
    method : str
        ``"auto"`` | ``"recursion"`` | ``"lagrange"`` | ``"lagrange_mp"`` (module docstring).
    dps : int, optional
        Decimal digits for the mpmath methods.  ``recursion`` default max(40, 20 + t_max//2):
        ample for 1e-15 relative at every test point (checked against dps + 30 in the tests);
        ``lagrange_mp`` default 40.  Ignored by ``lagrange``; for ``auto`` it is a minimum.
    rtol : float, optional
        Accuracy that ``auto`` certifies (default 1e-10), relative to max(|E_t|, 1e-300).

    Returns
    -------
    numpy.ndarray
        ``E_0 .. E_{t_max}``; ``auto`` raises :class:`AccuracyError` (naming the point, the
        first depth and the accuracy reached there) rather than return an uncertified value.

    ``lagrange`` (plain float64) is accurate to ~1e-13 wherever the quadratic form is well
    conditioned, which includes every point tested for t <= 80; use ``auto`` for a guarantee.
    """
    rtol = RTOL_DEFAULT if rtol is None else rtol
    alpha, tau, sigma2 = _params(alpha, tau, sigma2)
    t_max = nonneg_int("t_max", t_max)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    rtol = _rtol(rtol)
    cap = {"recursion": RECURSION_T_MAX, "lagrange_mp": MP_T_MAX}.get(method, CURVE_T_MAX)
    if t_max > cap:
        raise ValueError(f"t_max must be <= {cap} for method={method!r}, got {t_max}")
    if method == "recursion":
        return _error_curve_recursion(alpha, tau, sigma2, t_max, _dps(dps, _recursion_dps(t_max)))
    if method == "lagrange_mp":
        d = _lagrange_mp(alpha, tau, sigma2, t_max, _dps(dps, 40))
        return np.array([_to_float(d[t]) for t in range(t_max + 1)])
    if method == "lagrange":
        E, _ = _lagrange_float(alpha, tau, sigma2, t_max, want_bound=False)
        E[0] = 1.0  # E_0 = F(0, 0) = 1 exactly
        with np.errstate(invalid="ignore"):
            if np.any(np.isnan(E)):
                raise AccuracyError(
                    "float64 Lagrange overflowed (inf - inf); use method='auto' or 'lagrange_mp'"
                )
        return E
    # ---- auto
    E, bound = _lagrange_float(alpha, tau, sigma2, t_max)
    E[0], bound[0] = 1.0, 0.0  # E_0 = F(0, 0) = 1 exactly
    bad = [int(t) for t in np.nonzero(~_certified(E, bound, rtol))[0]]
    best = {t: (E[t], bound[t]) for t in bad}  # best (value, bound) of any tier, to report
    if bad:  # second tier: the contours through the saddle points, all failing depths at once
        got = _contour_tier(np.array([alpha]), np.array([tau]), sigma2, bad, rtol)
        for t in bad:
            if (0, t) in got:
                E[t] = got[0, t]
        bad = [t for t in bad if (0, t) not in got]
    if bad and _HAVE_LONGDOUBLE and sum(t * t for t in bad) <= 4_000_000:
        # third tier: single-depth streamed form in extended precision
        still = []
        for t in bad:
            el, bl = _grid_block(np.array([alpha]), np.array([tau]), sigma2, t, dtype=np.longdouble)
            if _certified(el, bl, rtol)[0]:
                E[t] = float(el[0])
            else:
                still.append(t)
                if np.isfinite(el[0]) and bl[0] < best[t][1]:  # the better tier, to report
                    best[t] = (float(el[0]), float(bl[0]))
        bad = still
    if bad:
        where = f"E_{bad[0]} at {_point(alpha, tau, sigma2)}"
        reached = _reached(*best[bad[0]])
        if t_max > MP_T_MAX:
            raise AccuracyError(
                f"{where}: float64, the contours and extended precision reach {reached}"
                f", not rtol={rtol:g} ({len(bad)} depths fail), and the mpmath tier stops at "
                f"t_max = {MP_T_MAX} (the Lagrange quadratic form is ill-conditioned here)"
            )
        E = E.copy()
        # digits needed: log10 of the bound/|E| ratio (the condition) + digits of rtol + margin
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            cond = bound[bad] / np.maximum(np.abs(E[bad]), TINY) / _U
        finite = cond[np.isfinite(cond)]
        extra = 40 if finite.size < len(bad) else int(np.log10(max(finite.max(), 1.0)))
        d1 = _dps(dps, 0) if dps is not None else 0
        d1 = max(d1, 20 + extra + int(-math.log10(rtol)))
        v1 = _lagrange_mp(alpha, tau, sigma2, t_max, d1, depths=bad)
        v2 = _lagrange_mp(alpha, tau, sigma2, t_max, d1 + 15, depths=bad)
        for t in bad:
            a, b = v1[t], v2[t]
            with mp.workdps(d1 + 15):
                scale = max(abs(b), mp.mpf(TINY))
                if abs(a - b) > 0.1 * rtol * scale:
                    raise AccuracyError(
                        f"E_{t} at {_point(alpha, tau, sigma2)}: mpmath at {d1} and {d1 + 15} "
                        f"digits differ by {float(abs(a - b) / scale):.2g}, more than rtol={rtol:g}"
                    )
            E[t] = _to_float(b)
    return E


def error_at(alpha, tau, sigma2, t, *, rtol=RTOL_DEFAULT):
    """E_t of Result 1 (lambda = 0) at a single depth t, certified to ``rtol``.

    No curve is computed unless everything else fails.  Tiers: the streamed single-depth form
    (O(t^2)) in float64 and in extended precision, up to :data:`STREAM_T_MAX`; the contour
    integrals of :mod:`cotbook.theory.contour` (tried first from depth 200 on); and last
    :func:`ridgeless_curve` (``auto``) up to ``t``.

    Parameters
    ----------
    alpha, tau, sigma2 : float
        The point, on the domain of :mod:`cotbook.theory.domain` (``tau > 1``).
    t : int
        CoT depth, ``0 <= t <=`` :data:`DEPTH_T_MAX` (checked before any work).
    rtol : float
        Relative accuracy certified (:class:`AccuracyError` if it cannot be).

    Returns
    -------
    float
        ``E_t``.

    Examples
    --------
    >>> round(error_at(2.0, 3.0, 0.01, 20), 8)
    0.02080661
    """
    alpha, tau, sigma2 = _params(alpha, tau, sigma2)
    t = nonneg_int("t", t)
    rtol = _rtol(rtol)
    if t > DEPTH_T_MAX:
        raise ValueError(f"t must be <= {DEPTH_T_MAX} (DEPTH_T_MAX), got {t}")
    return float(_single_depths(np.array([alpha]), np.array([tau]), sigma2, t, rtol)[0])


def errors_at(alpha, tau, sigma2, depths, *, rtol=RTOL_DEFAULT):
    """E_t of Result 1 (lambda = 0) at several single depths, certified like :func:`error_at`.

    The contour tier evaluates all depths together (one torus per octave of depths); the
    depths it cannot certify go through :func:`error_at`.  Cheaper than the curve when the
    depths are few and deep (sampling a curve to t = 5000, say).

    Parameters
    ----------
    alpha, tau, sigma2 : float
        The point, on the domain of :mod:`cotbook.theory.domain` (``tau > 1``).
    depths : sequence of int
        Depths, each ``0 <= t <=`` :data:`DEPTH_T_MAX`.
    rtol : float
        Relative accuracy certified.

    Returns
    -------
    numpy.ndarray
        ``E_t`` for each depth, in the order given.

    Examples
    --------
    >>> [f"{e:.6e}" for e in errors_at(2.0, 3.0, 0.01, [20, 2000])]
    ['2.080661e-02', '1.019152e+20']
    """
    alpha, tau, sigma2 = _params(alpha, tau, sigma2)
    rtol = _rtol(rtol)
    ts = [nonneg_int("depth", t) for t in np.atleast_1d(np.asarray(depths)).tolist()]
    if not ts:
        raise ValueError("depths must be a non-empty sequence of integers")
    if max(ts) > DEPTH_T_MAX:
        raise ValueError(f"depths must be <= {DEPTH_T_MAX} (DEPTH_T_MAX), got {max(ts)}")
    deep = sorted({t for t in ts if t >= _CONTOUR_FIRST})
    got = _contour_tier(np.array([alpha]), np.array([tau]), sigma2, deep, rtol) if deep else {}
    values = {t: got[0, t] for t in deep if (0, t) in got}
    return np.array(
        [values[t] if t in values else error_at(alpha, tau, sigma2, t, rtol=rtol) for t in ts]
    )


def _from_contour(value: contour.DeepValue) -> float:
    """A contour value as float64: beyond the range it is inf (a true statement that E_t is
    larger) or 0.0 (below the absolute floor TINY of the accuracy rule)."""
    log_e = math.log(abs(value.mantissa)) + value.log_scale
    if log_e > 709.7:
        return math.inf
    return math.exp(log_e) if log_e > -745.0 else 0.0


def _contour_tier(al, ta, sigma2, depths, rtol):
    """``{(i, t): E}`` for the points ``i`` and depths the contours certify (others missing)."""
    out = {}
    for i in range(al.size):
        for t, v in contour.deep_errors(float(al[i]), float(ta[i]), sigma2, depths, rtol).items():
            out[i, t] = _from_contour(v)
    return out


def _single_depths(al, ta, sigma2, t, rtol):
    """E_t at the points (al[i], ta[i]): the streamed form in float64, then in extended
    precision (vectorised, cheap at shallow depths), the contours, the certified curve, in that
    order; from depth 200 on the contours come first, and the streamed forms stop at
    :data:`STREAM_T_MAX`."""
    E = np.full(al.size, np.nan)
    todo = np.arange(al.size)

    def contours():
        nonlocal todo
        got = _contour_tier(al[todo], ta[todo], sigma2, [t], rtol)
        done = np.array([(k, t) in got for k in range(todo.size)], dtype=bool)
        E[todo[done]] = [got[k, t] for k in np.nonzero(done)[0]]
        todo = todo[~done]

    if t >= _CONTOUR_FIRST:
        contours()
    if todo.size and t <= STREAM_T_MAX:
        Ef, Bf = _grid_block(al[todo], ta[todo], sigma2, t)
        ok = _certified(Ef, Bf, rtol)
        E[todo[ok]] = Ef[ok]
        todo = todo[~ok]
    if todo.size and _HAVE_LONGDOUBLE and t <= STREAM_T_MAX:
        El, Bl = _grid_block(al[todo], ta[todo], sigma2, t, dtype=np.longdouble)
        ok = _certified(El, Bl, rtol)
        E[todo[ok]] = El[ok].astype(float)
        todo = todo[~ok]
    if todo.size and t < _CONTOUR_FIRST:
        contours()
    for i in todo:
        if t > CURVE_T_MAX:
            raise AccuracyError(
                f"E_{t} at {_point(al[i], ta[i], sigma2)}: neither the contours nor the streamed "
                f"forms reach rtol={rtol:g}, and the curve tiers stop at t = {CURVE_T_MAX}"
            )
        E[i] = ridgeless_curve(float(al[i]), float(ta[i]), sigma2, t, rtol=rtol)[t]
    E[E == 0.0] = 0.0  # no -0.0
    return E


def error_grid(alphas, taus, sigma2, t, *, rtol=RTOL_DEFAULT, chunk=1024):
    """E_t on the grid alphas x taus (shape (len(alphas), len(taus))), float64.

    Each entry goes through the tiers of :func:`error_at`, all points of a chunk at once: the
    vectorised float64 quadratic form with its a-priori bound (``_grid_block``), extended
    precision, the contour integrals (first, from depth 200 on), then
    :func:`ridgeless_curve`.  A point whose bound exceeds ``rtol * max(|E_t|, 1e-300)``, or
    whose intermediate values left the normal float64 range, moves to the next tier, so every
    entry is certified to ``rtol`` (default 1e-10) or the call raises :class:`AccuracyError`.

    Parameters
    ----------
    alphas, taus : array_like
        Grid axes (scalars count as one point), non-empty, on the domain of
        :mod:`cotbook.theory.domain` (``tau > 1``).
    sigma2 : float
        Noise variance.
    t : int
        CoT depth, ``0 <= t <=`` :data:`DEPTH_T_MAX`.
    rtol : float
        Relative accuracy certified for every entry.
    chunk : int
        Points evaluated together, ``1 <= chunk <= 65536`` (lowered so that one block holds at
        most 2^22 values per array).

    Returns
    -------
    numpy.ndarray
        ``E_t`` of shape ``(len(alphas), len(taus))``.

    Examples
    --------
    >>> error_grid([0.5, 2.0], [3.0, 10.0], 0.01, 20).round(6)
    array([[1.48272 , 0.56274 ],
           [0.020807, 0.002827]])
    """
    sigma2 = domain.sigma2(sigma2)
    t = nonneg_int("t", t)
    rtol = _rtol(rtol)
    chunk = positive_int("chunk", chunk)
    if chunk > 65536:
        raise ValueError(f"chunk must be an integer in [1, 65536], got {chunk}")
    if t > DEPTH_T_MAX:
        raise ValueError(f"t must be <= {DEPTH_T_MAX} (DEPTH_T_MAX), got {t}")
    A = _axis("alphas", alphas, domain.alpha)
    Tu = _axis("taus", taus, domain.tau)
    chunk = max(1, min(chunk, _GRID_ENTRIES // (t + 3)))
    al, ta = np.meshgrid(A, Tu, indexing="ij")
    al, ta = al.ravel(), ta.ravel()
    E = np.empty(al.size)
    for s in range(0, al.size, chunk):
        e = slice(s, min(al.size, s + chunk))
        E[e] = _single_depths(al[e], ta[e], sigma2, t, rtol)
    return E.reshape(A.size, Tu.size)


def _axis(name, values, check):
    """A grid axis as a 1-d float array, every entry checked by ``check`` (which names it)."""
    raw = np.asarray(values)
    if raw.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a non-empty array of real numbers, got {values!r}")
    arr = np.atleast_1d(raw.astype(float)).ravel()
    if arr.size == 0:
        raise ValueError(f"{name} must be a non-empty array of numbers, got an empty one")
    bad = [x for x in arr if not _passes(check, x)]
    if bad:
        try:
            check(bad[0])
        except ValueError as err:
            raise ValueError(f"{name}: {err}") from None
    return arr


def _passes(check, x):
    try:
        check(float(x))
    except ValueError:
        return False
    return True


def _grid_block(alpha, tau, sigma2, t, dtype=np.float64):
    """Vectorised single-depth Lagrange form in ``dtype``; returns (E_t, error bound).

    * coefficients c_k = [a^k] phi~(a)^t by J.C.P. Miller's recurrence for powers of the
      quadratic phi~ = p0 + p1 a + p2 a^2 (all terms positive for k <= t: stable);
    * v = R~ * c with R~(a) = R(rho a) = (1 - alpha q^2 a^2)/(1 - q a), q = rho/alpha, whose
      tail (1 - alpha) q^j is summed by a positive first-order recurrence;
    * the rows of Q are streamed, never stored: with z_n^(s) = Q_n . S^s w (S the shift),
      z_0^(s) = w_s and z_n^(s) = g1 z_{n-1}^(s+1) - g2 (z_{n-1}^(s+2) + z_{n-2}^(s+1)),
      E_t = sum_n w_n z_n^(0); level n needs s <= min(t, 2(t - n)) (O(t^2) per point).
    The same recursions with |.| give EA = sum |terms|; every term suffers at most 12 t + 12
    roundings (5 per Miller step, 2 per R~ step, 3 per z step, t + 2 in the final sum, plus the
    rounded coefficients raised to powers <= t), hence the bound (12t+12) u EA / (1-(12t+12)u).

    That rounding analysis holds only in the normal range of ``dtype``.  A point is therefore
    *refused* (bound ``inf``) unless every c_k (> 0 exactly, but for odd k when sigma2 = 0) lies in
    ``[tiny 2^64, max 2^-64]`` and E, EA are finite: a c_k that underflowed to 0 would make
    E = 0 with bound 0 (E_t at alpha = tau = 2, t = 1000 is 1.6e91, not 0).  With the c_k in
    range, an underflowing product in the Miller or R~ recursion costs < 2^-60 u of its (normal)
    result; one in the z recursion is an absolute error <= eta (the smallest subnormal) per
    operation, carried to E by the same positive recursion: its contribution is at most
    eta sum_n wa_n Z_n, Z_n = (|g1| + 2 |g2|) Z_{n-1} + 3, Z_0 = 0, which is added to the bound.
    """
    alpha = np.asarray(alpha, dtype=dtype)
    tau = np.asarray(tau, dtype=dtype)
    s2 = dtype(sigma2)
    one = dtype(1)
    P = alpha.size
    rho = np.minimum(alpha, np.sqrt(alpha))
    K = alpha + one + s2
    beta = (one + s2) / (alpha * (tau - one))
    gam = one + beta * (alpha + one)
    g1 = gam * rho * rho / alpha
    g2 = beta * rho**3 / alpha
    p0, p1, p2 = alpha / (K * rho), s2 / K, rho / K
    q = rho / alpha
    u = np.finfo(dtype).eps / 2
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        c = np.zeros((t + 1, P), dtype=dtype)
        c[0] = p0**t
        for k in range(1, t + 1):
            acc = ((t + 1) - k) * p1 * c[k - 1]
            if k >= 2:
                acc += (2 * (t + 1) - k) * p2 * c[k - 2]
            c[k] = acc / (k * p0)
        # R~_0 = 1, R~_1 = q, R~_j = (1 - alpha) q^j (j >= 2); y_k = sum_{j>=2} q^j c_{k-j}
        # is a positive recurrence, so v = R~ * c and |R~| * c are both obtained stably.
        y = np.zeros((t + 1, P), dtype=dtype)
        for k in range(2, t + 1):
            y[k] = q * y[k - 1] + (q * q) * c[k - 2]
        v = c.copy()
        v[1:] += q * c[:-1]
        va = v + np.abs(one - alpha) * y
        v += (one - alpha) * y
        w = v[::-1]
        wa = va[::-1]
        W = t + 3
        z1 = np.zeros((W, P), dtype=dtype)
        z1[: t + 1] = w
        za1 = np.zeros((W, P), dtype=dtype)
        za1[: t + 1] = wa
        z2 = np.zeros_like(z1)
        za2 = np.zeros_like(z1)
        z = np.zeros_like(z1)
        za = np.zeros_like(z1)
        tmp = np.empty_like(z1)
        E = w[0] * z1[0]
        EA = wa[0] * za1[0]
        for n in range(1, t + 1):
            L = min(t, 2 * (t - n)) + 1
            np.add(z1[2 : L + 2], z2[1 : L + 1], out=tmp[:L])
            tmp[:L] *= g2
            np.multiply(g1, z1[1 : L + 1], out=z[:L])
            z[:L] -= tmp[:L]
            z[L:] = 0
            np.add(za1[2 : L + 2], za2[1 : L + 1], out=tmp[:L])
            tmp[:L] *= g2
            np.multiply(g1, za1[1 : L + 1], out=za[:L])
            za[:L] += tmp[:L]
            za[L:] = 0
            E += w[n] * z[0]
            EA += wa[n] * za[0]
            z2, z1, z = z1, z, z2
            za2, za1, za = za1, za, za2
        kk = 12 * t + 12
        bound = kk * u * EA / (1 - kk * u)
        fin = np.finfo(dtype)
        growth = np.abs(g1) + 2 * np.abs(g2)
        Z = np.zeros(P, dtype=dtype)
        EU = np.zeros(P, dtype=dtype)
        for n in range(1, t + 1):
            Z = growth * Z + 3
            EU += wa[n] * Z
        bound = bound + fin.smallest_subnormal * EU * (1 + kk * u)
        lo, hi = fin.tiny * dtype(2.0**64), fin.max * dtype(2.0**-64)
        # c_k > 0 for every k <= t, except odd k when p1 = 0 (sigma2 = 0: c_k = 0 exactly)
        zero = (p1 == 0) & (np.arange(t + 1) % 2 == 1)[:, None]
        in_range = np.all(((c >= lo) & (c <= hi)) | (zero & (c == 0)), axis=0)
        ok = in_range & np.isfinite(E) & np.isfinite(EA) & np.isfinite(bound)
        bound = np.where(ok, bound, np.inf)
    return E, bound


def derivative_formula(alpha, tau, sigma2, t, *, dps=None):
    """E_t by the literal derivative formula of Result 1 (for the numerics chapter).

    E_t = sum_{p,q} C(t,p) C(t,q) (-1/alpha)^{p+q} [u^p v^q] F(u, v), with the Taylor
    coefficients of F obtained in mpmath by ``mp.taylor`` of g and exact series arithmetic of
    the closed form; the double sum is then evaluated in float64 (``dps=None``, to exhibit the
    catastrophic cancellation) or in mpmath at ``dps`` digits.
    """
    alpha, tau, sigma2 = _params(alpha, tau, sigma2)
    t = nonneg_int("t", t)
    work = 30 + 2 * t if dps is None else _dps(dps, 0) + 10
    with mp.workdps(work):
        al, ta, s2 = mp.mpf(alpha), mp.mpf(tau), mp.mpf(sigma2)
        c = 1 + (1 + s2) / al
        # Taylor coefficients of g from u g^2 - (c + (1-alpha) u) g + c = 0:
        # c g_n = (1-alpha) g_{n-1}... solved: g_n = ((sum_{k<n} g_k g_{n-1-k}) - (1-al) g_{n-1})/c
        gc = [mp.mpf(1)]
        for n in range(1, t + 1):
            sm = mp.fdot(gc[:n], gc[n - 1 :: -1])
            gc.append((sm - (1 - al) * gc[n - 1]) / c)
        beta = (1 + s2) / (al * (ta - 1))
        F = _bivariate_F(gc, al, beta, t)
        coef = [
            [
                F[p][q] * mp.binomial(t, p) * mp.binomial(t, q) * (-1 / al) ** (p + q)
                for q in range(t + 1)
            ]
            for p in range(t + 1)
        ]
        if dps is None:
            terms = np.array([[float(x) for x in row] for row in coef])
            return float(np.sum(terms))  # naive float64 summation
        return _to_float(mp.fsum(x for row in coef for x in row))


def _bivariate_F(gc, al, beta, t):
    """[u^p v^q] F for p, q <= t by truncated bivariate series arithmetic (mpmath)."""
    n = t + 1
    r = [x for x in gc]
    r[0] = r[0] - 1  # g - 1
    # den = al - r(u) r(v) [1 + beta(al + 1 + r(u) + r(v))]
    #     = al - (1 + beta(al+1)) r(u) r(v) - beta r(u)^2 r(v) - beta r(u) r(v)^2
    r2 = [mp.fdot(r[: k + 1], r[k::-1]) for k in range(n)]
    gam = 1 + beta * (al + 1)
    Dc = [
        [-(gam * r[i] + beta * r2[i]) * r[j] - beta * r[i] * r2[j] for j in range(n)]
        for i in range(n)
    ]
    Dc[0][0] += al
    num = [[al * gc[i] * gc[j] for j in range(n)] for i in range(n)]
    F = [[None] * n for _ in range(n)]
    for p in range(n):
        for q in range(n):
            s = num[p][q]
            acc = []
            for i in range(p + 1):
                for j in range(q + 1):
                    if i == 0 and j == 0:
                        continue
                    acc.append(Dc[i][j] * F[p - i][q - j])
            F[p][q] = (s - mp.fsum(acc)) / Dc[0][0]
    return F
