"""One torus of the ``lam > 0`` engine: ``E_t`` read off ``B`` on ``|x| = |y| = r``, with its
analyticity check and its bound, inside the unit polydisc (:func:`curve`) or beyond it with B's
poles at 1 taken out (:func:`beyond`).

``B(x, y) = m13(u(x), v(y)) / ((1-x)(1-y))``, ``u(x) = -x / (alpha (1 - x))`` (App. C.2, Eq.
generalization_from_F, with the change of variables of App. D), from the closed system at the
nodes (:mod:`cotbook.theory.ridge._nodes`).  Which torus to read, and the depths no torus holds, are
:func:`cotbook.theory.ridge.ridge_curve`'s search.
"""

from __future__ import annotations

import numpy as np
from scipy import fft as _fft

from ..derivation import Point
from . import _nodes

__all__ = ["curve", "beyond", "held", "soft", "near_one"]

_POLE_NODES = 64  # nodes of the circle around x = 1 whose means give F(x, 1), F(1, y), F(1, 1)


def near_one(p: Point, r):
    """The sectors (:func:`cotbook.theory.ridge._nodes.sectors`) at the 64 nodes of the circle
    ``|x - 1| = (r - 1)/2`` (half a step off the real axis), whose means give ``F(x, 1)``,
    ``F(1, y)`` and ``F(1, 1)`` by Cauchy's formula where F is analytic inside it (used by
    :func:`beyond` and by :mod:`cotbook.theory.ridge.pole`'s frame beyond the poles at 1)."""
    return _nodes.sectors(p, 1 + _nodes.circle((r - 1) / 2, _POLE_NODES))


def _coefficients(p: Point, r, n):
    """``n^2 b[s, t] r^{s+t}`` for ``B(x, y) = m13(u(x), v(y)) / ((1-x)(1-y))`` on the torus
    ``|x| = |y| = r < 1`` with ``n`` points per circle (the 2-D FFT, unscaled: the caller
    divides the bins it reads), ``u(x) = -x/(alpha(1-x))``; also ``max |B|`` on the torus.
    The n^2 array is worked on in place and the FFT is scipy's (numpy's 2-D FFT, and a new
    array per step, took 5-10x longer at n = 4096: 3-6 s against 0.5 s)."""
    x = r * np.exp(2j * np.pi * np.arange(n) / n)
    ring = _nodes.sectors(p, x)
    Bxy = _nodes.over_poles(_nodes.m13(p, ring, ring), x, x)
    if not np.isfinite(Bxy).all():
        raise ArithmeticError("closed system: B is not finite on the torus")
    bmax = float(np.abs(Bxy).max())
    return _fft.fft2(Bxy, overwrite_x=True), bmax


def beyond(p: Point, r, n, t_max, failures=None):
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
    off the real axis) with the check of ``curve`` on each; the bound adds their
    ``2 max(nu, floor) r^-t`` (1-D) and ``r^-2t`` (2-D) terms, the floors carrying the
    cancellation in the numerators of ``G``, ``H`` and ``Bh`` near ``x = 1``."""
    u = np.finfo(float).eps
    x = _nodes.circle(r, n)
    try:
        ring, one = _nodes.sectors(p, x), near_one(p, r)
        Fxy, Fx1, F1y, F11 = (
            _nodes.m13(p, a, b) for a, b in ((ring, ring), (ring, one), (one, ring), (one, one))
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
    Bh = _nodes.without_poles(Fxy, fx1, f1y, K, x, x)
    bh_max = float(np.abs(Bh).max())
    G, H = (fx1 - K) / w, (f1y - K) / w
    phase = np.exp(-1j * np.pi * np.arange(n) / n)  # x_j = r w^(j + 1/2)
    cb = _fft.fft2(Bh, overwrite_x=True)  # unscaled: only the bins read are (|phase| = 1)
    cg, ch = _fft.fft(G) / n * phase, _fft.fft(H) / n * phase
    half = n // 2
    nu = max(float(np.abs(cb[half:, :]).max()), float(np.abs(cb[:half, half:]).max())) / (n * n)
    nu_g, nu_h = float(np.abs(cg[half:]).max()), float(np.abs(ch[half:]).max())
    floor = u * bh_max + (dx1 + d1y + dK + 4 * u * maxF) / wmin**2
    floor_g = u * float(np.abs(G).max()) + (dx1 + dK + 2 * u * maxF) / wmin
    floor_h = u * float(np.abs(H).max()) + (d1y + dK + 2 * u * maxF) / wmin
    # beyond the depths the bins hold, B's tail is bounded by the bins above n/2 that the check
    # read (its coefficients fall geometrically on r > 1): there E_t = K within the same bound
    t = np.arange(t_max + 1)
    kept = np.arange(min(t_max, held(n)) + 1)
    g, b = np.zeros(t_max + 1, complex), np.zeros(t_max + 1, complex)
    g[kept], b[kept] = cg[kept] + ch[kept], cb[kept, kept] / (n * n) * phase[kept] ** 2
    with np.errstate(over="ignore"):
        E = np.real(K + g * r ** (-1.0 * t) + b * r ** (-2.0 * t))
    scale = max(bh_max, float(np.abs(G).max()), float(np.abs(H).max()), maxF)
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


def held(n) -> int:
    """The deepest depth whose coefficient the bins of an ``n``-point torus hold (``n/2 - 4``:
    the bins from ``n/2`` up are the check's)."""
    return (n - 8) // 2


def _failed(failures, nu_rel, e0_off):
    """Note in ``failures`` (a list, or ``None``) by how much a torus failed the check: the
    larger of ``nu / max|B|`` and ``|E_0 - 1|`` (``inf`` where there is no sector solution).
    A failure is soft (:func:`soft`) where both are below 1e-6, as aliasing leaves them: more
    points per circle may accept the torus; a larger one is hard (a singularity inside)."""
    if failures is not None:
        failures.append(max(nu_rel, e0_off))


def soft(failure) -> bool:
    return failure <= 1e-6


def curve(p: Point, r, n, t_max, failures=None):
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
    beyond ``|x| = 1`` goes through ``beyond``, which takes the poles of B at ``x = 1``
    and ``y = 1`` out first.
    """
    if r > 1:
        return beyond(p, r, n, t_max, failures)
    try:
        coef, bmax = _coefficients(p, r, n)
    except (ArithmeticError, np.linalg.LinAlgError):
        _failed(failures, np.inf, np.inf)
        return None
    half, nn = n // 2, n * n
    nu = max(float(np.abs(coef[half:, :]).max()), float(np.abs(coef[:half, half:]).max())) / nn
    if nu > 1e-12 * bmax or abs(coef[0, 0] / nn - 1.0) > 1e-10:
        _failed(failures, nu / bmax, abs(coef[0, 0] / nn - 1.0))
        return None
    t = np.arange(min(t_max, held(n)) + 1)
    floor = np.finfo(float).eps * bmax
    E, err = np.zeros(t_max + 1), np.full(t_max + 1, np.inf)  # deeper: not held (see held)
    with np.errstate(over="ignore"):
        scale = r ** (-2.0 * t)
        E[t] = np.real(coef[t, t] / nn) * scale
        err[t] = 2.0 * max(nu, floor) * scale
    return E, err, bool(nu > floor)
