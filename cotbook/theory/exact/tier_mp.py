"""Tier of the lambda = 0 route: the quadratic form in mpmath, the last resort.

:func:`.lagrange.mp_curve` at the digits the float64 condition asks for, plus those of
``rtol`` and a margin, confirmed by a second run at 15 more digits: a value is certified when
the two agree to ``rtol`` (:class:`AccuracyError` where they do not).  One run per point for
all its asked depths, which share the form's coefficients.  Each run costs O(t^2) operations
per depth, in Python: seconds at a few hundred.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from .. import domain
from . import lagrange
from ._tier import TINY, Ask, Ledger, Tier, by_point, point_text, to_float
from ..domain import AccuracyError

__all__ = ["Mp"]


class Mp(Tier):
    """mpmath, at digits from ``ledger.cond`` (inf where unknown) and ``ask.dps`` (a minimum)."""

    def answer(self, ask: Ask, pairs: list, ledger: Ledger) -> None:
        dps = domain.dps(ask.dps, 0)  # checked only now that mpmath runs
        for i, depths in by_point(pairs).items():
            cond = np.array([ledger.cond.get((i, t), math.inf) for t in depths])
            for t, value in _mp_values(*ask.point(i), depths, cond, ask.rtol, dps).items():
                ledger.value[i, t] = value


def _mp_values(alpha, tau, sigma2, depths, cond, rtol, dps):
    """``{t: E_t}`` at ``depths`` by the quadratic form in mpmath: at the digits the float64
    condition asks for (``cond``: bound / |E_t| / unit roundoff at each depth, inf where
    unknown), plus those of ``rtol`` and a margin, at least ``dps``, confirmed by a second run
    at 15 more digits."""
    finite = cond[np.isfinite(cond)]
    extra = 40 if finite.size < len(depths) else int(np.log10(max(finite.max(), 1.0)))
    d1 = max(dps, 20 + extra + int(-math.log10(rtol)))
    top = max(depths)  # entries of the form above the deepest depth asked do not reach it
    v1 = lagrange.mp_curve(alpha, tau, sigma2, top, d1, depths=depths)
    v2 = lagrange.mp_curve(alpha, tau, sigma2, top, d1 + 15, depths=depths)
    out = {}
    for t in depths:
        a, b = v1[t], v2[t]
        with mp.workdps(d1 + 15):
            scale = max(abs(b), mp.mpf(TINY))
            if abs(a - b) > 0.1 * rtol * scale:
                raise AccuracyError(
                    f"E_{t} at {point_text(alpha, tau, sigma2)}: mpmath at {d1} and {d1 + 15} "
                    f"digits differ by {float(abs(a - b) / scale):.2g}, more than rtol={rtol:g}"
                )
        out[t] = to_float(b)
    return out
