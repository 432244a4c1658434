"""What a tier of the lambda = 0 route is: the question asked, the ledger it fills, the rule.

A route (:mod:`.route`) asks for E_t at pairs ``(point, depth)`` (an :class:`Ask`); each tier
says which of the open pairs it can answer (``reach``) and answers them (``answer``): it
writes the values it certified into the :class:`Ledger`, and what it learnt of the others
(the best uncertified value with its bound, the float64 form's condition).  A tier calls no
other tier and no route.  The rule a value must pass is :func:`certified`, the same for
every tier that has a bound; the contours certify inside :func:`.contour.deep_errors` and
mpmath by the agreement of two precisions.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ..domain import AccuracyError

__all__ = [
    "Pair",
    "Ask",
    "Ledger",
    "Tier",
    "certified",
    "point_text",
    "to_float",
    "by_point",
    "by_depth",
    "TINY",
    "U",
    "HAVE_LONGDOUBLE",
    "CONTOUR_FIRST",
    "STREAM_T_MAX",
    "MP_T_MAX",
]

TINY = 1e-300  # absolute floor of the accuracy rule (closed_form.TINY documents it)
U = np.finfo(float).eps / 2  # unit roundoff of float64
# extended precision tier only if long double really is wider than double on this platform
HAVE_LONGDOUBLE = np.finfo(np.longdouble).eps < np.finfo(np.float64).eps / 100
CONTOUR_FIRST = 200  # from this depth on, single depths try the contours before the forms
MP_T_MAX = 300
"""Deepest ``t_max`` of ``method="lagrange_mp"`` and of the mpmath tier of ``"auto"``."""
STREAM_T_MAX = 20_000
"""Deepest depth of the streamed single-depth quadratic form (about 6 s at 20000 in extended
precision)."""

Pair = tuple[int, int]
"""``(i, t)``: depth ``t`` at the point ``(ask.alpha[i], ask.tau[i])``."""


@dataclass(frozen=True)
class Ask:
    """What a route asks for.  ``kind``: ``"curve"`` (every depth to ``t_max`` at one point,
    :func:`.closed_form.ridgeless_curve`), ``"depth"`` (one depth at many points,
    :func:`.closed_form.error_at` and ``error_grid``) or ``"depths"`` (several depths at one
    point, :func:`.closed_form.errors_at`)."""

    alpha: np.ndarray
    tau: np.ndarray
    sigma2: float
    rtol: float
    kind: Literal["curve", "depth", "depths"]
    t_max: int | None = None  #: deepest depth of a curve
    mp: bool = True  #: False for ``method="fast"``: no mpmath tier
    dps: int | None = None  #: a curve's minimum digits of the mpmath tier (unchecked)

    def point(self, i: int) -> tuple[float, float, float]:
        """``(alpha, tau, sigma2)`` of point ``i`` as Python floats."""
        return float(self.alpha[i]), float(self.tau[i]), self.sigma2


@dataclass
class Ledger:
    """What the walk knows: tiers write into it (and the mpmath tier reads ``cond``); the
    route decides from ``value`` which pairs are still open."""

    value: dict = field(default_factory=dict)  #: ``{pair: E}`` certified
    best: dict = field(default_factory=dict)  #: ``{pair: (E, bound)}`` best uncertified
    cond: dict = field(default_factory=dict)  #: ``{pair: bound / |E| / U}`` of float64

    def improve(self, pair, value, bound):
        """Keep ``(value, bound)`` as the best uncertified answer of ``pair`` if it has a finite
        value and a smaller bound than the one kept."""
        if np.isfinite(value) and (pair not in self.best or bound < self.best[pair][1]):
            self.best[pair] = (float(value), float(bound))


Reach = Callable[[Ask, list], list]
"""Which of the open pairs a tier answers for one kind of ask."""


@dataclass(frozen=True)
class Tier:
    """One way to evaluate E_t.  ``reach_by_kind`` maps a kind of ask to the rule that picks
    the open pairs this tier answers (kinds not named: none); the route's list of tiers sets
    these rules, and with them the order in which tiers answer a depth.  Subclasses implement
    :meth:`answer`."""

    name: str
    reach_by_kind: Mapping[str, Reach]

    def available(self) -> bool:
        """Whether this tier runs on this platform."""
        return True

    def reach(self, ask: Ask, open_: list) -> list:
        """The pairs of ``open_`` this tier answers for ``ask`` (in their order)."""
        rule = self.reach_by_kind.get(ask.kind)
        return rule(ask, open_) if rule is not None and self.available() else []

    def answer(self, ask: Ask, pairs: list, ledger: Ledger) -> None:
        """Evaluate ``pairs``; put the certified values into ``ledger.value``."""
        raise NotImplementedError


def certified(E, bound, rtol):
    """Where ``E`` is vouched for: finite value and bound, ``bound <= rtol max(|E|, TINY)``."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.isfinite(E) & np.isfinite(bound) & (bound <= rtol * np.maximum(np.abs(E), TINY))


def point_text(alpha, tau, sigma2):
    return f"(alpha={alpha:g}, tau={tau:g}, sigma2={sigma2:g})"


def to_float(x):
    """An mpmath value as float64 (AccuracyError rather than a NaN)."""
    f = float(x)
    if math.isnan(f):
        raise AccuracyError("internal error: NaN produced")
    return f


def by_point(pairs) -> dict[int, list[int]]:
    """``{i: [t, ...]}`` of ``pairs``, in their order."""
    out = defaultdict(list)
    for i, t in pairs:
        out[i].append(t)
    return out


def by_depth(pairs) -> dict[int, list[int]]:
    """``{t: [i, ...]}`` of ``pairs``, in their order."""
    out = defaultdict(list)
    for i, t in pairs:
        out[t].append(i)
    return out
