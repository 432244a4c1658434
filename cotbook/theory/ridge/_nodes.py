"""The closed system at a set of nodes: the sectors that B's mixed sector needs, and ``m13``.

``B(x, y) = m13(u(x), v(y)) / ((1 - x)(1 - y))`` with ``u(x) = -x / (alpha (1 - x))`` (App. C.2
and D) is read off node sets by :mod:`cotbook.theory.ridge` (tori) and
:mod:`cotbook.theory.ridge.pole` (a contour through the saddle) and
:mod:`cotbook.theory.ridge.loop` (a loop round the cut); all take its ingredients from here,
a block of nodes at a time (:func:`blocks`).
"""

from __future__ import annotations

import numpy as np

from .. import _torus
from ..derivation import Point, _u_sector, _v_sector


def sectors(p: Point, x, *, u=True, v=True, start=None, steps=None):
    """``u(x)`` and the u- and v-sector unknowns the mixed sector needs, at the nodes ``x``
    (continued radially in x where some ``|x| > 1``, or along the segment from ``start`` to
    ``x`` where ``start`` is given, see ``derivation._solve_sector``; ``steps``: Newton steps
    on the ray and on that segment, if not the default); ``u`` and ``v`` say which sectors are
    solved (rows of :func:`m13` need the u-sector, columns the v-sector; the other is
    ``None``)."""
    z = -x / (p.alpha * (1 - x))
    path = x if start is not None or np.max(np.abs(x)) > 1 else None
    how = {"x": path, "start": start}
    if steps is not None:
        how.update(n_steps=steps[0], path_steps=steps[1])
    U = V = None
    with np.errstate(all="ignore"):  # a node whose Newton path fails raises ArithmeticError
        if u:
            us = _u_sector(z, p, **how)
            U = [np.ascontiguousarray(us[k], dtype=complex) for k in ("m11", "m12", "m21", "m22")]
        if v:
            vs = _v_sector(z, p, **how)
            V = [np.ascontiguousarray(vs[k], dtype=complex) for k in ("m34", "m43", "m44")]
    return z, U, V


def m13(p: Point, rows, cols):
    """``m13(u(x_i), v(y_j))`` for two node sets given as :func:`sectors` output."""
    (zu, U, _), (zv, _, V) = rows, cols
    out = np.empty((len(zu), len(zv)), complex)
    with np.errstate(all="ignore"):
        F = _torus.m13_on_torus(zu, *U, zv, *V, p.alpha, p.tau, p.c, p.lam, out)
    if not np.all(np.isfinite(F)):
        raise ArithmeticError("closed system: m13 is not finite at the nodes")
    return F


def over_poles(F, x, y):
    """``B = F / ((1 - x_i)(1 - y_j))`` from ``F`` at the rows ``x`` and columns ``y``, in place
    (the arrays are the engine's largest: a new one per step cost more than the step)."""
    with np.errstate(all="ignore"):  # a node at 1 gives inf, which the callers refuse
        F *= (1 / (1 - x))[:, None]  # reciprocals: a complex product costs half a quotient
        F *= (1 / (1 - y))[None, :]
    return F


def without_poles(F, fx1, f1y, K, x, y):
    """``Bh = (F - F(x, 1) - F(1, y) + K) / ((1 - x)(1 - y))``, B with its poles at ``x = 1`` and
    ``y = 1`` taken out (``fx1``, ``f1y``: ``F(x_i, 1)``, ``F(1, y_j)``; ``K = F(1, 1)``), in
    place (:func:`over_poles`)."""
    F -= fx1[:, None]
    F -= f1y[None, :]
    F += K
    return over_poles(F, x, y)


def circle(r, n):
    """``n`` nodes on the circle ``|x| = r``, half a step off the real axis (so none is real:
    the circles of the ridge paths never meet the cuts on the real axis at a node)."""
    return r * np.exp(2j * np.pi * (np.arange(n) + 0.5) / n)


BLOCK = 1 << 22
"""Elements of the largest temporary array (complex: 64 MB): rows of nodes and depths are
taken in blocks of this size (:func:`blocks`)."""


def blocks(count, width) -> list:
    """Slices of ``range(count)`` whose rows of ``width`` elements hold at most :data:`BLOCK`
    elements in all (one row at least)."""
    step = max(1, BLOCK // max(width, 1))
    return [slice(i, min(i + step, count)) for i in range(0, count, step)]
