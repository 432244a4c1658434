"""The one saved-or-run loader: saved records with their provenance, or a run now."""

import json

import pytest

from cotbook.attention import grid
from cotbook.book import records, studies
from cotbook.book.records import provenance, store
from cotbook.simulation import against_theory, finite_size


@pytest.fixture
def committed(tmp_path, monkeypatch):
    """An empty book/results/ for the loaders."""
    monkeypatch.setattr(store, "RESULTS_DIR", tmp_path)
    monkeypatch.setattr(records.load, "__defaults__", (tmp_path,))
    return tmp_path


def test_simulation_study_reads_a_saved_record_or_runs_now(committed, monkeypatch):
    tmp_path = committed
    spec = finite_size.SCALES["tiny"]
    panels, timings = finite_size.run(spec)
    records.save(
        "theory_vs_simulation",
        scale="paper",
        config=spec.to_dict(),
        data=panels,
        timings=timings,
        directory=tmp_path,
    )
    study = studies.simulation()
    read = json.loads(json.dumps(against_theory.with_theory(spec, panels)))
    assert study.data == read and study.spec == spec  # Result 1's curves added on reading
    assert study.record.data == json.loads(json.dumps(panels))
    assert study.caption.startswith("paper scale, read from book/results/theory_vs_simulation.json")
    assert "older code" not in study.caption
    monkeypatch.setattr(provenance, "source_hash", lambda modules: "0" * 16)
    assert "written by older code: rerun `python -m cotbook simulate --scale paper`" in (
        studies.simulation().caption
    )
    (tmp_path / "theory_vs_simulation.json").write_text("{")
    with pytest.raises(records.ResultError, match="theory_vs_simulation.json: not valid JSON"):
        studies.simulation()
    (tmp_path / "theory_vs_simulation.json").unlink()
    monkeypatch.setitem(finite_size.SCALES, "book", spec)
    assert studies.simulation().caption.startswith("book scale, computed now")
    with pytest.raises(ValueError, match="scale must be one of"):
        studies.simulation("huge")


def test_command_costs_read_each_record_s_timings_engine_and_cpu(committed):
    assert studies.command_costs() == []
    unit_times = {"a/1": 60.0, "a/2": 120.0}
    timings = dict(unit_times, total=180.0, this_session=95.0)
    records.save(
        "theory_accuracy", scale="paper", config={"c": 1}, data={"x": [1.0]}, timings=timings,
        environment_extra={"engine": "local Dask cluster, 2 worker process(es) x 1 thread"},
        directory=committed,
    )  # fmt: skip
    records.save(
        "stopping_maps", scale="paper", config={"c": 1}, data={"x": [1.0]},
        timings={"total": 30.0}, directory=committed,
    )  # fmt: skip
    first, second = studies.command_costs()  # in the order of records.RESULTS
    assert first.command == "precompute --only stopping_maps" and first.record == "stopping_maps"
    assert (first.work_min, first.wall_min, first.where) == (0.5, None, "serial")
    assert second.command == "bench accuracy"
    assert (second.work_min, second.wall_min, second.where) == (3.0, 95.0 / 60, "2 workers")
    assert second.cpu == records.cpu_text(records.cpu()) != "not recorded"
    assert second.written_by == records.load("theory_accuracy").written_by()
    remote = second._replace(engine="Dask scheduler tcp://10.0.0.1:8786")
    assert remote.where == "Dask scheduler"


def test_cpu_text_says_what_a_record_knows_of_its_cpu():
    assert records.cpu_text(None) == "not recorded"
    assert records.cpu_text({"model": "X 9", "vector": ["avx2", "fma"]}) == "X 9 (avx2, fma)"
    assert records.cpu_text({"model": "X 9", "vector": []}) == "X 9 (no AVX2)"
    assert records.cpu_text({"model": "X 9", "vector": None}) == "X 9"


@pytest.mark.slow
def test_grid_study_and_run_costs(committed, monkeypatch):
    spec = grid.GRID_SCALES["tiny"]
    monkeypatch.setitem(grid.GRID_SCALES, "book", spec)
    now = studies.grid()
    assert now.record is None and now.spec == spec
    assert now.caption.startswith("book scale, computed now\n  L = [5, 20]\n  M = [10, 40]")
    assert studies.sensitivity() is None and studies.run_costs() == []
    data, timings = now.data, dict(now.timings_s, total=sum(now.timings_s.values()))
    records.save(
        "attention_grid",
        scale="paper",
        config=spec.to_dict(),
        data=data,
        timings=timings,
        directory=committed,
    )
    saved = studies.grid()
    assert saved.record is not None and saved.spec == spec
    assert json.dumps(saved.data) == json.dumps(data)
    (cost,) = studies.run_costs()
    assert cost.run == "Figure 2 grid" and cost.time == f"{timings['total'] / 60:.1f} min"
    assert cost.measured == "all units, serial, in this process"  # no engine recorded: serial
    assert cost.written_by == saved.record.written_by()
    with pytest.raises(ValueError, match="scale must be one of"):
        studies.grid("huge")


