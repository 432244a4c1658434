"""Trained linear attention against the simplified theory, quantitatively (paper, Section 6
measured against Result 1).

Training and test draw the first estimate ``w_hat_0 ~ N(0, I_D)`` independently of the task
``w ~ N(0, I_D)`` (the paper's appendix "Experimental details"), so the first error
``e_0 = w - w_hat_0`` has covariance :data:`E0_VARIANCE` ``* I`` = ``2 I``.  Without label
noise the simplified model's CoT error is linear in ``e_0``, ``e_t = P_t e_0`` with
``P_t = (I - A S / alpha)^t`` independent of ``e_0`` (Appendix C.2), so
``E_t = E|P_t e_0|^2 / D = 2 E tr(P_t^T P_t) / D``: Result 1's curve (which starts from
``w_hat_0 = 0``, ``E_0 = 1``) times 2, :func:`theory_curve`.

Everything here reads a saved Figure 2 grid (:mod:`cotbook.attention.grid`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import _checks
from ..theory import closed_form, phases
from . import regimes

__all__ = [
    "E0_VARIANCE",
    "margin",
    "theory_curve",
    "theory_floor",
    "Pair",
    "pair",
    "theory_regimes",
    "relative_gap",
    "Gap",
    "gap_table",
    "largest_gap",
    "FloorRow",
    "floor_table",
    "floor_slopes",
]

E0_VARIANCE = 2.0
"""Per-coordinate variance of ``e_0 = w - w_hat_0`` with ``w, w_hat_0 ~ N(0, I)`` independent."""


def margin(alpha, tau, sigma2) -> float:
    """``1 - sqrt(Lambda)``: the D -> infinity distance of the simplified map's spectral radius
    from 1 (negative in the overthinking regime), ``Lambda`` of Result 2
    (:func:`cotbook.theory.phases.decay_rate`); the instability study's reference
    (:mod:`cotbook.attention.instability`)."""
    return 1.0 - math.sqrt(phases.decay_rate(alpha, tau, sigma2))


def theory_curve(L, M, D, t_max) -> np.ndarray:
    """``E0_VARIANCE * E_t`` of Result 1 (ridgeless, ``sigma2 = 0``) at ``alpha = L/D``,
    ``tau = M/D`` for ``t = 0..t_max``: the simplified model's error from a random first
    estimate (module docstring).  Needs ``M > D``.

    Examples
    --------
    >>> theory_curve(75, 3200, 50, 2).round(3)
    array([2.   , 0.813, 0.518])
    """
    L = _checks.positive_int("L", L)
    M = _checks.positive_int("M", M)
    D = _checks.positive_int("D", D)
    if M <= D:
        raise ValueError(f"M must be an integer > D = {D} (ridgeless theory), got {M}")
    t_max = _checks.nonneg_int("t_max", t_max)
    return E0_VARIANCE * closed_form.ridgeless_curve(L / D, M / D, 0.0, t_max)


def theory_floor(L, M, D) -> float:
    """``E0_VARIANCE * E_inf`` of Result 2 (``sigma2 = 0``) at ``alpha = L/D``, ``tau = M/D``:
    the level :func:`theory_curve` saturates at (0 where it decays).  Needs ``M > D``."""
    L = _checks.positive_int("L", L)
    M = _checks.positive_int("M", M)
    D = _checks.positive_int("D", D)
    if M <= D:
        raise ValueError(f"M must be an integer > D = {D} (ridgeless theory), got {M}")
    return E0_VARIANCE * phases.error_floor(L / D, M / D, 0.0)


class Pair(NamedTuple):
    """A trained curve of the grid and the theory at its cell."""

    trained: np.ndarray
    """Trial mean of the statistic's curve, ``t = 0..T``."""
    sem: np.ndarray
    """Its standard error over trials."""
    theory: np.ndarray
    """:func:`theory_curve` at the cell."""


def pair(spec, data, L, M, model="linear", mask="history", *, statistic="median") -> Pair:
    """The trained curve at grid cell ``(L, M)`` (trial mean of ``statistic``,
    :func:`regimes.curves`) and :func:`theory_curve` there."""
    if L not in spec.Ls or M not in spec.Ms:
        raise ValueError(f"(L, M) must be a cell of the grid (Ls {spec.Ls}, Ms {spec.Ms})")
    mean, sem = regimes.mean_sem(regimes.curves(data, model, mask, statistic))
    i, j = spec.Ls.index(L), spec.Ms.index(M)
    t_max = mean.shape[-1] - 1
    return Pair(mean[i, j], sem[i, j], theory_curve(L, M, spec.settings["D"], t_max))


def theory_regimes(spec, rule=regimes.RULE):
    """The regime of :func:`theory_curve` up to the grid's ``t_max``, classified by ``rule``
    (:func:`regimes.regime_of_curve`) exactly as the trained curves are, at every ``(L, M)``:
    nested lists ``[L][M]``, ``None`` where ``M <= D``.  Result 2's regimes are ``t -> infinity``
    statements; this is what the theory's own curve shows over the depths measured."""
    D = spec.settings["D"]
    return [
        [
            regimes.regime_of_curve(theory_curve(L, M, D, spec.t_max), rule) if M > D else None
            for M in spec.Ms
        ]
        for L in spec.Ls
    ]


