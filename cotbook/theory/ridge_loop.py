"""Deep depths of a ``lam > 0`` curve whose sectors' cut starts just beyond ``|x| = 1``: ``x``
on a circle inside it, ``y`` on a loop round the cut.

``E_t = [x^t y^t] B``, ``B(x, y) = m13(u(x), v(y)) / ((1-x)(1-y))`` (App. C.2, D, C.9).  The
v-sector is analytic in ``y`` but for a cut, which in ``z = v(y)`` is a real interval
``[z_a, z_b]`` (square-root ends) and in ``q = 1 - 1/y = 1/(alpha z)`` the interval
``[q_b, q_a]``; the u-sector's cut in x is the same interval.  Where ``q_b`` is small the cut
starts just beyond ``y = 1`` (``y_e - 1 ~ q_b``): a torus beyond ``|y| = 1`` would need
``~1/q_b`` points per circle in each variable, and a torus inside holds ``n/2 - 4`` depths.

Here the y-contour is moved from a small circle onto a loop ``L`` round the cut (an ellipse in
``log q`` with foci at the cut's ends, on which the trapezoidal rule resolves the square-root
ends), past B's pole at ``y = 1``.  ``|y| > 1`` all along ``L``, so ``y^-t`` falls there, and
it oscillates no faster than the cut's own scale.  For each ``x``::

    [y^t] B(x, .) = A(x) - (1/2 pi i) oint_L B(x, y) y^(-t-1) dy,   A(x) = F(x, 1) / (1 - x)

(the first term is the residue at ``y = 1``), and ``[x^t]`` of the second is read off an FFT
on the circle ``|x| = r0``, ``r0 = 1 / min_L |y|``: ``r0^-t |y|^-t <= 1`` on ``L``, so no
depth's error grows.  ``[x^t] A = K + g_t`` with ``K = F(1, 1)`` and ``g_t`` the coefficients of
``G = (F(x, 1) - K)/(1 - x)``, analytic at 1, from the same loop round the u-sector's cut in
``x`` (on ``|x| = r0`` their error would grow like ``r0^-t``).  ``F(x, 1)`` and ``K`` are means
over a small circle round 1, as in :func:`cotbook.theory.ridge_torus.beyond`.

Error bound: the loops' difference to every second node (the trapezoidal rule converges
geometrically), the FFT's aliasing (its difference to every second node of the circle) and
rounding weighted by the loop, the means' errors, and rounding.  Checks (a failure returns
``None``): both cuts are one interval strictly beyond ``|y| = 1`` (``0 < q_b``, ``q_a < 2``)
and within the node cap (``n ~ 80 / q_b <= 2^18``), the means round 1 converge, and for every
``x`` on the circle the loop reproduces ``[y^m] B(x, .)`` (``m = 0, 1, 2``) read off the
circle ``|y| = 1/2``: no pole of ``B(x, .)`` lies between the two, which the y-contour would
pass.  Where a simple pole does, all round the circle (a growing curve's, whose
``|x y_p| < 1`` makes E_t grow), its share is added (:mod:`cotbook.theory._loop_pole`, read
off a circle through its saddle); a pole between on a part of the circle only crosses the
loop, and one next to the loop spoils its convergence.  Where either makes the loop refuse,
wider loops are tried (:func:`_wider`): their tip moves towards ``y = -1`` and the x-circle
towards ``|x| = 1``, where a pole near the cut's far end can lie beyond the loop all round
(at ``(0.6674, 10.26, 0, lam = 2.951e-7)`` it crosses the narrower loop near ``x = -r0``, at
``|x y| ~ 1``).  At ``(0.9653, 6.774, 0.01703, lam = 0.002079)``, a growing curve, the
narrower loop comes within ``1.5e-4`` of ``|y| = 1``: its x-circle would need ``2^19``
points, over the cap, and with them a pole crosses the loop (measured); no wider loop keeps
``|y| > 1`` there.  Where every loop refuses so, :mod:`cotbook.theory.ridge_cross` takes the
point (two loops chosen node by node, the pole's share along a path through its saddle).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import _loop_pole, _nodes
from .derivation import Point
from .ridge_torus import near_one

_U = np.finfo(float).eps / 2
_N_MAX = 1 << 18  # most points on the x-circle (a block of its rows: 64 MB)
_NY = (256, 512, 1024, 2048)  # nodes on the y-loop, in turn, until its check and bound serve
_NX = 2048  # nodes on the x-loop of g_t (1-D: cheap)
_XI = (0.07, 0.05)  # the ellipses' widths tried, widest first (nearer the cut, the
# singularities of B(x, .) there slow the loop's convergence: at 0.035 the check failed at
# 2048 nodes where 0.05 passed)
_WIDE = (0.09, 0.11, 0.13)  # wider ellipses, tried in turn once those of _XI fail
# (:func:`_wider`); the loop there passes nearer a pole beyond it, so it doubles to 8192
# nodes while its check's miss falls at least twofold (measured at the settling point
# (0.6674, 10.26, 0, lam = 2.951e-7), xi = 0.09: 0.10, 0.031, 4.6e-3, 1.3e-4, 9.9e-8, 7e-14
# at 256 .. 8192 nodes; a pole crossing the loop: 0.32, 0.21, 0.15)
_NY_WIDE = (256, 512, 1024, 2048, 4096, 8192)
_SCAN = 256  # points of the scan for the cut's ends
_JUMP = 1e-8  # a jump of the sector's unknowns across the real axis, relative: on the cut
_CHECK = 1e-11  # the loop's reproduction of [y^m] B(x, .), relative to its terms
_STEPS = (64, 512)  # Newton steps on the ray in z and on the segment to a node


class LoopCurve(NamedTuple):
    """``E_t`` and its bound at ``t = 0 .. t_max`` (:func:`deep_curve`), the x-circle's radius,
    the cut's end nearest ``y = 1`` (``y_e = 1 / (1 - q_b)``) and the radius of the circle
    that a pole between the y-contours was read off (``None`` where there is none)."""

    E: np.ndarray
    error: np.ndarray
    radius: float
    y_e: float
    pole_radius: float | None = None


def _sector(p: Point, y, v_sector):
    """The u-sector (``v_sector`` false) or v-sector at loop nodes ``y`` in the form of
    :func:`cotbook.theory._nodes.sectors`, each reached from ``y + i |y| / 2`` (below the axis:
    ``- i |y| / 2``), a path that keeps to one side of the real axis and so of the cut;
    ``ArithmeticError`` where Newton's method fails."""
    side = np.where(y.imag < 0, -1.0, 1.0)
    start = y + side * 0.5j * np.abs(y)
    return _nodes.sectors(p, y, u=not v_sector, v=v_sector, start=start, steps=_STEPS)


