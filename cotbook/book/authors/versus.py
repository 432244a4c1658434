"""The book's runs of the authors' protocol set against their released values, cell by cell.

The chapters *Their protocol, run by the book* (``book/authors_protocol.md``) and *A second
look* (``book/authors_recheck.md``) read the same pairs: each cell's trained models from a
study record (:func:`cotbook.book.studies.protocol`, :func:`~cotbook.book.studies.recheck`)
beside their one released run of that cell (:mod:`cotbook.book.authors.runs`).  The verdicts are
:mod:`cotbook.attention.released`'s; this module only pairs the data and counts.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from ...attention import released
from . import runs

__all__ = [
    "MASK",
    "DEPTHS",
    "SHOWN",
    "RELEASED_RUNS",
    "released_heatmaps",
    "drawn",
    "pairs",
    "compare",
    "Selected",
    "selected_held_out",
    "expected_outside",
    "Look",
    "second_look",
    "Recheck",
    "recheck_counts",
]

MASK = "examples"
"""The book's name of their ``data_only`` mask: the query attends to the examples only."""
DEPTHS = (1, 5, 10, 20, 28)
"""The depths the chapters compare at (the verdict reads those up to 10); an index into the
saved curves, so pass it on as a list."""
SHOWN = (38, 121, 233, 400)
"""The linear cells drawn and tabled: every third ``L`` and ``M`` of their grid."""
RELEASED_RUNS = {"linear": "latest_linear_heatmap", "softmax": "softmax_heatmap_20260417_195912"}
"""Their released heatmap each model is compared with."""


def released_heatmaps(release=None) -> dict:
    """``{model: Heatmap}`` of :data:`RELEASED_RUNS` from the authors' record."""
    release = runs.release() if release is None else release
    return {model: release.heatmaps[name] for model, name in RELEASED_RUNS.items()}


def drawn(model, L, M) -> bool:
    """Whether the chapters draw and table the cell (every softmax cell; linear at
    :data:`SHOWN`)."""
    return model != "linear" or (L in SHOWN and M in SHOWN)


def pairs(study, heatmaps, model, shown=False) -> list:
    """``[((L, M), ours (trials, t), theirs (t,)), ...]`` over the cells of ``study``'s
    ``model``: our trials under :data:`MASK` and their run at the same cell; with ``shown``,
    only the cells :func:`drawn`."""
    ours = np.asarray(study.data["E"][model][MASK], dtype=float)
    return [
        ((L, M), ours[i], heatmaps[model].at(M, L).astype(float))
        for i, (L, M) in enumerate(study.spec.cells[model])
        if not shown or drawn(model, L, M)
    ]


def compare(study, heatmaps, model, level=released.LEVEL, gap=released.GAP) -> list:
    """:func:`cotbook.attention.released.cells_versus` of every cell at :data:`DEPTHS`, the
    verdict read up to ``t = 10``."""
    cells, ours, theirs = zip(*pairs(study, heatmaps, model), strict=True)
    return released.cells_versus(cells, ours, theirs, list(DEPTHS), early=10, level=level, gap=gap)


class Selected(NamedTuple):
    """Held-out trials chosen the way the rechecked cells were (:func:`selected_held_out`)."""

    selected: int
    """(trial, first look) pairs where the held-out trial fell outside the first look."""
    outside: int
    """Of those, how many stay outside the interval of all the cell's other trials."""

    @property
    def rate(self) -> float:
        return self.outside / self.selected if self.selected else float("nan")


