import json

import numpy as np
import pytest

from cotbook import theory
from cotbook.simulation import against_theory, finite_size, simulate
from cotbook.theory import phases


def test_panels_cover_the_four_regimes():
    for sigma2 in (1e-4, 1e-2):
        got = {
            r: phases.regime(a, tau, sigma2) for r, (a, tau) in finite_size.panels(sigma2).items()
        }
        assert got == {r: r.split()[-1] for r in got}
        assert tuple(got)[:4] == finite_size.MAIN_PANELS
    assert finite_size.panels(1e-2)["critical"][1] == pytest.approx(phases.tau_c(2.0, 1e-2))


def test_the_tabulated_critical_taus_are_the_theory_s():
    """The simulation imports no theory: its critical panel's tau_c is a table, each entry
    exactly what the theory computes; another noise level is refused by name."""
    for sigma2, tau in finite_size.CRITICAL_TAU.items():
        assert tau == phases.tau_c(2.0, sigma2), sigma2
    with pytest.raises(ValueError, match=r"sigma2 must be one of \[0.0, 0.0001, 0.01\]"):
        finite_size.SimulationSpec(dims=(10,), trials=2, test_designs=1, t_max=2, sigma2=0.05)


def test_run_is_reproducible_unit_by_unit():
    spec = finite_size.SimulationSpec(dims=(20, 30), trials=2, test_designs=1, t_max=4, seed=3)
    panels, timings = finite_size.run(spec)
    assert all("theory" not in panel for panel in panels.values())
    with_theory = against_theory.with_theory(spec, panels)
    assert "theory" not in panels["overthinking"]  # left as it was
    curve = with_theory["overthinking"]["theory"]
    np.testing.assert_allclose(curve, theory.error_curve(2.0, 3.0, 1e-4, 4), rtol=1e-12)
    assert {k: v for k, v in with_theory["overthinking"].items() if k != "theory"} == panels[
        "overthinking"
    ]
    panel = panels["overthinking"]
    # Recompute one entry alone from its documented seed.
    seed = int(np.random.SeedSequence([3, 1, 30]).generate_state(1)[0])
    alone = simulate.simulated_curve(
        2.0, 3.0, 1e-4, 4, D=30, lam=1e-5, trials=2, test_designs=1, seed=seed
    )
    np.testing.assert_array_equal(np.asarray(panel["sims"]["30"]["per_trial"]), alone.per_trial)
    assert list(timings) == spec.units() == [f"{r}/D={D}" for r in panels for D in (20, 30)]
    json.dumps(panels)  # JSON-ready
    # One unit run on its own gives the same entry; units read back from JSON assemble the same.
    unit = finite_size.run_unit(spec, "overthinking/D=30")
    np.testing.assert_array_equal(unit["per_trial"], alone.per_trial)
    done = {u: json.loads(json.dumps(finite_size.run_unit(spec, u))) for u in spec.units()}
    assert json.dumps(finite_size.assemble(spec, done)[0]) == json.dumps(panels)
    with pytest.raises(ValueError, match="unit must be one of"):
        finite_size.run_unit(spec, "plateau/D=30")
    assert finite_size.SimulationSpec.from_dict(spec.to_dict()) == spec


@pytest.mark.slow
def test_simulation_agrees_with_theory_at_moderate_D():
    """At D = 300 the first two steps agree with Result 1 to about 1/D in every regime.

    A missing D/L in v_mu, or alpha instead of 1/alpha in the CoT step, fails by far.
    """
    panels, _ = against_theory.run(
        finite_size.SimulationSpec(dims=(300,), trials=3, test_designs=2, t_max=2)
    )
    for regime, panel in panels.items():
        mean = np.asarray(panel["sims"]["300"]["mean"])
        dev = finite_size.relative_deviation(mean, np.asarray(panel["theory"]))
        assert np.max(np.abs(dev)) < 0.025, (regime, dev)


@pytest.mark.slow
def test_noise_enters_as_a_variance():
    """sigma2 = 0.25: reading it as a standard deviation in either engine would move E_1, E_2 by
    2-7% (sigma^2 = 0.0625 or 0.5 instead of 0.25); simulation and theory agree to 1.2%."""
    th = theory.error_curve(2.0, 4.0, 0.25, 2)
    mean, _, _ = simulate.simulated_curve(
        2.0, 4.0, 0.25, 2, D=400, lam=1e-5, trials=4, test_designs=2
    )
    assert np.max(np.abs(mean / th - 1)) < 0.012
    for wrong in (0.0625, 0.5):
        assert np.max(np.abs(theory.error_curve(2.0, 4.0, wrong, 2) / th - 1)) > 0.019