def _on_cut(p: Point, z, v_sector) -> np.ndarray | None:
    """Whether each real ``z`` lies on the sector's cut: its unknowns at ``z (1 -+ 1e-13 i)``
    differ (relative :data:`_JUMP`); ``None`` where a continuation fails.  Each side is
    reached on its own side of the axis (:func:`_sector`): a ray straight along the real
    z-axis can land on another sheet near the cut's ends."""
    sides = []
    for side in (1, -1):  # just below / above the real z-axis (above / below in y)
        near = z * (1 - side * 1e-13j)
        y = near * p.alpha / (near * p.alpha - 1)
        try:
            _, U, V = _sector(p, y, v_sector)
        except ArithmeticError:
            return None
        sides.append(V if v_sector else U)
    jump = np.zeros(len(z))
    for one, other in zip(*sides, strict=True):
        jump = np.maximum(jump, np.abs(one - other) / np.maximum(1.0, np.abs(one)))
    return jump > _JUMP


def cut(p: Point, q_min, v_sector=True) -> tuple[float, float] | None:
    """``(q_b, q_a)``: the sector's cut in ``q = 1/(alpha z)``, from a scan of ``z`` from
    ``|y| = 1`` on the negative axis (``q = 2``) to ``q = q_min / 2`` and a bisection at both
    ends (45 halvings of the scan's step in log z); ``None`` where the cut is not one interval
    inside that range."""
    z = np.geomspace(1 / (2 * p.alpha), 2 / (q_min * p.alpha), _SCAN)
    on = _on_cut(p, z, v_sector)
    if on is None or on[0] or on[-1] or not on.any():
        return None
    i, j = int(np.argmax(on)), len(on) - 1 - int(np.argmax(on[::-1]))
    if not on[i : j + 1].all():
        return None

    def edge(off, at):  # bisection in log z between a point off the cut and one on it
        for _ in range(45):
            mid = math.sqrt(off * at)
            found = _on_cut(p, np.array([mid]), v_sector)
            if found is None:
                return None
            off, at = (off, mid) if found[0] else (mid, at)
        return at

    z_a, z_b = edge(z[i - 1], z[i]), edge(z[j + 1], z[j])
    if z_a is None or z_b is None:
        return None
    return 1 / (p.alpha * z_b), 1 / (p.alpha * z_a)