def test_protocol_and_lottery_studies_read_their_records(committed, monkeypatch):
    """The protocol study is read or absent (never run inside a chapter); the lottery is read,
    else run now at its book scale."""
    from cotbook.attention import lottery, protocol

    assert studies.protocol() is None
    spec = protocol.SCALES["tiny"]
    data = {"E": {"linear": {"examples": [[[1.0, 0.5]]]}}}
    records.save("authors_protocol", scale="paper", config=spec.to_dict(), data=data,
                 timings={"u": 1.0}, directory=committed)  # fmt: skip
    saved = studies.protocol()
    assert saved.spec == spec and saved.data == data
    assert saved.caption.startswith("paper scale, read from book/results/authors_protocol.json")
    assert (
        "linear: 2 cells, L = 10, M = 20..40 (2)\n  softmax: 1 cells, L = 10, M = 20\n"
        "  2 trials" in saved.caption
    )
    tiny = lottery.SCALES["tiny"]
    monkeypatch.setitem(lottery.SCALES, "book", tiny)
    now = studies.lottery()
    assert (
        now.record is None
        and now.spec == tiny
        and now.caption.startswith("book scale, computed now")
    )
    assert len(now.data["mean"]) == tiny.sets


def test_theory_timings_are_read_from_their_record_or_named_as_missing(committed):
    with pytest.raises(records.ResultError, match="python -m cotbook bench theory"):
        studies.theory_benchmark()
    config = {"point": [2.0, 3.0, 0.01], "t_max": 80, "grid_n": 200}
    data = {"speed_ratio": 5000.0, "machine": "x86_64", "cpu_count": 2}
    records.save("theory_benchmark", scale="paper", config=config, data=data,
                 timings={"total": 30.0}, directory=committed)  # fmt: skip
    saved = studies.theory_benchmark()
    assert saved.data == data and saved.record is not None
    assert "E_0..E_80 at (2, 3, 0.01), a 200 x 200 grid, single depths to 10^5" in saved.caption


def test_the_coverage_study_is_read_from_its_record_or_named_as_missing(committed):
    from cotbook.theory.ridge import coverage as ridge_coverage

    with pytest.raises(records.ResultError, match="python -m cotbook bench coverage"):
        studies.ridge_coverage()
    spec = ridge_coverage.CoverageSpec(seed=1, count=2, t_max=50)
    data = {"points": [list(p) for p in spec.points()], "outcomes": [["certified", 50] * 3] * 2}
    records.save("ridge_coverage", scale="paper", config=spec.to_dict(), data=data,
                 timings=dict.fromkeys(spec.units(), 1.0), directory=committed)  # fmt: skip
    saved = studies.ridge_coverage()
    assert saved.spec == spec and saved.data == data
    text = " ".join(saved.caption.split())  # unwrapped
    assert "2 points from seed 1, asked for t = 50: alpha in [0.25, 8]" in text
    assert "sigma2 = 0 with probability 0.2, else in [0.0001, 1]" in text


def test_a_theory_study_loads_without_the_attention_wing_or_dask():
    """A chapter that reads a theory record pays for no torch and no Dask: the study loader
    imports a wing only inside the study that reads it (each costs seconds per chapter kernel)."""
    import subprocess
    import sys

    wings = "print(sorted(m for m in ('torch', 'dask', 'distributed') if m in sys.modules))\n"
    code = (
        "import sys\n"
        "from cotbook.book import studies\n"
        "studies.explorer(); studies.accuracy(); studies.theory_benchmark()\n"
        "studies.ridge_coverage()\n"
        f"{wings}"
        "studies.grid()\n"  # then, in the same process, the attention study
        f"{wings}"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    theory, _, attention = done.stdout.partition("\n")
    assert theory == "[]"
    # and the attention study does bring its wing in (absent until it ran)
    assert "torch" in attention.splitlines()[-1]
