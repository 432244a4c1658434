import numpy as np
import pytest

from cotbook.attention import grid, regimes


def test_regime_of_curve():
    t = np.arange(41)
    assert regimes.regime_of_curve(2.0 * 0.8**t) == "decay"
    assert regimes.regime_of_curve(0.5 + 1.5 * 0.8**t) == "saturation"
    assert regimes.regime_of_curve(2.0 * 0.8**t + 1e-3 * 1.2**t) == "overthinking"
    with pytest.raises(ValueError, match="finite 1-d array"):
        regimes.regime_of_curve([1.0, np.inf, 2.0])


def test_theory_regime_and_mean_sem():
    assert regimes.theory_regime(10, 3200, 50) == "saturation"  # alpha = 0.2 < 1
    assert regimes.theory_regime(160, 3200, 50) == "decay"  # alpha = 3.2, tau = 64 > tau_c
    assert regimes.theory_regime(160, 75, 50) == "overthinking"  # tau = 1.5 < tau_c ~ 1.9
    assert regimes.theory_regime(50, 3200, 50) == "overthinking"  # alpha = 1: tau_c = inf
    assert regimes.theory_regime(100, 50, 50) is None  # tau = 1
    E = np.array([[[1.0, 2.0], [3.0, 6.0]]])  # one point, two trials, two depths
    mean, sem = regimes.mean_sem(E)
    np.testing.assert_allclose(mean, [[2.0, 4.0]])
    np.testing.assert_allclose(sem, [[1.0, 2.0]])  # std (ddof 1) / sqrt(2)


def test_regime_map_reads_the_grid():
    t = np.arange(41)
    curves = {(0, 0): 2.0 * 0.8**t, (0, 1): 0.5 + 1.5 * 0.8**t, (1, 0): 2 * 0.8**t + 1.2**t / 1e3}
    E = np.zeros((2, 2, 2, 41))
    for (i, j), c in curves.items():
        E[i, j] = c
    E[1, 1] = 2.0 * 0.8**t
    config = grid.GridSpec(Ls=(10, 160), Ms=(3200, 50), trials=2, settings={"D": 50})
    data = {"E": {"linear": {"history": E.tolist()}}}
    measured, theory = regimes.regime_map(config, data, "linear")
    assert measured == [["decay", "saturation"], ["overthinking", "decay"]]
    assert theory == [["saturation", None], ["decay", None]]  # M = D: no ridgeless theory
    assert regimes.regime_agreement(measured, theory) == (0, 2)  # None cells not compared
    assert regimes.regime_agreement(theory, theory) == (2, 2)


def _synthetic_grid():
    """L = (10, 160), M = (60, 3200): small M overthinks (rising after t = 10 and 20), large M
    saturates at small L and decays at large L; two identical trials."""
    t = np.arange(41)
    cells = {
        (0, 0): 2 * 0.8**t + 2.0 * 1.3 ** (t - 30),
        (0, 1): 0.5 + 1.5 * 0.8**t,
        (1, 0): 2 * 0.8**t + 1e-3 * 1.3 ** (t - 10),
        (1, 1): 2.0 * 0.8**t,
    }
    E = np.zeros((2, 2, 2, 41))
    for (i, j), c in cells.items():
        E[i, j] = c
    config = grid.GridSpec(Ls=(10, 160), Ms=(60, 3200), trials=2, settings={"D": 50})
    return config, {"E": {"linear": {"history": E.tolist()}}}


def test_representatives_and_claims_on_a_known_grid():
    config, data = _synthetic_grid()
    assert regimes.representatives(config, data, "linear") == {
        "decay": (1, 1),
        "overthinking": (1, 0),
        "saturation": (0, 1),
    }
    holds = {c.statement: c.holds for c in regimes.claims(config, data, "linear")}
    assert holds["all three regimes appear"]
    assert holds["small M: overthinking more prominent"]  # 100% vs 0%
    assert holds["large M: saturation or decay depending on L"]
    assert not holds["more examples L: faster decay"]  # a single decaying L: not measurable
    assert not holds["more tasks M: longer useful CoT (t* grows with M)"]  # one M per row
    assert holds["overthinking can end worse than saturation with fewer examples"]