def loop(q_b, q_a, xi, n):
    """``(y, w)``: ``n`` nodes of the loop round ``[q_b, q_a]`` (the ellipse
    ``log q = m + h cosh(xi + i eta)`` with foci at the cut's ends, ``eta = 2 pi j / n``, so
    every second node is the loop at ``n/2``; ``y = 1/(1 - q)``), and the weights ``w`` of
    ``-(1/2 pi i) oint f(y) y^(-t-1) dy = sum_j w_j y_j^-(t-1) f(y_j)`` (``y^-t-1 dy =
    (1-q)^(t-1) dq``).  The trapezoidal rule in ``eta`` resolves the cut's square-root ends."""
    m, h = (math.log(q_a) + math.log(q_b)) / 2, (math.log(q_a) - math.log(q_b)) / 2
    eta = 2 * np.pi * np.arange(n) / n
    q = np.exp(m + h * np.cosh(xi + 1j * eta))
    w = -q * 1j * h * np.sinh(xi + 1j * eta) * (2 * np.pi / n) / (2j * np.pi)
    return 1 / (1 - q), w


def _width(q_b, q_a):
    """The widest ellipse of :data:`_XI` that keeps ``|y| >= 1 + q_b/2`` all round (so
    ``y^-t`` falls along the whole loop), or ``None``."""
    for xi in _XI:
        if np.abs(loop(q_b, q_a, xi, 4096)[0]).min() >= 1 + q_b / 2:
            return xi
    return None


def _wider(q_b, q_a):
    """The ellipses of :data:`_WIDE` that keep ``|y| > 1`` all round (the x-circle inside
    ``|x| = 1``).  A wider ellipse moves the loop's tip beyond the cut's far end (``q_a``)
    towards ``y = -1``, so ``r0`` towards 1, and a pole of ``B(x, .)`` near that end, which
    crosses the narrower loop where ``x ~ -r0``, lies beyond the wider one all round:
    ``|x y_p|`` grows with ``|x|`` there (measured at the settling point of :data:`_WIDE`,
    at ``x = -r``: 0.9907, 0.9972, 1.0008 at ``r`` = 0.975, 0.9856, 0.995; ``xi = 0.09``
    puts the x-circle at ``r0 = 0.9984``, and certifies there, also at ``lam`` = 1e-8 and
    1e-6).  Not every crossing: at ``(0.6674, 9.5, 0, 2.951e-7)`` the pole still meets the
    loop at ``xi = 0.09`` (``r0 = 0.9984``; every wider one dips inside ``|y| = 1``), and at
    ``(0.72, 10.26, 0, 2.951e-7)`` every ellipse of :data:`_WIDE` dips inside it and one at
    ``xi = 0.07`` (``r0 = 0.9989``, tried by hand) still meets the pole: this module refuses
    both (measured), :mod:`cotbook.theory.ridge_cross` serves them."""
    return [xi for xi in _WIDE if np.abs(loop(q_b, q_a, xi, 4096)[0]).min() > 1]


def deep_curve(p: Point, t_max, rtol, atol) -> LoopCurve | None:
    """``E_0 .. E_t_max`` with error bounds from the circle and the loop (module docstring),
    or ``None`` where the path does not apply or a check fails.  The y-loop starts at 256
    nodes and doubles them to 2048 while its check fails or a depth misses
    ``rtol |E_t| + atol``; where it refuses, the wider loops of :func:`_wider` are tried in
    turn (to 8192 nodes)."""
    try:
        return _curve(p, t_max, rtol, atol)
    except (ArithmeticError, np.linalg.LinAlgError):
        return None


