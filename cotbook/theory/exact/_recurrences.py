"""The two small recurrences of the float64 Lagrange form, compiled (numba).

For curves of up to a few hundred depths, running them as NumPy operations on short rows costs
more in call overhead than in arithmetic.  These loops perform exactly the same floating-point
operations in the same order (no ``fastmath``: no reassociation, no fused multiply-add), so the
a-priori rounding analysis of :mod:`.closed_form` covers them unchanged; a test checks that the
results are bit-identical to the NumPy formulation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["q_matrices", "rphi_rows"]


@njit(cache=True)
def q_matrices(g1, g2, T, signs):
    """``Q[s, n, m]``: the coefficients of ``alpha / D(rho a, rho b)`` with ``g2`` times
    ``signs[s]`` (-1: Q itself, +1: the matrix of |terms|), by the three-term recurrence."""
    S = signs.shape[0]
    Q = np.zeros((S, T + 1, T + 1))
    for s in range(S):
        Q[s, 0, 0] = 1.0
        h = signs[s] * g2
        for n in range(1, T + 1):
            for m in range(1, T + 1):
                x = g1 * Q[s, n - 1, m - 1]
                if m >= 2:
                    x = x + h * Q[s, n - 1, m - 2]
                if n >= 2:
                    x = x + h * Q[s, n - 2, m - 1]
                Q[s, n, m] = x
    return Q


@njit(cache=True)
def rphi_rows(first, p0, p1, p2):
    """``PN[t] = PN[t - 1]`` times ``p0 + p1 a + p2 a^2`` (coefficients ``0 .. n-1``), from
    ``PN[0] = first`` (shape ``(2, n)``: the rows ``P_0`` and ``N_0``), for ``t < n``."""
    n = first.shape[1]
    PN = np.zeros((n, 2, n))
    PN[0] = first
    for t in range(1, n):
        for r in range(2):
            for k in range(n):
                x = p0 * PN[t - 1, r, k]
                if k >= 1 and p1 != 0.0:
                    x = x + p1 * PN[t - 1, r, k - 1]
                if k >= 2:
                    x = x + p2 * PN[t - 1, r, k - 2]
                PN[t, r, k] = x
    return PN
