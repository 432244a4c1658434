"""The book's runs of the authors' protocol set against their released values, cell by cell.

The chapters *Their protocol, run by the book* (``book/authors_protocol.md``) and *A second
look* (``book/authors_recheck.md``) read the same pairs: each cell's trained models from a
study record (:func:`cotbook.book.studies.protocol`, :func:`~cotbook.book.studies.recheck`)
beside their one released run of that cell (:mod:`cotbook.book.authors`).  The verdicts are
:mod:`cotbook.attention.released`'s; this module only pairs the data and counts.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.stats import binom

from ..attention import released
from . import authors

__all__ = [
    "MASK",
    "DEPTHS",
    "SHOWN",
    "RELEASED_RUNS",
    "released_heatmaps",
    "drawn",
    "pairs",
    "compare",
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
    release = authors.release() if release is None else release
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


class Look(NamedTuple):
    """The cells of one model that fresh trials judge again (:func:`second_look`)."""

    cells: list
    """:func:`cotbook.attention.released.second_look` of each rechecked cell."""
    held: released.Tally
    """Each of the cell's trials, old and new, held out against the others
    (:func:`cotbook.attention.released.held_out`): the outside rate under no difference."""
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
        released.held_out(trials, list(DEPTHS)),
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
    held_rate: float
    """The share of our own trials that fall outside the others' interval."""
    outside: int
    """Rechecked cells whose value stays outside all trials."""
    p_value: float
    """The chance of at least ``outside`` such cells at ``held_rate`` (binomial)."""
    inside: int
    """Cells inside now: inside at the first look, plus rechecked cells inside all trials."""
    compared: int
    """Cells compared now (bimodal ones left out)."""


def recheck_counts(found, look: Look) -> Recheck:
    """The first look's cells ``found`` (:func:`compare`) with the second ``look``."""
    fresh = released.tally([r.fresh for r in look.cells])
    pooled = released.tally([r.pooled for r in look.cells])
    before = released.tally(found)
    rate = 1 - look.held.inside / look.held.compared
    out = pooled.compared - pooled.inside
    return Recheck(
        fresh,
        pooled,
        rate,
        out,
        float(binom.sf(out - 1, pooled.compared, rate)),
        before.inside + pooled.inside,
        before.compared - pooled.bimodal,
    )
