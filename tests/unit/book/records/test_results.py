"""Result records: atomic, validated, provenanced, never overwritten by a cheap run."""

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cotbook.book import records
from cotbook.book.records import provenance, schema, store

NAME = "theory_vs_simulation"


def _save(directory, data=None, scale="book", config=None, **kw):
    return records.save(
        NAME,
        scale=scale,
        config=config or {"a": 1},
        data=data or {"x": [1.0, 2.5]},
        timings={"run": 0.5},
        directory=directory,
        **kw,
    )


def test_save_and_load_round_trip(tmp_path):
    path = _save(tmp_path)
    assert path == tmp_path / f"{NAME}.json"
    record = records.load(NAME, directory=tmp_path)
    assert record.config == {"a": 1} and record.data == {"x": [1.0, 2.5]}
    assert record.timings_s == {"run": 0.5} and record.scale == "book"
    assert record.written_by().startswith("cotbook ")
    assert set(record.code) == {"version", "commit", "dirty", "source_hash"}
    assert set(record.environment["libraries"]) == {"numpy", "scipy", "mpmath", "torch", "numba"}
    assert record.environment["threads"]["cpu_count"] == os.cpu_count()
    assert record.environment["cpu"] == records.cpu()
    assert not record.stale  # written by the code that is here now
    assert records.load(NAME, directory=tmp_path / "none") is None
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind


def test_unknown_or_bad_names(tmp_path):
    with pytest.raises(ValueError, match="name must be one of"):
        records.save("demo", scale="book", config={}, data={}, timings={}, directory=tmp_path)
    with pytest.raises(ValueError, match="name must be one of"):
        records.load("../x", directory=tmp_path)


def test_cheap_run_cannot_overwrite_a_committed_record(monkeypatch, tmp_path):
    monkeypatch.setattr(store, "RESULTS_DIR", tmp_path)
    assert records.default_directory(NAME, "paper") == tmp_path
    assert records.default_directory(NAME, "book") == records.SCRATCH_DIR
    with pytest.raises(ValueError, match="would overwrite the committed paper-scale record"):
        _save(tmp_path, scale="book")
    _save(tmp_path, scale="book", force=True)
    assert records.load(NAME, directory=tmp_path).scale == "book"


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
    with pytest.raises(records.ResultError, match=what) as err:
        records.load(NAME, directory=tmp_path)
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
        with pytest.raises(records.ResultError, match=what):
            records.load(NAME, directory=tmp_path)


def test_stale_when_the_producing_code_changes(tmp_path, monkeypatch):
    _save(tmp_path)
    record = records.load(NAME, directory=tmp_path)
    assert not record.stale
    monkeypatch.setattr(provenance, "source_hash", lambda modules: "0" * 16)
    assert record.stale


_WRITER = textwrap.dedent(
    """
    import sys
    from cotbook.book import records
    big = {"x": [float(i) for i in range(2_000_000)]}
    print("ready", flush=True)
    while True:
        records.save("theory_vs_simulation", scale="book", config={}, data=big, timings={},
                     directory=sys.argv[1])
    """
)


@pytest.mark.slow
def test_kill_during_save_leaves_the_previous_file_intact(tmp_path):
    """A large save read at eight moments, then its writer killed (-9) at a ninth: the file is
    always a complete record, the previous one or the new one, never a mix."""
    path = _save(tmp_path, data={"x": [1.0]})
    before = path.read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline() == "ready\n"
        for delay in np.linspace(0.05, 0.6, 8):
            try:
                proc.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                pass
            text = path.read_bytes()
            assert text == before or json.loads(text)["data"]["x"][-1] == 1999999.0
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    after = path.read_bytes()
    assert after == before or json.loads(after)["data"]["x"][-1] == 1999999.0
    records.load(NAME, directory=tmp_path)  # valid, whichever it is
    for leftover in tmp_path.glob(".*.tmp"):
        leftover.unlink()  # a killed writer may leave its temporary file, never the record


def test_failure_between_write_and_replace_keeps_the_old_file(tmp_path, monkeypatch):
    path = _save(tmp_path, data={"x": [1.0]})
    before = path.read_bytes()

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store.os, "replace", full_disk)
    with pytest.raises(OSError, match="No space"):
        _save(tmp_path, data={"x": [2.0]})
    assert path.read_bytes() == before
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_written_file_is_readable_as_open_would_make_it(tmp_path):
    umask = os.umask(0o027)
    try:
        records.write_atomic(tmp_path / "r.json", "{}")
    finally:
        os.umask(umask)
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o640