class Setup(NamedTuple):
    """What every y-loop of a point shares (:func:`setup`): the sectors' cut in ``q``, the
    standard loop's width, the depths, the circle round 1 with ``K = F(1, 1)`` and ``g_t``."""

    q_b: float
    q_a: float
    xi: float
    t: np.ndarray
    one: tuple
    K: complex
    g: _Terms


def setup(p: Point, t_max) -> Setup | None:
    """:class:`Setup` of the point ``p`` to depth ``t_max``, or ``None`` where both cuts are not
    one interval within reach, no ellipse of :data:`_XI` keeps ``|y| > 1`` or the means round 1
    do not converge."""
    q_min = 80 / _N_MAX  # the x-circle's n ~ 80/q_b points must stay within the cap
    cuts = cut(p, q_min), cut(p, q_min, v_sector=False)
    if None in cuts:
        return None
    (qy_b, qy_a), (qx_b, qx_a) = cuts
    xi_y, xi_x = _width(qy_b, qy_a), _width(qx_b, qx_a)
    if xi_y is None or xi_x is None:
        return None
    t = np.arange(t_max + 1)
    # round y = 1 and x = 1: F(x, 1), F(1, y) and K = F(1, 1) are means over a circle of
    # radius 0.3 times the distance to the nearer cut (Cauchy; the difference to every second
    # node bounds their error)
    one = near_one(p, 1 + 0.6 * min(qy_b / (1 - qy_b), qx_b / (1 - qx_b)))
    F11 = _nodes.m13(p, one, one)
    K = F11.mean()
    dK = abs(F11[::2, ::2].mean() - K) + 8 * _U * float(np.abs(F11).max())
    g = _g(p, qx_b, qx_a, xi_x, one, K, dK, t)
    if g is None:
        return None
    return Setup(qy_b, qy_a, xi_y, t, one, K, g)


def _curve(p: Point, t_max, rtol, atol):
    s = setup(p, t_max)
    if s is None:
        return None
    wider = [_YLoop(s.q_b, s.q_a, xi, _NY_WIDE, 2) for xi in _wider(s.q_b, s.q_a)]
    for y_loop in [_YLoop(s.q_b, s.q_a, s.xi, _NY, 10), *wider]:
        found = _on_loop(p, s.t, y_loop, s.one, s.K, s.g, rtol, atol)
        if found is not None:
            return found
    return None


class _YLoop(NamedTuple):
    """A y-loop to try: the cut's ends, the ellipse's width, its node counts in turn and the
    factor by which the check's miss must fall at each doubling."""

    q_b: float
    q_a: float
    xi: float
    counts: tuple
    fall: float


