"""The authors' script as a second implementation: a changed or missing file is refused before
any run, bad cells and seeds are refused by name, the command runs a script's own functions,
checkpoints and only grows its record, and the committed record reproduces their released
curves at their own seeds.

No test needs their checkout: the machinery is run on a stand-in script written here with the
same functions (its own blob id put in place of theirs), and the committed record is compared
with the committed copy of their released files."""

import json
import math

import numpy as np
import pytest

from cotbook import cli
from cotbook.attention import protocol, side_by_side
from cotbook.book import authors_script, records
from cotbook.book.authors import manifest, rerun
from cotbook.book.authors import versus as va

# A stand-in with the functions and names run_unit calls: a tiny "training" whose result
# depends on the seed, the cell and every random draw, so a run is reproducible only if the
# calls are made in order after the seeding.
STAND_IN = """
import torch
EVAL_T_LIST = list(range(32))
PARAM_L2_LAMBDA = 0.001
device = torch.device("cpu")

def build_fixed_train_dataset(m, n):
    return {"X": torch.randn(m, 3, n), "y": torch.randn(m, n), "w_star": torch.randn(m, 3)}

def train_model_no_cot_finite(train_data):
    v = 0.5 + 0.1 * torch.rand(())
    return v * train_data["X"].mean().abs() + 0.5, v

def eval_dynamics_curve(v, w, n, t_list):
    e0 = 2.0 + torch.rand(()).item()
    return {t: e0 * float(v) ** t for t in t_list}

def no_cot_train_loss(v, w, x, y, w_star):
    return (w_star ** 2).sum(1).mean() * v

def parameter_l2_penalty(v, w):
    return v ** 2 + w ** 2
"""


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    """A checkout holding the stand-in at their script's path, its blob id the expected one."""
    root = tmp_path / "checkout"
    path = root / authors_script.SCRIPT
    path.parent.mkdir(parents=True)
    path.write_text(STAND_IN)
    monkeypatch.setitem(
        authors_script.FILES, authors_script.SCRIPT, records.git_blob_id(path.read_bytes())
    )
    return root


def _rerun(checkout, out, cells, seeds):
    return cli.main(
        [
            "authors",
            "rerun",
            "--from",
            str(checkout),
            "--cells",
            *cells,
            "--seeds",
            *seeds,
            "--out",
            str(out),
        ]
    )


def test_own_seed_is_the_released_runs_formula():
    assert authors_script.own_seed(94, 38) == 941 + 100000 * 38 + 94
    with pytest.raises(ValueError, match="L must be"):
        authors_script.own_seed(0, 38)


@pytest.mark.parametrize(
    ("cells", "seeds", "message"),
    [
        ("205,400 94", "own", "cells must be L,M pairs.*'94'"),
        ("205,0", "own", "cells must be L,M pairs.*'205,0'"),
        ("205,400 205,400", "own", "distinct"),
        ("205,400", "11-x", "seeds must be.*'11-x'"),
        ("205,400", "15-11", "the range '15-11' is empty"),
        ("205,400", "own 11 11", "without repeats"),
        ("205,400", "-3", "seeds must be.*'-3'"),
    ],
)
def test_bad_cells_and_seeds_are_refused_by_name(cells, seeds, message):
    with pytest.raises(ValueError, match=message):
        authors_script.RerunSpec(((cells, seeds),))


def _refused(*args):
    with pytest.raises(SystemExit) as stop:
        _rerun(*args)
    assert stop.value.code == 2


def test_a_changed_or_missing_script_is_refused_before_any_run(tmp_path, capsys):
    out = tmp_path / "out"
    _refused(tmp_path, out, ["94,38"], ["own"])
    assert "linear_heatmap.py: missing" in capsys.readouterr().err
    path = tmp_path / authors_script.SCRIPT
    path.parent.mkdir(parents=True)
    path.write_text("print('not theirs')\n")
    _refused(tmp_path, out, ["94,38"], ["own"])
    err = capsys.readouterr().err
    assert f"git blob id {records.git_blob_id(path.read_bytes())}" in err
    assert authors_script.FILES[authors_script.SCRIPT] in err
    assert not out.exists() or not any(out.iterdir())


