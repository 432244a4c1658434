"""The book's trainer and the authors' script, cell by cell: floors, shares and tests.

The cells were named before its runs (:mod:`cotbook.attention.side_by_side`): in each cell
of :data:`~cotbook.attention.side_by_side.CELLS`, the book's trials (record
``authors_side_by_side``) and fresh runs of the authors' own script (record
``authors_reruns``, :mod:`cotbook.book.authors.rerun`) at the seeds
:data:`~cotbook.attention.side_by_side.SCRIPT_SEEDS`, with their released run (their seed) beside.

**Floors.**  At ``L >= 4D`` and ``M = 400`` a trained model's ``E_t`` settles on one of two
levels.  :func:`split` finds them without knowing which implementation made which run: the
runs of a cell, both implementations pooled, sorted by ``log E_t`` at :data:`DEPTH`; two floors
exist where the widest gap between neighbours is a factor :data:`GAP` or more, and the
threshold is the geometric middle of that gap.  Within a floor the runs lie within a few
percent of each other; the floors lie a factor of about three apart, so any factor between
those two scales gives the same split (the chapter shows :data:`GAPS` and :data:`DEPTHS`).

**Shares.**  :func:`shares` counts each implementation's runs on the upper floor and tests
them with Fisher's exact test (two-sided).  Its null: within the cell, every run of either
implementation lands on the upper floor independently with one common probability.  The runs
of one cell are independent (each has its own seed); the cells are not independent of each
other (the book's trials share their training stream across cells of one trial, the script's
runs of one seed start from one generator state), so no product of p values over cells is
formed: each cell is tested alone, and :func:`holm` adjusts the cells with two floors for
their number.  :func:`whole_units` tests all those cells at once by exchanging whole runs
(a book trial, or a script seed, with its outcome in every cell), which keeps that dependence.

**Single-floor cells.**  :func:`distributions` sets the two implementations' ``E_t`` side by
side at :data:`COMPARED_DEPTHS` with the Mann-Whitney test (exact, two-sided).
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np
from scipy import stats

from ... import _checks

__all__ = [
    "Cell",
    "cells",
    "deviation",
    "DEPTH",
    "GAP",
    "GAPS",
    "DEPTHS",
    "COMPARED_DEPTHS",
    "Split",
    "MIN_RUNS",
    "LEVEL",
    "split",
    "Share",
    "shares",
    "UnitsTest",
    "whole_units",
    "difference_interval",
    "holm",
    "Distribution",
    "distributions",
    "Row",
    "rows",
    "upper_by_run",
    "script_as_replayed",
    "earlier_trials",
    "Earlier",
    "against_earlier",
]

MASK = "examples"
"""Their mask (the query sees the examples only), under which both implementations are read."""


class Cell(NamedTuple):
    """One preregistered cell: every run of each implementation, ``(runs, t)`` curves,
    ``t = 0..31``."""

    L: int
    M: int
    book: np.ndarray
    """The book's trainer, one row per trial."""
    script: np.ndarray
    """Their script at the seeds :attr:`script_seeds`."""
    script_seeds: tuple
    draws: np.ndarray
    """The book's computation on their draws at :attr:`draws_seeds`
    (:mod:`cotbook.attention.their_draws`)."""
    draws_seeds: tuple
    own: np.ndarray
    """Their script at their own seed (the released run, redone)."""
    released: np.ndarray
    """Their released curve."""


def cells(side, reruns, draws, heatmap, seeds) -> list:
    """The :class:`Cell` of every cell of the ``side`` study (:func:`studies.side_by_side`),
    with the ``reruns`` (:func:`studies.reruns`) at ``seeds``, the ``draws``
    (:func:`studies.their_draws`) and the released ``heatmap``
    (:class:`cotbook.book.authors.Heatmap`)."""
    from ..authors_script import own_seed

    book = np.asarray(side.data["E"]["linear"][MASK], dtype=float)
    out = []
    for i, (L, M) in enumerate(side.spec.cells["linear"]):
        mine = sorted(s for l, m, s in reruns.spec.runs if (l, m) == (L, M) and s in seeds)
        there = [s for s in draws.spec.seeds] if (L, M) in draws.spec.cells else []

        def curves(runs, unit_seeds, key=None):
            rows = [runs[f"L={L}/M={M}/seed={s}"] for s in unit_seeds]
            rows = [r[key] if key else r for r in rows]
            return np.asarray(rows, dtype=float).reshape(len(rows), book.shape[-1])

        own = f"L={L}/M={M}/seed={own_seed(L, M)}"
        out.append(
            Cell(
                L,
                M,
                book[i],
                curves(reruns.data["runs"], mine, "E"),
                tuple(mine),
                curves(draws.data["runs"], there),
                tuple(there),
                np.asarray(reruns.data["runs"][own]["E"], dtype=float),
                heatmap.at(M, L).astype(float),
            )
        )
    return out


