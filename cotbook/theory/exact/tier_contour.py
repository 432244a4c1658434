"""Tier of the lambda = 0 route: E_t by the contour integrals through the saddle points.

:func:`.contour.deep_errors` is well conditioned at any depth and certifies its own values
(two contours and their discretisation errors).  It picks its nodes from the whole set of
depths it is given, so how the asked depths are grouped into calls is part of the result:
either one call per point with all its depths (``batched``) or one call per depth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import contour
from ._tier import Ask, Ledger, Tier, by_point

__all__ = ["Contour", "from_contour"]


@dataclass(frozen=True)
class Contour(Tier):
    """The contours; ``batched``: the kinds of ask answered one call per point (the others:
    one call per depth)."""

    batched: tuple[str, ...] = ()

    def answer(self, ask: Ask, pairs: list, ledger: Ledger) -> None:
        for i, depths in by_point(pairs).items():
            alpha, tau, sigma2 = ask.point(i)
            calls = [depths] if ask.kind in self.batched else [[t] for t in depths]
            for group in calls:
                for t, v in contour.deep_errors(alpha, tau, sigma2, group, ask.rtol).items():
                    ledger.value[i, t] = from_contour(v)


def from_contour(value: contour.DeepValue) -> float:
    """A contour value as float64: beyond the range it is inf (a true statement that E_t is
    larger) or 0.0 (below the absolute floor TINY of the accuracy rule)."""
    log_e = math.log(abs(value.mantissa)) + value.log_scale
    if log_e > 709.7:
        return math.inf
    return math.exp(log_e) if log_e > -745.0 else 0.0
