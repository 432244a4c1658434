"""Pairing the book's runs of the authors' protocol with their released values
(cotbook.book.authors.versus): the right cells, the shown subset, and the counts of a second
look against a direct computation."""

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.stats import binom

from cotbook.attention import released
from cotbook.book.authors import versus as va

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
    assert counts.outside == counts.pooled.compared - counts.pooled.inside
    assert counts.inside == 0 + counts.pooled.inside
    assert counts.compared == 4 - counts.pooled.bimodal


def test_expected_outside_is_the_poisson_binomial_of_the_cells_rates():
    held = [va.Selected(10, 4), va.Selected(0, 0), va.Selected(5, 5), va.Selected(8, 2)]
    pooled = 11 / 23
    rates = [0.4, pooled, 1.0, 0.25]
    mean, dist = va.expected_outside(held)
    assert mean == pytest.approx(sum(rates))
    brute = np.zeros(5)
    for outcome in itertools.product((0, 1), repeat=4):
        brute[sum(outcome)] += np.prod([r if o else 1 - r for r, o in zip(rates, outcome)])
    assert dist == pytest.approx(brute.tolist())


def test_a_held_out_trial_is_picked_the_way_the_cells_were():
    """A cell of seven close trials and one far one: the far trial is picked by every first
    look of three others and stays outside; a close trial is picked only where its first look
    happens to be tight, and then mostly comes back inside."""
    rng = np.random.default_rng(2)
    close = 0.5 * np.exp(0.05 * rng.standard_normal(7))
    cell = np.ones((8, T))
    cell[:, 1] = np.append(close, 2.0)
    (found,) = va.selected_held_out([cell], [1], early=1)
    far = sum(
        released.cells_versus([(0, 0)], [cell[list(look)]], [cell[7]], [1], early=1)[0].verdict
        == "outside"
        for look in itertools.combinations(range(7), 3)
    )
    assert far == 35 and found.selected >= 35 and found.outside >= 35


def test_expected_outside_refuses_a_calibration_without_picks():
    with pytest.raises(ValueError, match="at least one pick"):
        va.expected_outside([va.Selected(0, 0), va.Selected(0, 0)])