def deviation(a, b) -> float:
    """The largest relative difference ``|a / b - 1|`` over the entries where both are finite;
    ``inf`` where one is finite and the other is not."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have one shape, got {a.shape} and {b.shape}")
    if np.any(np.isfinite(a) != np.isfinite(b)):
        return math.inf
    both = np.isfinite(a)
    return float(np.max(np.abs(a[both] / b[both] - 1), initial=0.0))


DEPTH = 10
"""The depth whose ``E_t`` decides the floor (the issue's and the earlier chapters' ``E_10``)."""
GAP = 2.0
"""The smallest factor between neighbouring runs that separates two floors."""
GAPS = (1.5, 2.0, 3.0)
"""The factors the chapter shows the split under."""
DEPTHS = (5, 10, 20)
"""The depths the chapter shows the split at."""
MIN_RUNS = 2
"""The fewest runs a floor must hold."""
LEVEL = 0.95
"""The level of the shares' intervals."""
COMPARED_DEPTHS = (1, 5, 10)
"""Where single-floor cells compare the two distributions."""


class Split(NamedTuple):
    """Two floors in one cell: ``threshold`` (geometric middle of the widest gap), the
    ``factor`` of that gap and the ``depth`` read; ``None`` from :func:`split` where there is
    one floor."""

    threshold: float
    factor: float
    depth: int


def _values(runs, depth) -> np.ndarray:
    values = np.asarray(runs, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"runs must be (runs, t) curves, got shape {values.shape}")
    depth = _checks.nonneg_int("depth", depth)
    if depth >= values.shape[1]:
        raise ValueError(f"depth must be below {values.shape[1]}, got {depth}")
    return values[:, depth]


def split(runs, depth=DEPTH, gap=GAP) -> Split | None:
    """The two floors of a cell's pooled ``runs`` (``(runs, t)`` curves) at ``depth``, or
    ``None``: two floors where exactly one gap between neighbouring ``log E_depth`` is a factor
    ``gap`` or more and at least :data:`MIN_RUNS` runs lie on each side of it (one outlier is
    not a floor, three levels are not two).  Only finite values are split: a run beyond the
    float range (``inf``) is on neither floor (:func:`shares` refuses it).

    >>> found = split([[0.024], [0.026], [0.086], [0.09]], depth=0)
    >>> round(found.threshold, 4), round(found.factor, 2)
    (0.0473, 3.31)
    >>> split([[0.024], [0.026]], depth=0) is None
    True
    >>> split([[0.020], [0.021], [0.022], [0.05]], depth=0) is None  # one outlier
    True
    """
    gap = _checks.positive("gap", gap)
    if gap <= 1:
        raise ValueError(f"gap must be a factor above 1, got {gap}")
    values = _values(runs, depth)
    if np.isnan(values).any() or np.any(values <= 0):
        raise ValueError("runs must hold positive errors (or +inf) at the depth read")
    logs = np.log(np.sort(values[np.isfinite(values)]))
    wide = np.flatnonzero(np.diff(logs) >= math.log(gap))
    if wide.size != 1 or min(wide[0] + 1, logs.size - wide[0] - 1) < MIN_RUNS:
        return None
    i = int(wide[0])
    middle, factor = np.exp((logs[i] + logs[i + 1]) / 2), np.exp(logs[i + 1] - logs[i])
    return Split(float(middle), float(factor), int(depth))


class Share(NamedTuple):
    """Each implementation's runs on the upper floor of one cell, Fisher's exact test, and
    the exact (Clopper-Pearson) 95% interval of each share."""

    book: int
    book_runs: int
    script: int
    script_runs: int
    p_value: float
    book_interval: tuple
    script_interval: tuple


def _interval(k, n) -> tuple:
    ci = stats.binomtest(k, n).proportion_ci(LEVEL, method="exact")
    return float(ci.low), float(ci.high)


def _upper(runs, threshold, depth) -> np.ndarray:
    values = _values(runs, depth)
    if not np.all(np.isfinite(values)):
        raise ValueError(f"a run is beyond the float range at t = {depth}: on neither floor")
    return values > threshold


