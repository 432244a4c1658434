import numpy as np
import pytest

from cotbook import cli
from cotbook.attention import layer, protocol, recheck, released
from cotbook.book import authors, records


def test_cells_are_those_outside_in_the_committed_record():
    """recheck.CELLS is recomputed from the committed records: the cells where the authors'
    value lies outside the 95% interval of one more of the book's three trials at t <= 10."""
    ran = records.load("authors_protocol")
    spec = protocol.ProtocolSpec.from_dict(ran.config)
    runs = authors.release().heatmaps
    theirs = {
        "linear": runs["latest_linear_heatmap"],
        "softmax": runs["softmax_heatmap_20260417_195912"],
    }
    for model, cells in spec.cells.items():
        ours = np.asarray(ran.data["E"][model]["examples"], dtype=float)
        single = [theirs[model].at(M, L).astype(float) for L, M in cells]
        found = released.cells_versus(cells, ours, single, [1, 5, 10], early=10)
        outside = tuple((c.L, c.M) for c in found if c.verdict == "outside")
        assert outside == recheck.CELLS[model]


def test_new_trials_repeat_no_trial_of_the_record():
    """Every recheck model has seeds of its own: none shares its data, initialisation or test
    tasks with a model of the paper-scale protocol record, and the settings are the same."""
    old, new = protocol.SCALES["paper"], recheck.SCALES["paper"]
    assert {k: v for k, v in new.settings.items() if k != "seed"} == {
        k: v for k, v in old.settings.items() if k != "seed"
    }
    assert new.settings["seed"] == recheck.SEED != old.settings["seed"]
    used = {k: {layer.config_seeds(c)[k] for c in old.configs()} for k in ("data", "test")}
    for c in new.configs():
        assert (c.L, c.M) in old.cells[c.model]
        mine = layer.config_seeds(c)
        assert all(mine[k] not in used[k] for k in used)
    assert len(new.configs()) == recheck.TRIALS * sum(len(c) for c in recheck.CELLS.values())


@pytest.mark.slow
def test_the_command_runs_the_recheck_at_its_own_seed(tmp_path):
    """``--only recheck`` saves ``authors_recheck`` at the scale's root seed 1 unless
    ``--seed`` names another; the data are the protocol's own assembly."""
    args = ["experiments", "--scale", "tiny", "--only", "recheck", "--out"]
    assert cli.main([*args, str(tmp_path / "a")]) == 0
    record = records.load("authors_recheck", directory=tmp_path / "a")
    assert record.config["seed"] == recheck.SEED and record.spec.name == "authors_recheck"
    E = np.asarray(record.data["E"]["linear"]["examples"])
    assert E.shape == (1, 2, 5) and np.all(E[:, :, 0] > 0)
    assert cli.main([*args, str(tmp_path / "b"), "--seed", "0"]) == 0
    zero = records.load("authors_recheck", directory=tmp_path / "b")
    assert zero.config["seed"] == 0 and zero.data["E"] != record.data["E"]