def _on_loop(p: Point, t, y_loop: _YLoop, one, K, g, rtol, atol):
    """The curve off the x-circle and the loop ``y_loop`` (:func:`_curve`), or ``None``."""
    t_max = len(t) - 1
    qy_b, qy_a, xi_y = y_loop.q_b, y_loop.q_a, y_loop.xi
    r0 = 1 / float(np.abs(loop(qy_b, qy_a, xi_y, 4096)[0]).min())
    n = max(1 << (2 * t_max + 16).bit_length(), 1 << math.ceil(math.log2(80 / (1 - r0))))
    if n > _N_MAX:
        return None
    x = _nodes.circle(r0, n)
    rows, A, dA, small = _circle(p, x, one)
    with np.errstate(over="ignore"):
        grow = r0 ** (-1.0 * t)
    scale_A = np.abs(A)[:, None] + np.abs(small)
    sums, miss = None, np.inf
    saddle = _SaddleCircle(p, one, t_max)
    for ny in y_loop.counts:
        y, w = loop(qy_b, qy_a, xi_y, ny)
        # the loop at ny/2 nodes (every second node, twice the weights), and at ny: its sums
        # plus those of the nodes between
        half = sums if sums is not None else _sums(p, x, rows, y[::2], 2 * w[::2], t, grow)
        sums = half.doubled(_sums(p, x, rows, y[1::2], w[1::2], t, grow))
        # the check: at every x, [y^m] B(x, .) = A(x) + the loop's sum, or that plus a pole
        # between (_loop_pole); where it fails, more nodes serve if its miss fell at least
        # tenfold since the last doubling (the quadrature converging), else it refuses
        # (measured: 1e-3, 1e-5, 1e-9, 2e-15 at 256 .. 2048 nodes where the sum converges;
        # 0.32, 0.21 where a pole near the cut's end spoils it)
        d = small - A[:, None] - sums.check
        scale = sums.scale + scale_A
        found = _loop_pole.fit(d, small - A[:, None] - half.check, scale, _CHECK)
        last, miss = miss, float(found.miss.max())
        if miss > _CHECK:
            if miss > last / y_loop.fall:
                return None
            continue
        total = K + g.value + sums.S
        err = np.abs(sums.S - half.S) + sums.bound + (4 * t + 20) * _U * sums.moduli + g.error
        pole_radius = None
        if found.pole.any():
            if not found.pole.all():  # a pole crossing the loop
                return None
            if not saddle.read(x, d, y, w):
                return None
            # first the share at a sample of the depths (the first 32, where its error falls
            # as the loop doubles, and every 16th): where one of them misses the tolerance,
            # the loop doubles without summing the rest (the share is summed depth by depth:
            # this decides as the sum over all depths would, at a tenth of its cost)
            few = np.union1d(t[:32], t[::16])
            if ny != y_loop.counts[-1]:
                some = saddle.share(few)
                if some is None:
                    return None
                if not _within(total[few] + some.P, err[few] + some.error, rtol, atol).all():
                    continue
            pole = saddle.share(t)
            if pole is None:
                return None
            total, err, pole_radius = total + pole.P, err + pole.error, pole.radius
        if _within(total, err, rtol, atol).all() or ny == y_loop.counts[-1]:
            return LoopCurve(total.real, err + np.abs(total.imag), r0, 1 / (1 - qy_b), pole_radius)
    return None


def _within(total, err, rtol, atol):
    """Where the bound ``err`` plus ``|Im total|`` holds ``rtol |Re total| + atol``."""
    return err + np.abs(total.imag) <= rtol * np.abs(total.real) + atol


def _circle(p: Point, x, one):
    """At the nodes ``x`` of a circle: the rows of B (u-sector), ``A(x) = F(x, 1)/(1 - x)``
    (the mean over the circle round 1) with its error (the difference to every second node,
    and rounding), and ``[y^m] B(x, .)`` off the small circle (:func:`_small_circle`)."""
    rows = _nodes.sectors(p, x, v=False)
    A, dA = np.empty(len(x), complex), np.empty(len(x))
    for s in _nodes.blocks(len(x), len(one[0])):
        F = _nodes.m13(p, (rows[0][s], [u[s] for u in rows[1]], None), one)
        A[s] = F.mean(1)
        dA[s] = np.abs(F[:, ::2].mean(1) - A[s]) + 8 * _U * np.abs(F).max(1)
    return rows, A / (1 - x), dA / np.abs(1 - x), _small_circle(p, x, rows)


