"""How much of the trained layers' gap to Result 1 finite size explains, depth by depth.

At one cell ``(L, M)`` and depth ``t``, with every curve on the trained layers' scale (from a
random first estimate, twice Result 1's: :mod:`cotbook.attention.versus_theory`):

- ``gap = trained_t - reference_t``: the trained layers' mean over their trials minus the
  ``D -> infinity`` curve, its SE the trials' standard deviation over ``sqrt(trials)``;
- ``finite = simulated_t - reference_t``: a finite-D model's own mean at the trained layers'
  ``D`` minus the same curve (:mod:`cotbook.simulation.finite_d_shares`), its SE the
  simulation's SEM;
- ``z = (gap - finite) / sqrt(SE_gap^2 + SE_finite^2)``: the trained layers against the
  finite-D model directly; ``share = finite / gap`` is shown beside it, descriptive only.

The null of a verdict is "the trained layers are the finite-D model": ``z`` is then
Student-t distributed with ``trials - 1`` degrees of freedom (the trained SE, from a handful of
trials, dominates), and every test is two-sided at :data:`LEVEL`.  A verdict
(:func:`verdict`), checked in this order:

- :data:`TAIL` -- the simulated mean is made by rare draws, so its SEM means nothing: either
  the theory's reference scale says the per-set variance is infinite (``t >=``
  :func:`tail_depth`) or one simulated set (a pretraining set with its test designs) carries
  over :data:`TOP_SHARE_MAX` of the sum over sets.  Both flags are kept on the row
  (:class:`Share`), so that where they disagree is seen.  (They do disagree, at ``D = 50``: the
  reference scale sees only the pretraining side, the smallest eigenvalue of ``V^T V``, while
  from ``t ~ 10`` rare *test designs* make the mean even where ``M = 64 D`` leaves the
  pretraining side well conditioned; the measured flag catches both.)
- :data:`BELOW` / :data:`ABOVE` -- ``|z|`` at or above the critical value: the trained
  layers lie significantly below / above the finite-D model, so something other than finite
  size (the pretraining objective, the optimisation) moves them, resolved gap or not;
- :data:`UNRESOLVED` -- consistent with the model, but the gap itself is not resolved
  (``|gap|`` below the critical value times ``SE_gap``): nothing to explain;
- :data:`SIZE` -- consistent with the model and a resolved gap: finite size explains it.

Every cell handed in is judged; none is chosen by the size of its gap or of its shift.  The
gap's SE is the spread of a handful of trials (five in the Figure 2 grid), which is why the
critical value is Student's and the level is a parameter (:func:`changed_verdicts` shows what
moves with it).  The cells are not independent: the trained layers' test tasks and training
streams are shared across a trial's cells.

This module computes with the curves it is given and imports no theory: the reference curves
are supplied by the reader (:func:`cotbook.book.studies.finite_d_shares`).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import NamedTuple

import numpy as np

from .. import _checks

__all__ = [
    "LEVEL",
    "TOP_SHARE_MAX",
    "DEPTHS",
    "TAIL",
    "UNRESOLVED",
    "SIZE",
    "BELOW",
    "ABOVE",
    "VERDICTS",
    "critical",
    "tail_depth",
    "Share",
    "verdict",
    "cell_shares",
    "verdict_counts",
    "changed_verdicts",
    "counts_by_tasks",
    "position",
    "position_summary",
]

#: Two-sided level of every test (the gap against 0, the trained layers against the model).
LEVEL = 0.05
#: Tail-dominated when the largest single pretraining set carries more than this share of the
#: sum over sets: without that one set the simulated mean would move by about as much (the
#: committed run has 2000 sets, a fair share 0.0005 each).
TOP_SHARE_MAX = 0.05
#: The depths the chapter's table shows.
DEPTHS = (1, 2, 3, 5, 10, 20)

TAIL = "tail-dominated"
UNRESOLVED = "gap unresolved"
SIZE = "finite size explains it"
BELOW = "below the finite-D model"
ABOVE = "above the finite-D model"
#: Every verdict, in the order :func:`verdict` checks them.
VERDICTS = (TAIL, BELOW, ABOVE, UNRESOLVED, SIZE)


def critical(trials, level=LEVEL) -> float:
    """The two-sided critical value at ``level`` of Student's t with ``trials - 1`` degrees of
    freedom (2.78 for five trials at 0.05).

    Examples
    --------
    >>> round(critical(5), 3)
    2.776
    """
    from scipy import stats

    trials = _checks.positive_int("trials", trials)
    if trials < 2:
        raise ValueError(f"trials must be an integer >= 2, got {trials}")
    level = _checks.positive("level", level)
    if not level < 1:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    return float(stats.t.ppf(1 - level / 2, trials - 1))


def tail_depth(M, D) -> float:
    """``(M - D + 1) / 4``: the depth from which one pretraining set's ``E_t(D)`` has infinite
    variance, heuristically (ridgeless).  The density of the smallest eigenvalue of ``V^T V``
    (``M x D`` Gaussian ``V``) behaves like ``lambda^((M - D - 1)/2)`` near 0 and the pretrained
    matrix's norm like ``lambda^(-1/2)``, so ``E_t`` grows like ``lambda^(-t)`` on the rare
    sets: its mean is finite for ``t < (M - D + 1)/2`` and its variance for ``t`` below this.

    Examples
    --------
    >>> tail_depth(100, 50)
    12.75
    """
    M, D = _checks.positive_int("M", M), _checks.positive_int("D", D)
    if M <= D:
        raise ValueError(f"M must be an integer > D = {D}, got {M}")
    return (M - D + 1) / 4


class Share(NamedTuple):
    """One cell at one depth: the gap, the finite-size shift, the share and the verdict."""

    L: int
    M: int
    t: int
    gap: float
    """``trained - reference``."""
    gap_se: float
    finite: float
    """``simulated - reference``."""
    finite_se: float
    share: float
    """``finite / gap``, descriptive (NaN where the gap is 0 or the verdict is :data:`TAIL`)."""
    share_se: float
    z: float
    """``(gap - finite) / sqrt(SE_gap^2 + SE_finite^2)``: the trained layers against the model."""
    top_share: float
    """The largest simulated set's share of the sum over sets."""
    tail_by_theory: bool
    """``t >= tail_depth(M, D)``."""
    tail_by_top_share: bool
    """``top_share > top_share_max``."""
    verdict: str
    finite_typical: float = math.nan
    """``typical - reference``: the shift a study of as many sets as the trained layers have
    trials typically sees (the median over groups of their mean); well below ``finite`` where
    rare draws make the mean.  Shown beside the verdict, not used by it."""


