"""Result records: atomic, validated, provenanced, never overwritten by a cheap run."""

import hashlib
import hmac
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


def _save(directory, data=None, scale="book", config=None, **kw):
    return results.save(
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
    record = results.load(NAME, directory=tmp_path)
    assert record.config == {"a": 1} and record.data == {"x": [1.0, 2.5]}
    assert record.timings_s == {"run": 0.5} and record.scale == "book"
    assert record.written_by().startswith("cotbook ")
    assert set(record.code) == {"version", "commit", "dirty", "source_hash"}
    assert set(record.environment["libraries"]) == {"numpy", "scipy", "mpmath", "torch", "numba"}
    assert record.environment["threads"]["cpu_count"] == os.cpu_count()
    assert record.environment["cpu"] == results.cpu()
    assert not record.stale  # written by the code that is here now
    assert results.load(NAME, directory=tmp_path / "none") is None
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind


def test_cpu_names_the_model_and_the_vector_sets_read_from_cpuinfo(tmp_path, monkeypatch):
    """The CPU a record was written on: its float32 training rounds by the vector set."""
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: Some CPU 9\nflags\t\t: fpu sse2 avx2 fma\n")
    real = results.Path
    monkeypatch.setattr(results, "Path", lambda p: info if p == "/proc/cpuinfo" else real(p))
    assert results.cpu() == {"model": "Some CPU 9", "vector": ["avx2", "fma"]}
    info.write_text("model name\t: Other\nflags\t\t: avx2 fma avx512f avx512bw\n")
    assert results.cpu() == {"model": "Other", "vector": ["avx2", "fma", "avx512f"]}
    info.unlink()
    assert results.cpu()["vector"] is None


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
    monkeypatch.setattr(results, "ROOT", tmp_path)  # modules are found on disk, not imported
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


@pytest.mark.slow
def test_checkpoint_resumes_only_the_same_run(tmp_path):
    ck = results.Checkpoint(NAME, tmp_path, scale="tiny", config={"a": 1}, resume=False)
    ck.add("p/D=20", {"mean": [1.0]})
    ck.close()  # the run ends (interrupted): its lock goes
    with pytest.raises(ValueError, match="pass --resume"):
        results.Checkpoint(NAME, tmp_path, scale="tiny", config={"a": 1}, resume=False)
    with pytest.raises(ValueError, match="different config"):
        results.Checkpoint(NAME, tmp_path, scale="tiny", config={"a": 2}, resume=True)
    again = results.Checkpoint(NAME, tmp_path, scale="tiny", config={"a": 1}, resume=True)
    assert again.done() == {"p/D=20": {"mean": [1.0]}}
    again.remove()
    assert not (tmp_path / f"{NAME}.partial").exists()


# ---- issue 32, item 5: the data faults ----------------------------------------------------
def _checkpoint(directory, resume=False, config=None):
    return results.Checkpoint(
        NAME, directory, scale="tiny", config=config or {"seed": 0}, resume=resume
    )


def test_a_checkpoint_folder_without_its_meta_json_is_refused(tmp_path):
    """Fault 1: a folder without meta.json was taken over by a fresh run of another seed,
    whose record then held the first seed's units."""
    other = _checkpoint(tmp_path, config={"seed": 1})
    other.add("p/D=20", {"seed": 1})
    other.close()
    (other.folder / "meta.json").unlink()
    for resume in (False, True):
        with pytest.raises(ValueError, match="has no meta.json") as err:
            _checkpoint(tmp_path, resume=resume)
        assert str(other.folder) in str(err.value) and "remove the folder" in str(err.value)
    kept = [f"unit-{results._slug('p/D=20')}.json"]
    assert sorted(p.name for p in other.folder.iterdir()) == kept  # nothing taken over
    assert not (tmp_path / f"{NAME}.lock").exists()  # the refused runs let go of the lock


def test_a_removed_checkpoint_folder_is_not_re_created(tmp_path):
    """Fault 1, second form: a unit written after another run removed the folder re-created it
    (write_atomic made the parents), a folder with units and no meta.json."""
    ck = _checkpoint(tmp_path)
    ck.add("a", {"x": 1})
    for path in ck.folder.iterdir():  # what another run's remove did
        path.unlink()
    ck.folder.rmdir()
    with pytest.raises(ValueError, match="was removed while this run was writing") as err:
        ck.add("b", {"x": 2})
    assert str(ck.folder) in str(err.value) and not ck.folder.exists()
    ck.remove()  # nothing left to remove: no error (fault 2)


def test_a_new_checkpoint_in_the_same_process_takes_over_its_lock(tmp_path):
    """Runs in one process are sequential: a run that ended by an exception (its checkpoint
    kept alive by the traceback) does not lock out the next one there; another process is
    refused (test_a_run_holding_the_folder_in_another_process_keeps_a_second_one_out)."""
    first = _checkpoint(tmp_path)
    first.add("a", {"x": 1})
    other = results.Checkpoint("attention_grid", tmp_path, scale="tiny", config={}, resume=False)
    other.remove()  # another record in the same folder is not locked out either
    with _checkpoint(tmp_path, resume=True) as again:
        assert again.done() == {"a": {"x": 1}}
        with pytest.raises(ValueError, match="was closed"):
            first.add("b", {"x": 2})  # the run it took over can no longer write
    assert not (tmp_path / f"{NAME}.lock").exists()
    with pytest.raises(ValueError, match="was closed"):
        again.done()


_HOLDER = textwrap.dedent(
    """
    import sys
    from cotbook.book import results
    ck = results.Checkpoint(
        "theory_vs_simulation", sys.argv[1], scale="tiny", config={"seed": 0}, resume=True
    )
    ck.add("a", {"x": 1})
    print("holding", flush=True)
    sys.stdin.read()
    """
)


@pytest.mark.slow
def test_a_run_holding_the_folder_in_another_process_keeps_a_second_one_out(tmp_path):
    """Fault 2: two concurrent --resume on one folder both ran (one crashed in remove). The
    second now fails at once; the lock goes with its holder, even one killed with -9."""
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path)], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline() == "holding\n"
        with pytest.raises(ValueError, match=f"holds the lock .*process {holder.pid}"):
            _checkpoint(tmp_path, resume=True)
    finally:
        holder.kill()
        holder.wait()
    with _checkpoint(tmp_path, resume=True) as ck:
        assert ck.done() == {"a": {"x": 1}}
        ck.remove()
    assert not ck.folder.exists() and not (tmp_path / f"{NAME}.lock").exists()


