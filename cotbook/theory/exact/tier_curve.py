"""Tier of the lambda = 0 route: a whole curve by the float64 quadratic form with its bound.

:func:`.lagrange.float_curve` gives E_0 .. E_{t_max} at one point and an a-priori rounding
bound for each; a depth is certified where the bound passes :func:`._tier.certified`.  For the
depths it leaves open it records the value with its bound (what a refusal reports) and the
form's condition, bound / |E_t| / unit roundoff, from which the mpmath tier sets its digits.
"""

from __future__ import annotations

import numpy as np

from . import lagrange
from ._tier import TINY, Ask, Ledger, Tier, U, by_point, certified

__all__ = ["FormCurve"]


class FormCurve(Tier):
    """Every asked depth of a curve from one :func:`.lagrange.float_curve` to ``t_max``."""

    def answer(self, ask: Ask, pairs: list, ledger: Ledger) -> None:
        for i, depths in by_point(pairs).items():
            alpha, tau, sigma2 = ask.point(i)
            E, bound = lagrange.float_curve(alpha, tau, sigma2, ask.t_max)
            E[0], bound[0] = 1.0, 0.0  # E_0 = F(0, 0) = 1 exactly
            ok = certified(E, bound, ask.rtol)
            good, values = ok.tolist(), E.tolist()
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                cond = bound / np.maximum(np.abs(E), TINY) / U
            for t in depths:
                if good[t]:
                    ledger.value[i, t] = values[t]
                else:
                    ledger.best[i, t] = (E[t], bound[t])
                    ledger.cond[i, t] = cond[t]
