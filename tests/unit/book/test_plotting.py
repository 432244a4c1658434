import matplotlib.pyplot as plt
import numpy as np
import pytest

from cotbook.book import plotting


def test_error_curve_plots_log_scale_with_error_bars():
    fig, ax = plt.subplots()
    mean = np.array([1.0, 0.5, 0.25])
    plotting.error_curve(ax, mean, np.array([0.0, 0.1, 0.05]), label="x")
    assert ax.get_yscale() == "log"
    line = ax.lines[0]
    np.testing.assert_array_equal(line.get_xdata(), [0, 1, 2])
    np.testing.assert_array_equal(line.get_ydata(), mean)
    assert len(ax.containers) == 1  # the errorbar container
    plt.close(fig)


def test_error_curve_bad_input():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="sem must have the shape of mean"):
        plotting.error_curve(ax, np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match="mean must contain only finite"):
        plotting.error_curve(ax, np.array([1.0, np.nan]))
    plt.close(fig)


def test_block_heatmap():
    fig, ax = plt.subplots()
    matrix = np.zeros((8, 8))
    matrix[4:7, :3] = -2.0
    plotting.block_heatmap(ax, matrix, 3, title="V")
    image = ax.images[0]
    assert image.get_clim() == (-2.0, 2.0)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["$x$", "$y$", r"$\hat w$", "1"]
    with pytest.raises(ValueError, match="matrix must have shape"):
        plotting.block_heatmap(ax, np.zeros((7, 7)), 3)
    plt.close(fig)


def test_theory_vs_simulation_draws_one_panel_per_regime():
    panels = {
        name: {
            "alpha": 2.0,
            "tau": 3.0,
            "theory": [1.0, 0.5, 0.25],
            "sims": {"10": {"mean": [1.0, 0.6, 0.3], "sem": [0.0, 0.1, 0.1]}},
        }
        for name in ("a", "b")
    }
    fig, axes = plt.subplots(1, 2)
    plotting.theory_vs_simulation(axes, panels)
    for ax, name in zip(axes, panels, strict=True):
        assert ax.get_title().startswith(name)
        np.testing.assert_array_equal(ax.lines[-1].get_ydata(), [1.0, 0.5, 0.25])  # theory line
        assert ax.get_legend() is None  # one figure legend, from the labels
    assert set(axes[0].get_legend_handles_labels()[1]) == {"$D = 10$", r"theory ($D\to\infty$)"}
    with pytest.raises(ValueError, match="one axis per panel"):
        plotting.theory_vs_simulation(axes[:1], panels)
    plt.close(fig)


def test_deviation_curves():
    panels = {
        "a": {"theory": [1.0, 0.5, 0.25], "sims": {"10": {"mean": [1.0, 0.55, 0.2]}}},
    }
    fig, ax = plt.subplots()
    plotting.deviation_curves([ax], panels)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.1, 0.2])
    assert ax.get_legend() is None and ax.lines[0].get_label() == "$D = 10$"
    assert ax.get_yscale() == "log"
    with pytest.raises(ValueError, match="one axis per panel"):
        plotting.deviation_curves([], panels)
    plt.close(fig)


def test_theory_vs_simulation_y_range_follows_theory():
    panels = {
        "a": {
            "alpha": 2.0,
            "tau": 3.0,
            "theory": [1.0, 0.1],
            "sims": {"10": {"mean": [1.0, 1e6], "sem": [0.0, 0.0]}},
        }
    }
    fig, ax = plt.subplots()
    plotting.theory_vs_simulation([ax], panels)
    assert ax.get_ylim() == pytest.approx((0.1 / 3, 30.0))
    plt.close(fig)


