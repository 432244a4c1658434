"""The paths past one torus of the lambda > 0 engine: where a torus inside ``|x| = 1`` is refused,
the deeper depths come from elsewhere and are joined to its certified ones.

Three paths, each tried by :func:`cotbook.theory.ridge.ridge_curve` on a torus's refusal
(:class:`~cotbook.theory.ridge.RidgeAccuracyError`, which carries the torus's curve):

- ``_TwoTori``: a second torus beyond ``|x| = 1`` (:func:`cotbook.theory.ridge.torus.beyond`)
  whose certified tail starts at or before the depth the inside torus reached;
- ``_PastThePole``: the mixed sector's pole through the saddle
  (:func:`cotbook.theory.ridge.pole.deep_curve`), at once for a growing curve, once at the end
  for one that settles;
- ``_round_the_cut``: a circle inside ``|x| = 1`` and a loop round the sectors' cut
  (:func:`cotbook.theory.ridge.loop.deep_curve`, or :func:`cotbook.theory.ridge.cross.deep_curve`
  where a pole crosses every loop).

Each joins only where the two curves agree, within both bounds, at every depth both certify
(``_joined``), and the joined curve must pass the same rule (``_certified``).
"""

from __future__ import annotations

import math

import numpy as np

from ..derivation import Point
from . import cross, loop, pole
from ._certify import RidgeAccuracyError, RidgeCurve, _agree, _beyond_range, _certified, _reach


class _TwoTori:
    """A settling curve from two tori: the depths a torus inside ``|x| = 1`` certifies, and
    the deeper ones from a torus beyond it (:func:`cotbook.theory.ridge.torus.beyond`).

    Where E_t decays towards 0 or a floor and B has a singularity just beyond ``|x| = 1``,
    neither torus serves alone: the one inside holds at most ``n/2 - 4`` depths and its bound
    grows like ``r^-2t``; the one beyond carries the cost of taking out B's poles at 1 (about
    ``u max|F| / (r - 1)^2``) at the shallow depths, which can miss ``atol`` where E_t is small
    there, but its bound falls like ``r^-t``.  :meth:`offer` keeps, of the tori beyond
    ``|x| = 1`` that passed their check and agreed with the ladder, the one whose certified
    tail (every depth from ``start`` on) starts shallowest; :meth:`join` takes an inside
    torus's refusal and returns the whole curve, the inside torus's depths up to its
    ``certified_to`` and the tail's beyond, where the tail starts at or before that depth and
    the two agree, within both bounds, at every depth both certify (at least one).  Measured at
    ``(1.453, 7.086, 0.0247, lam = 2.979e-8)``, ``n = 4096``: the torus of radius 0.9983
    certifies ``t <= 926``, the one of radius 1.0096 every ``t >= 386``."""

    def __init__(self, rtol, atol):
        self.rtol, self.atol = rtol, atol
        self.tail = None  # (start, E, err, r)

    def offer(self, E, err, r):
        start = _tail_start(E, err, self.rtol, self.atol)
        if start < len(E) and (self.tail is None or start < self.tail[0]):
            self.tail = (start, E, err, r)

    def join(self, p: Point, refusal: RidgeAccuracyError) -> RidgeCurve | None:
        if self.tail is None:
            return None
        start, E, err, r = self.tail
        curve = _joined(p, refusal, start, E, err, self.rtol, self.atol)
        if curve is None:
            return None
        return curve._replace(beyond_from=refusal.certified_to + 1, beyond_radius=r)


