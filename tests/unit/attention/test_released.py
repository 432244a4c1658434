from types import SimpleNamespace

import numpy as np
import pytest

from cotbook.attention import regimes, released


def _run(**fields):
    base = dict(
        lam=1e-3,
        data_weight=1.0,
        steps=5000,
        batch=300,
        mask="data_only",
        trials=1,
        eval_tasks=4096,
    )
    return SimpleNamespace(**(base | fields))


def test_protocol_of_puts_lambda_on_the_unscaled_objective():
    """linear_dynamics halves its data term: its 1e-4 is 2e-4 on the unscaled objective."""
    p = released.protocol_of(
        _run(lam=1e-4, data_weight=0.5, steps=3000, batch=500, trials=5, eval_tasks=2048)
    )
    assert p["lam"] == pytest.approx(2e-4, rel=1e-15) and "depth" not in p
    assert released.protocol_of(_run(), depth=30)["depth"] == 30
    with pytest.raises(ValueError, match="config.data_weight"):
        released.protocol_of(_run(data_weight=0.0))
    with pytest.raises(ValueError, match="depth"):
        released.protocol_of(_run(), depth=2.5)


def test_mismatches_of_the_authors_linear_heatmap():
    """Their Figure 2 linear heatmap (lambda 1e-3, 5000 steps, batch 300, data_only, one seed,
    4096 tasks, drawn at t = 30) against the caption's protocol: batch and tasks agree."""
    found = released.mismatches(released.protocol_of(_run(), depth=30), released.FIGURE2_STATED)
    assert found == {
        "lam": (1e-3, 1e-5),
        "steps": (5000, 3000),
        "mask": ("data_only", "history_cot"),
        "trials": (1, 5),
        "depth": (30, 20),
    }
    assert released.describe(found).startswith("λ 0.001 (stated 1e-05), steps 5000 (stated")
    early_softmax = released.protocol_of(_run(mask="history_cot"), depth=28, early_marker=True)
    found = released.mismatches(early_softmax, released.FIGURE2_STATED)
    assert list(found) == ["lam", "steps", "trials", "depth", "marker"]
    assert released.describe(found).endswith("marker on every token (stated estimate token)")
    with pytest.raises(ValueError, match="early_marker"):
        released.protocol_of(_run(), early_marker="yes")
    follows = released.protocol_of(
        _run(lam=1e-5 * (1 + 1e-12), steps=3000, mask="history_cot", trials=5), depth=20
    )
    assert released.mismatches(follows, released.FIGURE2_STATED) == {}
    assert released.describe({}) == "none"


def test_mismatches_of_appendix_a_runs_compare_only_stated_fields():
    """The learned-parameter runs have no noise, 5000 steps and no test tasks; Appendix A
    states no test tasks, and the mask does not act in training, so neither is compared."""
    run = released.protocol_of(_run(eval_tasks=None))
    found = released.mismatches(run, released.APPENDIX_A_STATED)
    assert list(found) == ["noise_sd", "steps"]
    assert found["noise_sd"] == (0.0, 0.1)
    assert "test tasks" not in released.describe(found)
    assert (
        released.describe({"eval_tasks": (None, 4096)}) == "test tasks not recorded (stated 4096)"
    )
    with pytest.raises(ValueError, match="run and stated"):
        released.mismatches([("lam", 1e-3)], released.FIGURE2_STATED)