class _SaddleCircle:
    """The share of ``E_t`` of a pole of ``B(x, .)`` that lies between the y-contours all round
    the x-circle (:mod:`cotbook.theory._loop_pole`), read on the circle through the saddle of
    ``x y_p(x)`` (:func:`cotbook.theory._loop_pole.saddle`; on the loop's own circle the sum
    cancels: measured ``sum |terms| / |P_t|`` = 9e5 at t = 10^4), kept across the loop's
    doublings: its nodes and rows (built again only where the saddle's radius moves) and the
    loop's sums there at the last doubling (the next one adds the nodes between)."""

    def __init__(self, p: Point, one, t_max):
        self.p, self.one, self.t_max = p, one, t_max
        self.r = self.ny = self.sums = self.at = None

    def read(self, x, d0, y, w) -> bool:
        """The differences on the saddle's circle off the loop's nodes ``y`` (weights ``w``)
        and their errors (the difference to every second node, ``A``'s error, rounding);
        ``False`` where the pole does not lie between all round that circle too, the check
        misses :data:`_CHECK` there, or the differences ``d0`` on the loop's circle ``x`` do
        not continue to it (:func:`cotbook.theory._loop_pole.continues`)."""
        p, r = self.p, _loop_pole.saddle(x, d0)
        if r != self.r:
            # enough nodes for the rule on every second one to resolve the depths and d_0's
            # pole at x = 1 (1 - r away), as on the loop's own circle
            n = max(
                1 << (4 * self.t_max + 32).bit_length(), 1 << math.ceil(math.log2(80 / (1 - r)))
            )
            xs = _nodes.circle(r, n)
            self.r, self.xs, self.circle, self.sums = r, xs, _circle(p, xs, self.one), None
        xs, (rows, A, dA, small) = self.xs, self.circle
        none = np.arange(0)
        if self.sums is not None and self.ny == len(y) // 2:
            half = self.sums
        else:
            half = _sums(p, xs, rows, y[::2], 2 * w[::2], none, none)
        full = half.doubled(_sums(p, xs, rows, y[1::2], w[1::2], none, none))
        self.ny, self.sums, self.at = len(y), full, None
        d = small - A[:, None] - full.check
        scale = full.scale + np.abs(A)[:, None] + np.abs(small)
        found = _loop_pole.fit(d, small - A[:, None] - half.check, scale, _CHECK)
        if not (found.pole.all() and found.miss.max() <= _CHECK):
            return False
        if not _loop_pole.continues(x, d0, xs, d):
            return False
        self.at = d, np.abs(full.check - half.check) + dA[:, None] + 8 * _U * scale
        return True

    def share(self, t) -> _loop_pole.Share | None:
        """The share at the depths ``t`` off the last :meth:`read`
        (:func:`cotbook.theory._loop_pole.share`; ``None`` where ``y_p`` is not known well
        enough)."""
        d, dd = self.at
        return _loop_pole.share(self.xs, d, dd, t)


class _Terms(NamedTuple):
    """A sum over the depths (``g_t``) and its error bound."""

    value: np.ndarray
    error: np.ndarray


def _g(p: Point, q_b, q_a, xi, one, K, dK, t) -> _Terms | None:
    """``g_t = [x^t] G``, ``G = (F(x, 1) - K)/(1 - x)`` (analytic at x = 1), on the loop round
    the u-sector's cut (:data:`_NX` nodes), with its error: the difference to every second
    node, the means' errors (``F(x, 1)``'s difference to every second node of the circle
    round 1, and ``K``'s) and rounding; ``None`` where the means have not converged."""
    x, w = loop(q_b, q_a, xi, _NX)
    rows = _sector(p, x, v_sector=False)
    Fx1 = _nodes.m13(p, rows, one)
    fx1 = Fx1.mean(1)
    dx1 = np.abs(Fx1[:, ::2].mean(1) - fx1)
    if dx1.max() > 1e-12 * float(np.abs(Fx1).max()):
        return None  # a singularity near 1
    G = (fx1 - K) / (1 - x)
    with np.errstate(under="ignore"):
        powers = np.exp(-(t[:, None] - 1) * np.log(x)[None, :])  # x^-(t-1) = (1-q)^(t-1)
    terms = powers * (w * G)[None, :]
    value = terms.sum(1)
    error = (
        np.abs(value - 2 * terms[:, ::2].sum(1))
        + np.abs(powers) @ (np.abs(w) * (dx1 + dK) / np.abs(1 - x))
        + (4 * t + 20) * _U * np.abs(terms).sum(1)
        + dK
    )
    return _Terms(value, error)


class _Sums(NamedTuple):
    """The y-loop's sums over a set of its nodes ``y_j`` (weights ``w_j``, see :func:`loop`):
    ``S_t = sum_j w_j y_j^-(t-1) b_t(y_j)``, ``b_t(y) = [x^t] B(., y)`` off the x-circle's
    FFT; the bound of the FFTs' aliasing and rounding,
    ``sum_j |w_j y_j^-(t-1)| (|b_t(y_j) - b'_t(y_j)| + 2 u max|B(., y_j)|) r0^-t`` with
    ``b'`` off every second node of the circle (whose aliasing is the larger: ``B(., y_j)``'s
    coefficients need not fall on both sides where a pole of ``B(x, .)`` lies between the
    y-contours, so its FFT's upper bins are no measure of aliasing there); the sum of the
    terms' moduli; and, for the check, ``sum_j w_j y_j^-(m-1) B(x_k, y_j)`` at every x-node
    (``m = 0, 1, 2``) with the sum of its terms' moduli."""

    S: np.ndarray
    bound: np.ndarray
    moduli: np.ndarray
    check: np.ndarray
    scale: np.ndarray
    S_half: np.ndarray
    """``S_t`` with ``b'`` (every second node of the x-circle) for ``b``."""

    def doubled(self, between):
        """The sums on the loop at twice the nodes, from these (every second node, whose
        weights halve) and those of the nodes ``between``."""
        return _Sums(*(a / 2 + b for a, b in zip(self, between, strict=True)))