def _round_the_cut(p: Point, refusal, t_max, rtol, atol) -> RidgeCurve | None:
    """A curve whose sectors' cut starts too near ``|y| = 1`` for any torus beyond it (or, if
    it grows, for the pole path's circle beyond the poles at 1): an inside torus's refusal
    joined to the circle and the loop
    (:func:`cotbook.theory.ridge.loop.deep_curve`), or where a pole crosses every loop to two
    loops and the pole's share along the saddle's path
    (:func:`cotbook.theory.ridge.cross.deep_curve`), as :meth:`_TwoTori.join` joins a torus
    beyond 1; ``None`` where the refusal has no inside torus's curve, the path does not apply
    (about a second to find out where the cut is out of reach, up to a minute where the
    loop's check finds a pole it cannot take) or the two disagree.  Measured at ``(0.9312, 11,
    0.02632, lam = 0.00127)``, where the cut starts at ``y_e = 1.000626``: the search's torus
    of radius 0.9935 certified ``t <= 859``, the loop (2048 nodes round the cut, ``2^17`` on
    the circle ``|x| = 0.99938``) every depth to 10^4, in 56 s of the 187 s in all; at the
    growing ``(0.9063, 2.162, 0.36, lam = 1.04e-5)`` the torus certified ``t <= 1609``, the
    loop with its pole's share every depth to 10^4 (``E = 9.3e63``), 378 s in all."""
    if refusal is None or refusal.curve is None or refusal.certified_to is None:
        return None
    if refusal.radius > 1:
        return None
    found = loop.deep_curve(p, t_max, rtol, atol)
    if found is None:  # a pole that crosses every loop: two loops and the saddle's path
        found = cross.deep_curve(p, t_max, rtol, atol)
    if found is None:
        return None
    start = _tail_start(found.E, found.error, rtol, atol)
    curve = _joined(p, refusal, start, found.E, found.error, rtol, atol)
    return None if curve is None else curve._replace(loop_from=refusal.certified_to + 1)


def _deeper_inside(kept, refusal):
    """Of ``kept`` and ``refusal``, the deeper refusal of a torus inside ``|x| = 1`` that carries
    its curve (``kept`` where ``refusal`` is none)."""
    if refusal.curve is None or refusal.radius is None or refusal.radius > 1:
        return kept
    return refusal if kept is None or _reach(refusal) > _reach(kept) else kept


def _tail_start(E, err, rtol, atol) -> int:
    """The first depth from which every depth of a curve meets ``rtol |E_t| + atol``."""
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(E) & np.isfinite(err) & (err <= rtol * np.abs(E) + atol)
    bad = np.flatnonzero(~ok)
    return int(bad[-1]) + 1 if len(bad) else 0


def _joined(p: Point, refusal, start, E_out, err_out, rtol, atol) -> RidgeCurve | None:
    """An inside torus's refusal (its depths to ``certified_to``) joined to a deeper curve
    that certifies every depth from ``start`` on: where that start is at or before
    ``certified_to`` and the two agree, within both bounds, at every depth both certify (at
    least one); ``None`` otherwise."""
    t_c = refusal.certified_to
    if refusal.curve is None or t_c is None or refusal.radius > 1:
        return None
    both = slice(max(start, 1), t_c + 1)
    E_in, err_in = refusal.curve
    if not start <= t_c or not _agree(E_in[both], err_in[both], E_out[both], err_out[both]):
        return None
    E = np.concatenate((E_in[: t_c + 1], E_out[t_c + 1 :]))
    err = np.concatenate((err_in[: t_c + 1], err_out[t_c + 1 :]))
    try:
        return _certified(p, E, err, refusal.radius, refusal.n, rtol, atol)
    except RidgeAccuracyError:
        return None


_POLE_N_MAX = 16384  # most nodes on the pole path's x-contour (peak memory about 2 GB)
_GROWTH = 2.0
"""The pole path is tried at once only where the torus's curve grew by more than this factor
over the second half of its certified depths (E_t ~ psi0^-t there).  A curve that settles or
approaches its floor grows by far less; for it the path is tried once, after the search for a
torus has failed (:meth:`_PastThePole.last_resort`): its saddle scan costs about a second,
and usually finds no pole.  Where it finds one beyond ``|x| = 1``, the path serves:
measured at ``(3.7682, 0.7319, 0.012873, lam = 1.96e-8)``, where every torus was refused at
``t = 889``, a pole at ``x0 = -1.0065`` (``psi0 = 1.013``) certifies ``t = 890 .. 10^4`` (65 s
in all, most of it the search for a torus that fails first)."""