def test_factor_apart():
    np.testing.assert_allclose(
        released.factor_apart([[1.0, 0.5], [4.0, 1e-3]], [[2.0, 0.5], [1.0, 1e-1]]),
        [[2.0, 1.0], [4.0, 100.0]],
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match="one shape"):
        released.factor_apart([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="> 0"):
        released.factor_apart([1.0, 0.0], [1.0, 1.0])


def test_split_trials_on_the_authors_panel_a_numbers():
    """E_21 of the five trials at (L, M) = (600, 10000) and (800, 10000) of the authors' Figure 2
    dynamics (rounded): split 1 + 4 and 2 + 3; at (30, 10000) one trial 14x above the rest is
    not a split at the default factor 20, and is at factor 10."""
    s = released.split_trials([0.00104, 0.0460, 0.0490, 0.0480, 0.0494])
    assert s.low == (0,) and s.high == (1, 2, 3, 4)
    assert s.ratio == pytest.approx(0.0460 / 0.00104, rel=1e-12)
    s = released.split_trials([0.0007, 0.0459, 0.0454, 0.00072, 0.0437])
    assert (s.low, s.high) == ((0, 3), (1, 2, 4))
    overthinking = [5.70, 16.2, 228.0, 5.40, 8.25]
    s = released.split_trials(overthinking)
    assert s.high == () and s.low == (0, 1, 2, 3, 4)
    assert s.ratio == pytest.approx(228.0 / 16.2, rel=1e-12)
    assert released.split_trials(overthinking, gap=10).high == (2,)
    with pytest.raises(ValueError, match="gap"):
        released.split_trials(overthinking, gap=1.0)
    with pytest.raises(ValueError, match="at least two"):
        released.split_trials([0.1])


def test_split_trials_finds_the_authors_bimodal_cells():
    """On the released record: of the eight pairs of the panel A run, exactly L = 600 and 800
    split at t = 21."""
    from cotbook.book import authors

    run = authors.run("linear_dynamics_20260417_170446")
    split = [(c.N, c.M) for c in run.curves if released.split_trials(c.E[:, -1]).high]
    assert split == [(600, 10000), (800, 10000)]


def test_first_departure():
    o, d, s = "overthinking", "decay", "saturation"
    kinds = [[o, o, o], [o, o, o], [s, o, d], [d, d, d]]
    assert released.first_departure(kinds, [10, 20, 40, 80]) == (40, 2)
    assert released.first_departure(kinds, [10, 20, 40, 80], regime="decay") == (10, 3)
    assert released.first_departure(kinds[:2], [10, 20]) is None
    with pytest.raises(ValueError, match="increasing"):
        released.first_departure(kinds, [10, 40, 20, 80])
    t = np.arange(32)
    grid = [[2 * 1.3**t, 2 * 0.8**t], [0.5 + 1.5 * 0.8**t, 2 * 1.3**t]]
    assert released.first_departure(regimes.classify(grid), [10, 518]) == (10, 1)


def test_level_is_the_geometric_mean_of_a_group():
    errors = [0.00104, 0.0460, 0.0490, 0.0480, 0.0494]
    assert released.level(errors, (0,)) == pytest.approx(0.00104, rel=1e-14)
    want = (0.0460 * 0.0490 * 0.0480 * 0.0494) ** 0.25
    assert released.level(errors, (1, 2, 3, 4)) == pytest.approx(want, rel=1e-14)
    assert released.level(errors, ()) is None
    with pytest.raises(ValueError, match="trials must be indices"):
        released.level(errors, (5,))
    with pytest.raises(ValueError, match="> 0"):
        released.level([0.0, 1.0], (0,))


def test_versus_trials_is_the_prediction_interval_of_one_more_trial():
    """The interval is Student's prediction interval in log E: about 95% of fresh draws from
    the trials' own law fall inside it (n = 3), far more than the trials' bare range (50%)."""
    rng = np.random.default_rng(5)
    hits = []
    for _ in range(2000):
        draws = np.exp(rng.normal(-3.0, 0.4, size=4))
        hits.append(released.versus_trials(draws[:3, None], draws[3:]).inside[0])
    assert 0.93 < np.mean(hits) < 0.97  # 3 standard errors of 2000 draws
    v = released.versus_trials([[1.0, 0.10], [1.2, 0.12], [0.9, 0.09]], [1.1, 0.3])
    assert v.inside.tolist() == [True, False] and not v.bimodal.any()
    logs = np.log([0.10, 0.12, 0.09])
    half = 4.302652729749464 * logs.std(ddof=1) * np.sqrt(4 / 3)  # t_{0.975, 2}
    assert v.high[1] == pytest.approx(np.exp(logs.mean() + half), rel=1e-12)
    assert v.centre[1] == pytest.approx(np.exp(logs.mean()), rel=1e-12)
    assert released.versus_trials([[1.0], [1.0], [1.0]], [1.0], level=0.99).inside.all()


def test_versus_trials_with_an_overflow_and_a_split():
    v = released.versus_trials([[1.0, np.inf], [1.2, 5.0], [0.9, 3.0]], [1.1, 1e30])
    assert v.high[1] == np.inf and v.inside.tolist() == [True, True]
    split = released.versus_trials([[0.001], [0.05], [0.06]], [0.05])
    assert split.bimodal.tolist() == [True]
    with pytest.raises(ValueError, match="ours must be"):
        released.versus_trials([[1.0, 2.0]], [1.0, 2.0])
    with pytest.raises(ValueError, match="errors > 0"):
        released.versus_trials([[1.0], [np.nan]], [1.0])
    with pytest.raises(ValueError, match="level"):
        released.versus_trials([[1.0], [2.0]], [1.0], level=1.0)


def test_cells_versus_gives_each_cell_its_verdict_up_to_the_early_depth():
    ours = np.array([[[2.0, 1.0, 0.5], [2.0, 1.1, 0.6], [2.0, 0.9, 0.45]]] * 3)
    theirs = np.array([[2.0, 1.05, 2.0], [2.0, 3.0, 0.5], [2.0, 1.0, 0.5]])
    ours[2, 0, 1] = 0.01  # one trial 100 times lower at t = 1: the cell splits
    cells = released.cells_versus([(1, 2), (3, 4), (5, 6)], ours, theirs, [1, 2], early=1)
    assert [c.verdict for c in cells] == ["inside", "outside", "bimodal"]
    assert cells[1].apart == pytest.approx(3.0 / np.exp(np.log([1.0, 1.1, 0.9]).mean()))
    assert [(c.L, c.M) for c in cells] == [(1, 2), (3, 4), (5, 6)]
    np.testing.assert_array_equal(cells[0].theirs, [1.05, 2.0])
    with pytest.raises(ValueError, match="must match"):
        released.cells_versus([(1, 2)], ours, theirs, [1, 2])
    with pytest.raises(ValueError, match="early"):
        released.cells_versus([(1, 2)] * 3, ours, theirs, [2], early=1)


def test_between_rows_brackets_each_left_out_row_by_its_kept_neighbours():
    M = [10, 20, 30, 40, 50]
    E = np.ones((5, 2, 3))
    E[1] = 1.5  # inside the range [1, 2] of rows 10 and 30
    E[2] = 2.0
    E[3, 0] = [2.0, 2.0, 8.0]  # column 0: 4x above the range [2, 1] of rows 30 and 50 at t = 2
    E[3, 1] = 1.0
    check = released.between_rows(M, E, kept=[10, 30, 50], depths=[0, 2])
    assert check == released.RowCheck(inside=3, cells=4, worst=4.0)
    assert released.between_rows(M, E, kept=[10, 30, 50], depths=[0]).worst == 1.0
    with pytest.raises(ValueError, match="kept"):
        released.between_rows(M, E, kept=[20, 50], depths=[0])
    with pytest.raises(ValueError, match="M must be increasing"):
        released.between_rows(M[::-1], E, kept=[10, 50], depths=[0])


def test_held_out_trials_fall_outside_at_the_interval_s_level():
    """Log-normal trials, one law per cell: a held-out trial is outside the 95% interval of
    the others at one depth 5% of the time, and at some of three independent depths
    1 - 0.95^3 = 14.3% of the time (the interval is exact for normal log E)."""
    rng = np.random.default_rng(7)
    cells = np.exp(rng.normal(rng.normal(size=(400, 1, 1)), 0.3, size=(400, 8, 3)))
    one = released.held_out(cells, [0], early=0)
    three = released.held_out(cells, [0, 1, 2], early=2)
    assert one.compared == three.compared == 400 * 8 and one.bimodal == 0
    assert abs(1 - one.inside / one.compared - 0.05) < 0.013
    assert abs(1 - three.inside / three.compared - (1 - 0.95**3)) < 0.02
    with pytest.raises(ValueError, match="trials >= 3"):
        released.held_out(cells[:, :2], [0])


def test_cells_versus_passes_the_split_threshold_on():
    """Trials a factor 3 apart are one group at the default gap and two at gap = 2."""
    ours = [[[1.0, 1.0], [1.0, 1.05], [1.0, 3.0]]]
    default = released.cells_versus([(1, 2)], ours, [[1.0, 1.0]], [1], early=1)
    low = released.cells_versus([(1, 2)], ours, [[1.0, 1.0]], [1], early=1, gap=2.0)
    assert default[0].verdict == "inside" and low[0].verdict == "bimodal"


def test_second_look_takes_back_a_value_on_a_floor_the_first_trials_missed():
    """Three first trials at one floor, fresh trials at two: their value on the other floor is
    outside the first three, inside the new ones, and within 2% of the nearest trial."""
    first = [[[1.0, 0.020], [1.0, 0.0205], [1.0, 0.0195]]]
    new = [[[1.0, 0.020], [1.0, 0.078], [1.0, 0.0198], [1.0, 0.075], [1.0, 0.0202]]]
    theirs = [[1.0, 0.077]]
    before = released.cells_versus([(1, 2)], first, theirs, [1], early=1)
    (look,) = released.second_look([(1, 2)], first, new, theirs, [1], early=1, at=1)
    assert before[0].verdict == "outside" and look.fresh.verdict == "inside"
    assert look.first_inside == 3 and look.nearest == pytest.approx(0.078 / 0.077)
    with pytest.raises(ValueError, match="same cells and t"):
        released.second_look([(1, 2)], first, np.ones((1, 5, 3)), theirs, [1], early=1)