def shares(book, script, threshold, depth=DEPTH) -> Share:
    """Runs of ``book`` and ``script`` (``(runs, t)`` curves) above ``threshold`` at
    ``depth``, the two-sided Fisher exact test of one common upper-floor probability, and
    each share's exact 95% interval.  A run beyond the float range is refused."""
    threshold = _checks.positive("threshold", threshold)
    b, s = (_upper(r, threshold, depth) for r in (book, script))
    table = [[int(b.sum()), int((~b).sum())], [int(s.sum()), int((~s).sum())]]
    p = stats.fisher_exact(table).pvalue
    return Share(
        table[0][0],
        b.size,
        table[1][0],
        s.size,
        float(p),
        _interval(table[0][0], b.size),
        _interval(table[1][0], s.size),
    )


class UnitsTest(NamedTuple):
    """:func:`whole_units`: the difference of shares (script's minus book's, mean over cells),
    its two-sided p value, the smallest p value any labelling of these runs could give (what
    the design can show at best), and the :data:`LEVEL` interval of the difference
    (:func:`difference_interval`; None with one run a side or no spread)."""

    difference: float
    p: float
    smallest_p: float
    interval: tuple[float, float] | None


def whole_units(book, script, combinations=200_000) -> UnitsTest:
    """The mean over cells of (script's share - book's share) of runs on the upper floor, and
    its two-sided permutation p value, exchanging whole runs between the implementations --
    book trial ``r`` or script seed ``s`` with its outcome in every cell at once, so the
    dependence across cells within a run is kept.  ``book``, ``script``: boolean arrays
    ``(runs, cells)`` (upper floor or not).  Exact over every relabelling up to
    ``combinations`` of them; refused above (a larger design needs a sampled version).

    Its null: a book trial and a script run have one joint distribution of outcomes across
    the cells.  Equal shares cell by cell with different dependence across cells is a wider
    null, for which the test is approximate (close to exact with equal numbers of runs a
    side, not with one run against ten).  Not finding a difference is not showing equal
    shares: the interval says how large a difference the runs leave open.

    >>> test = whole_units([[0, 0], [0, 1], [1, 0]], [[1, 1], [1, 1]])
    >>> round(test.difference, 4), test.p, test.smallest_p
    (0.6667, 0.1, 0.1)
    """
    book, script = (np.asarray(x, dtype=float) for x in (book, script))
    if book.ndim != 2 or script.ndim != 2 or book.shape[1] != script.shape[1]:
        raise ValueError("book and script must be (runs, cells) with the same cells")
    if min(book.shape[0], script.shape[0], book.shape[1]) < 1:
        raise ValueError("book and script must hold at least one run each, in one cell or more")
    if not np.isin(book, (0, 1)).all() or not np.isin(script, (0, 1)).all():
        raise ValueError("book and script must hold 0/1 outcomes (upper floor or not)")
    both = np.concatenate([book, script])
    n, k = both.shape[0], script.shape[0]
    if math.comb(n, k) > combinations:
        raise ValueError(f"{math.comb(n, k)} relabellings exceed combinations={combinations}")
    totals = both.sum(axis=1)  # each run's count of cells on the upper floor
    cells = both.shape[1]
    observed = (script.sum() / k - book.sum() / (n - k)) / cells
    picks = np.array(list(itertools.combinations(range(n), k)))
    chosen = totals[picks].sum(axis=1)
    diffs = (chosen / k - (totals.sum() - chosen) / (n - k)) / cells
    p = float(np.mean(np.abs(diffs) >= abs(observed) - 1e-12))
    smallest = float(np.mean(np.abs(diffs) >= np.abs(diffs).max() - 1e-12))
    try:
        interval = difference_interval(book, script)
    except ValueError:  # one run a side, or no spread: no interval to give
        interval = None
    return UnitsTest(float(observed), p, smallest, interval)


