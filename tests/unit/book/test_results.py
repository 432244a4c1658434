"""Result records: atomic, validated, provenanced, never overwritten by a cheap run."""

import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cotbook.book import results

NAME = "theory_vs_simulation"


def _save(directory, data=None, scale="book", **kw):
    return results.save(
        NAME, scale=scale, config={"a": 1}, data=data or {"x": [1.0, 2.5]},
        timings={"run": 0.5}, directory=directory, **kw,
    )


def test_save_and_load_round_trip(tmp_path):
    path = _save(tmp_path)
    assert path == tmp_path / f"{NAME}.json"
    record = results.load(NAME, directory=tmp_path)
    assert record.config == {"a": 1} and record.data == {"x": [1.0, 2.5]}
    assert record.timings_s == {"run": 0.5} and record.scale == "book"
    assert record.written_by().startswith("cotbook ")
    assert set(record.code) == {"version", "commit", "dirty", "source_hash"}
    assert set(record.environment["libraries"]) == {"numpy", "scipy", "mpmath", "torch", "numba"}
    assert record.environment["threads"]["cpu_count"] == os.cpu_count()
    assert not record.stale  # written by the code that is here now
    assert results.load(NAME, directory=tmp_path / "none") is None
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind


def test_unknown_or_bad_names(tmp_path):
    with pytest.raises(ValueError, match="name must be one of"):
        results.save("demo", scale="book", config={}, data={}, timings={}, directory=tmp_path)
    with pytest.raises(ValueError, match="name must be one of"):
        results.load("../x", directory=tmp_path)


def test_cheap_run_cannot_overwrite_a_committed_record(monkeypatch, tmp_path):
    monkeypatch.setattr(results, "RESULTS_DIR", tmp_path)
    assert results.default_directory(NAME, "paper") == tmp_path
    assert results.default_directory(NAME, "book") == results.SCRATCH_DIR
    with pytest.raises(ValueError, match="would overwrite the committed paper-scale record"):
        _save(tmp_path, scale="book")
    _save(tmp_path, scale="book", force=True)
    assert results.load(NAME, directory=tmp_path).scale == "book"


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("", "not valid JSON"),
        ('{"name": "theory_vs_simulation", "schema": 2', "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"schema": 1}', "schema must be 2"),
    ],
)
def test_damaged_file_names_itself(tmp_path, text, what):
    path = tmp_path / f"{NAME}.json"
    path.write_text(text)
    with pytest.raises(results.ResultError, match=what) as err:
        results.load(NAME, directory=tmp_path)
    assert str(path) in str(err.value)


def test_schema_violations_name_the_field(tmp_path):
    path = _save(tmp_path)
    good = json.loads(path.read_text())
    for key, value, what in [
        ("data", None, "missing field 'data'"),
        ("config", [1], "field 'config' must be a dict"),
        ("name", "attention_grid", "holds the record 'attention_grid'"),
        ("code", {"version": "0.1.0"}, "code lacks"),
    ]:
        bad = dict(good)
        if value is None:
            bad.pop(key)
        else:
            bad[key] = value
        path.write_text(json.dumps(bad))
        with pytest.raises(results.ResultError, match=what):
            results.load(NAME, directory=tmp_path)


def test_stale_when_the_producing_code_changes(tmp_path, monkeypatch):
    _save(tmp_path)
    record = results.load(NAME, directory=tmp_path)
    assert not record.stale
    monkeypatch.setattr(results, "source_hash", lambda modules: "0" * 16)
    assert record.stale


