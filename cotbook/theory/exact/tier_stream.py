"""Tier of the lambda = 0 route: single depths by the streamed quadratic form.

:func:`.lagrange.stream_depth` evaluates one depth at many points at once, O(t^2) each, in
float64 or in x87 extended precision (long double, where it is wider than float64), with an
a-priori bound checked by :func:`._tier.certified`.  One call per depth asked, with every
point that asks it.  The float64 run records the form's condition (the mpmath tier's digits);
either records the best uncertified value (what a refusal reports).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import lagrange
from ._tier import HAVE_LONGDOUBLE, TINY, Ask, Ledger, Tier, U, by_depth, certified

__all__ = ["Stream"]


@dataclass(frozen=True)
class Stream(Tier):
    """The streamed form in ``dtype`` (``numpy.float64`` or ``numpy.longdouble``)."""

    dtype: type = np.float64

    def available(self) -> bool:
        return self.dtype is not np.longdouble or HAVE_LONGDOUBLE

    def answer(self, ask: Ask, pairs: list, ledger: Ledger) -> None:
        for t, points in by_depth(pairs).items():
            idx = np.array(points)
            E, bound = lagrange.stream_depth(
                ask.alpha[idx], ask.tau[idx], ask.sigma2, t, dtype=self.dtype
            )
            ok = certified(E, bound, ask.rtol)
            with np.errstate(over="ignore"):  # beyond float64: +inf, a true statement
                values = E.astype(float)
            if ask.kind != "curve":
                values[values == 0.0] = 0.0  # single depths: no -0.0
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                cond = bound / np.maximum(np.abs(E), TINY) / U
            each = zip(points, ok.tolist(), values.tolist(), strict=True)
            for k, (i, good, value) in enumerate(each):
                if good:
                    ledger.value[i, t] = value
                    continue
                ledger.improve((i, t), E[k], bound[k])
                if self.dtype is np.float64:  # the condition of the float64 form
                    ledger.cond[i, t] = cond[k]