def difference_interval(book, script, level=LEVEL) -> tuple[float, float]:
    """The ``level`` interval of the difference of the mean share (script's minus book's) of
    cells on the upper floor, a run being the unit: Welch's t interval on each run's share over
    the cells (``book``, ``script``: 0/1 arrays ``(runs, cells)``, two runs or more a side),
    clipped to [-1, 1], where a difference of shares lies.  Refused where no run differs from
    another (no spread to measure).

    >>> low, high = difference_interval([[0, 0], [0, 1], [1, 0]], [[1, 1], [1, 0]])
    >>> round(low, 3), round(high, 3)
    (-0.944, 1.0)
    """
    level = _checks.real("level", level)
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    a, b = (np.asarray(x, dtype=float).mean(axis=1) for x in (book, script))
    if min(a.size, b.size) < 2:
        raise ValueError("book and script must hold two runs or more each")
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    if va + vb == 0:
        raise ValueError("book and script: every run has the same share; no interval")
    dof = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    half = stats.t.ppf(0.5 + level / 2, dof) * math.sqrt(va + vb)
    centre = b.mean() - a.mean()
    return float(max(-1.0, centre - half)), float(min(1.0, centre + half))


def holm(p_values) -> list:
    """Holm's step-down adjustment of ``p_values`` (valid under any dependence between them).

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    if p.ndim != 1 or np.any((p < 0) | (p > 1)) or np.isnan(p).any():
        raise ValueError("p_values must be a list of numbers in [0, 1]")
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, np.maximum.accumulate(p[order] * (p.size - np.arange(p.size))))
    out = np.empty_like(p)
    out[order] = scaled
    return [round(float(x), 12) for x in out]


class Distribution(NamedTuple):
    """``E_t`` of both implementations at one depth: medians and the Mann-Whitney test."""

    t: int
    book_median: float
    script_median: float
    p_value: float
    adjusted_p: float | None = None
    """After :func:`holm` over every one-floor cell and depth (set by :func:`rows`)."""


def distributions(book, script, depths=COMPARED_DEPTHS) -> list:
    """:class:`Distribution` at each of ``depths`` (exact two-sided Mann-Whitney)."""
    out = []
    for t in depths:
        b, s = _values(book, t), _values(script, t)
        p = stats.mannwhitneyu(b, s, alternative="two-sided", method="exact").pvalue
        out.append(Distribution(t, float(np.median(b)), float(np.median(s)), float(p)))
    return out


class Row(NamedTuple):
    """What one cell says: its floors, the share on the upper one of the book's trainer and of
    the other implementation (or, with one floor, the two distributions), and how closely the
    reruns repeat their runs."""

    cell: Cell
    split: Split | None
    """The two floors found in every run of the cell pooled (``None``: one)."""
    share: Share | None
    adjusted_p: float | None
    """:attr:`Share.p_value` after :func:`holm` over every cell with two floors."""
    distributions: list | None
    """:func:`distributions` where the cell has one floor."""
    released_upper: bool | None
    """Whether their released run lies on the upper floor."""
    own_deviation: float
    """Their script at their own seed against their released curve (:func:`deviation`)."""
    draws_deviation: float | None
    """The largest :func:`deviation` between their script and the book's computation on the
    same draws, over the seeds run both ways (``None``: none)."""


def rows(cells, *, other="script", depth=DEPTH, gap=GAP) -> list:
    """The :class:`Row` of each cell of ``cells`` (:func:`cells`): the book's trials against
    their script's runs (``other="script"``) or against the book's computation on the script's
    draws (``"draws"``: the script's outcomes at more seeds than it was run at, where the two
    agree run for run).  The floors are split on every run of the cell once: the book's, the
    replays, and the script's at seeds not replayed."""
    if other not in ("script", "draws"):
        raise ValueError(f"other must be 'script' or 'draws', got {other!r}")
    out = []
    for c in cells:
        theirs = getattr(c, other)
        # every run once: the script's runs at seeds not replayed, and every replay
        alone = [k for k, s in enumerate(c.script_seeds) if s not in c.draws_seeds]
        found = split(np.concatenate([c.book, c.script[alone], c.draws]), depth, gap)
        ran = len(theirs) > 0
        share = (
            shares(c.book, theirs, found.threshold, depth) if found is not None and ran else None
        )
        common = [s for s in c.script_seeds if s in c.draws_seeds]
        out.append(
            [
                c,
                found,
                share,
                None,
                distributions(c.book, theirs) if found is None and ran else None,
                None if found is None else bool(c.released[depth] > found.threshold),
                deviation(c.own, c.released),
                max(
                    (
                        deviation(
                            c.script[c.script_seeds.index(s)], c.draws[c.draws_seeds.index(s)]
                        )
                        for s in common
                    ),
                    default=None,
                ),
            ]
        )
    tested = [r for r in out if r[2] is not None]
    for r, p in zip(tested, holm([r[2].p_value for r in tested]) if tested else [], strict=True):
        r[3] = p
    compared = [(r, k) for r in out if r[4] is not None for k in range(len(r[4]))]
    adjusted = holm([r[4][k].p_value for r, k in compared]) if compared else []
    for (r, k), p in zip(compared, adjusted, strict=True):
        r[4][k] = r[4][k]._replace(adjusted_p=p)
    return [Row(*r) for r in out]