def verdict(gap, gap_se, finite, finite_se, tail, *, critical_value) -> tuple:
    """``(share, share_se, z, verdict)`` of one cell at one depth, by the rules of the module
    docstring (``tail``: either tail flag is up; ``critical_value``: :func:`critical`).

    Examples
    --------
    >>> verdict(-0.5, 0.1, 0.3, 0.01, False, critical_value=2.776)[3]  # trained below
    'below the finite-D model'
    >>> verdict(0.02, 0.002, 0.021, 0.001, False, critical_value=2.776)[3]
    'finite size explains it'
    """
    if tail:  # the simulated mean may be beyond float64 here: nothing is computed
        return math.nan, math.nan, math.nan, TAIL
    gap, finite = _checks.real("gap", gap), _checks.real("finite", finite)
    gap_se = _checks.nonnegative("gap_se", gap_se)
    finite_se = _checks.nonnegative("finite_se", finite_se)
    critical_value = _checks.positive("critical_value", critical_value)
    share = finite / gap if gap != 0 else math.nan
    share_se = math.hypot(finite_se, share * gap_se) / abs(gap) if gap != 0 else math.nan
    spread = math.hypot(gap_se, finite_se)
    z = (gap - finite) / spread if spread > 0 else math.copysign(math.inf, gap - finite)
    if abs(z) >= critical_value:
        return share, share_se, z, BELOW if z < 0 else ABOVE
    if gap == 0 or abs(gap) < critical_value * gap_se:
        return share, share_se, z, UNRESOLVED
    return share, share_se, z, SIZE


def cell_shares(
    L,
    M,
    D,
    trained,
    reference,
    simulated,
    simulated_se,
    top_share,
    depths=DEPTHS,
    *,
    typical=None,
    level=LEVEL,
    top_share_max=TOP_SHARE_MAX,
    pretraining_tail=True,
) -> list[Share]:
    """One :class:`Share` per depth in ``depths`` at the cell ``(L, M)`` of dimension ``D``.

    ``trained`` is ``(trials, depths)``: each trained trial's curve; ``reference`` the
    ``D -> infinity`` curve and ``simulated`` / ``simulated_se`` the simulated mean and its SEM
    at ``D``, all on the same scale (index ``t`` is depth ``t``); ``top_share`` the simulated
    largest set's share of the sum, per depth; ``typical`` (optional, same scale) the median
    over groups of as many simulated sets as ``trained`` has trials of their mean;
    ``pretraining_tail``: whether :func:`tail_depth` (the ridgeless model's pretraining side)
    applies to the simulated model (not to one whose pretraining is better conditioned).
    """
    trained = _checks.array("trained", trained, ndim=2)
    if trained.shape[0] < 2:
        raise ValueError(f"trained must hold at least 2 trials, got {trained.shape[0]}")
    curves = {
        name: _checks.array(name, value, ndim=1)
        for name, value in (
            ("reference", reference),
            ("simulated", simulated),
            ("simulated_se", simulated_se),
            ("top_share", top_share),
        )
    }
    if typical is not None:
        curves["typical"] = _checks.array("typical", typical, ndim=1)
    depths = [_checks.nonneg_int("t", t) for t in depths]
    deepest = min(trained.shape[1], *(c.size for c in curves.values())) - 1
    if max(depths) > deepest:
        raise ValueError(f"depths must be <= {deepest} (the shortest curve), got {max(depths)}")
    mean = trained.mean(axis=0)
    sem = trained.std(axis=0, ddof=1) / np.sqrt(trained.shape[0])
    critical_value = critical(trained.shape[0], level)
    rows = []
    for t in depths:
        ref = curves["reference"][t]
        gap, finite = float(mean[t] - ref), float(curves["simulated"][t] - ref)
        top = float(curves["top_share"][t])
        by_theory = bool(pretraining_tail and t >= tail_depth(M, D))
        by_top = bool(top > top_share_max)
        share, share_se, z, said = verdict(
            gap,
            float(sem[t]),
            finite,
            float(curves["simulated_se"][t]),
            by_theory or by_top,
            critical_value=critical_value,
        )
        rows.append(
            Share(
                int(L),
                int(M),
                t,
                gap,
                float(sem[t]),
                finite,
                float(curves["simulated_se"][t]),
                share,
                share_se,
                z,
                top,
                by_theory,
                by_top,
                said,
                float(curves["typical"][t] - ref) if typical is not None else math.nan,
            )
        )
    return rows