def test_sensitivity_table_reads_means_and_regimes():
    t = np.arange(41)
    decay, flat = (2.0 * 0.8**t).tolist(), (0.5 + 1.5 * 0.8**t).tolist()
    rising = (2.0 * 0.8**t + 1e-3 * 1.3**t).tolist()
    mean = {
        "paper": {"linear": {"history": [[decay, decay]], "examples": [[flat, flat]]}},
        "merged W": {"linear": {"history": [[rising, rising]], "examples": [[decay, decay]]}},
    }
    median = {
        "paper": {"linear": {"history": [[decay, decay]], "examples": [[decay, decay]]}},
        "merged W": {"linear": {"history": [[flat, flat]], "examples": [[decay, decay]]}},
    }
    data = {"E": mean, "E_median": median}
    headers, rows = regimes.sensitivity_table(
        grid.SensitivitySpec(points=((25, 3200),), trials=2), data, "linear"
    )
    assert headers == ["variant", "(L, M)", "E_20 history", "E_20 examples", "regimes"]
    assert rows[0][:2] == ["paper", "(25, 3200)"]
    assert rows[0][2] == pytest.approx(decay[20]) and rows[0][3] == pytest.approx(flat[20])
    assert rows[0][4] == "D / S / D / D" and rows[1][4] == "O / D / S / D"


def test_regime_map_by_statistic_and_horizon():
    """The median curves are read from their own key; a horizon cuts the curve before it is
    classified (a late rise is invisible at t <= 20)."""
    t = np.arange(41)
    late = 2.0 * 0.8**t + 1e-6 * 1.5**t  # minimum near t = 24, then rises
    E = np.zeros((1, 1, 2, 41))
    E[0, 0] = late
    M = np.zeros((1, 1, 2, 41))
    M[0, 0] = 0.5 + 1.5 * 0.8**t
    config = grid.GridSpec(Ls=(160,), Ms=(3200,), trials=2, settings={"D": 50})
    data = {"E": {"linear": {"history": E.tolist()}}, "E_median": {"linear": {"history": M}}}
    assert regimes.regime_map(config, data, "linear")[0] == [["overthinking"]]
    assert regimes.regime_map(config, data, "linear", horizon=20)[0] == [["decay"]]
    median, _ = regimes.regime_map(config, data, "linear", statistic="median")
    assert median == [["saturation"]]
    assert regimes.regime_counts(median) == {"decay": 0, "overthinking": 0, "saturation": 1}
    data["unstable"] = {"linear": {"history": [[[0.0, 0.5]]]}}
    np.testing.assert_allclose(regimes.unstable_share(data, "linear"), [[0.25]])
    with pytest.raises(ValueError, match="statistic must be one of"):
        regimes.curves(data, "linear", statistic="mode")
    with pytest.raises(ValueError, match="horizon must be in"):
        regimes.regime_map(config, data, "linear", horizon=41)


def test_finite_d_regime_map_matches_the_limit_where_finite_size_is_mild():
    """The simplified model at D = 50: saturation at alpha = 0.2 and decay at alpha = 3.2 (tau =
    64), as Result 2 predicts; at alpha = 1 (the critical line) finite-D fluctuations make the
    task-averaged error turn up by t = 40."""
    config = grid.GridSpec(Ls=(10, 50, 160), Ms=(3200,), trials=1)
    finite = regimes.finite_d_regime_map(config, trials=3)
    assert [row[0] for row in finite] == ["saturation", "overthinking", "decay"]
    assert [regimes.theory_regime(L, 3200, 50) for L in (10, 160)] == ["saturation", "decay"]
    with pytest.raises(ValueError, match="trials"):
        regimes.finite_d_regime_map(config, trials=0)
    with pytest.raises(ValueError, match="statistic"):
        regimes.finite_d_regime_map(config, statistic="mode")


def test_finite_d_regime_map_median_is_the_typical_pretraining_set():
    """At alpha = 0.2, tau = 32 (saturation in the limit) a minority of the pretraining sets is
    unstable at D = 50: the mean over sets overthinks, the median saturates as Result 2 says."""
    config = grid.GridSpec(Ls=(10,), Ms=(1600,), trials=1)
    assert regimes.theory_regime(10, 1600, 50) == "saturation"
    assert regimes.finite_d_regime_map(config)[0][0] == "overthinking"
    assert regimes.finite_d_regime_map(config, statistic="median")[0][0] == "saturation"