def selected_held_out(trials, depths, *, first=3, early=10) -> list:
    """The chance that a value chosen for a second look stays outside, if it is one more
    draw of our own trials, cell by cell: each trial of a cell held out as if it were theirs,
    every choice of ``first`` of the other trials as the first look; where the held-out trial
    falls outside the first look's interval at some depth ``<= early`` (the way the rechecked
    cells were chosen), is it outside the interval of all the other trials too?  One
    :class:`Selected` per cell.  Verdicts are :func:`cotbook.attention.released.cells_versus`'s;
    a split ("bimodal") look is not counted.  The held-out trial is set against one trial
    fewer than their value is (all but itself).

    >>> cell = [[1.0, x] for x in (0.50, 0.52, 0.55, 0.48, 0.51, 0.49, 0.53, 0.90)]
    >>> selected_held_out([cell], [1], first=3, early=1)
    [Selected(selected=36, outside=35)]
    """
    trials = np.asarray(trials, dtype=float)
    if trials.ndim != 3 or trials.shape[1] < first + 3:
        raise ValueError(f"trials must be (cells, trials >= {first + 3}, t), got {trials.shape}")
    n = trials.shape[1]
    out = []
    for cell in trials:
        selected = outside = 0
        for j in range(n):
            others = [k for k in range(n) if k != j]

            def verdict(rows, cell=cell, j=j):
                (found,) = released.cells_versus(
                    [(0, 0)], [cell[rows]], [cell[j]], depths, early=early
                )
                return found.verdict

            for look in itertools.combinations(others, first):
                if verdict(list(look)) != "outside":
                    continue
                after = verdict(others)
                if after != "bimodal":
                    selected += 1
                    outside += after == "outside"
        out.append(Selected(selected, outside))
    return out


def expected_outside(held) -> tuple[float, list]:
    """``(expected count, distribution)`` of picked cells that stay outside under no
    difference: each cell stays outside with its own :func:`selected_held_out` rate (a cell
    with no pick of its own takes the rate of all picks pooled), independently; the
    distribution is the Poisson-binomial probability of ``0, 1, ...`` cells.

    >>> expected_outside([Selected(4, 1), Selected(0, 0), Selected(4, 3)])[0]
    1.5
    """
    picks = sum(h.selected for h in held)
    if not picks:
        raise ValueError("held must hold at least one pick (selected_held_out found none)")
    pooled = sum(h.outside for h in held) / picks
    rates = [h.rate if h.selected else pooled for h in held]
    dist = np.array([1.0])
    for r in rates:
        dist = np.convolve(dist, [1 - r, r])
    return float(sum(rates)), dist.tolist()


class Look(NamedTuple):
    """The cells of one model that fresh trials judge again (:func:`second_look`)."""

    cells: list
    """:func:`cotbook.attention.released.second_look` of each rechecked cell."""
    held: list
    """Per cell, its trials held out as if they were theirs and chosen as their value was
    (:func:`selected_held_out`): how often one stays outside, under no difference."""
    coords: list
    """The rechecked cells ``(L, M)``."""
    trials: np.ndarray
    """All trials of each rechecked cell, the first ones then the new, ``(cells, trials, t)``."""
    theirs: list
    """Their run of each rechecked cell."""


def second_look(first, recheck, heatmaps, model) -> Look:
    """The cells of ``model`` rechecked by the study ``recheck``, judged against its new trials
    and against all trials with the ``first`` study's."""
    by_cell = {cell: (ours, theirs) for cell, ours, theirs in pairs(first, heatmaps, model)}
    coords = recheck.spec.cells[model]
    new = np.asarray(recheck.data["E"][model][MASK], dtype=float)
    old = [by_cell[c][0] for c in coords]
    theirs = [by_cell[c][1] for c in coords]
    trials = np.concatenate([old, new], axis=1)
    return Look(
        released.second_look(coords, old, new, theirs, list(DEPTHS)),
        selected_held_out(trials, list(DEPTHS), first=old[0].shape[0]),
        coords,
        trials,
        theirs,
    )


class Recheck(NamedTuple):
    """What a second look changes for one model (:func:`recheck_counts`)."""

    fresh: released.Tally
    """The rechecked cells against the new trials alone."""
    pooled: released.Tally
    """The rechecked cells against all trials."""
    outside: int
    """Rechecked cells whose value stays outside all trials.  The cells were chosen because
    their value fell outside the first trials, so this count is description, not a test: a
    held-out trial of our own, chosen the same way, falls outside as often (the preregistered
    comparison of :mod:`cotbook.book.authors.floors` is the test)."""
    inside: int
    """Cells inside now: inside at the first look, plus rechecked cells inside all trials."""
    compared: int
    """Cells compared now (bimodal ones left out)."""


def recheck_counts(found, look: Look) -> Recheck:
    """The first look's cells ``found`` (:func:`compare`) with the second ``look``."""
    fresh = released.tally([r.fresh for r in look.cells])
    pooled = released.tally([r.pooled for r in look.cells])
    before = released.tally(found)
    return Recheck(
        fresh,
        pooled,
        pooled.compared - pooled.inside,
        before.inside + pooled.inside,
        before.compared - pooled.bimodal,
    )