def test_remove_tolerates_files_another_process_removed(tmp_path):
    """Fault 2: Checkpoint.remove crashed (FileNotFoundError) when another run had removed the
    folder first."""
    ck = _checkpoint(tmp_path)
    ck.add("a", {"x": 1})
    for path in ck.folder.iterdir():
        path.unlink()
    ck.folder.rmdir()
    ck.remove()
    assert not ck.folder.exists()


def _unit_file(ck, unit):
    return ck.folder / f"unit-{results._slug(unit)}.json"


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ('"a string"', "not a unit of a checkpoint"),  # crashed --resume with TypeError
        ("[1, 2]", "not a unit of a checkpoint"),
        ('{"unit": "a", "result": {"x": 1}}', "not a unit of a checkpoint"),
        ('{"unit": "a", "run_id"', "not valid JSON"),
        ('{"unit": "a", "unit": "a"}', "not valid JSON .*'unit' appears twice"),
        ('{"unit": "a", "run_id": "r", "hmac": "s", "result": NaN}', "NaN is not a JSON"),
        ('{"unit": 1, "run_id": "r", "hmac": "s", "result": 1}', "must be strings"),
    ],
)
@pytest.mark.slow
def test_a_damaged_unit_file_is_refused_by_name(tmp_path, text, what):
    """Fault 3: every unit file is validated when a run resumes; a damaged one is named and
    refused (not recomputed silently: removing the file is how to recompute it)."""
    with _checkpoint(tmp_path) as ck:
        ck.add("a", {"x": 1})
        ck.add("b", {"x": 2})
    path = _unit_file(ck, "a")
    path.write_text(text)
    with _checkpoint(tmp_path, resume=True) as again:
        with pytest.raises(ValueError, match=what) as err:
            again.done()
    assert str(path) in str(err.value) and "remove that file to compute it again" in str(err.value)
    path.unlink()
    with _checkpoint(tmp_path, resume=True) as again:
        assert again.done() == {"b": {"x": 2}}  # the unit left to compute again


