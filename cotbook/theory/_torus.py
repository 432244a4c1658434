"""The closed system on a torus, compiled (numba): its sectors at the nodes and ``m13``.

``m13(u(x), v(y))``, of which ``B(x, y) = m13 / ((1 - x)(1 - y))`` is the generating function
of E_t (:func:`cotbook.theory.ridge.ridge_curve`), at every pair of a row node ``x_i`` and
a column node ``y_j``.  The u-sector is known at the row
nodes, the v-sector at the column nodes; ``m13`` comes from the linear mixed sector of App. C.9
(Eq. closed_mixed_summary): its first two equations give ``m13`` and ``m23`` in terms of ``m14``
and ``m24``, which leaves a 2x2 system solved by Cramer's rule.  One fused loop instead of a
batched 4x4 solve: at 4096 nodes per circle it takes a fraction of a second instead of 16 s; a
test checks it against :func:`cotbook.theory.derivation.solve_mixed_sector`.

The u- and v-sectors at the nodes (:func:`sector_continuation`) are Newton's method with the
analytic Jacobian, continued node by node from ``u = 0``: in numpy, the same iteration on arrays
of nodes cost about 40 % of a deep curve's time in Python's overhead.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["m13_on_torus", "sector_continuation"]

_UNIFORM_Z = 8.0  # the ray's uniform steps reach |z| = 8 at most; beyond, geometric ones
_Z_RATIO = 1.25  # of this ratio (the sectors settle as z -> infinity, a regular point)
_MIN_STEP = 1e-6  # the shortest step of the radial segment (its nodes pass x = 1 at >= 1e-5)


@njit(cache=True)
def m13_on_torus(u, m11, m12, m21, m22, v, m34, m43, m44, alpha, tau, c, lam):
    """``m13[i, j]`` for row nodes with u-sector values ``u, m11, m12, m21, m22`` and column
    nodes with v-sector values ``v, m34, m43, m44``; complex arrays."""
    n1, n2 = u.shape[0], v.shape[0]
    t2 = np.empty(n2, dtype=np.complex128)  # tau / D2
    g = np.empty(n2, dtype=np.complex128)  # v alpha / (1 - v m43)
    for j in range(n2):
        t2[j] = tau / (tau - m34[j] + c * m44[j])
        g[j] = v[j] * alpha / (1 - v[j] * m43[j])
    out = np.empty((n1, n2), dtype=np.complex128)
    for i in range(n1):
        D1 = tau - u[i] * m21[i] + c * m22[i]
        a = (m12[i] - u[i] * m11[i]) / D1
        ap = (c * m12[i] - u[i] * m11[i]) / D1
        one_cb = (tau + (c - 1) * u[i] * m21[i]) / D1  # 1 - c (m22 - u m21)/D1
        one_bp = tau / D1  # 1 - (c m22 - u m21)/D1
        over_e12 = 1 / (1 - m12[i])  # per row; below, 1/det once per entry (33 -> 29 ns/entry)
        for j in range(n2):
            P = g[j] * over_e12  # v alpha / ((1 - m12)(1 - v m43))
            a11 = P * t2[j] - lam / 2 - c * t2[j]
            a13 = c * t2[j] * (ap - P * a)
            r1 = -P * m11[i]
            a31 = P * m22[i] * t2[j]
            a33 = -P * m22[i] * t2[j] * c * a + g[j] * t2[j] * one_cb - lam / 2 - c * t2[j] * one_bp
            r3 = -P * m22[i] * m11[i] - g[j] * m21[i]
            over_det = 1 / (a11 * a33 - a13 * a31)
            m14 = (r1 * a33 - a13 * r3) * over_det
            m24 = (a11 * r3 - a31 * r1) * over_det
            m13 = m11[i] + t2[j] * (m14 - c * a * m24)
            out[i, j] = m13
    return out


# ---- the u- and v-sectors at the nodes: Newton continuation from u = 0 (App. C.9) ----------
@njit(cache=True)
def u_system(u, a, b, alpha, tau, c, lam):
    """Eq. closed_u_summary with m11 and m21 eliminated, unknowns ``a = m12``, ``b = m22``:
    the residuals ``r1, r2``, their Jacobian ``d r1/da, d r1/db, d r2/da, d r2/db`` and the
    sums of the moduli of each residual's terms (which set its rounding).

    ``m11 = 1 + alpha a/(1 - a)``, ``m21 = alpha b/(1 - a)``; with ``P = u m21 - c b`` the
    denominator is ``D1 = tau - P`` and the printed residuals ``-u m11 + k a + P Q1/D1`` and
    ``-u m21 + k b + P Q2/D1 - 1`` (``k = c + lam/2``, ``Q1 = c a - u m11``,
    ``Q2 = c b - u m21``) are evaluated as ``r1 = (lam/2) a + S Q1`` and
    ``r2 = (lam/2) b + S Q2 - 1`` with ``S = 1 + P/D1 = tau/D1``: the same functions, without
    the cancellation of ``c b`` against ``P b/D1`` (both ``~ Tr C^-1/D``, about ``2/lam`` at
    ``tau < 1``), which cost ``log10(1/lam)`` digits.  ``dS = tau dP / D1^2``."""
    h = lam / 2
    e = 1 - a
    m11 = 1 + alpha * a / e
    m21 = alpha * b / e
    D1 = tau - u * m21 + c * b
    S = tau / D1
    Q1 = c * a - u * m11
    Q2 = c * b - u * m21
    r1 = h * a + S * Q1
    r2 = h * b + S * Q2 - 1
    m11_a, m21_a, m21_b = alpha / (e * e), m21 / e, alpha / e
    s = tau / (D1 * D1)
    S_a, S_b = u * m21_a * s, (u * m21_b - c) * s
    j11 = h + S_a * Q1 + S * (c - u * m11_a)
    j12 = S_b * Q1
    j21 = S_a * Q2 - S * u * m21_a
    j22 = h + S_b * Q2 + S * (c - u * m21_b)
    s1 = abs(h * a) + abs(S) * (abs(c * a) + abs(u * m11))
    s2 = abs(h * b) + abs(S) * (abs(c * b) + abs(u * m21)) + 1
    return r1, r2, j11, j12, j21, j22, s1, s2


@njit(cache=True)
def v_system(v, a, b, alpha, tau, c, lam):
    """Eq. closed_v_summary with m33 and m43 eliminated, unknowns ``a = m34``, ``b = m44``:
    the residuals, their Jacobian and their terms' sizes (as :func:`u_system`).

    With ``W = c b - a``, ``D2 = tau + W`` and ``T = 1 - W/D2 = tau/D2`` (computed as the
    latter: ``W/D2`` is near 1 where ``b ~ 2/lam``; ``dT = -tau dW / D2^2``):
    ``m33 = 1 + a T``, ``m43 = b T``, ``g = v alpha / (1 - v m43)`` and
    ``r1 = -g m33 + (lam/2) a + c a T``, ``r2 = -g m43 + (lam/2) b + c b T - 1`` (the printed
    ``k a - c a W/D2`` with ``k = c + lam/2``, without its cancellation)."""
    h = lam / 2
    D2 = tau + c * b - a
    T = tau / D2
    s = tau / (D2 * D2)
    T_a, T_b = s, -c * s
    m33 = 1 + a * T
    m43 = b * T
    q = 1 - v * m43
    g = v * alpha / q
    r1 = -g * m33 + h * a + c * a * T
    r2 = -g * m43 + h * b + c * b * T - 1
    m33_a, m33_b = T + a * T_a, a * T_b
    m43_a, m43_b = b * T_a, T + b * T_b
    w = v * m33 / q  # d(g m33) = g (dm33 + w dm43);  d(g m43) = g dm43 / q
    j11 = -g * (m33_a + w * m43_a) + h + c * T + c * a * T_a
    j12 = -g * (m33_b + w * m43_b) + c * a * T_b
    j21 = -g * m43_a / q + c * b * T_a
    j22 = -g * m43_b / q + h + c * T + c * b * T_b
    s1 = abs(g * m33) + abs(h * a) + abs(c * a * T)
    s2 = abs(g * m43) + abs(h * b) + abs(c * b * T) + 1
    return r1, r2, j11, j12, j21, j22, s1, s2


@njit(cache=True)
def _newton(v_sector, z, a, b, alpha, tau, c, lam):
    """Newton at one node from ``(a, b)``, with the analytic Jacobian, until the step is below
    1e-13 of the unknowns (at most 40 steps); returns ``(a, b, res)``, ``res`` the largest
    residual relative to its terms' sizes at the end."""
    for _ in range(40):
        if v_sector:
            r1, r2, j11, j12, j21, j22, s1, s2 = v_system(z, a, b, alpha, tau, c, lam)
        else:
            r1, r2, j11, j12, j21, j22, s1, s2 = u_system(z, a, b, alpha, tau, c, lam)
        det = j11 * j22 - j12 * j21
        da = (j22 * r1 - j12 * r2) / det
        db = (j11 * r2 - j21 * r1) / det
        a -= da
        b -= db
        if abs(da) <= 1e-13 * max(1.0, abs(a)) and abs(db) <= 1e-13 * max(1.0, abs(b)):
            break
    if v_sector:
        r1, r2, j11, j12, j21, j22, s1, s2 = v_system(z, a, b, alpha, tau, c, lam)
    else:
        r1, r2, j11, j12, j21, j22, s1, s2 = u_system(z, a, b, alpha, tau, c, lam)
    return a, b, max(abs(r1) / s1, abs(r2) / s2)