def test_runs_are_their_functions_in_order_and_the_record_only_grows(stand_in, tmp_path):
    out = tmp_path / "out"
    assert _rerun(stand_in, out, ["7,5", "9,4"], ["own", "3"]) == 0
    first, spec = rerun.load(out)
    assert spec.units() == [
        "L=7/M=5/seed=3",
        f"L=7/M=5/seed={941 + 500000 + 7}",
        "L=9/M=4/seed=3",
        f"L=9/M=4/seed={941 + 400000 + 9}",
    ]
    # a run is the stand-in's functions after np.random.seed(s), torch.manual_seed(s): redo one
    import torch

    script = authors_script.load_script(stand_in)
    torch.manual_seed(3)
    data = script.build_fixed_train_dataset(5, n=7)
    v, w = script.train_model_no_cot_finite(data)
    curve = script.eval_dynamics_curve(v, w, 7, script.EVAL_T_LIST)
    assert first.data["runs"]["L=7/M=5/seed=3"]["E"] == [curve[t] for t in range(32)]
    assert first.config["commands"] == [
        "python -m cotbook authors rerun --from CHECKOUT --cells 7,5 9,4 --seeds own 3"
    ]
    # a second command adds its new runs and keeps the old ones as they were
    assert _rerun(stand_in, out, ["7,5"], ["3-4"]) == 0
    grown, spec = rerun.load(out)
    assert len(spec.units()) == 5 and len(grown.config["commands"]) == 2
    for unit, run in first.data["runs"].items():
        assert grown.data["runs"][unit] == run
        assert grown.timings_s[unit] == first.timings_s[unit]
    # asking again for runs the record has runs nothing and leaves the file as it is
    before = (out / f"{rerun.NAME}.json").read_bytes()
    assert _rerun(stand_in, out, ["7,5"], ["4"]) == 0
    assert (out / f"{rerun.NAME}.json").read_bytes() == before


def _tampered(tmp_path, record_path, change):
    raw = json.loads(record_path.read_text())
    change(raw)
    raw["data_sha256"] = records.data_hash(raw["data"])
    raw["record_sha256"] = records.record_hash(raw)
    path = tmp_path / "tampered" / record_path.name
    path.parent.mkdir()
    path.write_text(json.dumps(raw))
    return path.parent


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r["config"]["files"].update({authors_script.SCRIPT: "0" * 40}), "another script"),
        (
            lambda r: r["config"]["commands"].__setitem__(0, "python train.py"),
            "not a command of this book",
        ),
        (lambda r: r["config"]["commands"].pop(), "not those its commands make"),
        (lambda r: r["config"]["runs"].pop(), "not those its commands make"),
        (lambda r: r["data"]["runs"].popitem(), "not those its configuration names"),
        (
            lambda r: next(iter(r["data"]["runs"].values()))["E"].__setitem__(3, "inf"),
            "E must be 32 finite numbers",
        ),
    ],
)
def test_a_record_whose_script_command_or_runs_differ_is_refused(tmp_path, change, message):
    folder = _tampered(tmp_path, records.RESULTS_DIR / f"{rerun.NAME}.json", change)
    with pytest.raises(records.ResultError, match=message):
        rerun.load(folder)


def test_the_script_module_names_the_release_and_hashes_as_git():
    assert (authors_script.REPOSITORY, authors_script.COMMIT) == (
        manifest.REPOSITORY,
        manifest.COMMIT,
    )
    for data in (b"", b"x\0y\n" * 7):
        assert authors_script.blob_id(data) == records.git_blob_id(data)


def test_overflow_is_spelled_as_in_the_books_own_record():
    assert authors_script.OVERFLOW == protocol.OVERFLOW
    assert authors_script._overflow_marked([1.0, math.inf, math.nan], "u") == [1.0, "inf", "inf"]
    with pytest.raises(ValueError, match="E_1 = nan with no overflow before it"):
        authors_script._overflow_marked([1.0, math.nan], "u")


@pytest.fixture(scope="module")
def committed():
    found = rerun.load()
    assert found is not None, "the record authors_reruns must be committed"
    return found


def test_their_script_at_their_seed_gives_their_released_curve(committed):
    record, spec = committed
    heatmap = va.released_heatmaps()["linear"]
    own = [(L, M, s) for L, M, s in spec.runs if s == authors_script.own_seed(L, M)]
    assert len(own) == len(side_by_side.CELLS)  # every preregistered cell
    for L, M, s in own:
        ours = np.asarray(record.data["runs"][f"L={L}/M={M}/seed={s}"]["E"], dtype=float)
        theirs = heatmap.at(M, L).astype(float)
        assert np.max(np.abs(ours / theirs - 1)) <= 1e-4, (L, M)


def test_the_preregistered_cells_have_runs_at_the_same_seeds(committed):
    """A balanced design: every preregistered cell has their script's runs at the same seeds
    of SCRIPT_SEEDS, taken in order (11, 12, ...), at least five (issue 61's design: ten book
    trials and five runs of their script a cell)."""
    _, spec = committed
    found = {
        (L, M): {s for l, m, s in spec.runs if (l, m) == (L, M)} & set(side_by_side.SCRIPT_SEEDS)
        for L, M in side_by_side.CELLS
    }
    first = found[side_by_side.CELLS[0]]
    assert len(first) >= 5
    assert first == set(side_by_side.SCRIPT_SEEDS[: len(first)])
    assert all(seeds == first for seeds in found.values())
