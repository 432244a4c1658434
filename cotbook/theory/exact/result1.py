"""Result 1 at lambda = 0 in closed form: the functions the error curve is made of.

Notation follows the paper: ``alpha = L/D``, ``tau = M/D``, ``sigma2`` = noise *variance*
sigma^2, ``t`` = CoT depth, ``c = 1 + (1 + sigma2)/alpha`` and
``beta = (1 + sigma2)/(alpha (tau - 1))``.

- :func:`g` and :func:`m13` -- the resolvent g(u) and the two-point function F = m_13(u, v) of
  Result 1 (Appendix "Explicit solution in lambda=0").
- :func:`h_coefficients` -- h(x) = g(-x/(alpha(1-x))) as a series (Appendix "Numerical
  evaluation of the theoretical prediction").
- :func:`recursion_curve` -- the paper's own algorithm: the h_n recurrence, the 2-D
  coefficient recursion ``D(x,y) B(x,y) = alpha p(x) p(y)`` and ``E_t = b_{t,t}``, in mpmath,
  O(T^4) (with the symmetry b_{m,n} = b_{n,m} and mpmath's ``fdot`` for the inner sums).  It
  is the reference every faster evaluation is tested against.
- :func:`derivative_formula` -- Result 1's derivative formula taken literally (for the
  numerics chapter: its float64 sum cancels catastrophically).
- :func:`negative_singular_root` -- ``|a_-|`` of Result 2's appendix, the radius that keeps
  the Lagrange form's coefficients bounded (:mod:`.lagrange`).

The certified evaluation of E_t from these is :mod:`.closed_form`.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from ..._checks import nonneg_int
from .. import domain

__all__ = [
    "g",
    "m13",
    "h_coefficients",
    "recursion_curve",
    "RECURSION_T_MAX",
    "derivative_formula",
    "negative_singular_root",
]

RECURSION_T_MAX = 160
"""Deepest ``t_max`` of :func:`recursion_curve` (O(T^4) mpmath: about a minute at 160)."""
_U = np.finfo(float).eps / 2  # unit roundoff of float64


def _complex_array(name, value):
    arr = np.asarray(value)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise ValueError(f"{name} must be a finite real or complex number/array, got {value!r}")
    if arr.dtype == bool:
        raise ValueError(f"{name} must be a finite real or complex number/array, got {value!r}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN/inf), got {value!r}")
    return arr


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
    alpha, tau, sigma2 = domain.point(alpha, tau, sigma2)
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
    dps = domain.dps(dps, 30)
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


def recursion_curve(alpha, tau, sigma2, t_max, *, dps=None):
    """E_0 .. E_{t_max} by the paper's algorithm (Appendix "Numerical evaluation of the
    theoretical prediction": the b_{m,n} recursion) in mpmath at ``dps`` digits, rounded to
    float64.

    ``t_max`` is at most :data:`RECURSION_T_MAX`; ``dps`` defaults to max(40, 20 + t_max//2),
    ample for 1e-15 relative at every test point (checked against dps + 30 in the tests).
    """
    alpha, tau, sigma2 = domain.point(alpha, tau, sigma2)
    t_max = nonneg_int("t_max", t_max)
    if t_max > RECURSION_T_MAX:
        raise ValueError(f"t_max must be <= {RECURSION_T_MAX} for the recursion, got {t_max}")
    with mp.workdps(domain.dps(dps, max(40, 20 + t_max // 2))):
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


def negative_singular_root(alpha, tau, sigma2):
    """``|a_-|``: the negative real root ``a_-`` of the symmetric singular condition of Result
    2's appendix, ``a^2 [1 + beta (alpha + 1 - 2a)] = alpha`` (unique for ``a < 0``).

    It is also the radius of the largest torus ``|a| = |b| = r`` on which ``D(a, b)`` (Lagrange
    form) does not vanish, so ``r = |a_-|`` keeps the scaled coefficients of ``1/D`` bounded.
    """
    alpha, tau, sigma2 = domain.point(alpha, tau, sigma2)
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


def derivative_formula(alpha, tau, sigma2, t, *, dps=None):
    """E_t by the literal derivative formula of Result 1 (for the numerics chapter).

    E_t = sum_{p,q} C(t,p) C(t,q) (-1/alpha)^{p+q} [u^p v^q] F(u, v), with the Taylor
    coefficients of F obtained in mpmath by ``mp.taylor`` of g and exact series arithmetic of
    the closed form; the double sum is then evaluated in float64 (``dps=None``, to exhibit the
    catastrophic cancellation) or in mpmath at ``dps`` digits.
    """
    alpha, tau, sigma2 = domain.point(alpha, tau, sigma2)
    t = nonneg_int("t", t)
    work = 30 + 2 * t if dps is None else domain.dps(dps, 0) + 10
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
        return float(mp.fsum(x for row in coef for x in row))


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
