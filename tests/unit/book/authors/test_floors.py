"""Floors, shares and tests of the side-by-side comparison, against hand counts and against
scipy's own statistics computed another way."""

import math

import numpy as np
import pytest
from scipy import stats

from cotbook.book.authors import floors


def _runs(values, depth=floors.DEPTH, t=32):
    """Curves holding ``values`` at ``depth`` (and 1 elsewhere)."""
    curves = np.ones((len(values), t))
    curves[:, depth] = values
    return curves


LOWER = [0.0241, 0.0248, 0.0252, 0.0262]
UPPER = [0.0839, 0.0861, 0.0899, math.inf]


def test_split_puts_the_threshold_in_the_middle_of_the_widest_gap():
    found = floors.split(_runs(LOWER + UPPER))
    assert found.threshold == pytest.approx(math.sqrt(0.0262 * 0.0839))
    assert found.factor == pytest.approx(0.0839 / 0.0262)
    # a run beyond the float range sits above every floor and does not move the gap
    assert floors.split(_runs(LOWER + UPPER[:3])) == found


def test_one_floor_gives_no_split_and_the_gap_decides():
    assert floors.split(_runs(LOWER)) is None
    pairs = [0.1, 0.105, 0.18, 0.19]
    assert floors.split(_runs(pairs)) is None  # a factor 1.7 < GAP
    assert floors.split(_runs(pairs), gap=1.5) is not None
    assert floors.split(_runs([0.1])) is None
    # one outlier is not a floor; three levels are not two
    assert floors.split(_runs([0.020, 0.021, 0.022, 0.05])) is None
    assert floors.split(_runs([0.02, 0.021, 0.06, 0.062, 0.2, 0.21])) is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"gap": 1.0}, "gap must be a factor above 1"), ({"depth": 32}, "depth must be below 32")],
)
def test_split_refuses_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        floors.split(_runs(LOWER), **kwargs)


def test_split_refuses_errors_that_are_not_positive_and_shares_refuse_overflow():
    for bad in (0.0, math.nan, -math.inf):
        with pytest.raises(ValueError, match="positive errors"):
            floors.split(_runs([0.1, bad, 0.3]))
    with pytest.raises(ValueError, match="beyond the float range"):
        floors.shares(_runs(LOWER), _runs(UPPER), 0.05)


def test_shares_count_each_side_and_match_the_hypergeometric_tail():
    book, script = _runs(LOWER + UPPER[:1]), _runs(UPPER[:3] + LOWER[:1])
    share = floors.shares(book, script, 0.05)
    assert (share.book, share.book_runs, share.script, share.script_runs) == (1, 5, 3, 4)
    # exact intervals: the binomial tails at their ends are 2.5% each
    low, high = share.book_interval
    assert stats.binom.sf(0, 5, low) == pytest.approx(0.025, rel=1e-6)
    assert stats.binom.cdf(1, 5, high) == pytest.approx(0.025, rel=1e-6)
    # two-sided Fisher: the tables at most as likely as the one seen, under the margins
    margin = stats.hypergeom(9, 4, 5)  # 9 runs, 4 upper, 5 of them the book's
    seen = margin.pmf(1)
    p = sum(margin.pmf(k) for k in range(0, 5) if margin.pmf(k) <= seen * (1 + 1e-7))
    assert share.p_value == pytest.approx(p, rel=1e-9)


def test_holm_against_its_definition():
    p = [0.01, 0.04, 0.03, 0.5]
    # sorted 0.01, 0.03, 0.04, 0.5 times 4, 3, 2, 1 -> 0.04, 0.09, 0.08 -> running max 0.09
    assert floors.holm(p) == [0.04, 0.09, 0.09, 0.5]
    with pytest.raises(ValueError, match="p_values"):
        floors.holm([0.1, 1.5])


def test_distributions_read_each_depth_and_test_exactly():
    rng = np.random.default_rng(3)
    book, script = rng.lognormal(0, 0.1, (10, 32)), rng.lognormal(0.3, 0.1, (5, 32))
    found = floors.distributions(book, script, depths=(1, 5))
    assert [d.t for d in found] == [1, 5]
    assert found[0].book_median == pytest.approx(np.median(book[:, 1]))
    # every script value above every book value: the exact two-sided p is 2 / C(15, 5)
    book[:, 5], script[:, 5] = np.arange(10) + 1.0, np.arange(5) + 20.0
    assert floors.distributions(book, script, (5,))[0].p_value == pytest.approx(
        2 / math.comb(15, 5)
    )