def _sums(p: Point, x, rows, y, w, t, grow, rows_in=None) -> _Sums:
    """:class:`_Sums` over the loop nodes ``y``, a block of nodes at a time (no depth's sum
    where ``t`` is empty: the check's alone); ``rows_in``: a mask of the x-nodes whose rows
    enter (the others' are zero), or all."""
    cols = _sector(p, y, v_sector=True)
    n, depths = len(x), len(t)
    out = _Sums(
        np.zeros(depths, complex),
        np.zeros(depths),
        np.zeros(depths),
        np.zeros((n, 3), complex),
        np.zeros((n, 3)),
        np.zeros(depths, complex),
    )
    if rows_in is not None:
        rows = (rows[0][rows_in], [u[rows_in] for u in rows[1]], None)
    log_y = np.log(y)
    for s in _nodes.blocks(len(y), n):
        at = (cols[0][s], None, [v[s] for v in cols[2]])
        if rows_in is None:
            B = _nodes.m13(p, rows, at)
        else:
            B = np.zeros((n, s.stop - s.start), complex)
            B[rows_in] = _nodes.m13(p, rows, at)
        _nodes.over_poles(B, x, y[s])
        ym = w[s][None, :] * np.exp(-(np.arange(3)[:, None] - 1) * log_y[s][None, :])
        size = np.abs(B)
        out.check[:] += B @ ym.T
        out.scale[:] += size @ np.abs(ym).T
        if not depths:
            continue
        coef, coef_half = _fft(B, depths)
        floor = np.abs(coef - coef_half) + 2 * _U * size.max(0)
        with np.errstate(over="ignore", under="ignore"):
            Ay = w[s][None, :] * np.exp(-(t[:, None] - 1) * log_y[s][None, :])
        parts = Ay * coef * grow[:, None]
        out.S[:] += parts.sum(1)
        out.S_half[:] += (Ay * coef_half * grow[:, None]).sum(1)
        out.moduli[:] += np.abs(parts).sum(1)
        out.bound[:] += (np.abs(Ay) * floor).sum(1) * grow
    return out


def _fft(rows, depths):
    """Each column's coefficients ``[x^j] r0^j``, ``j < depths <= n/2``, off the FFT on the
    circle's ``n`` nodes (half a step off the real axis), and off the rule on every second
    node (``n/2`` nodes, also ``pi/n`` off the axis) from the same FFT: that rule's sums are
    ``(F_j + F_(j + n/2)) / 2``."""
    n = len(rows)
    F = np.fft.fft(rows, axis=0)
    phase = np.exp(-1j * np.pi * np.arange(depths) / n)[:, None] / n
    return F[:depths] * phase, (F[:depths] + F[n // 2 : n // 2 + depths]) * phase


def _small_circle(p: Point, x, rows):
    """``[y^m] B(x_k, .)``, ``m = 0, 1, 2`` (columns), at every node of the x-circle, read off
    the circle ``|y| = 1/2`` (64 nodes: aliasing ``2^-64``)."""
    ys = 0.5 * np.exp(2j * np.pi * np.arange(64) / 64)
    cols = _nodes.sectors(p, ys, u=False)
    powers = ys[:, None] ** -np.arange(3)[None, :] / (64 * (1 - ys))[:, None]
    out = np.empty((len(x), 3), complex)
    for s in _nodes.blocks(len(x), 64):
        at = (rows[0][s], [u[s] for u in rows[1]], None)
        out[s] = (_nodes.m13(p, at, cols) @ powers) / (1 - x[s])[:, None]
    return out
