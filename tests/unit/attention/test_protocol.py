import numpy as np
import pytest

from cotbook import cli
from cotbook.attention import grid, layer, protocol
from cotbook.book import records

TINY = protocol.SCALES["tiny"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The tiny study through the command line, as its record."""
    out = tmp_path_factory.mktemp("protocol")
    assert (
        cli.main(["experiments", "--scale", "tiny", "--only", "protocol", "--out", str(out)]) == 0
    )
    return records.load("authors_protocol", directory=out)


def test_released_settings_are_the_authors_config():
    c = protocol.SCALES["paper"].configs()[0]
    assert (c.lam, c.steps, c.batch, c.merged, c.init_scale, c.D, c.lr, c.sigma2) == (
        1e-3,
        5000,
        300,
        True,
        0.01,
        50,
        1e-3,
        0.0,
    )
    paper = protocol.SCALES["paper"]
    assert list(paper.cells["linear"]) == [
        (L, M) for L in protocol.LINEAR_SIZES for M in protocol.PAPER_MS
    ]
    assert set(protocol.PAPER_MS) >= {M for _, M in protocol.SCALES["book"].cells["linear"]}
    assert paper.trials == 3 and paper.t_max == 31
    assert {L for L, _ in paper.cells["softmax"]} == set(protocol.SOFTMAX_LS)


def test_assembled_cells_are_the_grid_trainer_s_runs(tiny):
    data = tiny.data
    assert protocol.ProtocolSpec.from_dict(tiny.config) == TINY and not tiny.stale
    assert set(TINY.units()) <= set(tiny.timings_s)
    E = np.array(data["E"]["linear"]["examples"])
    assert E.shape == (2, 2, TINY.t_max + 1)
    # cell (10, 40), trial 1 is what the Figure 2 trainer gives for that configuration alone
    config = next(c for c in TINY.configs() if (c.L, c.M, c.trial) == (10, 40, 1))
    assert (config.L, config.M) == TINY.cells["linear"][1]
    alone = grid.train_and_evaluate([config], TINY.t_max)[config]
    assert E[1, 1] == pytest.approx(alone["E"]["examples"], rel=1e-6)
    # E_0 = E|w_hat_0 - w|^2 / D = 2 per coordinate: w and w_hat_0 both N(0, I)
    assert E[:, :, 0] == pytest.approx(2.0, abs=0.2)
    assert np.array(data["E"]["softmax"]["history"]).shape == (1, 2, TINY.t_max + 1)


def test_units_group_cells_by_L_and_trial():
    spec = protocol.ProtocolSpec({"softmax": [(27, 100), (27, 1000), (100, 100)]}, trials=3)
    assert len(spec.units()) == 6
    assert [c.M for c in spec.unit_configs("softmax/L=27/trial=2")] == [100, 1000]


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(cells={"relu": [(10, 10)]}, trials=1), "cells"),
        (dict(cells={"linear": [(10, 10), (10, 10)]}, trials=1), "cells"),
        (dict(cells={"linear": [(0, 10)]}, trials=1), "L"),
        (dict(cells={"linear": [(10, 10)]}, trials=0), "trials"),
        (dict(cells={"linear": [(10, 10)]}, trials=1, t_max=1), "t_max"),
        (dict(cells={"linear": [(10, 10)]}, trials=1, settings={"lr": -1}), "lr"),
        (dict(cells={}, trials=1), "cells"),
    ],
)
def test_bad_specs_are_refused_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        protocol.ProtocolSpec(**kwargs)


def test_run_unit_refuses_other_specs():
    with pytest.raises(ValueError, match="spec"):
        protocol.run_unit(grid.GRID_SCALES["tiny"], "linear/L=10/trial=0")
    with pytest.raises(ValueError, match="unit"):
        protocol.run_unit(TINY, "linear/L=99/trial=0")
    assert layer.MASKS == ("history", "examples")


def test_an_error_beyond_float64_is_kept_as_overflow_and_nan_is_refused(monkeypatch):
    """A unit whose mean error overflowed float64 crashed the checkpoint (JSON has no inf)
    after 20 minutes of training: it is kept as OVERFLOW and read back as inf."""
    import json

    spec = protocol.ProtocolSpec({"linear": [(10, 20), (10, 40)]}, trials=1, t_max=2)
    curve = [2.0, 1e300, float("inf")]

    def fake(spec_, unit):
        runs = [
            [
                c.as_dict(),
                {
                    "E": {m: curve for m in layer.MASKS},
                    "E_median": {m: [2.0, 1.0, 0.5] for m in layer.MASKS},
                    "unstable": {m: 0.5 for m in layer.MASKS},
                    "final_loss": 1.0,
                },
            ]
            for c in spec_.unit_configs(unit)
        ]
        return {"runs": runs, "seconds": 0.0}

    monkeypatch.setattr(grid, "run_unit", fake)
    out = protocol.run_unit(spec, "linear/L=10/trial=0")
    text = json.dumps(out, allow_nan=False)  # what the checkpoint writes
    data, _ = protocol.assemble(spec, {"linear/L=10/trial=0": json.loads(text)})
    json.dumps(data, allow_nan=False)
    E = np.asarray(data["E"]["linear"]["examples"], dtype=float)
    assert E[1, 0, 2] == np.inf and E[1, 0, 1] == 1e300
    curve[2] = float("nan")
    with pytest.raises(ValueError, match="linear/L=10/trial=0"):
        protocol.run_unit(spec, "linear/L=10/trial=0")


def test_nan_after_an_overflow_is_overflow_in_the_mean_and_undefined_in_the_median(monkeypatch):
    """Measured at L = 10 and 38 under the history mask: once a test task's estimate overflows,
    the next step computes inf - inf for it, and the unit failed on that NaN. The mean stays
    beyond float64 (OVERFLOW); the median and the unstable share are unknown (UNDEFINED)."""
    import json

    spec = protocol.ProtocolSpec({"linear": [(10, 20)]}, trials=1, t_max=3)
    history = {"E": [2.0, float("inf"), float("nan"), float("nan")],
               "E_median": [2.0, 1.0, float("nan"), 0.5]}  # fmt: skip

    def fake(spec_, unit):
        run = {
            "E": {"history": history["E"], "examples": [2.0, 1.0, 0.5, 0.25]},
            "E_median": {"history": history["E_median"], "examples": [2.0, 1.0, 0.5, 0.2]},
            "unstable": {"history": 0.0, "examples": 0.0},
            "final_loss": 1.0,
        }
        return {"runs": [[c.as_dict(), run] for c in spec_.unit_configs(unit)], "seconds": 0.0}

    monkeypatch.setattr(grid, "run_unit", fake)
    out = json.loads(json.dumps(protocol.run_unit(spec, "linear/L=10/trial=0"), allow_nan=False))
    data, _ = protocol.assemble(spec, {"linear/L=10/trial=0": out})
    json.dumps(data, allow_nan=False)
    assert data["E"]["linear"]["history"][0][0] == [2.0, "inf", "inf", "inf"]
    assert data["E_median"]["linear"]["history"][0][0] == [2.0, 1.0, None, 0.5]
    assert data["unstable"]["linear"]["history"][0][0] is None
    assert data["E"]["linear"]["examples"][0][0] == [2.0, 1.0, 0.5, 0.25]
    assert data["unstable"]["linear"]["examples"][0][0] == 0.0
    median = np.asarray(data["E_median"]["linear"]["history"], dtype=float)
    assert np.isnan(median[0, 0, 2])  # how a reader's array holds UNDEFINED