def test_phase_heatmap_draws_grid_and_critical_line():
    from cotbook.theory import phases

    alphas = np.array([0.5, 2.0, 4.0])
    taus = np.array([1.5, 3.0, 10.0])
    grid = np.array([[1e-12, 1.0, 1e9], [2.0, 0.5, 0.1], [1.0, 1e-3, 1e-6]])
    fig, ax = plt.subplots()
    plotting.phase_heatmap(ax, alphas, taus, grid, 0.01, 80)
    mesh = ax.collections[0]
    assert mesh.get_array().min() == pytest.approx(
        1e-8
    ) and mesh.get_array().max() == pytest.approx(1e4)
    line = ax.lines[0]
    np.testing.assert_allclose(line.get_xdata(), [phases.tau_c(a, 0.01) - 1 for a in alphas])
    assert fig.axes[-1].get_ylabel() == r"$\mathcal{E}_{80}$"  # the colourbar names the depth
    with pytest.raises(ValueError, match="grid must have shape"):
        plotting.phase_heatmap(ax, alphas, taus, grid[:2], 0.01, 80)
    plt.close(fig)


def test_figure_fits_the_text_column():
    fig, axes = plotting.figure(2, 2)
    assert axes.shape == (2, 2)
    assert tuple(fig.get_size_inches()) == pytest.approx((plotting.COLUMN_IN, 6.6))
    assert fig.dpi == 100 and plotting.COLUMN_IN * fig.dpi <= 770  # the column at 1400 px
    assert plt.rcParams["legend.fontsize"] >= 9 and plt.rcParams["xtick.labelsize"] >= 9
    plt.close(fig)
    with pytest.raises(ValueError, match="ncols must be 1, 2 or 3"):
        plotting.figure(1, 4)
    with pytest.raises(ValueError, match="height"):
        plotting.figure(height=-1)


def test_regime_map_marks_cells_that_differ_from_the_theory():
    measured = [["decay", "overthinking"], ["saturation", "decay"]]
    theory = [["decay", "decay"], [None, "decay"]]
    fig, ax = plotting.figure()
    plotting.regime_map(ax, [10, 20], [100, 200], measured, theory)
    image = ax.images[0].get_array()
    # codes in REGIME_COLOURS order (decay 0, saturation 1, overthinking 2); image[j, i]: (L_i, M_j)
    assert image.T.tolist() == [[0, 2], [1, 0]]
    crosses = [
        (line.get_xdata()[0], line.get_ydata()[0]) for line in ax.lines if line.get_marker() == "x"
    ]
    dots = [
        (line.get_xdata()[0], line.get_ydata()[0]) for line in ax.lines if line.get_marker() == "o"
    ]
    assert crosses == [(0, 1)] and dots == [(1, 0)]
    with pytest.raises(ValueError, match="measured regimes must be among"):
        plotting.regime_map(ax, [10, 20], [100, 200], [["x", "decay"], ["decay", "decay"]])
    with pytest.raises(ValueError, match="theory must be nested lists"):
        plotting.regime_map(ax, [10, 20], [100, 200], measured, theory[:1])
    plt.close(fig)


def test_verdict_summary_puts_each_row_under_its_verdict():
    rows = [
        {"item": "Result 1 (exact)", "verdict": "reproduced"},
        {"item": "Result 2: K", "verdict": "not reproduced"},
        {"item": "Theorem 1", "verdict": "reproduced"},
    ]
    fig = plotting.verdict_summary(rows)
    ax = fig.axes[0]
    assert [
        (line.get_xdata()[0], line.get_ydata()[0]) for line in ax.lines if line.get_marker() == "o"
    ] == [
        (0, 0),
        (2, 1),
        (0, 2),
    ]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Result 1", "Result 2: K", "Theorem 1"]
    assert [t.get_text() for t in ax.get_xticklabels()][0] == "reproduced\n(2)"
    plt.close(fig)
    with pytest.raises(ValueError, match="verdicts must be among"):
        plotting.verdict_summary([{"item": "x", "verdict": "maybe"}])