def test_a_record_whose_data_were_edited_is_refused(tmp_path):
    """Fault 5: a record carries the SHA-256 of its data written at save, checked at load."""
    path = _save(tmp_path, data={"x": [1.0, 2.5]})
    saved = path.read_text()
    path.write_text(saved.replace("2.5", "2.6"))
    with pytest.raises(records.ResultError, match="data do not have the SHA-256") as err:
        records.load(NAME, directory=tmp_path)
    assert str(path) in str(err.value) and "re-create it with `python -m cotbook" in str(err.value)
    raw = json.loads(saved)
    assert list(raw)[-2:] == ["data_sha256", "data"]
    assert raw["data_sha256"] == records.data_hash({"x": [1.0, 2.5]})
    path.write_text(saved)
    assert records.load(NAME, directory=tmp_path).data_sha256 == raw["data_sha256"]


@pytest.mark.parametrize(
    ("edit", "what"),
    [
        (lambda t: t.replace('"data": {', '"data": {"x": [7.0], ', 1), "'x' appears twice"),
        (lambda t: t.replace('"name"', '"scale": "paper", "name"', 1), "'scale' appears twice"),
        (lambda t: t.replace("2.5", "NaN"), "NaN is not a JSON number"),
        (lambda t: t.replace("2.5", "-Infinity"), "-Infinity is not a JSON number"),
        (lambda t: t.replace("1.0", "Infinity"), "Infinity is not a JSON number"),
        (lambda t: t.replace("2.5", "1e400"), "1e400 is beyond the float64 range"),
    ],
    ids=["duplicate key in data", "duplicate field", "NaN", "-Infinity", "Infinity", "1e400"],
)
def test_non_json_numbers_and_duplicate_keys_are_refused(tmp_path, edit, what):
    """Fault 5: Python's json reads NaN/Infinity and keeps the last of two equal keys; a
    record is read strictly (the duplicate 'x' above leaves the data and their hash as they
    were: only the strict reader sees it)."""
    path = _save(tmp_path, data={"x": [1.0, 2.5]})
    path.write_text(edit(path.read_text()))
    with pytest.raises(records.ResultError, match=f"not valid JSON .*{what}") as err:
        records.load(NAME, directory=tmp_path)
    assert str(path) in str(err.value)


def test_a_record_must_have_data(tmp_path):
    """Fault 5: ``data = {}`` (its hash correct) is refused on load, and never saved."""
    path = _save(tmp_path)
    raw = json.loads(path.read_text())
    raw["data"], raw["data_sha256"] = {}, hashlib.sha256(b"{}").hexdigest()  # the hash of {}
    path.write_text(json.dumps(raw, indent=1))
    with pytest.raises(records.ResultError, match="its data are empty") as err:
        records.load(NAME, directory=tmp_path)
    assert str(path) in str(err.value)
    for data in ({}, [1.0], {"x": float("nan")}):
        with pytest.raises(ValueError, match="data must be"):
            records.save(NAME, scale="book", config={}, data=data, timings={}, directory=tmp_path)
    assert json.loads(path.read_text())["data"] == {}  # nothing written


@pytest.mark.parametrize("missing", [("data_sha256",), ("record_sha256",), schema._HASHES])
def test_add_hashes_migrates_a_record_written_before_the_fields(tmp_path, missing):
    """A record of before ``data_sha256`` or ``record_sha256`` is refused, naming the
    migration; add_hashes adds the lines save writes today and touches nothing else."""
    path = _save(tmp_path, data={"x": [1.0, 2.5], "y": {"b": 1, "a": [True, None, "s"]}})
    today = path.read_bytes()
    raw = json.loads(today)
    for key in missing:
        del raw[key]
    path.write_text(json.dumps(raw, indent=1) + "\n")
    with pytest.raises(records.ResultError, match=f"missing field '{missing[0]}'.*add_hashes"):
        records.load(NAME, directory=tmp_path)
    assert records.add_hashes(path) is True
    assert path.read_bytes() == today
    assert records.add_hashes(path) is False and path.read_bytes() == today
    assert records.load(NAME, directory=tmp_path).data == raw["data"]
    path.write_text(json.dumps(raw) + "\n")  # not as save lays a record out
    with pytest.raises(records.ResultError, match="not laid out as save writes"):
        records.add_hashes(path)
    path.write_text(today.decode().replace("2.5", "2.6"))  # has the fields: checked, kept
    with pytest.raises(records.ResultError, match="data do not have the SHA-256"):
        records.add_hashes(path)