def relative_gap(trained, reference) -> np.ndarray:
    """``|trained - reference| / reference`` elementwise; ``reference`` must be positive."""
    trained = _checks.array("trained", trained)
    reference = _checks.array("reference", reference)
    if trained.shape != reference.shape:
        raise ValueError(
            f"trained and reference must have the same shape, got {trained.shape} and "
            f"{reference.shape}"
        )
    if np.any(reference <= 0):
        raise ValueError("reference must be > 0 everywhere (it is an error curve)")
    return np.abs(trained - reference) / reference


class Gap(NamedTuple):
    """Relative gap between a trained curve and :func:`theory_curve` at one grid cell."""

    L: int
    M: int
    early: float
    """Largest relative gap over ``t = 1..early`` (the first steps)."""
    late: float
    """Relative gap at ``t = late``."""


def _trained(spec, data, model, mask, statistic):
    """Trial means ``[L][M][t]`` of the grid's curves."""
    return regimes.mean_sem(regimes.curves(data, model, mask, statistic)).mean


def gap_table(
    spec, data, model="linear", mask="history", *, statistic="median", early=5, late=20
) -> list[Gap]:
    """:class:`Gap` at every cell of the grid with ``M > D`` (where the ridgeless theory is
    defined), row by row: the trial mean of ``statistic`` (:func:`regimes.curves`) against
    :func:`theory_curve`."""
    mean = _trained(spec, data, model, mask, statistic)
    early = _checks.positive_int("early", early)
    late = _checks.positive_int("late", late)
    t_max = mean.shape[-1] - 1
    for name, value in (("early", early), ("late", late)):
        if value > t_max:
            raise ValueError(f"{name} must be an integer in [1, {t_max}], got {value}")
    D = spec.settings["D"]
    rows = []
    for i, L in enumerate(spec.Ls):
        for j, M in enumerate(spec.Ms):
            if M <= D:
                continue
            gap = relative_gap(mean[i, j], theory_curve(L, M, D, t_max))
            rows.append(Gap(L, M, float(gap[1 : early + 1].max()), float(gap[late])))
    return rows


def largest_gap(rows, D, *, min_tau=8) -> Gap:
    """The row of a :func:`gap_table` with the largest ``early`` gap among the cells with
    ``M >= min_tau * D``."""
    D = _checks.positive_int("D", D)
    min_tau = _checks.positive("min_tau", min_tau)
    kept = [r for r in rows if r.M >= min_tau * D]
    if not kept:
        raise ValueError(f"rows must hold a cell with M >= min_tau * D = {min_tau * D:g}")
    return max(kept, key=lambda r: r.early)


class FloorRow(NamedTuple):
    """Where the trained curve ends at one cell with ``L > D``, against the theory."""

    L: int
    M: int
    mid: float
    """Trained error at half the last depth (``t = T/2``)."""
    end: float
    """Trained error at the last depth ``T``."""
    lowest: float
    """Smallest trained error over ``t <= T``."""
    theory_end: float
    """:func:`theory_curve` at ``T``: the ridgeless ``D -> infinity`` theory tends to 0."""


def floor_table(spec, data, model="linear", mask="history", *, statistic="median"):
    """:class:`FloorRow` at every cell with ``L > D`` and ``M > D``: the floor the trained layer
    stops at where Result 2 (``alpha > 1``, ridgeless) has the error tend to zero."""
    mean = _trained(spec, data, model, mask, statistic)
    t_max = mean.shape[-1] - 1
    D = spec.settings["D"]
    rows = []
    for i, L in enumerate(spec.Ls):
        for j, M in enumerate(spec.Ms):
            if L > D and M > D:
                curve = mean[i, j]
                rows.append(
                    FloorRow(
                        L,
                        M,
                        float(curve[t_max // 2]),
                        float(curve[-1]),
                        float(curve.min()),
                        float(theory_curve(L, M, D, t_max)[-1]),
                    )
                )
    return rows


def floor_slopes(rows, *, min_M=1) -> dict[int, list[float]]:
    """``{L: slopes}``: the local power ``d log E_T / d log M`` between successive ``M`` (at
    least ``min_M``) of each ``L`` of a :func:`floor_table` -- a constant slope would be a power
    law ``E_T ~ M^slope``."""
    min_M = _checks.positive("min_M", min_M)
    out = {}
    for L in sorted({r.L for r in rows}):
        kept = sorted((r.M, r.end) for r in rows if r.L == L and r.M >= min_M)
        if len(kept) < 2:
            continue
        M, end = np.log(np.array(kept)).T
        out[L] = list(np.diff(end) / np.diff(M))
    return out
