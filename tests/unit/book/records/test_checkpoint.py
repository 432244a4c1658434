"""A long run's checkpoint: resumed only by the same run, locked, every unit keyed and checked."""

import hashlib
import hmac
import json
import subprocess
import sys
import textwrap

import pytest

from cotbook.book import records
from cotbook.book.records import checkpoint

NAME = "theory_vs_simulation"


@pytest.mark.slow
def test_checkpoint_resumes_only_the_same_run(tmp_path):
    ck = records.Checkpoint(NAME, tmp_path, scale="tiny", config={"a": 1}, resume=False)
    ck.add("p/D=20", {"mean": [1.0]})
    ck.close()  # the run ends (interrupted): its lock goes
    with pytest.raises(ValueError, match="pass --resume"):
        records.Checkpoint(NAME, tmp_path, scale="tiny", config={"a": 1}, resume=False)
    with pytest.raises(ValueError, match="different config"):
        records.Checkpoint(NAME, tmp_path, scale="tiny", config={"a": 2}, resume=True)
    again = records.Checkpoint(NAME, tmp_path, scale="tiny", config={"a": 1}, resume=True)
    assert again.done() == {"p/D=20": {"mean": [1.0]}}
    again.remove()
    assert not (tmp_path / f"{NAME}.partial").exists()


# ---- issue 32, item 5: the data faults ----------------------------------------------------
def _checkpoint(directory, resume=False, config=None):
    return records.Checkpoint(
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
    kept = [f"unit-{checkpoint._slug('p/D=20')}.json"]
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
    other = records.Checkpoint("attention_grid", tmp_path, scale="tiny", config={}, resume=False)
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
    from cotbook.book import records
    ck = records.Checkpoint(
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
    return ck.folder / f"unit-{checkpoint._slug(unit)}.json"


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
        records.canonical_json(
            {"unit": "a", "run_id": meta["run_id"], "result": entry["result"]}
        ).encode(),
        hashlib.sha256,
    )
    assert entry["hmac"] == keyed.hexdigest()
    original = _unit_file(ck, "a").read_text()
    edited = dict(entry, result={"x": [1.0, 2.5]})
    edited["hmac"] = records.data_hash({"unit": "a", "result": edited["result"]})  # unkeyed
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
