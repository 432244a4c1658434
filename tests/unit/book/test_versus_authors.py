"""Pairing the book's runs of the authors' protocol with their released values
(cotbook.book.versus_authors): the right cells, the shown subset, and the counts of a second
look against a direct computation."""

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.stats import binom

from cotbook.attention import released
from cotbook.book import versus_authors as va

T = 32  # saved depths 0..31


class _Heatmap:
    """Their run of cell (L, M): a curve whose level encodes the cell."""

    def at(self, M, L):
        return np.full(T, 1e-3 * L + 1e-6 * M)


def _study(cells, trials, rng, scale=1.0):
    E = [[np.full(T, 1e-3 * L + 1e-6 * M) * scale * np.exp(0.02 * rng.standard_normal(T))
          for _ in range(trials)] for L, M in cells]  # fmt: skip
    return SimpleNamespace(
        data={"E": {"linear": {va.MASK: E}}}, spec=SimpleNamespace(cells={"linear": cells})
    )


def test_pairs_hold_each_cell_with_their_run_and_the_shown_subset(rng):
    cells = [(38, 121), (10, 121), (233, 400)]
    study = _study(cells, 3, rng)
    heat = {"linear": _Heatmap()}
    got = va.pairs(study, heat, "linear")
    assert [c for c, _, _ in got] == cells
    (L, M), ours, theirs = got[1]
    assert ours.shape == (3, T) and theirs == pytest.approx(np.full(T, 1e-3 * L + 1e-6 * M))
    assert [c for c, _, _ in va.pairs(study, heat, "linear", shown=True)] == [(38, 121), (233, 400)]
    assert va.drawn("softmax", 27, 10) and not va.drawn("linear", 10, 121)


def test_compare_and_the_second_look_count_what_released_decides(rng):
    cells = [(38, 38), (121, 121), (233, 233), (400, 400)]
    heat = {"linear": _Heatmap()}
    first = _study(cells, 3, rng, scale=1.3)  # their value 1/1.3 of ours: outside
    found = va.compare(first, heat, "linear")
    direct = released.cells_versus(
        cells, [o for _, o, _ in va.pairs(first, heat, "linear")],
        [t for _, _, t in va.pairs(first, heat, "linear")], list(va.DEPTHS), early=10,
    )  # fmt: skip
    assert [c.verdict for c in found] == [c.verdict for c in direct] == ["outside"] * 4
    again = _study(cells[:2], 5, rng)  # fresh trials at their level in two cells
    again.spec.cells["linear"] = cells[:2]
    look = va.second_look(first, again, heat, "linear")
    assert look.coords == cells[:2] and look.trials.shape == (2, 8, T)
    counts = va.recheck_counts(found, look)
    assert counts.fresh.inside == 2  # the new trials sit on their value
    rate = 1 - look.held.inside / look.held.compared
    out = counts.pooled.compared - counts.pooled.inside
    assert counts.held_rate == rate and counts.outside == out
    assert counts.p_value == pytest.approx(binom.sf(out - 1, counts.pooled.compared, rate))
    assert counts.inside == 0 + counts.pooled.inside
    assert counts.compared == 4 - counts.pooled.bimodal
