import json

import numpy as np
import pytest
import torch

from cotbook import attention
from cotbook.attention import grid
from cotbook.book import records

SMALL = grid.GridSpec(
    Ls=(3, 5), Ms=(4, 9), trials=2, t_max=3, settings=dict(D=4, steps=30, batch=8)
)


def test_grid_spec_round_trips_and_validates():
    assert grid.GridSpec.from_dict(SMALL.to_dict()) == SMALL
    assert SMALL.to_dict()["steps"] == 30 and SMALL.to_dict()["lr"] == 1e-3  # defaults filled
    assert len(SMALL.configs()) == 2 * 2 * 2 * 2
    assert SMALL.units()[:3] == ["linear/L=3/trial=0", "linear/L=3/trial=1", "linear/L=5/trial=0"]
    assert len(SMALL.units()) == 2 * 2 * 2
    assert {(c.M, c.trial) for c in SMALL.unit_configs("softmax/L=5/trial=1")} == {(4, 1), (9, 1)}
    with pytest.raises(ValueError, match="settings must be among"):
        grid.GridSpec(Ls=(3,), Ms=(4,), trials=1, settings={"stepz": 3})
    with pytest.raises(ValueError, match="Ls must be"):
        grid.GridSpec(Ls=(), Ms=(4,), trials=1)
    with pytest.raises(ValueError, match="steps"):
        grid.GridSpec(Ls=(3,), Ms=(4,), trials=1, settings={"steps": 0})
    with pytest.raises(ValueError, match="unit must be one of"):
        SMALL.unit_configs("linear/L=5")
    with pytest.raises(ValueError, match="needs"):
        grid.GridSpec.from_dict({"Ls": [3]})
    sens = grid.SENSITIVITY_SCALES["paper"]
    assert grid.SensitivitySpec.from_dict(sens.to_dict()) == sens
    assert len(sens.units()) == len(grid.VARIANTS) * 2 * 3


@pytest.fixture(scope="module")
def small_run():
    """One run of the small grid, ``(data, timings)``, for the tests that read it (neither
    changes it)."""
    return grid.run(SMALL)


@pytest.mark.slow
def test_grid_runs_every_configuration_and_is_reproducible_alone(small_run):
    """A small grid: shapes, and one entry recomputed alone from its seeds (the stacked program
    trains each configuration as it would be trained by itself)."""
    out, timings = small_run
    for model in attention.MODELS:
        for mask in attention.MASKS:
            E = np.asarray(out["E"][model][mask])
            assert E.shape == (2, 2, 2, 4) and np.all(np.isfinite(E))
            assert np.all(np.abs(E[..., 0] / 2.0 - 1) < 0.2)  # E_0 = E|w - w_hat_0|^2/D = 2
        config = attention.Config(model=model, L=5, M=9, trial=1, **SMALL.settings)
        params, _ = attention.train([config], dev=torch.device("cpu"))
        again = attention.evaluate(config, params, 3)
        for mask in attention.MASKS:
            np.testing.assert_allclose(out["E"][model][mask][1][1][1], again[mask], rtol=1e-5)
    assert list(timings) == SMALL.units()


@pytest.mark.slow
def test_a_row_unit_trains_the_same_bits_as_its_whole_column():
    """A unit is one trial's row of M; training every trial of the column in one program (as
    the grid did before its units were rows) gives the same numbers, bit for bit."""
    column = [c for c in SMALL.configs() if c.model == "softmax" and c.L == 5]
    together = grid.train_and_evaluate(column, SMALL.t_max)
    for r in range(SMALL.trials):
        row = grid.train_and_evaluate(SMALL.unit_configs(f"softmax/L=5/trial={r}"), SMALL.t_max)
        for c, run in row.items():
            assert json.dumps(run) == json.dumps(together[c])


@pytest.mark.slow
def test_units_assemble_to_the_same_data_in_any_order_and_through_json(small_run):
    """What a resumed run does: some units read back from their JSON checkpoint, the rest
    computed later and in another order -- the assembled data are identical."""
    whole, _ = small_run
    units = SMALL.units()
    first = {u: json.loads(json.dumps(grid.run_unit(SMALL, u))) for u in units[:2]}
    later = {u: grid.run_unit(SMALL, u) for u in reversed(units[2:])}
    again, _ = grid.assemble(SMALL, {**later, **first})
    assert json.dumps(again) == json.dumps(whole)
    with pytest.raises(ValueError, match="missing"):
        grid.assemble(SMALL, first)


@pytest.mark.slow
def test_saved_grid_configuration_is_regenerated_from_its_seed():
    """One saved paper-scale configuration (trained there side by side with 39 others),
    retrained alone from its seeds: the same error curve."""
    record = records.load("attention_grid")
    if record is None:
        pytest.skip("no saved grid (run `python -m cotbook experiments --scale paper`)")
    spec = grid.GridSpec.from_dict(record.config)
    # L = 160, M = 800: a decaying, stable run (E_t from 2.0 to 0.018), 6.5 s to retrain
    i, j = len(spec.Ls) - 1, len(spec.Ms) - 3
    config = attention.Config(model="linear", L=spec.Ls[i], M=spec.Ms[j], **spec.settings)
    params, _ = attention.train([config], dev=torch.device("cpu"))
    again = attention.evaluate(config, params, spec.t_max, masks=("history",))["history"]
    saved = np.asarray(record.data["E"]["linear"]["history"][i][j][0])
    np.testing.assert_allclose(again, saved, rtol=1e-3)