@pytest.mark.slow
def test_an_edited_or_foreign_unit_is_refused_by_name(tmp_path):
    """Fault 4: each unit file carries its checkpoint's run id and a hash of its content keyed
    by the run's secret; an edited unit (also with a recomputed plain SHA-256, issue 63), one
    copied from another run of the same configuration, or one put under another unit's name is
    refused, naming the file."""
    with _checkpoint(tmp_path / "one") as ck:
        ck.add("a", {"x": [1.0, 2.0]})
        ck.add("b", {"x": [3.0]})
    entry = json.loads(_unit_file(ck, "a").read_text())
    assert set(entry) == {"unit", "run_id", "hmac", "result"}
    meta = json.loads((ck.folder / "meta.json").read_text())
    assert entry["run_id"] == meta["run_id"] and len(meta["key"]) == 64
    assert meta["key"] not in _unit_file(ck, "a").read_text()
    keyed = hmac.new(
        bytes.fromhex(meta["key"]),
        results.canonical_json({"unit": "a", "run_id": meta["run_id"], "result": entry["result"]})
        .encode(),
        hashlib.sha256,
    )
    assert entry["hmac"] == keyed.hexdigest()
    original = _unit_file(ck, "a").read_text()
    edited = dict(entry, result={"x": [1.0, 2.5]})
    edited["hmac"] = results.data_hash({"unit": "a", "result": edited["result"]})  # unkeyed
    with _checkpoint(tmp_path / "two") as other:  # same configuration, another run
        other.add("a", {"x": [1.0, 2.0]})
    foreign = _unit_file(other, "a").read_text()
    b = _unit_file(ck, "b").read_text()
    for text, what in [
        (original.replace("2.0", "2.5"), "does not have the keyed hash"),
        (json.dumps(edited), "does not have the keyed hash"),
        (foreign, f"belongs to the run '{json.loads(foreign)['run_id']}'"),
        (b, "holds the unit 'b', whose file is unit-b-"),
    ]:
        _unit_file(ck, "a").write_text(text)
        with _checkpoint(tmp_path / "one", resume=True) as again:
            with pytest.raises(ValueError, match=what) as err:
                again.done()
        assert str(_unit_file(ck, "a")) in str(err.value)
    _unit_file(ck, "a").write_text(original)
    with _checkpoint(tmp_path / "one", resume=True) as again:
        assert again.done() == {"a": {"x": [1.0, 2.0]}, "b": {"x": [3.0]}}
        again.add("c", {1: (2.0, 3)})  # integer keys and tuples: kept as JSON reads them back
        assert again.done()["c"] == {"1": [2.0, 3]}


def test_a_record_whose_data_were_edited_is_refused(tmp_path):
    """Fault 5: a record carries the SHA-256 of its data written at save, checked at load."""
    path = _save(tmp_path, data={"x": [1.0, 2.5]})
    saved = path.read_text()
    path.write_text(saved.replace("2.5", "2.6"))
    with pytest.raises(results.ResultError, match="data do not have the SHA-256") as err:
        results.load(NAME, directory=tmp_path)
    assert str(path) in str(err.value) and "re-create it with `python -m cotbook" in str(err.value)
    raw = json.loads(saved)
    assert list(raw)[-2:] == ["data_sha256", "data"]
    assert raw["data_sha256"] == results.data_hash({"x": [1.0, 2.5]})
    path.write_text(saved)
    assert results.load(NAME, directory=tmp_path).data_sha256 == raw["data_sha256"]


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
    with pytest.raises(results.ResultError, match=f"not valid JSON .*{what}") as err:
        results.load(NAME, directory=tmp_path)
    assert str(path) in str(err.value)


def test_a_record_must_have_data(tmp_path):
    """Fault 5: ``data = {}`` (its hash correct) is refused on load, and never saved."""
    path = _save(tmp_path)
    raw = json.loads(path.read_text())
    raw["data"], raw["data_sha256"] = {}, hashlib.sha256(b"{}").hexdigest()  # the hash of {}
    path.write_text(json.dumps(raw, indent=1))
    with pytest.raises(results.ResultError, match="its data are empty") as err:
        results.load(NAME, directory=tmp_path)
    assert str(path) in str(err.value)
    for data in ({}, [1.0], {"x": float("nan")}):
        with pytest.raises(ValueError, match="data must be"):
            results.save(NAME, scale="book", config={}, data=data, timings={}, directory=tmp_path)
    assert json.loads(path.read_text())["data"] == {}  # nothing written


