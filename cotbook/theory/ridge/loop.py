"""Deep depths of a ``lam > 0`` curve whose sectors' cut starts just beyond ``|x| = 1``: ``x`` on a
circle inside it, ``y`` on a loop round the cut.

``E_t = [x^t y^t] B``, ``B(x, y) = m13(u(x), v(y)) / ((1-x)(1-y))`` (App. C.2, D, C.9).  The
sectors' cut in ``q = 1 - 1/y`` is the interval ``[q_b, q_a]`` (:mod:`._cut`; the
u-sector's cut in x is the same interval).  Where ``q_b`` is small the cut starts just beyond
``y = 1`` (``y_e - 1 ~ q_b``): a torus beyond ``|y| = 1`` would need ``~1/q_b`` points per
circle in each variable, and a torus inside holds ``n/2 - 4`` depths.

Here the y-contour is moved from a small circle onto a loop ``L`` round the cut (an ellipse in
``log q`` with foci at the cut's ends, on which the trapezoidal rule resolves the square-root
ends), past B's pole at ``y = 1``.  ``|y| > 1`` all along ``L``, so ``y^-t`` falls there, and it
oscillates no faster than the cut's own scale.  For each ``x``::

    [y^t] B(x, .) = A(x) - (1/2 pi i) oint_L B(x, y) y^(-t-1) dy,   A(x) = F(x, 1) / (1 - x)

(the first term is the residue at ``y = 1``), and ``[x^t]`` of the second is read off an FFT on
the circle ``|x| = r0``, ``r0 = 1 / min_L |y|`` (:mod:`cotbook.theory.ridge._loop_sums`):
``r0^-t |y|^-t <= 1`` on ``L``, so no depth's error grows.  ``[x^t] A = K + g_t`` with
``K = F(1, 1)`` and ``g_t`` the coefficients of ``G = (F(x, 1) - K)/(1 - x)``, analytic at 1,
from the same loop round the u-sector's cut in ``x`` (on ``|x| = r0`` their error would grow
like ``r0^-t``).  ``F(x, 1)`` and ``K`` are means over a small circle round 1, as in
:func:`cotbook.theory.ridge.torus.beyond`.

Error bound: the loops' difference to every second node (the trapezoidal rule converges
geometrically), the FFT's aliasing (its difference to every second node of the circle) and
rounding weighted by the loop, the means' errors, and rounding.  Checks (a failure returns
``None``): both cuts are one interval strictly beyond ``|y| = 1`` (``0 < q_b``, ``q_a < 2``) and
within the node cap (``n ~ 80 / q_b <= 2^18``), the means round 1 converge, and for every ``x``
on the circle the loop reproduces ``[y^m] B(x, .)`` (``m = 0, 1, 2``) read off the circle
``|y| = 1/2``: no pole of ``B(x, .)`` lies between the two, which the y-contour would pass.
Where a simple pole does, all round the circle (a growing curve's, whose ``|x y_p| < 1`` makes
E_t grow), its share is added (:mod:`cotbook.theory.ridge._loop_pole`, read off a circle through its
saddle); a pole between on a part of the circle only crosses the loop, and one next to the loop
spoils its convergence.  Where either makes the loop refuse, wider loops are tried
(:func:`._cut.wider`): their tip moves towards ``y = -1`` and the x-circle towards
``|x| = 1``, where a pole near the cut's far end can lie beyond the loop all round (at
``(0.6674, 10.26, 0, lam = 2.951e-7)`` it crosses the narrower loop near ``x = -r0``, at
``|x y| ~ 1``).  At ``(0.9653, 6.774, 0.01703, lam = 0.002079)``, a growing curve, the narrower
loop comes within ``1.5e-4`` of ``|y| = 1``: its x-circle would need ``2^19`` points, over the
cap, and with them a pole crosses the loop (measured); no wider loop keeps ``|y| > 1`` there.
Where every loop refuses so, :mod:`cotbook.theory.ridge.cross` takes the point (two loops chosen
node by node, the pole's share along a path through its saddle).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..derivation import Point
from . import _cut, _loop_pole, _loop_sums, _nodes
from ._cut import loop
from ._loop_sums import node_count
from .torus import near_one

_U = np.finfo(float).eps / 2
N_MAX = 1 << 18  # most points on the x-circle (a block of its rows: 64 MB)
_NY = (256, 512, 1024, 2048)  # nodes on the y-loop, in turn, until its check and bound serve
_NX = 2048  # nodes on the x-loop of g_t (1-D: cheap)
_NY_WIDE = (256, 512, 1024, 2048, 4096, 8192)  # on a wider loop (_cut.wider): it passes
# nearer a pole beyond it, so it doubles to 8192 nodes while its check's miss falls at least
# twofold (measured at the settling point (0.6674, 10.26, 0, lam = 2.951e-7), xi = 0.09: 0.10,
# 0.031, 4.6e-3, 1.3e-4, 9.9e-8, 7e-14 at 256 .. 8192 nodes; a pole crossing the loop: 0.32,
# 0.21, 0.15)
_RULE = 80  # nodes on the x-circle: n >= _RULE / (1 - r0) (_loop_sums.node_count)


class LoopCurve(NamedTuple):
    """``E_t`` and its bound at ``t = 0 .. t_max`` (:func:`deep_curve`), the x-circle's radius,
    the cut's end nearest ``y = 1`` (``y_e = 1 / (1 - q_b)``) and the radius of the circle
    that a pole between the y-contours was read off (``None`` where there is none)."""

    E: np.ndarray
    error: np.ndarray
    radius: float
    y_e: float
    pole_radius: float | None = None


def deep_curve(p: Point, t_max, rtol, atol) -> LoopCurve | None:
    """``E_0 .. E_t_max`` with error bounds from the circle and the loop (module docstring),
    or ``None`` where the path does not apply or a check fails.  The y-loop starts at 256
    nodes and doubles them to 2048 while its check fails or a depth misses
    ``rtol |E_t| + atol``; where it refuses, the wider loops of
    :func:`cotbook.theory.ridge._cut.wider` are tried in turn (to 8192 nodes)."""
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
    one interval within reach, no ellipse of :data:`cotbook.theory.ridge._cut.XI` keeps ``|y| > 1``
    or the means round 1 do not converge."""
    q_min = _RULE / N_MAX  # the x-circle's n ~ 80/q_b points must stay within the cap
    cuts = _cut.cut(p, q_min), _cut.cut(p, q_min, v_sector=False)
    if None in cuts:
        return None
    (qy_b, qy_a), (qx_b, qx_a) = cuts
    xi_y, xi_x = _cut.width(qy_b, qy_a), _cut.width(qx_b, qx_a)
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
    wider = [_YLoop(s.q_b, s.q_a, xi, _NY_WIDE, 2) for xi in _cut.wider(s.q_b, s.q_a)]
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
    r0 = 1 / _cut.least_modulus(qy_b, qy_a, xi_y)
    n = node_count(2 * t_max + 16, r0, _RULE)
    if n > N_MAX:
        return None
    x = _nodes.circle(r0, n)
    circle = _loop_sums.circle(p, x, one)
    with np.errstate(over="ignore"):
        grow = r0 ** (-1.0 * t)
    sums, miss = None, np.inf
    saddle = _SaddleCircle(p, one, t_max)
    for ny in y_loop.counts:
        y, w = loop(qy_b, qy_a, xi_y, ny)
        # the loop at ny/2 nodes (the last doubling's), and at ny: its sums plus those of the
        # nodes between
        half, sums = _loop_sums.halves(p, x, circle.rows, y, w, t, grow, half=sums)
        # the check: at every x, [y^m] B(x, .) = A(x) + the loop's sum, or that plus a pole
        # between (_loop_pole); where it fails, more nodes serve if its miss fell at least
        # tenfold since the last doubling (the quadrature converging), else it refuses
        # (measured: 1e-3, 1e-5, 1e-9, 2e-15 at 256 .. 2048 nodes where the sum converges;
        # 0.32, 0.21 where a pole near the cut's end spoils it)
        found = _loop_sums.read(circle, half, sums)
        last, miss = miss, float(found.fit.miss.max())
        if miss > _loop_sums.CHECK:
            if miss > last / y_loop.fall:
                return None
            continue
        total = K + g.value + sums.S
        err = np.abs(sums.S - half.S) + sums.bound + (4 * t + 20) * _U * sums.moduli + g.error
        pole_radius = None
        if found.fit.pole.any():
            if not found.fit.pole.all():  # a pole crossing the loop
                return None
            if not saddle.read(x, found.d, y, w):
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


