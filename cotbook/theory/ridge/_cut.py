"""The sectors' cut of a ``lam > 0`` point and the loops round it (App. C.9): where it lies
(:func:`cut`), the ellipse loops in ``y`` that enclose it (:func:`loop`), and which loops keep
``|y| > 1`` (:func:`width`, :func:`wider`).

The v-sector is analytic in ``y`` but for a cut, which in ``z = v(y)`` is a real interval
``[z_a, z_b]`` (square-root ends) and in ``q = 1 - 1/y = 1/(alpha z)`` the interval
``[q_b, q_a]``; the u-sector's cut in x is the same interval.  The deep paths of
:mod:`cotbook.theory.ridge.loop` and :mod:`cotbook.theory.ridge.cross` move a contour onto a
loop round it.
"""

from __future__ import annotations

import math

import numpy as np

from ..derivation import Point
from . import _nodes

XI = (0.07, 0.05)  # the ellipses' widths tried, widest first (nearer the cut, the
# singularities of B(x, .) there slow the loop's convergence: at 0.035 the check failed at
# 2048 nodes where 0.05 passed)
WIDE = (0.09, 0.11, 0.13)  # wider ellipses, tried in turn once those of XI fail (:func:`wider`)
_SCAN = 256  # points of the scan for the cut's ends
_JUMP = 1e-8  # a jump of the sector's unknowns across the real axis, relative: on the cut
_STEPS = (64, 512)  # Newton steps on the ray in z and on the segment to a node


def sector(p: Point, y, v_sector):
    """The u-sector (``v_sector`` false) or v-sector at loop nodes ``y`` in the form of
    :func:`._nodes.sectors`, each reached from ``y + i |y| / 2`` (below the axis:
    ``- i |y| / 2``), a path that keeps to one side of the real axis and so of the cut;
    ``ArithmeticError`` where Newton's method fails."""
    side = np.where(y.imag < 0, -1.0, 1.0)
    start = y + side * 0.5j * np.abs(y)
    return _nodes.sectors(p, y, u=not v_sector, v=v_sector, start=start, steps=_STEPS)


def on_cut(p: Point, z, v_sector) -> np.ndarray | None:
    """Whether each real ``z`` lies on the sector's cut: its unknowns at ``z (1 -+ 1e-13 i)``
    differ (relative :data:`_JUMP`); ``None`` where a continuation fails.  Each side is
    reached on its own side of the axis (:func:`sector`): a ray straight along the real
    z-axis can land on another sheet near the cut's ends."""
    sides = []
    for side in (1, -1):  # just below / above the real z-axis (above / below in y)
        near = z * (1 - side * 1e-13j)
        y = near * p.alpha / (near * p.alpha - 1)
        try:
            _, U, V = sector(p, y, v_sector)
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
    on = on_cut(p, z, v_sector)
    if on is None or on[0] or on[-1] or not on.any():
        return None
    i, j = int(np.argmax(on)), len(on) - 1 - int(np.argmax(on[::-1]))
    if not on[i : j + 1].all():
        return None

    def edge(off, at):  # bisection in log z between a point off the cut and one on it
        for _ in range(45):
            mid = math.sqrt(off * at)
            found = on_cut(p, np.array([mid]), v_sector)
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


def least_modulus(q_b, q_a, xi):
    """``min |y|`` on the loop of width ``xi`` (4096 nodes); the x-circle of a path through
    this loop has radius ``1 / min |y|``, so ``|x y| >= 1`` on both."""
    return float(np.abs(loop(q_b, q_a, xi, 4096)[0]).min())


def width(q_b, q_a):
    """The widest ellipse of :data:`XI` that keeps ``|y| >= 1 + q_b/2`` all round (so
    ``y^-t`` falls along the whole loop), or ``None``."""
    for xi in XI:
        if least_modulus(q_b, q_a, xi) >= 1 + q_b / 2:
            return xi
    return None


def wider(q_b, q_a):
    """The ellipses of :data:`WIDE` that keep ``|y| > 1`` all round (the x-circle inside
    ``|x| = 1``).  A wider ellipse moves the loop's tip beyond the cut's far end (``q_a``)
    towards ``y = -1``, so the x-circle's radius ``r0`` towards 1, and a pole of ``B(x, .)``
    near that end, which crosses the narrower loop where ``x ~ -r0``, lies beyond the wider one
    all round: ``|x y_p|`` grows with ``|x|`` there (measured at the settling point
    ``(0.6674, 10.26, 0, lam = 2.951e-7)``, at ``x = -r``: 0.9907, 0.9972, 1.0008 at ``r`` =
    0.975, 0.9856, 0.995; ``xi = 0.09`` puts the x-circle at ``r0 = 0.9984``, and certifies
    there, also at ``lam`` = 1e-8 and 1e-6).  Not every crossing: at
    ``(0.6674, 9.5, 0, 2.951e-7)`` the pole still meets the loop at ``xi = 0.09``
    (``r0 = 0.9984``; every wider one dips inside ``|y| = 1``), and at
    ``(0.72, 10.26, 0, 2.951e-7)`` every ellipse of :data:`WIDE` dips inside it and one at
    ``xi = 0.07`` (``r0 = 0.9989``, tried by hand) still meets the pole:
    :mod:`cotbook.theory.ridge.loop` refuses both (measured),
    :mod:`cotbook.theory.ridge.cross` serves them."""
    return [xi for xi in WIDE if least_modulus(q_b, q_a, xi) > 1]