@pytest.mark.parametrize("missing", [("data_sha256",), ("record_sha256",), results._HASHES])
def test_add_hashes_migrates_a_record_written_before_the_fields(tmp_path, missing):
    """A record of before ``data_sha256`` or ``record_sha256`` is refused, naming the
    migration; add_hashes adds the lines save writes today and touches nothing else."""
    path = _save(tmp_path, data={"x": [1.0, 2.5], "y": {"b": 1, "a": [True, None, "s"]}})
    today = path.read_bytes()
    raw = json.loads(today)
    for key in missing:
        del raw[key]
    path.write_text(json.dumps(raw, indent=1) + "\n")
    with pytest.raises(results.ResultError, match=f"missing field '{missing[0]}'.*add_hashes"):
        results.load(NAME, directory=tmp_path)
    assert results.add_hashes(path) is True
    assert path.read_bytes() == today
    assert results.add_hashes(path) is False and path.read_bytes() == today
    assert results.load(NAME, directory=tmp_path).data == raw["data"]
    path.write_text(json.dumps(raw) + "\n")  # not as save lays a record out
    with pytest.raises(results.ResultError, match="not laid out as save writes"):
        results.add_hashes(path)
    path.write_text(today.decode().replace("2.5", "2.6"))  # has the fields: checked, kept
    with pytest.raises(results.ResultError, match="data do not have the SHA-256"):
        results.add_hashes(path)


@pytest.mark.parametrize(
    "edit",
    [
        lambda raw: raw["config"].update(files=69),
        lambda raw: raw["code"].update(commit="0" * 40),
        lambda raw: raw["timings_s"].update(total=1.0),
        lambda raw: raw.update(created="2020-01-01T00:00:00+00:00"),
        lambda raw: raw["environment"].update(cpu="another"),
        lambda raw: raw.update(scale="paper"),
        lambda raw: raw.update(data_sha256=results.data_hash({"x": [9.0]}), data={"x": [9.0]}),
    ],
    ids=["config", "commit", "timings", "created", "environment", "scale", "data and hash"],
)
def test_a_record_whose_config_provenance_or_timings_were_edited_is_refused(tmp_path, edit):
    """Issue 63: edits of a record's config (``files: 68 -> 69``), its commit, timings or time
    loaded without complaint; every field is now covered by ``record_sha256``."""
    path = _save(tmp_path, config={"files": 68}, data={"x": [1.0, 2.5]})
    raw = json.loads(path.read_text())
    assert list(raw)[-3:] == ["record_sha256", "data_sha256", "data"]
    assert raw["record_sha256"] == results.record_hash(raw)
    edit(raw)
    path.write_text(json.dumps(raw, indent=1) + "\n")
    with pytest.raises(results.ResultError, match="do not have the SHA-256 .*record_sha256"):
        results.load(NAME, directory=tmp_path)


def test_a_record_with_a_field_save_does_not_write_is_refused(tmp_path):
    path = _save(tmp_path, data={"x": [1.0]})
    raw = json.loads(path.read_text())
    raw["note"] = "added by hand"
    path.write_text(json.dumps(raw, indent=1) + "\n")
    with pytest.raises(results.ResultError, match=r"unknown fields \['note'\]"):
        results.load(NAME, directory=tmp_path)


def test_check_writable(tmp_path):
    assert results.check_writable(tmp_path / "new") == tmp_path / "new"
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ValueError, match="not writable"):
        results.check_writable(blocker / "sub")


@pytest.mark.slow
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
        assert imported <= set(results.RESULTS[name].producers), name


def test_the_long_runs_do_not_hold_the_theory():
    """The simulations and trainings that take hours import no theory (their theory values are
    added when a chapter reads them), so a change of the theory engine stales none of them."""
    for name, spec in results.RESULTS.items():
        record = results.load(name)
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
    """A change to a record's producing code (results.RESULTS[...].producers) must come with a
    rerun of the record: otherwise the chapters say "written by older code" to the reader.  The
    only stale records allowed are those listed as due (RERUNS_DUE); a listed record that is
    current again must leave the list."""
    stale = {
        name: saved.command
        for name, saved in results.RESULTS.items()
        if (record := results.load(name)) is not None and record.stale
    }
    unexpected = {name: command for name, command in stale.items() if name not in RERUNS_DUE}
    assert not unexpected, f"records written by older code; rerun: {unexpected}"
    current = sorted(set(RERUNS_DUE) - set(stale))
    assert not current, f"current again, remove from RERUNS_DUE: {current}"
