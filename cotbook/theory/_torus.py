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


_BLOCK = 256  # columns per block of the m13 kernel (its real and imaginary parts in buffers)


@njit(cache=True, error_model="numpy")  # a zero determinant gives inf, which callers refuse
def m13_on_torus(u, m11, m12, m21, m22, v, m34, m43, m44, alpha, tau, c, lam, out):
    """``m13[i, j]`` for row nodes with u-sector values ``u, m11, m12, m21, m22`` and column
    nodes with v-sector values ``v, m34, m43, m44`` (complex arrays), written to ``out``
    (complex, ``len(u) x len(v)``).  The caller allocates ``out``: numpy asks the kernel for
    huge pages, numba does not, and the page faults of numba's array cost 7 ns per entry on
    the development machine (numpy's 1 ns).

    Per row, the column terms ``t2 = tau / D2`` and ``g = v alpha / (1 - v m43)`` enter a 2x2
    system for ``m14, m24`` (Cramer's rule); ``m13 = m11 + t2 (m14 - c a m24)``, whose two
    quotients share the determinant: ``m13 = m11 + t2 N / det``.  The inner loop is written in
    real arithmetic on the real and imaginary parts of a block of columns, so that it is
    vectorised (16 ns per entry against 32 ns for the same loop on complex scalars, measured
    at 4096 x 4096 on the development machine; the two agree to 3e-13 relative on random
    sectors of modulus ~0.3)."""
    n1, n2 = u.shape[0], v.shape[0]
    Tr, Ti = np.empty(n2), np.empty(n2)  # t2 = tau / D2
    Gr, Gi = np.empty(n2), np.empty(n2)  # g = v alpha / (1 - v m43)
    for j in range(n2):
        t2 = tau / (tau - m34[j] + c * m44[j])
        g = v[j] * alpha / (1 - v[j] * m43[j])
        Tr[j], Ti[j], Gr[j], Gi[j] = t2.real, t2.imag, g.real, g.imag
    Qr, Qi = np.empty(_BLOCK), np.empty(_BLOCK)
    h = lam / 2
    for i in range(n1):
        D1 = tau - u[i] * m21[i] + c * m22[i]
        a = (m12[i] - u[i] * m11[i]) / D1
        ap = (c * m12[i] - u[i] * m11[i]) / D1
        cb = (tau + (c - 1) * u[i] * m21[i]) / D1  # 1 - c (m22 - u m21)/D1
        bp = tau / D1  # 1 - (c m22 - u m21)/D1
        e = 1 / (1 - m12[i])
        mm = m22[i] * m11[i]
        er, ei, ar, ai, apr, api = e.real, e.imag, a.real, a.imag, ap.real, ap.imag
        cbr, cbi, bpr, bpi = cb.real, cb.imag, bp.real, bp.imag
        m11r, m11i, m22r, m22i = m11[i].real, m11[i].imag, m22[i].real, m22[i].imag
        m21r, m21i, mmr, mmi = m21[i].real, m21[i].imag, mm.real, mm.imag
        car, cai = c * ar, c * ai
        for j0 in range(0, n2, _BLOCK):
            nb = min(_BLOCK, n2 - j0)
            for k in range(nb):
                tr, ti, gr, gi = Tr[j0 + k], Ti[j0 + k], Gr[j0 + k], Gi[j0 + k]
                pr, pi = gr * er - gi * ei, gr * ei + gi * er  # P = g / (1 - m12)
                ptr, pti = pr * tr - pi * ti, pr * ti + pi * tr  # P t2
                ctr, cti = c * tr, c * ti
                a11r, a11i = ptr - h - ctr, pti - cti  # P t2 - lam/2 - c t2
                xr, xi = apr - (pr * ar - pi * ai), api - (pr * ai + pi * ar)  # ap - P a
                a13r, a13i = ctr * xr - cti * xi, ctr * xi + cti * xr
                r1r, r1i = -(pr * m11r - pi * m11i), -(pr * m11i + pi * m11r)
                a31r, a31i = ptr * m22r - pti * m22i, ptr * m22i + pti * m22r  # P m22 t2
                gtr, gti = gr * tr - gi * ti, gr * ti + gi * tr
                # a33 = -P m22 t2 c a + g t2 cb - lam/2 - c t2 bp
                a33r = (gtr * cbr - gti * cbi) - (a31r * car - a31i * cai)
                a33i = (gtr * cbi + gti * cbr) - (a31r * cai + a31i * car)
                a33r, a33i = a33r - h - (ctr * bpr - cti * bpi), a33i - (ctr * bpi + cti * bpr)
                # r3 = -P m22 m11 - g m21
                r3r = -(pr * mmr - pi * mmi) - (gr * m21r - gi * m21i)
                r3i = -(pr * mmi + pi * mmr) - (gr * m21i + gi * m21r)
                dr = (a11r * a33r - a11i * a33i) - (a13r * a31r - a13i * a31i)
                di = (a11r * a33i + a11i * a33r) - (a13r * a31i + a13i * a31r)
                n14r = (r1r * a33r - r1i * a33i) - (a13r * r3r - a13i * r3i)
                n14i = (r1r * a33i + r1i * a33r) - (a13r * r3i + a13i * r3r)
                n24r = (a11r * r3r - a11i * r3i) - (a31r * r1r - a31i * r1i)
                n24i = (a11r * r3i + a11i * r3r) - (a31r * r1i + a31i * r1r)
                nr = n14r - (car * n24r - cai * n24i)  # N = n14 - c a n24
                ni = n14i - (car * n24i + cai * n24r)
                s = 1 / max(abs(dr), abs(di))  # |det|^2 neither overflows nor underflows
                dr, di = dr * s, di * s
                inv = s / (dr * dr + di * di)
                qr, qi = (nr * dr + ni * di) * inv, (ni * dr - nr * di) * inv  # N / det
                Qr[k] = m11r + (tr * qr - ti * qi)
                Qi[k] = m11i + (tr * qi + ti * qr)
            for k in range(nb):
                out[i, j0 + k] = complex(Qr[k], Qi[k])
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
