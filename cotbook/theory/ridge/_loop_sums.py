"""Sums of ``B(x, y) y^-(t-1)`` over a loop round the sectors' cut in ``y`` (:mod:`._cut`) at the
nodes of a circle in ``x``, and the check that the loop reproduces ``[y^m] B(x, .)`` there: the
quadrature that :mod:`cotbook.theory.ridge.loop` and :mod:`cotbook.theory.ridge.cross` share.

``B(x, y) = m13(u(x), v(y)) / ((1-x)(1-y))`` (App. C.2, D, C.9).  For each ``x``::

    [y^t] B(x, .) = A(x) - (1/2 pi i) oint_L B(x, y) y^(-t-1) dy,   A(x) = F(x, 1) / (1 - x)

(the first term is the residue at ``y = 1``), and ``[x^t]`` of the second term is read off an
FFT on the x-circle (:func:`sums`).  The check compares the loop with ``[y^m] B(x, .)``,
``m = 0, 1, 2``, read off the circle ``|y| = 1/2``: where a pole of ``B(x, .)`` lies between
the two contours, the difference is its residue (:func:`read`,
:func:`cotbook.theory.ridge._loop_pole.fit`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..derivation import Point
from . import _loop_pole, _nodes
from ._cut import sector

_U = np.finfo(float).eps / 2
CHECK = 1e-11  # the loop's reproduction of [y^m] B(x, .), relative to its terms


def node_count(least, r, rule):
    """Nodes on an x-circle of radius ``r``: the power of two above ``least`` (the depths the
    FFT must resolve) and above ``rule / (1 - r)`` (the rule on every second node resolves the
    pole at ``x = 1``, ``1 - r`` away, to about ``e^-(rule/2)`` of it)."""
    return max(1 << int(least).bit_length(), 1 << math.ceil(math.log2(rule / (1 - r))))


class Circle(NamedTuple):
    """What an x-circle's nodes carry (:func:`circle`)."""

    rows: tuple
    """The rows of B: the u-sector at the nodes (:func:`cotbook.theory.ridge._nodes.sectors`)."""
    A: np.ndarray
    """``A(x) = F(x, 1) / (1 - x)``, the mean over the circle round 1."""
    dA: np.ndarray
    """``A``'s error: the difference to every second node of that circle, and rounding."""
    small: np.ndarray
    """``[y^m] B(x, .)``, ``m = 0, 1, 2`` (columns), off the circle ``|y| = 1/2``."""


def circle(p: Point, x, one) -> Circle:
    """:class:`Circle` at the nodes ``x`` (``one``: the circle round 1, as
    :func:`cotbook.theory.ridge.torus.near_one` gives it)."""
    rows = _nodes.sectors(p, x, v=False)
    A, dA = np.empty(len(x), complex), np.empty(len(x))
    for s in _nodes.blocks(len(x), len(one[0])):
        F = _nodes.m13(p, (rows[0][s], [u[s] for u in rows[1]], None), one)
        A[s] = F.mean(1)
        dA[s] = np.abs(F[:, ::2].mean(1) - A[s]) + 8 * _U * np.abs(F).max(1)
    return Circle(rows, A / (1 - x), dA / np.abs(1 - x), _small_circle(p, x, rows))


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


class Sums(NamedTuple):
    """The y-loop's sums over a set of its nodes ``y_j`` (weights ``w_j``, see
    :func:`cotbook.theory.ridge._cut.loop`): ``S_t = sum_j w_j y_j^-(t-1) b_t(y_j)``,
    ``b_t(y) = [x^t] B(., y)`` off the x-circle's FFT; the bound of the FFTs' aliasing and
    rounding, ``sum_j |w_j y_j^-(t-1)| (|b_t(y_j) - b'_t(y_j)| + 2 u max|B(., y_j)|) r0^-t``
    with ``b'`` off every second node of the circle (whose aliasing is the larger: ``B(., y_j)``'s
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
        return Sums(*(a / 2 + b for a, b in zip(self, between, strict=True)))


_NONE = np.arange(0)


def sums(p: Point, x, rows, y, w, t=_NONE, grow=_NONE, rows_in=None) -> Sums:
    """:class:`Sums` over the loop nodes ``y`` (weights ``w``) at the x-nodes ``x`` (``rows``:
    their u-sector), a block of nodes at a time, at the depths ``t`` (``grow``: ``r0^-t``; no
    depth's sum where ``t`` is empty: the check's alone); ``rows_in``: a mask of the x-nodes
    whose rows enter (the others' are zero), or all."""
    cols = sector(p, y, v_sector=True)
    n, depths = len(x), len(t)
    out = Sums(
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


def halves(p: Point, x, rows, y, w, t=_NONE, grow=_NONE, rows_in=None, half=None):
    """``(half, full)``: :func:`sums` over every second node of the loop ``y`` (the loop at
    half the nodes: twice the weights) and over all of them, from ``half`` where it is known
    (the last doubling's sums) and the nodes between."""
    if half is None:
        half = sums(p, x, rows, y[::2], 2 * w[::2], t, grow, rows_in)
    return half, half.doubled(sums(p, x, rows, y[1::2], w[1::2], t, grow, rows_in))


def _fft(rows, depths):
    """Each column's coefficients ``[x^j] r0^j``, ``j < depths <= n/2``, off the FFT on the
    circle's ``n`` nodes (half a step off the real axis), and off the rule on every second
    node (``n/2`` nodes, also ``pi/n`` off the axis) from the same FFT: that rule's sums are
    ``(F_j + F_(j + n/2)) / 2``."""
    n = len(rows)
    F = np.fft.fft(rows, axis=0)
    phase = np.exp(-1j * np.pi * np.arange(depths) / n)[:, None] / n
    return F[:depths] * phase, (F[:depths] + F[n // 2 : n // 2 + depths]) * phase


class Read(NamedTuple):
    """The check at every node of an x-circle (:func:`read`)."""

    fit: _loop_pole.Fit
    """:func:`cotbook.theory.ridge._loop_pole.fit` of the differences: a pole between, its
    ``y_p``, the miss."""
    d: np.ndarray
    """``[y^m] B(x, .) - A(x) - the loop's sum``, ``m = 0, 1, 2``: zero, or a pole's residue."""
    dd: np.ndarray
    """``d``'s error: the loop's difference to every second node, ``A``'s error, rounding."""


def read(c: Circle, half: Sums, full: Sums) -> Read:
    """The check off a loop's sums at all its nodes (``full``) and every second one (``half``)
    at the nodes of the circle ``c``."""
    d = c.small - c.A[:, None] - full.check
    scale = full.scale + np.abs(c.A)[:, None] + np.abs(c.small)
    fit = _loop_pole.fit(d, c.small - c.A[:, None] - half.check, scale, CHECK)
    return Read(fit, d, np.abs(full.check - half.check) + c.dA[:, None] + 8 * _U * scale)