def upper_by_run(rows, other="script") -> tuple[np.ndarray, np.ndarray]:
    """``(book, other)``: whether each run lies on the upper floor, ``(runs, cells)``, over
    the cells of ``rows`` with two floors -- the book's trials by trial index, and their
    script's runs (``other="script"``) or the replays of its draws (``"draws"``) by seed, only
    the seeds run in every one of those cells -- for :func:`whole_units`."""
    if other not in ("script", "draws"):
        raise ValueError(f"other must be 'script' or 'draws', got {other!r}")
    two = [r for r in rows if r.split is not None]
    if not two:
        raise ValueError("rows must hold a cell with two floors")
    seeds = sorted(set.intersection(*(set(getattr(r.cell, f"{other}_seeds")) for r in two)))
    book = np.stack([r.cell.book[:, r.split.depth] > r.split.threshold for r in two], axis=1)
    theirs = np.stack(
        [
            getattr(r.cell, other)[
                [getattr(r.cell, f"{other}_seeds").index(s) for s in seeds], r.split.depth
            ]
            > r.split.threshold
            for r in two
        ],
        axis=1,
    )
    return book, theirs


def script_as_replayed(rows) -> tuple[int, int]:
    """``(same, runs)``: of their script's runs in the cells of ``rows`` with two floors, how
    many lie on the same floor as the replay of their own draws (the book's computation at the
    same seed).  Where all do, the script's runs are a subset of the replays and add no
    separate evidence on shares."""
    two = [r for r in rows if r.split is not None]
    if not two:
        raise ValueError("rows must hold a cell with two floors")
    same = runs = 0
    for r in two:
        at, cell = r.split.depth, r.cell
        for k, seed in enumerate(cell.script_seeds):
            if seed in cell.draws_seeds:
                replay = cell.draws[cell.draws_seeds.index(seed), at]
                same += (cell.script[k, at] > r.split.threshold) == (replay > r.split.threshold)
                runs += 1
    return int(same), runs


def earlier_trials(*studies) -> dict:
    """``{(L, M): [E, ...]}``: the book's earlier trials of the linear model under the
    examples-only mask, one array ``(trials, depths)`` per study (records ``authors_protocol``,
    ``authors_recheck``, as :mod:`cotbook.book.studies` loads them), in the order given."""
    out: dict = {}
    for study in studies:
        E = np.asarray(study.data["E"]["linear"][MASK], dtype=float)
        for i, cell in enumerate(study.spec.cells["linear"]):
            out.setdefault(tuple(cell), []).append(E[i])
    return out


class Earlier(NamedTuple):
    """:func:`against_earlier`: per cell with two floors, the earlier trials' and the new
    trials' counts on the upper floor (:class:`Share`, the earlier as ``book``) with Holm's
    adjustment over the cells; in how many cells the first study's share is the lower; and the
    whole-units test of the first study's trials (run in every cell) against the new ones."""

    shares: list
    adjusted_p: list
    lower: int
    test: UnitsTest


def against_earlier(rows, earlier) -> Earlier:
    """The book's earlier trials (``earlier``: :func:`earlier_trials`) against its new ones
    (the rows' ``book`` runs) in the cells of ``rows`` with two floors, each split where the
    rows split it."""
    two = [r for r in rows if r.split is not None]
    if not two:
        raise ValueError("rows must hold a cell with two floors")
    missing = [(r.cell.L, r.cell.M) for r in two if (r.cell.L, r.cell.M) not in earlier]
    if missing:
        raise ValueError(f"earlier must hold every cell with two floors; missing {missing}")
    found = [
        shares(np.concatenate(earlier[r.cell.L, r.cell.M]), r.cell.book, r.split.threshold)
        for r in two
    ]
    first = np.stack(
        [earlier[r.cell.L, r.cell.M][0][:, r.split.depth] > r.split.threshold for r in two],
        axis=1,
    )
    new, _ = upper_by_run(two)
    lower = int(sum(first[:, k].mean() < new[:, k].mean() for k in range(len(two))))
    adjusted = holm([f.p_value for f in found])
    return Earlier(found, adjusted, lower, whole_units(first, new))
