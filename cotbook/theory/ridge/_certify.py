"""The certified output of the lambda > 0 engine: the curve with its bound, the refusal, and the
rule a curve must meet.

:class:`RidgeCurve` is what :func:`cotbook.theory.ridge.ridge_curve` returns: ``E_0 ..
E_{t_max}``, a bound on each depth's error and the torus (or the paths beyond it) the depths
came from.  :class:`RidgeAccuracyError` is its refusal, which carries the deepest depth certified
and the curve there, so that a path beyond the torus (:mod:`cotbook.theory.ridge.beyond`) can
take over from it.  ``_certified`` applies the invariants (``E_0 = 1``, ``E_t >= 0`` within
the bound) and the accuracy rule ``error_t <= rtol |E_t| + atol`` with the defaults
:data:`RIDGE_RTOL` and :data:`RIDGE_ATOL`; ``_agree`` says when two curves agree within their
bounds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import domain
from ..derivation import Point
from . import torus

__all__ = ["RIDGE_ATOL", "RIDGE_RTOL", "RidgeCurve", "RidgeAccuracyError"]

RIDGE_RTOL = 1e-6
"""Default relative accuracy of :func:`ridge_curve` (with :data:`RIDGE_ATOL`)."""

RIDGE_ATOL = 1e-12
"""Default absolute accuracy of :func:`ridge_curve`: below it a certified ``E_t`` is known
only to be that small."""


class RidgeCurve(NamedTuple):
    """The error curve of the closed system (:func:`ridge_curve`), its error bound and the
    torus radius used."""

    E: np.ndarray
    """``E_0 .. E_{t_max}`` (``E_0 = 1`` exactly, every ``E_t >= 0``)."""
    error: np.ndarray
    """Bound on ``|E_t - exact|`` at each depth (see :func:`ridge_curve`)."""
    radius: float
    """Radius ``r`` of the torus ``|x| = |y| = r`` the coefficients were read on."""
    pole_from: int | None = None
    """The first depth read off the mixed sector's pole (:mod:`cotbook.theory.ridge.pole`)
    instead of the torus, where E_t grows faster than a torus can follow; ``None`` where every
    depth is the torus's."""
    beyond_from: int | None = None
    """The first depth read off a second torus, beyond ``|x| = 1`` (radius
    :attr:`beyond_radius`), where the torus inside it cannot hold the deep depths and the one
    beyond cannot meet the accuracy at the shallow ones (see ``_TwoTori``); ``None`` where one
    torus served every depth."""
    beyond_radius: float | None = None
    """Radius of the second torus (``None`` where there is none)."""
    loop_from: int | None = None
    """The first depth read off a circle inside ``|x| = 1`` and a loop round the sectors' cut
    in ``y`` (:mod:`cotbook.theory.ridge.loop`), where the cut starts so near ``|y| = 1`` that
    no torus beyond it serves; ``None`` where it was not needed."""


class RidgeAccuracyError(domain.AccuracyError):
    """:func:`ridge_curve` could not certify the curve; ``certified_to`` is the deepest depth
    to which it was certified (every shallower one too), ``None`` where no torus served;
    ``radius`` and ``n`` name the torus that certified it: ``ridge_curve(..., certified_to,
    n=n, radius=radius)`` returns that curve (a search for ``certified_to`` alone may take
    another torus).  Where the depths beyond the torus came from the mixed sector's pole,
    ``radius`` and ``n`` are ``None`` and ``ridge_curve(..., certified_to)`` returns it.
    ``overflow`` says that the next depth's ``E_t`` exceeds the float64 range (no torus or node
    count brings it back)."""

    def __init__(self, message, certified_to, radius=None, n=None, curve=None, overflow=False):
        super().__init__(message)
        self.certified_to = certified_to
        self.overflow = overflow
        self.radius = radius
        self.n = n
        self.curve = curve  # (E, err) on that torus, for the pole path beyond it


def _beyond_range(value, error, rtol) -> bool:
    """``E_t`` is certified to exceed the float64 range: its value overflowed while its bound
    (the same power times a smaller number) is within ``rtol`` of the largest float."""
    return bool(np.isinf(value) and error <= rtol * np.finfo(float).max)


def _agree(E1, err1, E2, err2) -> bool:
    """Two curves agree within their bounds at every depth (where both are ``inf``, past the
    float range, they agree too)."""
    with np.errstate(invalid="ignore"):
        return bool(np.all((np.abs(E1 - E2) <= err1 + err2) | (E1 == E2)))


def _reach(err: RidgeAccuracyError) -> int:
    return -1 if err.certified_to is None else err.certified_to


def _certified(p: Point, E, err, r, n, rtol, atol) -> RidgeCurve:
    """Apply the invariants and the accuracy rule of :func:`ridge_curve`."""
    E = E.copy()
    E[0], err = 1.0, err.copy()
    err[0] = 0.0
    with np.errstate(invalid="ignore"):
        bad = ~(np.isfinite(E) & np.isfinite(err) & (err <= rtol * np.abs(E) + atol))
    if bad.any():
        t = int(np.argmax(bad))
        if r < 1 and t > torus.held(n):
            raise RidgeAccuracyError(
                f"ridge_curve: E_{t} at {p} lies deeper than the {torus.held(n)} depths a "
                f"torus inside |x| = 1 holds at n = {n} (radius {r:.6g}), and no torus beyond "
                "|x| = 1 served",
                t - 1,
                r,
                n,
                (E, err),
            )
        overflow = _beyond_range(E[t], err[t], rtol)
        if overflow:
            why = f"exceeds the float64 range (torus radius {r:.6g}, n = {n})"
        else:
            why = (
                f"is known to +-{err[t]:.3g} (value {E[t]:.6g}, torus radius {r:.6g}, n = {n}), "
                f"more than rtol |E_t| + atol = {rtol * abs(E[t]) + atol:.3g}"
            )
        raise RidgeAccuracyError(
            f"ridge_curve: E_{t} at {p} {why}", t - 1, r, n, (E, err), overflow
        )
    if np.any(E < -err):
        t = int(np.argmax(E < -err))
        raise RidgeAccuracyError(
            f"ridge_curve: E_{t} = {E[t]:.6g} < 0 beyond its error bound {err[t]:.3g} at {p} "
            f"(torus radius {r:.6g}, n = {n})",
            t - 1,
            r,
            n,
        )
    return RidgeCurve(np.maximum(E, 0.0), err, r)