def verdict_counts(rows, depths=DEPTHS):
    """``(headers, rows)``: how many cells got each verdict at each depth (one row per verdict
    of :data:`VERDICTS`, one column per depth), and where the two tail flags disagree."""
    counts = Counter((r.verdict, r.t) for r in rows)
    table = [[v] + [counts[v, t] for t in depths] for v in VERDICTS]
    split = Counter(r.t for r in rows if r.tail_by_theory != r.tail_by_top_share)
    table.append(["tail flags disagree"] + [split[t] for t in depths])
    return ["verdict"] + [f"t = {t}" for t in depths], table


def counts_by_tasks(rows, t_max=5):
    """``(headers, rows)``: how many cell-depths with ``t <= t_max`` got each verdict, one row
    per number of tasks ``M`` (pooled over ``L`` and depth)."""
    shallow = [r for r in rows if r.t <= t_max]
    counts = Counter((r.M, r.verdict) for r in shallow)
    table = [[M] + [counts[M, v] for v in VERDICTS] for M in sorted({r.M for r in shallow})]
    return ["M", *VERDICTS], table


def changed_verdicts(rows, other) -> list[tuple]:
    """``[(L, M, t, verdict in rows, verdict in other)]`` wherever the two lists of the same
    cells and depths (under other thresholds, say) disagree."""
    mine = {(r.L, r.M, r.t): r.verdict for r in rows}
    theirs = {(r.L, r.M, r.t): r.verdict for r in other}
    if mine.keys() != theirs.keys():
        raise ValueError("rows and other must hold the same cells and depths")
    return [(*key, mine[key], theirs[key]) for key in mine if mine[key] != theirs[key]]


def position(zero_start, averaged, level=LEVEL, trials=5) -> list[tuple]:
    """Where the trained layers sit between two finite-D models, row by row (two lists of
    :class:`Share` of the same cells and depths, judged against each model):
    ``[(L, M, t, f, f_se, side)]`` with ``f = (trained - averaged) / (zero_start - averaged)``
    (0 at the averaged model, 1 at the zero-start one), ``f_se`` its standard error (first
    order in the three means' standard errors), and ``side`` ``"averaged"`` / ``"zero_start"``
    where ``f`` is below / above one half by more than :func:`critical` ``(trials, level)``
    standard errors, else ``"middle"``.  Rows that either model judges tail-dominated are left
    out.  (That ``f`` lies in ``[0, 1]`` says little: the models are usually dozens of the
    trained layers' standard errors apart.)"""
    pairs = {(r.L, r.M, r.t): r for r in averaged}
    if pairs.keys() != {(r.L, r.M, r.t) for r in zero_start}:
        raise ValueError("zero_start and averaged must hold the same cells and depths")
    cut = critical(trials, level)
    out = []
    for z in zero_start:
        a = pairs[z.L, z.M, z.t]
        span = z.finite - a.finite
        if TAIL in (z.verdict, a.verdict) or span == 0:
            continue
        f = (z.gap - a.finite) / span
        f_se = math.hypot(z.gap_se, f * z.finite_se, (1 - f) * a.finite_se) / abs(span)
        side = "middle"
        if abs(f - 0.5) > cut * f_se:
            side = "averaged" if f < 0.5 else "zero_start"
        out.append((z.L, z.M, z.t, f, f_se, side))
    return out


def position_summary(placed) -> list[list]:
    """One row per number of tasks ``M`` of :func:`position`'s rows: ``[M, rows, median
    position, median standard error of a row's position, rows nearer the averaged model,
    rows nearer neither, rows nearer the zero-start one]``."""
    out = []
    for M in sorted({p[1] for p in placed}):
        here = [p for p in placed if p[1] == M]
        sides = Counter(p[5] for p in here)
        out.append(
            [
                M,
                len(here),
                float(np.median([p[3] for p in here])),
                float(np.median([p[4] for p in here])),
                sides["averaged"],
                sides["middle"],
                sides["zero_start"],
            ]
        )
    return out
