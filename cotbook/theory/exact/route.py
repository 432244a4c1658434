"""The lambda = 0 route: the one ordered list of tiers, and the one function that walks it.

Every entry point of :mod:`.closed_form` asks for E_t at pairs ``(point, depth)``
(:class:`._tier.Ask`) and calls :func:`walk`.  The walk offers the pairs still open to each
tier of :data:`TIERS` in turn; a tier takes those its rule for this kind of ask reaches and
certifies what it can.  What no tier certifies is refused by name (:class:`AccuracyError`).
So the order in which the tiers answer a depth is read off this list and its rules, and
nowhere else:

========  =======  ===================================================================
route     depths   tiers that answer, in order
========  =======  ===================================================================
curve     t < 200  float64 curve, long double, contour (all at once), mpmath
curve     t >= 200 float64 curve, contour (all at once), long double (if cheap), mpmath
depth     t >= 200 contour, float64 stream, long double, mpmath (per point)
depth     t < 200  float64 stream, long double, contour, mpmath (per point)
depths    t >= 200 contour (all at once), contour (each depth), float64 stream,
                   long double, mpmath (one run)
depths    t < 200  float64 stream, long double, contour (each depth), mpmath (one run)
========  =======  ===================================================================

The streamed forms stop at :data:`._tier.STREAM_T_MAX`, mpmath at :data:`._tier.MP_T_MAX`
(for a curve: at ``t_max``; ``method="fast"`` leaves it out).
"""

from __future__ import annotations

import math

import numpy as np

from ._tier import CONTOUR_FIRST, MP_T_MAX, STREAM_T_MAX, TINY, Ask, Ledger, point_text
from ..domain import AccuracyError
from .tier_contour import Contour
from .tier_curve import FormCurve
from .tier_mp import Mp
from .tier_stream import Stream

__all__ = ["TIERS", "walk"]


def _every(ask, open_):
    return open_


def _deep(ask, open_):
    return [p for p in open_ if p[1] >= CONTOUR_FIRST]


def _shallow(ask, open_):
    return [p for p in open_ if p[1] < CONTOUR_FIRST]


def _streamed(ask, open_):
    return [p for p in open_ if p[1] <= STREAM_T_MAX]


def _deep_if_cheap(ask, open_):
    """A curve's deep depths in long double, if all of them cost at most 4e6 t^2 steps."""
    deep = _deep(ask, open_)
    return deep if sum(t * t for _, t in deep) <= 4_000_000 else []


def _curve_in_mp(ask, open_):
    return open_ if ask.mp and ask.t_max <= MP_T_MAX else []


def _depths_in_mp(ask, open_):
    return open_ if all(t <= MP_T_MAX for _, t in open_) else []


#: The tiers in the order they are offered the open pairs; each with its rule, by kind of ask,
#: for which of them it answers (a kind not named: none).
TIERS = (
    FormCurve("float64 curve", {"curve": _every}),
    Contour("contour first", {"depth": _deep, "depths": _deep}, batched=("depths",)),
    Contour("contour again", {"depths": _deep}),
    Stream("float64 stream", {"depth": _streamed, "depths": _streamed}),
    Stream(
        "long double",
        {"curve": _shallow, "depth": _streamed, "depths": _streamed},
        dtype=np.longdouble,
    ),
    Contour(
        "contour",
        {"curve": _every, "depth": _shallow, "depths": _shallow},
        batched=("curve",),
    ),
    Stream("long double deep", {"curve": _deep_if_cheap}, dtype=np.longdouble),
    Mp("mpmath", {"curve": _curve_in_mp, "depth": _depths_in_mp, "depths": _depths_in_mp}),
)


def walk(ask: Ask, pairs, *, tiers=TIERS, trace=None) -> dict:
    """``{pair: E_t}`` for every pair asked, each certified by the first tier of ``tiers`` that
    reaches it and certifies it.  ``trace``, a list: ``(tier name, pairs it was asked)`` is
    appended for every tier that runs.  :class:`AccuracyError` names the first pair no tier
    certified."""
    ledger, open_ = Ledger(), list(pairs)
    for tier in tiers:
        if not open_:
            break
        asked = tier.reach(ask, open_)
        if asked:
            if trace is not None:
                trace.append((tier.name, asked))
            tier.answer(ask, asked, ledger)
            open_ = [p for p in open_ if p not in ledger.value]
    if open_:
        raise AccuracyError(_refusal(ask, open_, ledger))
    return ledger.value


def _refusal(ask: Ask, open_, ledger: Ledger) -> str:
    """A curve's refusal names its first open depth and the accuracy reached there; that of
    single depths, the first open one beyond the mpmath tier's reach."""
    if ask.kind == "curve":
        i, t = open_[0]
        why = (
            "method='fast' leaves out the mpmath tier"
            if not ask.mp
            else f"the mpmath tier stops at t_max = {MP_T_MAX}"
        )
        return (
            f"E_{t} at {point_text(*ask.point(i))}: float64, the contours and extended precision "
            f"reach {_reached(*ledger.best[i, t])}, not rtol={ask.rtol:g} ({len(open_)} depths "
            f"fail), and {why} (the Lagrange quadratic form is ill-conditioned here)"
        )
    beyond = [p for p in open_ if p[1] > MP_T_MAX]
    i, t = (beyond or open_)[0]  # with the real tiers, mpmath certifies or raises below it
    return (
        f"E_{t} at {point_text(*ask.point(i))}: neither the contours nor the streamed "
        f"forms reach rtol={ask.rtol:g}, and the mpmath tier stops at t = {MP_T_MAX}"
    )


def _reached(E, bound):
    """The relative accuracy a (value, bound) pair reached, for error messages."""
    if not (math.isfinite(E) and math.isfinite(bound)):
        return "none (a quantity left the floating-point range)"
    return f"{bound / max(abs(E), TINY):.3g}"