def test_deviation_is_relative_and_refuses_mixed_overflow():
    assert floors.deviation([1.0, 2.0], [1.0, 2.02]) == pytest.approx(0.02 / 2.02)
    assert floors.deviation([1.0, math.inf], [1.0, math.inf]) == 0.0
    assert floors.deviation([1.0, math.inf], [1.0, 3.0]) == math.inf


def test_whole_units_against_a_sampled_permutation_and_its_own_definition():
    rng = np.random.default_rng(5)
    book = rng.random((7, 3)) < 0.3
    script = rng.random((4, 3)) < 0.8
    diff, p, smallest, (low, high) = floors.whole_units(book, script)
    assert diff == pytest.approx((script.mean(0) - book.mean(0)).mean())
    assert low < diff < high
    # the most extreme labelling of these runs: its own p is the smallest any could give
    order = np.argsort(np.concatenate([book, script]).sum(axis=1))
    both = np.concatenate([book, script])
    extremes = (
        floors.whole_units(both[order[:7]], both[order[7:]]),  # the script's runs highest
        floors.whole_units(both[order[4:]], both[order[:4]]),  # ... or lowest
    )
    assert min(e.p for e in extremes) == smallest <= p
    assert smallest >= 1 / math.comb(11, 4) - 1e-12
    both = np.concatenate([book, script]).astype(float)
    hits = 0
    draws = 20000
    for _ in range(draws):
        order = rng.permutation(len(both))
        s, b = both[order[:4]], both[order[4:]]
        hits += abs((s.mean(0) - b.mean(0)).mean()) >= abs(diff) - 1e-12
    assert p == pytest.approx(hits / draws, abs=0.01)
    with pytest.raises(ValueError, match="exceed"):
        floors.whole_units(np.zeros((20, 2)), np.zeros((10, 2)), combinations=1000)


def _fake(cells, book, script, draws, seeds, released):
    """Stand-ins for the three studies and the released heatmap, as floors.cells reads them."""
    from types import SimpleNamespace

    from cotbook.book.authors_script import own_seed

    side = SimpleNamespace(
        spec=SimpleNamespace(cells={"linear": cells}),
        data={"E": {"linear": {floors.MASK: book.tolist()}}},
    )
    runs = {}
    for (L, M), curves in zip(cells, script, strict=True):
        for s, curve in zip(seeds, curves, strict=True):
            runs[f"L={L}/M={M}/seed={s}"] = {"E": curve.tolist()}
        runs[f"L={L}/M={M}/seed={own_seed(L, M)}"] = {"E": (released * 1.00001).tolist()}
    triples = tuple(tuple(int(x.split("=")[1]) for x in unit.split("/")) for unit in runs)
    reruns = SimpleNamespace(spec=SimpleNamespace(runs=triples), data={"runs": runs})
    replay = {
        f"L={L}/M={M}/seed={s}": curve.tolist()
        for (L, M), curves in zip(cells, draws, strict=True)
        for s, curve in zip(seeds, curves, strict=True)
    }
    draws_study = SimpleNamespace(
        spec=SimpleNamespace(cells=tuple(cells), seeds=seeds), data={"runs": replay}
    )
    heatmap = SimpleNamespace(at=lambda M, L: released)
    return side, reruns, draws_study, heatmap


def test_rows_split_count_and_compare_a_two_floor_and_a_one_floor_cell():
    cells, seeds = [(200, 400), (90, 40)], (11, 12, 13, 14)
    low, high = _runs(LOWER), _runs(UPPER[:3] + [0.085])
    book = np.stack([np.concatenate([low, high[:1]]), _runs([1.0, 1.1, 1.05, 0.98, 1.02])])
    script = np.stack([high, _runs([1.5, 1.6, 1.55, 1.45])])
    draws = script * (1 + 1e-7)
    released = np.ones(32)
    found = floors.cells(*_fake(cells, book, script, draws, seeds, released), seeds)
    two, one = floors.rows(found)
    assert two.split is not None and one.split is None
    assert (two.share.book, two.share.script) == (1, 4)
    assert two.adjusted_p == pytest.approx(two.share.p_value)  # one cell tested
    assert two.draws_deviation == pytest.approx(1e-7, rel=1e-3)
    assert two.own_deviation == pytest.approx(1e-5, rel=1e-3)
    assert [d.t for d in one.distributions] == list(floors.COMPARED_DEPTHS)
    assert all(d.adjusted_p >= d.p_value for d in one.distributions)
    replayed = floors.rows(found, other="draws")
    assert replayed[0].share == two.share
    book_units, script_units = floors.upper_by_run(floors.rows(found))
    assert book_units.shape == (5, 1) and script_units.shape == (4, 1)
    with pytest.raises(ValueError, match="other must be"):
        floors.rows(found, other="theirs")
    assert floors.script_as_replayed(floors.rows(found)) == (4, 4)
    # a replay on the other floor than its script run is counted as such
    draws[0, 0] = low[0]
    moved = floors.cells(*_fake(cells, book, script, draws, seeds, released), seeds)
    assert floors.script_as_replayed(floors.rows(moved)) == (3, 4)
    with pytest.raises(ValueError, match="two floors"):
        floors.script_as_replayed([one])


