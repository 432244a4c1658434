"""A simple pole of ``B(x, .)`` between the two y-contours of :mod:`cotbook.theory.ridge.loop`,
read off that module's check, and the pole's share of ``E_t``.

The check compares, at every node ``x_k`` of the x-circle, ``[y^m] B(x_k, .)`` read off the
small circle ``|y| = 1/2`` with ``A(x_k)`` plus the loop's sum (``m = 0, 1, 2``).  Where a
simple pole ``y_p`` of ``B(x_k, .)`` with residue ``c`` lies between the two contours, Cauchy's
theorem makes their difference ``d_m = -c y_p^(-m-1)``: ``y_p = d_0 / d_1``, and
``d_2 = d_1 / y_p`` is the check that one simple pole explains it (:func:`fit`).  The pole's
share of ``[y^t] B(x_k, .)`` is then ``d_0 y_p^-t``, and of ``E_t`` (the x-circle's
trapezoidal rule for ``[x^t]``, :func:`share`)::

    P_t = (1/n) sum_k d_0(x_k) (x_k y_p(x_k))^-t.

A growing curve's pole lies between on the whole circle, and ``|x y_p| < 1`` there is what
makes ``E_t`` grow.  On the loop's own circle the terms cancel (``x y_p`` is least where its
phase turns: measured ``sum |terms| / |P_t|`` = 9e5 at ``t = 10^4``), so the share is read
off a circle through the saddle of ``x y_p`` (:func:`saddle`), where the differences are
computed anew and checked to continue those on the loop's circle (:func:`continues`).
Measured at ``(0.9063, 2.162, 0.36, lam = 1.04e-5)``: every depth to ``10^4`` certified, to
``4e-11`` relative at ``t = 10^4`` (``E_t = 9.3e63``), in 177 s.  A pole that lies between on a
part of the circle only crosses the loop, where neither the loop's sum nor this share is
analytic in ``x``: no share is offered for it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._residues import residue_sum

_SPREAD = 0.01  # the most relative error of y_p for which the share is offered
_STABLE = 0.01  # a pole's differences move by less than this (relative) in one doubling
_INWARD = 0.02  # the saddle's circle is sought this far (relative) inside the loop's circle
_CONTINUES = 1e-6  # the Laurent series off one circle reproduces d on the other, relative


class Fit(NamedTuple):
    """Per node of the x-circle: whether a pole lies between (``pole``), ``y_p = d_0/d_1``
    there, and the check's miss once that pole is accounted for (the plain miss elsewhere)."""

    pole: np.ndarray
    y: np.ndarray
    miss: np.ndarray


def fit(d, d_half, scale, check) -> Fit:
    """:class:`Fit` of the check's differences ``d`` (n x 3: ``m = 0, 1, 2``), each relative to
    ``scale`` (the sum of the moduli of its terms), and ``d_half``, the same off the loop at
    half its nodes: a node whose plain miss exceeds ``check`` has a pole between if
    ``|d_0/d_1| > 1/2`` (beyond the small circle) and ``d`` moved by less than
    :data:`_STABLE` of itself since ``d_half`` (the quadrature's own error also looks like a
    pole, at a singularity of the loop's integrand, but falls a hundredfold and more with each
    doubling); its miss is then ``|d_2 - d_1^2/d_0|`` relative."""
    plain = (np.abs(d) / scale).max(1)
    with np.errstate(all="ignore"):
        y = d[:, 0] / d[:, 1]
        left = np.abs(d[:, 2] - d[:, 1] / y) / scale[:, 2]
        moved = (np.abs(d - d_half) / np.abs(d)).max(1)
    pole = (plain > check) & np.isfinite(y) & (np.abs(y) > 0.5) & np.isfinite(left)
    pole &= moved < _STABLE
    return Fit(pole, y, np.where(pole, left, plain))


class Share(NamedTuple):
    """``P_t`` at ``t = 0 .. t_max``, its error bound and the radius of the circle it was read
    off (:func:`share`)."""

    P: np.ndarray
    error: np.ndarray
    radius: float


def share(x, d, dd, t) -> Share | None:
    """``P_t`` (module docstring) from the differences ``d`` at every node ``x`` of a circle
    (all of them with a pole between) and their errors ``dd``, or ``None`` where ``y_p`` is
    known to worse than :data:`_SPREAD` (relative).

    The sum and its bound are :func:`cotbook.theory.ridge._residues.residue_sum`'s, with the data
    known to ``e_0 = dd_0/|d_0|`` (``d_0``) and ``e_y = e_0 + dd_1/|d_1|`` (``y_p``), relative,
    and the rule on every second node of ``x`` for its aliasing (the larger: the nodes must
    number at least ``4 t_max + 32``)."""
    n = len(x)
    if n < 4 * t[-1] + 32:
        raise ValueError(f"x must have at least 4 t_max + 32 nodes, got {n}")
    e0 = dd[:, 0] / np.abs(d[:, 0])
    ey = e0 + dd[:, 1] / np.abs(d[:, 1])
    if not ey.max() < _SPREAD:
        return None
    top, S, err = residue_sum(d[:, 0] / n, x * d[:, 0] / d[:, 1], slice(None, None, 2), e0, ey, t)
    with np.errstate(over="ignore"):
        scale = np.exp(top)
    P, error = S * scale, err * scale
    return Share(P, error, float(np.abs(x[0])))


def saddle(x, d) -> float:
    """The radius in ``[r0 (1 - _INWARD), r0]`` (``r0 = |x|``) of the circle on which
    ``|x y_p(x)|`` is largest along the ray through its least value on the circle
    ``|x| = r0``: near the saddle of ``x y_p(x)``, where the share's terms cancel least.
    ``x y_p`` off that circle from its Laurent series (:func:`laurent`).  A choice only:
    :func:`continues` checks the series on the circle chosen, and the share's bound holds
    on it."""
    phi = x * d[:, 0] / d[:, 1]
    least = x[np.argmin(np.abs(phi))] / np.abs(x[0])
    radii = np.abs(x[0]) * np.linspace(1 - _INWARD, 1, 41)
    return float(radii[np.argmax(np.abs(laurent(phi, x, radii * least)))])


def laurent(f, x, at):
    """The values at the points ``at`` of the Laurent series of ``f`` given at the nodes ``x`` of
    a circle (its FFT), the coefficients below ``1e-14`` of the largest (rounding) dropped."""
    n, r0 = len(x), np.abs(x[0])
    j = np.fft.fftfreq(n, 1 / n)
    c = np.fft.fft(f) / n * np.exp(-1j * np.pi * j / n)
    keep = np.abs(c) > 1e-14 * np.abs(c).max()
    c, j = c[keep], j[keep]
    at = np.asarray(at)
    return np.array([np.sum(c * (z / r0) ** j) for z in at.ravel()]).reshape(at.shape)


def continues(x, d, xs, ds) -> bool:
    """Whether ``d_0`` and ``x y_p`` at the nodes ``x`` (one circle), continued by their Laurent
    series (:func:`laurent`), reproduce them at 64 of the nodes ``xs`` (another circle), to
    :data:`_CONTINUES` of their largest values: no singularity between the two circles, so the
    share may be read off either."""
    at = slice(None, None, max(1, len(xs) // 64))
    for f, fs in ((d[:, 0], ds[:, 0]), (x * d[:, 0] / d[:, 1], xs * ds[:, 0] / ds[:, 1])):
        off = laurent(f, x, xs[at])
        if not np.abs(off - fs[at]).max() <= _CONTINUES * np.abs(fs).max():
            return False
    return True
