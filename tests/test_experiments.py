import numpy as np
import pytest
import torch

from cotbook import attention, experiments, results


def test_regime_of_curve():
    t = np.arange(41)
    assert experiments.regime_of_curve(2.0 * 0.8**t) == "decay"
    assert experiments.regime_of_curve(0.5 + 1.5 * 0.8**t) == "saturation"
    assert experiments.regime_of_curve(2.0 * 0.8**t + 1e-3 * 1.2**t) == "overthinking"
    with pytest.raises(ValueError, match="finite 1-d array"):
        experiments.regime_of_curve([1.0, np.inf, 2.0])


def test_grid_runs_every_configuration_and_is_reproducible_alone():
    """A small grid: shapes, and one entry recomputed alone from its seeds (the stacked program
    trains each configuration as it would be trained by itself)."""
    settings = dict(D=4, steps=30, batch=8)
    out = experiments.run_grid((3, 5), (4, 9), 2, 3, **settings)
    for model in attention.MODELS:
        for mask in attention.MASKS:
            E = np.asarray(out["E"][model][mask])
            assert E.shape == (2, 2, 2, 4) and np.all(np.isfinite(E))
            assert np.all(np.abs(E[..., 0] / 2.0 - 1) < 0.2)  # E_0 = E|w - w_hat_0|^2/D = 2
        config = attention.Config(model=model, L=5, M=9, trial=1, **settings)
        params, _ = attention.train([config], dev=torch.device("cpu"))
        again = attention.evaluate(config, params, 3)
        for mask in attention.MASKS:
            np.testing.assert_allclose(out["E"][model][mask][1][1][1], again[mask], rtol=1e-5)
    assert len(out["timings_s"]) == 4  # one group per (model, L)


def test_theory_regime_and_mean_sem():
    assert experiments.theory_regime(10, 3200, 50) == "saturation"  # alpha = 0.2 < 1
    assert experiments.theory_regime(160, 3200, 50) == "decay"  # alpha = 3.2, tau = 64 > tau_c
    assert experiments.theory_regime(160, 75, 50) == "overthinking"  # tau = 1.5 < tau_c ~ 1.9
    assert experiments.theory_regime(50, 3200, 50) == "overthinking"  # alpha = 1: tau_c = inf
    assert experiments.theory_regime(100, 50, 50) is None  # tau = 1
    E = np.array([[[1.0, 2.0], [3.0, 6.0]]])  # one point, two trials, two depths
    mean, sem = experiments.mean_sem(E)
    np.testing.assert_allclose(mean, [[2.0, 4.0]])
    np.testing.assert_allclose(sem, [[1.0, 2.0]])  # std (ddof 1) / sqrt(2)


def test_regime_map_reads_the_grid():
    t = np.arange(41)
    curves = {(0, 0): 2.0 * 0.8**t, (0, 1): 0.5 + 1.5 * 0.8**t, (1, 0): 2 * 0.8**t + 1.2**t / 1e3}
    E = np.zeros((2, 2, 2, 41))
    for (i, j), c in curves.items():
        E[i, j] = c
    E[1, 1] = 2.0 * 0.8**t
    config = {"Ls": [10, 160], "Ms": [3200, 50], "D": 50}
    data = {"E": {"linear": {"history": E.tolist()}}}
    measured, theory = experiments.regime_map(config, data, "linear")
    assert measured == [["decay", "saturation"], ["overthinking", "decay"]]
    assert theory == [["saturation", None], ["decay", None]]  # M = D: no ridgeless theory
    assert experiments.regime_agreement(measured, theory) == (0, 2)  # None cells not compared
    assert experiments.regime_agreement(theory, theory) == (2, 2)


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
    config = {"Ls": [10, 160], "Ms": [60, 3200], "D": 50}
    return config, {"E": {"linear": {"history": E.tolist()}}}