def test_whole_units_refuses_what_it_cannot_test():
    for book, script in (
        (np.zeros((0, 2)), np.ones((3, 2))),
        (np.zeros((3, 0)), np.ones((3, 0))),
        (np.full((3, 2), np.nan), np.ones((3, 2))),
    ):
        with pytest.raises(ValueError, match="book and script must"):
            floors.whole_units(book, script)


def test_a_replayed_run_is_not_counted_twice_in_the_split():
    """One high run of their script, replayed by the draws at its seed: one run, not two,
    so it is no floor of its own."""
    cells, seeds = [(200, 400)], (11, 12, 13)
    book = _runs(LOWER + [0.0245, 0.0251])[None]
    script = _runs([0.09, 0.025, 0.026])[None]
    found = floors.cells(*_fake(cells, book, script, script.copy(), seeds, np.ones(32)), seeds)
    (row,) = floors.rows(found)
    assert row.split is None


def test_difference_interval_is_welchs_and_refuses_no_spread():
    """Against Welch's interval computed by hand from each run's share over the cells; the
    interval holds its level on data drawn with equal shares."""
    book = np.array([[1, 0, 1], [0, 0, 1], [1, 1, 1], [0, 0, 0]])
    script = np.array([[1, 1, 1], [1, 0, 1], [0, 1, 1]])
    a, b = book.mean(1), script.mean(1)
    va, vb = a.var(ddof=1) / 4, b.var(ddof=1) / 3
    dof = (va + vb) ** 2 / (va**2 / 3 + vb**2 / 2)
    half = stats.t.ppf(0.975, dof) * np.sqrt(va + vb)
    low, high = floors.difference_interval(book, script)
    assert (low, high) == pytest.approx(
        (b.mean() - a.mean() - half, min(1.0, b.mean() - a.mean() + half))
    )
    rng = np.random.default_rng(3)
    covered = 0
    for _ in range(400):
        lo, hi = floors.difference_interval(rng.random((10, 6)) < 0.5, rng.random((5, 6)) < 0.5)
        covered += lo <= 0 <= hi
    assert covered / 400 == pytest.approx(0.95, abs=0.04)
    with pytest.raises(ValueError, match="same share"):
        floors.difference_interval(np.ones((3, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="two runs or more"):
        floors.difference_interval(np.ones((1, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="level must"):
        floors.difference_interval(book, script, level=1.5)


def test_earlier_trials_against_the_new_ones():
    """The earlier trials of two studies are pooled for the cell's Fisher test; the first
    study's, run in every cell, are tested against the new trials as whole runs."""
    from types import SimpleNamespace

    cells, seeds = [(200, 400)], (11, 12, 13, 14)
    low, high = _runs(LOWER), _runs(UPPER[:3] + [0.085])
    book = np.concatenate([low, high[:3]])[None]  # new trials: 3 of 7 upper
    script = high[None]
    found = floors.rows(
        floors.cells(*_fake(cells, book, script, script, seeds, np.ones(32)), seeds)
    )

    def study(curves):
        return SimpleNamespace(
            spec=SimpleNamespace(cells={"linear": cells}),
            data={"E": {"linear": {floors.MASK: curves[None].tolist()}}},
        )

    earlier = floors.earlier_trials(study(low[:3]), study(np.concatenate([low[3:], high[:1]])))
    assert [e.shape for e in earlier[200, 400]] == [(3, 32), (2, 32)]
    result = floors.against_earlier(found, earlier)
    share = result.shares[0]
    assert (share.book, share.book_runs, share.script, share.script_runs) == (1, 5, 3, 7)
    assert result.adjusted_p == [pytest.approx(share.p_value)]
    assert result.lower == 1  # the first study's 0 of 3 against 3 of 7
    assert result.test.difference == pytest.approx(3 / 7)
    assert result.test == floors.whole_units(np.zeros((3, 1)), (np.arange(7) >= 4)[:, None])
    with pytest.raises(ValueError, match="missing"):
        floors.against_earlier(found, {})
