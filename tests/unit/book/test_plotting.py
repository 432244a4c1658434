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
    plotting.phase_heatmap(ax, alphas, taus, grid, 0.01)
    mesh = ax.collections[0]
    assert mesh.get_array().min() == pytest.approx(
        1e-8
    ) and mesh.get_array().max() == pytest.approx(1e4)
    line = ax.lines[0]
    np.testing.assert_allclose(line.get_xdata(), [phases.tau_c(a, 0.01) - 1 for a in alphas])
    with pytest.raises(ValueError, match="grid must have shape"):
        plotting.phase_heatmap(ax, alphas, taus, grid[:2], 0.01)
    plt.close(fig)


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