@njit(cache=True)
def sector_continuation(v_sector, z, x0, x, b0, n_steps, radial_steps, alpha, tau, c, lam):
    """The two free unknowns of the u-sector (``v_sector`` false) or the v-sector at each node,
    continued from ``(0, b0)`` at ``z = 0`` along the ray ``s z``: ``n_steps`` uniform steps up
    to ``|s z| = min(|z|, 8)``, then steps of ratio 1.25 in ``s`` (uniform steps to a large
    ``|z|`` jumped branches: at ``|z| = 657``, 16 of them gave ``m22 = -5e5`` for ``0.0033``);
    where ``x`` is not empty, along the ray to ``u(x0)`` instead and then along the radial
    segment from ``x0`` to ``x`` in the x-plane, ``u(x) = -x/(alpha (1 - x))``, in
    ``radial_steps`` steps, each at most a quarter of the distance to ``x = 1`` (a node
    passing 3e-4 from 1 jumped branches in 128 uniform steps).  Returns ``(a, b, ray_res,
    radial_res)``: the unknowns and, per node, the relative residual at the end of the ray and
    of the radial segment (0 without one)."""
    n = z.shape[0]
    radial = x.shape[0] > 0
    A = np.empty(n, dtype=np.complex128)
    B = np.empty(n, dtype=np.complex128)
    ray_res = np.zeros(n)
    radial_res = np.zeros(n)
    for i in range(n):
        end = -x0[i] / (alpha * (1 - x0[i])) if radial else z[i]
        a, b, res = 0j, b0 + 0j, 0.0
        reach = min(1.0, _UNIFORM_Z / abs(end)) if abs(end) > 0 else 1.0
        for k in range(1, n_steps + 1):
            a, b, res = _newton(v_sector, end * (reach * k / n_steps), a, b, alpha, tau, c, lam)
        while reach < 1.0:
            reach = min(1.0, reach * _Z_RATIO)
            a, b, res = _newton(v_sector, end * reach, a, b, alpha, tau, c, lam)
        ray_res[i] = res
        if radial:
            d = x[i] - x0[i]
            s = 0.0 if abs(d) > 0 else 1.0  # (a node on |x| = 0.9 has no radial segment)
            while s < 1.0:  # steps of 1/radial_steps, or a quarter of the way left to x = 1
                near = 0.25 * abs(x0[i] + s * d - 1) / abs(d)
                s = min(1.0, s + max(min(1.0 / radial_steps, near), _MIN_STEP))
                xs = x0[i] + s * d
                a, b, res = _newton(v_sector, -xs / (alpha * (1 - xs)), a, b, alpha, tau, c, lam)
            radial_res[i] = res
        A[i] = a
        B[i] = b
    return A, B, ray_res, radial_res