def test_relative_deviation_scaling_exponent_and_trusted_depth():
    th = np.array([1.0, 0.5, 0.25])
    np.testing.assert_allclose(
        finite_size.relative_deviation([[1.0, 0.55, 0.2]], th), [[0, 0.1, -0.2]]
    )
    dims = np.array([100, 200, 400, 800])
    assert finite_size.scaling_exponent(dims, 3.0 / dims) == pytest.approx(-1.0)
    assert finite_size.scaling_exponent(dims, -2.0 * dims**-0.5) == pytest.approx(-0.5)
    assert finite_size.trusted_depth([0.0, 0.01, 0.04, 0.06, 0.01], 0.05) == 2
    assert finite_size.trusted_depth([0.0, 0.01], 0.05) == 1
    assert finite_size.trusted_depth([0.2, 0.0], 0.05) == -1


def test_bad_input():
    with pytest.raises(ValueError, match="theory_curve must be positive"):
        finite_size.relative_deviation([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="deviations must be non-zero"):
        finite_size.scaling_exponent([1, 2], [0.0, 1.0])
    with pytest.raises(ValueError, match="dims must be >= 2 positive sizes"):
        finite_size.scaling_exponent([1], [1.0])
    with pytest.raises(ValueError, match="tol must be a finite number > 0"):
        finite_size.trusted_depth([0.1], 0)
    with pytest.raises(ValueError, match="dims must list distinct dimensions"):
        finite_size.SimulationSpec(dims=(), trials=2, test_designs=1, t_max=2)
    with pytest.raises(ValueError, match="trials must be an integer >= 2"):
        finite_size.SimulationSpec(dims=(10,), trials=1, test_designs=1, t_max=2)
    with pytest.raises(ValueError, match="has only"):
        finite_size.SimulationSpec.from_dict({"dims": [10], "scale": "paper"})
    with pytest.raises(ValueError, match="sigma2 must be a finite number >= 0"):
        finite_size.panels(-1.0)


def _synthetic_panels():
    """Two panels whose simulated means deviate from theory by exactly 1/D, and 2/D times t."""
    theory_curve = [1.0, 0.5, 0.25]
    out = {}
    for name, factor in (("a", 1.0), ("b", 2.0)):
        sims = {}
        for D in (100, 200, 400):
            dev = factor / D * np.array([0.0, 1.0, 2.0])
            mean = np.array(theory_curve) * (1 + dev)
            per = np.stack([mean * 0.9, mean * 1.1])
            sims[str(D)] = {
                "mean": mean.tolist(),
                "sem": (0.1 * mean).tolist(),
                "per_trial": per.tolist(),
            }
        out[name] = {"alpha": 2.0, "tau": 3.0, "theory": theory_curve, "sims": sims}
    return out


def test_chapter_tables_on_known_deviations():
    p = _synthetic_panels()
    headers, rows = finite_size.small_depth_table(p, t_max=2)
    assert headers[0] == "panel" and len(rows) == 6
    assert rows[0][:2] == ["a", 100] and rows[0][2] == pytest.approx(0.02)
    assert rows[3][2] == pytest.approx(0.04) and rows[3][3] == pytest.approx(0.1 * 1.04)
    assert finite_size.worst_deviation(p, t_max=2) == pytest.approx(
        {100: 0.04, 200: 0.02, 400: 0.01}
    )
    _, rows = finite_size.scaling_table(p, depths=(1, 2))
    assert rows[0][1] == pytest.approx(-1.0) and rows[1][2] == pytest.approx(-1.0)
    _, rows = finite_size.tail_table(p, t=1)
    assert rows[0][2] == pytest.approx(0.01) and rows[0][4] == pytest.approx(0.9 * 1.01 - 1)
    assert finite_size.trusted_depths(p, tol=0.015) == {
        "a": {100: 1, 200: 2, 400: 2},
        "b": {100: 0, 200: 1, 400: 2},
    }
    headers, rows = finite_size.trusted_depth_table(p, tol=0.015)
    assert headers == ["panel", "D = 100", "D = 200", "D = 400"]
    assert rows == [["a", 1, 2, 2], ["b", 0, 1, 2]]
    headers, rows = finite_size.deviation_with_sem_table(p, depths=(2,))
    assert rows[0] == ["a", 100, "+2.00 ± 10.20"]  # SEM is 10% of the mean, 1.02 x theory


def test_noise_reading_table():
    headers, rows = against_theory.noise_reading_table(5)
    assert [r[0] for r in rows] == list(finite_size.panels())
    assert rows[2][2:] == ["critical", "exponential"]  # tau_c(2, 1e-4) is above tau_c(2, 1e-2)
    assert all(0 <= r[1] < 0.05 for r in rows)