def test_source_hash_ignores_docstrings_and_comments(tmp_path, monkeypatch):
    (tmp_path / "demo_mod_a.py").write_text('"""Doc."""\nx = 1  # one\n')
    (tmp_path / "demo_mod_b.py").write_text('"""Other doc."""\n\nx = 1\n')
    (tmp_path / "demo_mod_c.py").write_text('"""Doc."""\nx = 2\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    assert len(results.source_hash(["demo_mod_a"])) == 16
    assert results._code_of("demo_mod_a") == results._code_of("demo_mod_b")
    assert results.source_hash(["demo_mod_c"]) != results.source_hash(["demo_mod_a"])
    (tmp_path / "demo_mod_d.py").write_text("x = 1\n")
    (tmp_path / "demo_mod_e.py").write_text('"""Doc."""\n# a comment\nx = (1)\n')
    assert results._code_of("demo_mod_d") == results._code_of("demo_mod_e")


_WRITER = textwrap.dedent(
    """
    import sys
    from cotbook.book import results
    big = {"x": [float(i) for i in range(2_000_000)]}
    print("ready", flush=True)
    while True:
        results.save("theory_vs_simulation", scale="book", config={}, data=big, timings={},
                     directory=sys.argv[1])
    """
)


def test_kill_during_save_leaves_the_previous_file_intact(tmp_path):
    """kill -9 at many moments of a large save: the file is always the complete previous one."""
    path = _save(tmp_path, data={"x": [1.0]})
    before = path.read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline() == "ready\n"
        seen = set()
        for delay in np.linspace(0.05, 0.6, 8):
            try:
                proc.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                pass
            text = path.read_bytes()
            assert text == before or json.loads(text)["data"]["x"][-1] == 1999999.0
            seen.add(text == before)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    after = path.read_bytes()
    assert after == before or json.loads(after)["data"]["x"][-1] == 1999999.0
    results.load(NAME, directory=tmp_path)  # valid, whichever it is
    for leftover in tmp_path.glob(".*.tmp"):
        leftover.unlink()  # a killed writer may leave its temporary file, never the record


def test_failure_between_write_and_replace_keeps_the_old_file(tmp_path, monkeypatch):
    path = _save(tmp_path, data={"x": [1.0]})
    before = path.read_bytes()

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(results.os, "replace", full_disk)
    with pytest.raises(OSError, match="No space"):
        _save(tmp_path, data={"x": [2.0]})
    assert path.read_bytes() == before
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_written_file_is_readable_as_open_would_make_it(tmp_path):
    umask = os.umask(0o027)
    try:
        results.write_atomic(tmp_path / "r.json", "{}")
    finally:
        os.umask(umask)
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o640


def test_checkpoint_resumes_only_the_same_run(tmp_path):
    ck = results.Checkpoint(NAME, tmp_path, scale="tiny", config={"a": 1}, resume=False)
    ck.add("p/D=20", {"mean": [1.0]})
    with pytest.raises(ValueError, match="pass --resume"):
        results.Checkpoint(NAME, tmp_path, scale="tiny", config={"a": 1}, resume=False)
    with pytest.raises(ValueError, match="different config"):
        results.Checkpoint(NAME, tmp_path, scale="tiny", config={"a": 2}, resume=True)
    again = results.Checkpoint(NAME, tmp_path, scale="tiny", config={"a": 1}, resume=True)
    assert again.done() == {"p/D=20": {"mean": [1.0]}}
    again.remove()
    assert not (tmp_path / f"{NAME}.partial").exists()


def test_check_writable(tmp_path):
    assert results.check_writable(tmp_path / "new") == tmp_path / "new"
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ValueError, match="not writable"):
        results.check_writable(blocker / "sub")


def test_committed_records_are_valid():
    """Every committed record loads; the list of stale ones is printed for the closing check."""
    stale = []
    for name, spec in results.RESULTS.items():
        record = results.load(name)
        if record is None and not spec.required:
            continue
        assert record is not None, f"{name}.json is missing: `{spec.command}`"
        assert record.scale == spec.scale
        if record.stale:
            stale.append(f"{name} (written by {record.written_by()}): {spec.command}")
    print("stale committed records:\n  " + "\n  ".join(stale or ["none"]))


def test_saved_study_is_reproducible():
    """The committed paper-scale study: one entry recomputed from its seed matches the file."""
    from cotbook.simulation import finite_size

    record = results.load(NAME)
    spec = finite_size.SimulationSpec.from_dict(record.config)
    D = min(spec.dims)
    unit = f"overthinking/D={D}"
    again = finite_size.run_unit(spec, unit)
    np.testing.assert_allclose(
        record.data["overthinking"]["sims"][str(D)]["per_trial"], again["per_trial"], rtol=1e-9
    )


def test_theory_records_name_every_module_the_engine_runs():
    """A record stales when its producers' code changes; the lambda = 0 engine is closed_form
    and the theory modules it imports, so all of them must be producers."""
    import ast
    from pathlib import Path

    import cotbook.theory.closed_form as cf

    tree = ast.parse(Path(cf.__file__).read_text())
    imported = {
        f"cotbook.theory.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module is None
        for alias in node.names
    }
    assert imported  # closed_form does import sibling modules
    for name in ("theory_accuracy", "theory_vs_simulation", "theory_vs_simulation_precision"):
        assert imported <= set(results.RESULTS[name].producers), name


def test_committed_records_were_written_by_the_code_here():
    """A change to a record's producing code (results.RESULTS[...].producers) must come with a
    rerun of the record: otherwise the chapters say "written by older code" to the reader."""
    stale = {
        name: saved.command
        for name, saved in results.RESULTS.items()
        if (record := results.load(name)) is not None and record.stale
    }
    assert not stale, f"records written by older code; rerun: {stale}"