def test_representatives_and_claims_on_a_known_grid():
    config, data = _synthetic_grid()
    assert experiments.representatives(config, data, "linear") == {
        "decay": (1, 1),
        "overthinking": (1, 0),
        "saturation": (0, 1),
    }
    headers, rows = experiments.claims(config, data, "linear")
    holds = {row[0]: row[2] for row in rows}
    assert headers == ["statement", "measured", "holds"]
    assert holds["all three regimes appear"]
    assert holds["small M: overthinking more prominent"]  # 100% vs 0%
    assert holds["large M: saturation or decay depending on L"]
    assert not holds["more examples L: faster decay"]  # a single decaying L: not measurable
    assert not holds["more tasks M: longer useful CoT (t* grows with M)"]  # one M per row
    assert holds["overthinking can end worse than saturation with fewer examples"]
    assert experiments.best_depth([3.0, 1.0, 1.0, 2.0]) == 1


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
    headers, rows = experiments.sensitivity_table({"points": [[25, 3200]]}, data, "linear")
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
    config = {"Ls": [160], "Ms": [3200], "D": 50}
    data = {"E": {"linear": {"history": E.tolist()}}, "E_median": {"linear": {"history": M}}}
    assert experiments.regime_map(config, data, "linear")[0] == [["overthinking"]]
    assert experiments.regime_map(config, data, "linear", horizon=20)[0] == [["decay"]]
    median, _ = experiments.regime_map(config, data, "linear", statistic="median")
    assert median == [["saturation"]]
    assert experiments.regime_counts(median) == {"decay": 0, "overthinking": 0, "saturation": 1}
    data["unstable"] = {"linear": {"history": [[[0.0, 0.5]]]}}
    np.testing.assert_allclose(experiments.unstable_share(data, "linear"), [[0.25]])
    with pytest.raises(ValueError, match="statistic must be one of"):
        experiments.curves(data, "linear", statistic="mode")
    with pytest.raises(ValueError, match="horizon must be in"):
        experiments.regime_map(config, data, "linear", horizon=41)


def test_saved_grid_configuration_is_regenerated_from_its_seed():
    """One saved paper-scale configuration (trained there side by side with 39 others),
    retrained alone from its seeds: the same error curve."""
    from cotbook import results

    record = results.load(experiments.GRID_RESULT)
    if record is None:
        pytest.skip("no saved grid (run `python -m cotbook experiments --only grid`)")
    cfg = record["config"]
    settings = {k: cfg[k] for k in ("D", "steps", "batch", "lr", "lam", "sigma2", "seed")}
    i, j = len(cfg["Ls"]) - 1, len(cfg["Ms"]) - 1  # L = 160, M = 3200: a decaying, stable run
    config = attention.Config(model="linear", L=cfg["Ls"][i], M=cfg["Ms"][j], **settings)
    params, _ = attention.train([config], dev=torch.device("cpu"))
    again = attention.evaluate(config, params, cfg["t_max"], masks=("history",))["history"]
    saved = np.asarray(record["data"]["E"]["linear"]["history"][i][j][0])
    np.testing.assert_allclose(again, saved, rtol=1e-3)


def test_run_costs_reads_the_saved_records():
    headers, rows = experiments.run_costs()
    assert headers == ["run", "measured", "time", "written by"]
    record = results.load(experiments.GRID_RESULT)
    if record is None:
        assert all(r[0] != "Figure 2 grid" for r in rows)
    else:
        row = next(r for r in rows if r[0] == "Figure 2 grid")
        assert row[2] == f"{record['timings_s']['total'] / 60:.1f} min"
        assert row[3] == record["code_version"]


def test_finite_d_regime_map_matches_the_limit_where_finite_size_is_mild():
    """The simplified model at D = 50: saturation at alpha = 0.2 and decay at alpha = 3.2 (tau =
    64), as Result 2 predicts; at alpha = 1 (the critical line) finite-D fluctuations make the
    task-averaged error turn up by t = 40."""
    config = {"D": 50, "lam": 1e-5, "sigma2": 0.0, "t_max": 40, "Ls": [10, 50, 160], "Ms": [3200]}
    finite = experiments.finite_d_regime_map(config, trials=3)
    assert [row[0] for row in finite] == ["saturation", "overthinking", "decay"]
    assert [experiments.theory_regime(L, 3200, 50) for L in (10, 160)] == ["saturation", "decay"]
    with pytest.raises(ValueError, match="trials"):
        experiments.finite_d_regime_map(config, trials=0)
    with pytest.raises(ValueError, match="statistic"):
        experiments.finite_d_regime_map(config, statistic="mode")


def test_finite_d_regime_map_median_is_the_typical_pretraining_set():
    """At alpha = 0.2, tau = 32 (saturation in the limit) a minority of the pretraining sets is
    unstable at D = 50: the mean over sets overthinks, the median saturates as Result 2 says."""
    config = {"D": 50, "lam": 1e-5, "sigma2": 0.0, "t_max": 40, "Ls": [10], "Ms": [1600]}
    assert experiments.theory_regime(10, 1600, 50) == "saturation"
    assert experiments.finite_d_regime_map(config)[0][0] == "overthinking"
    assert experiments.finite_d_regime_map(config, statistic="median")[0][0] == "saturation"