class _PastThePole:
    """The depths a torus inside ``|x| = 1`` cannot certify, from the mixed sector's pole
    (:func:`cotbook.theory.ridge.pole.deep_curve`; computed once per node count and kept).

    :meth:`extend` takes a torus's refusal (of a growing curve, or of any curve from
    :meth:`last_resort`, see :data:`_GROWTH`) and
    returns the whole curve (the torus's depths up to its ``certified_to``, the pole's beyond)
    where the pole path certifies every deeper depth and agrees with the torus, within both
    bounds, at every depth both certify (at least one); otherwise a refusal that names the
    deeper of the two reaches.  The pole path starts with ``max(1024, 40 sqrt(t_max))`` nodes
    (rounded up to a power of two) and doubles them to :data:`_POLE_N_MAX` while a depth
    beyond the first it must serve misses its accuracy (where it misses that first one, the
    torus must reach further before the two can meet)."""

    def __init__(self, p: Point, t_max, rtol, atol, *, enabled=True):
        self.p, self.t_max, self.rtol, self.atol = p, t_max, rtol, atol
        self.enabled = enabled and t_max > 0
        self.overflowed = False  # E_t (the pole's or a torus's) left the float range: search ends
        self.curves: dict = {}
        self.n0 = max(1024, 1 << math.ceil(math.log2(40 * math.sqrt(max(t_max, 1)))))
        self.settled = None  # the deepest refusal of a torus whose curve did not grow

    def last_resort(self):
        """:meth:`extend` on the deepest refusal of a curve that did not grow (``None`` if
        there was none), tried once the search for a torus has failed (see :data:`_GROWTH`)."""
        return None if self.settled is None else self.extend(self.settled, settling=True)

    def _curve(self, nx):
        if nx not in self.curves:
            self.curves[nx] = pole.deep_curve(self.p, 1, self.t_max, n=nx)
        return self.curves[nx]

    def extend(self, refusal: RidgeAccuracyError, *, settling=False):
        t_c = refusal.certified_to
        if refusal.overflow:  # the torus's next E_t exceeds the float range: so does any path's
            self.overflowed = True
            return refusal
        if not self.enabled or refusal.curve is None or t_c is None or refusal.radius >= 1:
            return refusal
        E_torus, err_torus = refusal.curve
        if not settling and not E_torus[t_c] > _GROWTH * E_torus[t_c // 2]:
            if self.settled is None or t_c > self.settled.certified_to:
                self.settled = refusal  # kept for last_resort
            return refusal
        nx = self.n0
        while nx <= _POLE_N_MAX:
            path = self._curve(nx)
            if path is None:
                return refusal
            E = np.concatenate(([1.0], path.E))
            err = np.concatenate(([0.0], path.error))
            with np.errstate(invalid="ignore"):
                ok = np.isfinite(E) & np.isfinite(err) & (err <= self.rtol * np.abs(E) + self.atol)
            both = np.flatnonzero(ok[1 : t_c + 1]) + 1
            if not len(both) or not np.all(
                np.abs(E[both] - E_torus[both]) <= err[both] + err_torus[both]
            ):
                return refusal  # no depth to compare at, or the two disagree
            bad = np.flatnonzero(~ok[t_c + 1 :]) + t_c + 1
            if not len(bad):
                E[: t_c + 1], err[: t_c + 1] = E_torus[: t_c + 1], err_torus[: t_c + 1]
                return RidgeCurve(np.maximum(E, 0.0), err, refusal.radius, t_c + 1)
            t = int(bad[0])
            if t == t_c + 1:  # the pole path starts deeper: the torus must reach further first
                return refusal
            if not np.isfinite(E[t]) or 2 * nx > _POLE_N_MAX:
                return self._refusal(refusal, t, E[t], err[t], nx)
            nx *= 2
        return refusal

    def _refusal(self, refusal, t, value, error, nx):
        if t - 1 <= refusal.certified_to:
            return refusal
        if _beyond_range(value, error, self.rtol):
            self.overflowed = True
            why = "exceeds the float64 range"
        else:
            why = (
                f"is known to +-{error:.3g} (value {value:.6g}), more than rtol |E_t| + atol = "
                f"{self.rtol * abs(value) + self.atol:.3g}"
            )
        return RidgeAccuracyError(
            f"ridge_curve: E_{t} at {self.p} {why} (the torus of radius {refusal.radius:.6g} "
            f"certified to t = {refusal.certified_to}, the mixed sector's pole to t = {t - 1}, "
            f"{nx} nodes)",
            t - 1,
            overflow=self.overflowed,
        )