class _SaddleCircle:
    """The share of ``E_t`` of a pole of ``B(x, .)`` that lies between the y-contours all round
    the x-circle (:mod:`cotbook.theory.ridge._loop_pole`), read on the circle through the saddle of
    ``x y_p(x)`` (:func:`cotbook.theory.ridge._loop_pole.saddle`; on the loop's own circle the sum
    cancels: measured ``sum |terms| / |P_t|`` = 9e5 at t = 10^4), kept across the loop's
    doublings: its nodes and rows (built again only where the saddle's radius moves) and the
    loop's sums there at the last doubling (the next one adds the nodes between)."""

    def __init__(self, p: Point, one, t_max):
        self.p, self.one, self.t_max = p, one, t_max
        self.r = self.ny = self.sums = self.at = None

    def read(self, x, d0, y, w) -> bool:
        """The check on the saddle's circle off the loop's nodes ``y`` (weights ``w``):
        ``False`` where the pole does not lie between all round that circle too, the check
        misses :data:`._loop_sums.CHECK` there, or the differences ``d0`` on the
        loop's circle ``x`` do not continue to it (:func:`._loop_pole.continues`).
        """
        p, r = self.p, _loop_pole.saddle(x, d0)
        if r != self.r:
            # enough nodes for the rule on every second one to resolve the depths and d_0's
            # pole at x = 1 (1 - r away), as on the loop's own circle
            xs = _nodes.circle(r, node_count(4 * self.t_max + 32, r, _RULE))
            self.r, self.xs, self.sums = r, xs, None
            self.circle = _loop_sums.circle(p, xs, self.one)
        known = self.sums if self.ny == len(y) // 2 else None
        half, full = _loop_sums.halves(p, self.xs, self.circle.rows, y, w, half=known)
        self.ny, self.sums, self.at = len(y), full, None
        found = _loop_sums.read(self.circle, half, full)
        if not (found.fit.pole.all() and found.fit.miss.max() <= _loop_sums.CHECK):
            return False
        if not _loop_pole.continues(x, d0, self.xs, found.d):
            return False
        self.at = found
        return True

    def share(self, t) -> _loop_pole.Share | None:
        """The share at the depths ``t`` off the last :meth:`read`
        (:func:`cotbook.theory.ridge._loop_pole.share`; ``None`` where ``y_p`` is not known well
        enough)."""
        return _loop_pole.share(self.xs, self.at.d, self.at.dd, t)


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
    rows = _cut.sector(p, x, v_sector=False)
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