def test_versus_theory_draws_the_theory_dashed_in_the_curve_colour():
    fig, ax = plt.subplots()
    trained, theory = np.array([2.0, 1.0, 0.6]), np.array([2.0, 0.9, 0.5])
    plotting.versus_theory(
        ax, {"a": (trained, np.zeros(3), theory), "b": (trained / 2, np.zeros(3), None)}
    )
    dashed = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert len(dashed) == 2  # the theory of "a" and the legend's key
    np.testing.assert_array_equal(dashed[0].get_ydata(), theory)
    assert dashed[0].get_color() == ax.containers[0][0].get_color()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b", "theory"]
    plt.close(fig)
    fig, ax = plt.subplots()
    plotting.versus_theory(ax, {"a": (trained, np.zeros(3), theory)}, loc="upper left", ncols=2)
    assert ax.get_legend()._ncols == 2  # legend options reach the one legend
    plt.close(fig)


def test_significant_keeps_two_digits_without_exponents_above_one():
    assert [plotting.significant(v) for v in (0.00621, 0.5449, 99.7, 390.648, 2.0, 0.0)] == [
        "0.0062",
        "0.54",
        "100",
        "391",
        "2",
        "0",
    ]
    assert plotting.significant(0.54512, digits=3) == "0.545"
    with pytest.raises(ValueError, match="digits must be"):
        plotting.significant(1.0, digits=0)


def test_value_grid_writes_each_cell_and_leaves_nan_blank():
    fig, ax = plt.subplots()
    values = np.array([[0.01, 0.5, np.nan], [1.0, 20.0, 300.0]])  # [L][M]
    image = plotting.value_grid(ax, [10, 20], [25, 50, 100], values, log=True)
    assert image.get_array().shape == (3, 2)  # M upwards, L across
    assert image.norm.vmin == pytest.approx(0.01) and image.norm.vmax == pytest.approx(300.0)
    texts = {(t.get_position(), t.get_text()): t.get_color() for t in ax.texts}
    assert {pos_text for pos_text in texts} == {
        ((0, 0), "0.01"),
        ((0, 1), "0.5"),
        ((1, 0), "1"),
        ((1, 1), "20"),
        ((1, 2), "300"),
    }
    assert texts[(0, 0), "0.01"] == "w" and texts[(1, 2), "300"] == "k"  # dark / bright cells
    assert [t.get_text() for t in ax.get_xticklabels()] == ["10", "20"]
    plt.close(fig)


def test_value_grid_bad_input():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="grid must have shape"):
        plotting.value_grid(ax, [10, 20], [25], np.ones((1, 2)))
    with pytest.raises(ValueError, match="values must be > 0"):
        plotting.value_grid(ax, [10], [25, 50], np.array([[0.0, 1.0]]), log=True)
    with pytest.raises(ValueError, match="fmt must be a callable"):
        plotting.value_grid(ax, [10], [25], np.ones((1, 1)), fmt="{:.2f}")
    plt.close(fig)


def test_percent_labels_shares_to_a_tenth_of_a_point():
    labels = [plotting.percent(v) for v in (0.997, 0.0042, 1.0, 0.0, 0.9996, 0.085)]
    assert labels == ["99.7", "0.4", "100", "0", "100", "8.5"]
    with pytest.raises(ValueError, match=r"share must be a number in \[0, 1\]"):
        plotting.percent(1.2)


def test_trials_and_single_draws_each_cell_in_one_colour():
    fig, ax = plt.subplots()
    trials = np.array([[2.0, 1.0, 0.5], [2.0, 1.1, np.inf]])
    plotting.trials_and_single(ax, {"a": (trials, [2.0, 0.9, 0.4]), "b": (trials / 2, [1, 1, 1])})
    lines = [ln for ln in ax.lines if len(ln.get_xdata())]
    assert len(lines) == 6  # two trials and one single run per cell
    assert lines[0].get_color() == lines[2].get_color() != lines[3].get_color()
    assert lines[2].get_linestyle() == "None" and lines[2].get_marker() == "o"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["a", "b", "book's trials", "single seed"] and ax.get_yscale() == "log"
    with pytest.raises(ValueError, match="trials of 'a'"):
        plotting.trials_and_single(ax, {"a": (trials, [1.0, 2.0])})
    plt.close(fig)
