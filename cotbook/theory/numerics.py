"""Appendix D, checked: the certified fast engine against the paper's own recursion.

The paper evaluates Result 1 with a two-dimensional coefficient recursion in high precision
(Appendix "Numerical evaluation of the theoretical prediction"); :mod:`.closed_form` computes
the same numbers as a certified float64 quadratic form.  :func:`accuracy_rows` measures the
largest relative difference between the two over :data:`ACCURACY_POINTS`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._checks import positive_int
from . import closed_form, phases

__all__ = ["ACCURACY_POINTS", "AccuracyRow", "resolve_point", "accuracy_rows"]

ACCURACY_POINTS = (
    (2.0, 3.0, 0.01),
    (4.0, 1.5, 0.0),
    (0.3, 2.0, 0.01),
    (0.05, 1.01, 0.0),
    (1.0, 10.0, 1e-4),
    (1.0, 300.0, 1e-4),
    (3.0, 50.0, 0.01),
    (10.0, 100.0, 0.0),
    (20.0, 1.2, 0.1),
    (0.5, 5.0, 0.1),
    (0.1, 100.0, 0.0),
    (2.0, "tau_c", 1e-4),
    (0.5, "tau_c+", 0.01),
)
"""Thirteen (alpha, tau, sigma2) points: all four regimes, alpha < 1, = 1, > 1, tau at and just
above tau_c, sigma2 in {0, 1e-4, 1e-2, 1e-1} ("tau_c" / "tau_c+": tau_c and tau_c (1 + 1e-6))."""


class AccuracyRow(NamedTuple):
    """One point of the accuracy table."""

    alpha: float
    tau: float
    sigma2: float
    regime: str
    E_end: float
    """``E_{t_max}`` from the recursion."""
    max_rel_diff: float
    """``max_t |auto / recursion - 1|`` over ``t <= t_max``."""


def resolve_point(alpha, tau, sigma2):
    """``(alpha, tau, sigma2)`` of an :data:`ACCURACY_POINTS` entry, with ``"tau_c"`` and
    ``"tau_c+"`` replaced by ``tau_c(alpha, sigma2)`` and ``tau_c (1 + 1e-6)``."""
    if tau == "tau_c":
        return alpha, float(phases.tau_c(alpha, sigma2)), sigma2
    if tau == "tau_c+":
        return alpha, float(phases.tau_c(alpha, sigma2)) * (1 + 1e-6), sigma2
    return alpha, float(tau), sigma2


def accuracy_rows(t_max, *, dps=50, points=ACCURACY_POINTS) -> list[AccuracyRow]:
    """One :class:`AccuracyRow` per point: ``method="auto"`` (float64, certified) against the
    paper's recursion (``method="recursion"``) at ``dps`` digits, for ``t <= t_max``.

    Parameters
    ----------
    t_max : int
        Deepest depth compared, ``>= 1``.
    dps : int
        Decimal digits of the recursion.
    points : sequence
        ``(alpha, tau, sigma2)`` points, ``tau`` possibly ``"tau_c"`` or ``"tau_c+"``.

    Returns
    -------
    list of AccuracyRow

    Examples
    --------
    >>> row = accuracy_rows(5, points=[(2.0, 3.0, 0.01)])[0]
    >>> row.regime, row.max_rel_diff < 1e-12
    ('overthinking', True)
    """
    t_max = positive_int("t_max", t_max)
    rows = []
    for point in points:
        alpha, tau, sigma2 = resolve_point(*point)
        fast = closed_form.ridgeless_curve(alpha, tau, sigma2, t_max)
        ref = closed_form.ridgeless_curve(alpha, tau, sigma2, t_max, method="recursion", dps=dps)
        err = float(np.max(np.abs(fast / ref - 1)))
        regime = phases.regime(alpha, tau, sigma2)
        rows.append(AccuracyRow(alpha, tau, sigma2, regime, float(ref[-1]), err))
    return rows
