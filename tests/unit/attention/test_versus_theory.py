import numpy as np
import pytest

from cotbook import theory
from cotbook.attention import grid, versus_theory
from cotbook.simulation import pretrain, simulate


def test_theory_curve_is_twice_result_1():
    """Reference values from an independent audit of the book: twice Result 1 at alpha = 1.5,
    tau = 64 (the grid cell L = 75, M = 3200 at D = 50)."""
    curve = versus_theory.theory_curve(75, 3200, 50, 20)
    np.testing.assert_allclose(curve, 2 * theory.error_curve(1.5, 64, 0.0, 20), rtol=1e-12)
    assert curve[0] == 2.0
    np.testing.assert_allclose(curve[[1, 2, 5, 20]], [0.813, 0.518, 0.239, 0.037], atol=6e-4)
    # Result 2's floor at alpha = 0.2, tau = 64: 2 (1 - alpha)(tau - 1)/(tau - 2) = 1.6258...
    assert versus_theory.theory_floor(10, 3200, 50) == pytest.approx(2 * 0.8 * 63 / 62)
    assert versus_theory.theory_floor(160, 3200, 50) == 0.0
    with pytest.raises(ValueError, match="M must be an integer > D = 50"):
        versus_theory.theory_curve(75, 50, 50, 5)
    with pytest.raises(ValueError, match="M must be an integer > D = 50"):
        versus_theory.theory_floor(75, 40, 50)
    with pytest.raises(ValueError, match="t_max must be an integer >= 0"):
        versus_theory.theory_curve(75, 3200, 50, -1)


def test_random_first_estimate_doubles_the_error():
    """Monte Carlo at finite D: with w and w_hat_0 independent N(0, I), the simplified model's
    mean error |P_t (w - w_hat_0)|^2 / D is twice the error from w_hat_0 = 0 averaged over w."""
    rng = np.random.default_rng(0)
    D, L = 20, 40
    A = pretrain.sampled_solution(D, L, 400, 0.0, 1e-5, rng)
    X = rng.standard_normal((1, D, L))
    exact = simulate.design_errors(A, X, 3)[0]  # E_w |P_t w|^2 / D
    step = np.eye(D) - (D / L) * A @ X[0] @ X[0].T
    e = rng.standard_normal((D, 20000)) - rng.standard_normal((D, 20000))  # w - w_hat_0
    for t in range(4):
        np.testing.assert_allclose(np.mean(np.sum(e**2, axis=0)) / D, 2 * exact[t], rtol=0.03)
        e = step @ e


def _grid(scale):
    """Ls = (10, 160), Ms = (50, 3200) at D = 50: the trained curve at (10, 3200) is twice the
    theory times (1 + t / 100); at (160, 3200) it stops at a floor 0.05; M = D cells are noise."""
    config = grid.GridSpec(Ls=(10, 160), Ms=(50, 3200), trials=2, settings={"D": 50})
    t = np.arange(41)
    E = np.ones((2, 2, 2, 41))
    E[0, 1] = versus_theory.theory_curve(10, 3200, 50, 40) * (1 + t / 100)
    E[1, 1] = np.maximum(versus_theory.theory_curve(160, 3200, 50, 40), 0.05) * scale
    return config, {"E_median": {"linear": {"history": E.tolist()}}}


def test_gap_table_and_largest_gap():
    config, data = _grid(1.0)
    rows = versus_theory.gap_table(config, data)
    assert [(r.L, r.M) for r in rows] == [(10, 3200), (160, 3200)]  # M = D: no theory
    assert rows[0].early == pytest.approx(0.05) and rows[0].late == pytest.approx(0.20)
    theory_160 = versus_theory.theory_curve(160, 3200, 50, 40)
    assert rows[1].late == pytest.approx(0.05 / theory_160[20] - 1)
    assert versus_theory.largest_gap(rows, 50) == rows[1]
    assert versus_theory.largest_gap(rows[:1], 50, min_tau=64) == rows[0]
    with pytest.raises(ValueError, match="M >= min_tau"):
        versus_theory.largest_gap(rows, 50, min_tau=65)
    with pytest.raises(ValueError, match=r"late must be an integer in \[1, 40\]"):
        versus_theory.gap_table(config, data, late=41)
    p = versus_theory.pair(config, data, 10, 3200)
    np.testing.assert_allclose(p.trained / p.theory, 1 + np.arange(41) / 100)
    np.testing.assert_allclose(p.sem, 0.0)
    with pytest.raises(ValueError, match=r"\(L, M\) must be a cell of the grid"):
        versus_theory.pair(config, data, 20, 3200)


def test_relative_gap():
    np.testing.assert_allclose(versus_theory.relative_gap([1.1, 0.9], [1.0, 1.0]), [0.1, 0.1])
    with pytest.raises(ValueError, match="reference must be > 0"):
        versus_theory.relative_gap([1.0], [0.0])
    with pytest.raises(ValueError, match="same shape"):
        versus_theory.relative_gap([1.0, 2.0], [1.0])


def test_floor_table_and_slopes():
    rows = []
    for scale, M in ((1.0, 400), (0.5, 800), (0.25, 1600)):  # a floor halving per doubling
        config, data = _grid(scale)
        config = grid.GridSpec(Ls=(10, 160), Ms=(50, M), trials=2, settings={"D": 50})
        rows += versus_theory.floor_table(config, data)
    assert [(r.L, r.M) for r in rows] == [(160, 400), (160, 800), (160, 1600)]  # L > D only
    assert rows[0].mid == rows[0].end == rows[0].lowest == pytest.approx(0.05)
    assert rows[2].end == pytest.approx(0.0125)
    assert rows[0].theory_end == pytest.approx(2 * theory.error_curve(3.2, 8, 0.0, 40)[40])
    assert versus_theory.floor_slopes(rows) == {160: [pytest.approx(-1.0)] * 2}
    assert versus_theory.floor_slopes(rows, min_M=800) == {160: [pytest.approx(-1.0)]}
    assert versus_theory.floor_slopes(rows, min_M=1600) == {}


def test_theory_regimes_classify_the_theory_curve():
    config = grid.GridSpec(Ls=(10, 160), Ms=(50, 3200), trials=1, settings={"D": 50})
    assert versus_theory.theory_regimes(config) == [[None, "saturation"], [None, "decay"]]
