"""How much of the trained layers' gap to Result 1 finite size explains, depth by depth.

At one cell ``(L, M)`` and depth ``t``, with every curve on the trained layers' scale (from a
random first estimate, twice Result 1's: :mod:`cotbook.attention.versus_theory`):

- ``gap = trained_t - reference_t``: the trained layers' mean over their trials minus the
  ``D -> infinity`` curve, its SE the trials' standard deviation over ``sqrt(trials)``;
- ``finite = simulated_t - reference_t``: the simplified model's own mean at the trained
  layers' ``D`` minus the same curve (:mod:`cotbook.simulation.finite_d_shares`), its SE the
  simulation's SEM;
- ``share = finite / gap``, with ``SE = sqrt(SE_finite^2 + share^2 SE_gap^2) / |gap|`` (first
  order in both errors) and the interval ``share +- SHARE_Z SE``.

The null of a share verdict is "the trained layers are the simplified model at this ``D``": the
gap is then all finite size, share 1.  A verdict (:func:`verdict`), checked in this order:

- :data:`TAIL` -- the simulated mean is made by rare draws, so its SEM means nothing: either
  the theory's reference scale says the per-set variance is infinite (``t >=``
  :func:`tail_depth`) or one simulated set (a pretraining set with its test designs) carries
  over :data:`TOP_SHARE_MAX` of the sum over sets.  Both flags are kept on the row
  (:class:`Share`), so that where they disagree is seen.  (They do disagree, at ``D = 50``: the
  reference scale sees only the pretraining side, the smallest eigenvalue of ``V^T V``, while
  from ``t ~ 10`` rare *test designs* make the mean even where ``M = 64 D`` leaves the
  pretraining side well conditioned; the measured flag catches both.)
- :data:`UNRESOLVED` -- ``|gap| < GAP_Z SE_gap``, or the share's interval holds both 0 and 1
  (neither reading is excluded);
- :data:`SIZE` -- the interval holds 1 (and not 0): finite size explains the gap;
- :data:`OVERSHOOT` -- the interval lies above 1: finite size moves the error the same way as
  the gap but further, so training pulls part of it back;
- :data:`PARTLY` -- the interval lies inside ``(0, 1)``;
- :data:`TRAINING` -- the interval lies below 1 and reaches 0 or below: no part of the gap is
  resolved as finite size (a finite-size shift of the opposite sign to the gap lands here).

Every cell handed in is judged; none is chosen by the size of its gap or of its shift.  The
gap's SE is the spread of a handful of trials (five in the Figure 2 grid): a crude estimate
(its own relative error is about ``1/sqrt(2 (trials - 1))``, 35 % at five), which is why the
thresholds are named and their changes are shown (:func:`changed_verdicts`).

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
    "GAP_Z",
    "SHARE_Z",
    "TOP_SHARE_MAX",
    "DEPTHS",
    "TAIL",
    "UNRESOLVED",
    "SIZE",
    "OVERSHOOT",
    "PARTLY",
    "TRAINING",
    "VERDICTS",
    "tail_depth",
    "Share",
    "verdict",
    "cell_shares",
    "verdict_counts",
    "changed_verdicts",
]

#: A gap is resolved when ``|gap| >= GAP_Z * SE_gap``.
GAP_Z = 2.0
#: The share's interval is ``share +- SHARE_Z * SE_share``.
SHARE_Z = 2.0
#: Tail-dominated when the largest single pretraining set carries more than this share of the
#: sum over sets: without that one set the simulated mean would move by about as much (the
#: committed run has 2000 sets, a fair share 0.0005 each).
TOP_SHARE_MAX = 0.05
#: The depths the chapter's table shows.
DEPTHS = (1, 2, 3, 5, 10, 20)

TAIL = "tail-dominated"
UNRESOLVED = "gap unresolved"
SIZE = "finite size explains it"
OVERSHOOT = "finite size exceeds it"
PARTLY = "partly finite size"
TRAINING = "training"
#: Every verdict, in the order :func:`verdict` checks them.
VERDICTS = (TAIL, UNRESOLVED, SIZE, OVERSHOOT, PARTLY, TRAINING)


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
    """``finite / gap`` (NaN where the gap is 0 or the verdict is :data:`TAIL`)."""
    share_se: float
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


def verdict(gap, gap_se, finite, finite_se, tail, *, gap_z=GAP_Z, share_z=SHARE_Z) -> tuple:
    """``(share, share_se, verdict)`` of one cell at one depth, by the rules of the module
    docstring (``tail``: either tail flag is up).

    Examples
    --------
    >>> verdict(-0.5, 0.1, 0.3, 0.01, False)[2]  # trained below, finite size pushes up
    'training'
    >>> verdict(0.02, 0.002, 0.021, 0.001, False)[2]
    'finite size explains it'
    """
    if tail:  # the simulated mean may be beyond float64 here: no share is computed
        return math.nan, math.nan, TAIL
    gap, finite = _checks.real("gap", gap), _checks.real("finite", finite)
    gap_se = _checks.nonnegative("gap_se", gap_se)
    finite_se = _checks.nonnegative("finite_se", finite_se)
    share = finite / gap if gap != 0 else math.nan
    share_se = math.hypot(finite_se, share * gap_se) / abs(gap) if gap != 0 else math.nan
    if abs(gap) < gap_z * gap_se or gap == 0:
        return share, share_se, UNRESOLVED
    lo, hi = share - share_z * share_se, share + share_z * share_se
    if lo <= 1 <= hi:
        return share, share_se, UNRESOLVED if lo <= 0 else SIZE
    if lo > 1:
        return share, share_se, OVERSHOOT
    return share, share_se, PARTLY if lo > 0 else TRAINING


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
    gap_z=GAP_Z,
    share_z=SHARE_Z,
    top_share_max=TOP_SHARE_MAX,
) -> list[Share]:
    """One :class:`Share` per depth in ``depths`` at the cell ``(L, M)`` of dimension ``D``.

    ``trained`` is ``(trials, depths)``: each trained trial's curve; ``reference`` the
    ``D -> infinity`` curve and ``simulated`` / ``simulated_se`` the simulated mean and its SEM
    at ``D``, all on the same scale (index ``t`` is depth ``t``); ``top_share`` the simulated
    largest set's share of the sum, per depth; ``typical`` (optional, same scale) the median
    over groups of as many simulated sets as ``trained`` has trials of their mean.
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
    rows = []
    for t in depths:
        ref = curves["reference"][t]
        gap, finite = float(mean[t] - ref), float(curves["simulated"][t] - ref)
        top = float(curves["top_share"][t])
        by_theory, by_top = bool(t >= tail_depth(M, D)), bool(top > top_share_max)
        share, share_se, said = verdict(
            gap,
            float(sem[t]),
            finite,
            float(curves["simulated_se"][t]),
            by_theory or by_top,
            gap_z=gap_z,
            share_z=share_z,
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


def changed_verdicts(rows, other) -> list[tuple]:
    """``[(L, M, t, verdict in rows, verdict in other)]`` wherever the two lists of the same
    cells and depths (under other thresholds, say) disagree."""
    mine = {(r.L, r.M, r.t): r.verdict for r in rows}
    theirs = {(r.L, r.M, r.t): r.verdict for r in other}
    if mine.keys() != theirs.keys():
        raise ValueError("rows and other must hold the same cells and depths")
    return [(*key, mine[key], theirs[key]) for key in mine if mine[key] != theirs[key]]