@pytest.mark.parametrize(
    "edit",
    [
        lambda raw: raw["config"].update(files=69),
        lambda raw: raw["code"].update(commit="0" * 40),
        lambda raw: raw["timings_s"].update(total=1.0),
        lambda raw: raw.update(created="2020-01-01T00:00:00+00:00"),
        lambda raw: raw["environment"].update(cpu="another"),
        lambda raw: raw.update(scale="paper"),
        lambda raw: raw.update(data_sha256=records.data_hash({"x": [9.0]}), data={"x": [9.0]}),
    ],
    ids=["config", "commit", "timings", "created", "environment", "scale", "data and hash"],
)
def test_a_record_whose_config_provenance_or_timings_were_edited_is_refused(tmp_path, edit):
    """Issue 63: edits of a record's config (``files: 68 -> 69``), its commit, timings or time
    loaded without complaint; every field is now covered by ``record_sha256``."""
    path = _save(tmp_path, config={"files": 68}, data={"x": [1.0, 2.5]})
    raw = json.loads(path.read_text())
    assert list(raw)[-3:] == ["record_sha256", "data_sha256", "data"]
    assert raw["record_sha256"] == records.record_hash(raw)
    edit(raw)
    path.write_text(json.dumps(raw, indent=1) + "\n")
    with pytest.raises(records.ResultError, match="do not have the SHA-256 .*record_sha256"):
        records.load(NAME, directory=tmp_path)


def test_a_record_with_a_field_save_does_not_write_is_refused(tmp_path):
    path = _save(tmp_path, data={"x": [1.0]})
    raw = json.loads(path.read_text())
    raw["note"] = "added by hand"
    path.write_text(json.dumps(raw, indent=1) + "\n")
    with pytest.raises(records.ResultError, match=r"unknown fields \['note'\]"):
        records.load(NAME, directory=tmp_path)


def test_check_writable(tmp_path):
    assert records.check_writable(tmp_path / "new") == tmp_path / "new"
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ValueError, match="not writable"):
        records.check_writable(blocker / "sub")


@pytest.mark.slow
def test_committed_records_are_valid():
    """Every committed record loads; the list of stale ones is printed for the closing check."""
    stale = []
    for name, spec in records.RESULTS.items():
        record = records.load(name)
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

    record = records.load(NAME)
    spec = finite_size.SimulationSpec.from_dict(record.config)
    D = min(spec.dims)
    unit = f"overthinking/D={D}"
    again = finite_size.run_unit(spec, unit)
    np.testing.assert_allclose(
        record.data["overthinking"]["sims"][str(D)]["per_trial"], again["per_trial"], rtol=1e-9
    )


def test_theory_records_name_every_module_the_engine_runs():
    """A record stales when its producers' code changes; the lambda = 0 engine is closed_form
    and the modules of its sub-package it imports, so all of them must be producers."""
    import ast
    from pathlib import Path

    import cotbook.theory.exact.closed_form as cf

    tree = ast.parse(Path(cf.__file__).read_text())
    imported = {
        f"cotbook.theory.exact.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module is None
        for alias in node.names
    }
    assert imported  # closed_form does import sibling modules
    for name in ("theory_accuracy", "theory_explorer", "stopping_maps", "optimal_depths"):
        assert imported <= set(records.RESULTS[name].producers), name


def test_the_long_runs_do_not_hold_the_theory():
    """The simulations and trainings that take hours import no theory (their theory values are
    added when a chapter reads them), so a change of the theory engine stales none of them."""
    for name, spec in records.RESULTS.items():
        record = records.load(name)
        hours = record is not None and record.timings_s.get("total", 0.0) > 1000
        if name.startswith(("attention_", "authors_", "theory_vs_simulation")) and hours:
            held = [m for m in spec.producers if m.startswith("cotbook.theory")]
            assert not held, (name, held)


# Records whose rerun is due but takes longer than a working session on this project's 2-core
# machine (its checkpoints do not outlive the session).  Each chapter that shows one says
# "written by older code" and the command that re-creates it; each entry says what is known.
RERUNS_DUE = {
    "engine_scaling": "a timing benchmark that needs a quiet machine for 1.5 h or more (its "
    "record's run took 90 min); its closure holds the Dask runner and the record writer",
}


@pytest.mark.slow
def test_committed_records_were_written_by_the_code_here():
    """A change to a record's producing code (records.RESULTS[...].producers) must come with a
    rerun of the record: otherwise the chapters say "written by older code" to the reader.  The
    only stale records allowed are those listed as due (RERUNS_DUE); a listed record that is
    current again must leave the list."""
    stale = {
        name: saved.command
        for name, saved in records.RESULTS.items()
        if (record := records.load(name)) is not None and record.stale
    }
    unexpected = {name: command for name, command in stale.items() if name not in RERUNS_DUE}
    assert not unexpected, f"records written by older code; rerun: {unexpected}"
    current = sorted(set(RERUNS_DUE) - set(stale))
    assert not current, f"current again, remove from RERUNS_DUE: {current}"
