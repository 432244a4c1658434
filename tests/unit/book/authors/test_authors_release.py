"""The authors' released files as a record: the committed record holds exactly the manifest's
bytes, a changed byte is refused naming the file, and `authors --from` writes nothing from a
folder that is not the release.  Release folders are rebuilt from the committed record's own
bytes (the tests never read the authors' data anywhere else)."""

import base64
import json
import subprocess
import sys

import pytest

from cotbook import cli
from cotbook.book import records
from cotbook.book.authors import manifest
from cotbook.book.records import store

NAME = manifest.NAME
TEXT_FILE = "linear_heatmap/results/latest_linear_heatmap/heat_t30.csv"
NPZ_FILE = "linear_dynamics/results/linear_dynamics_20260417_170446/raw_eval_curves.npz"


@pytest.fixture(scope="module")
def committed():
    return manifest.load()


@pytest.fixture(scope="module")
def release_bytes(committed):
    return manifest.files(committed)


def _write_folder(root, files):
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    return root


def _flip(data: bytes, at: int) -> bytes:
    """``data`` with the byte at ``at`` changed (to another digit, for a text file)."""
    old = data[at]
    new = ord("7") if old != ord("7") else ord("3")
    return data[:at] + bytes([new]) + data[at + 1 :]


def _digit_at(data: bytes) -> int:
    return next(i for i, b in enumerate(data) if chr(b).isdigit() and i > len(data) // 2)


def test_git_blob_id_is_gits():
    assert records.git_blob_id(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    assert records.git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"
    with pytest.raises(ValueError, match="data must be bytes"):
        records.git_blob_id("hello")


def test_manifest():
    folders = {path.rsplit("/", 1)[0] for path in manifest.MANIFEST}
    assert len(manifest.MANIFEST) == 68 and len(folders) == 14
    assert manifest.COMMIT == "1ed6569d8f16e29d5288288788d734c143b58c16"
    assert manifest.REPOSITORY == "taka255/cot_asymptotics"
    assert len(manifest.LEFT_OUT) == 3
    assert not set(manifest.LEFT_OUT) & set(manifest.MANIFEST)
    assert all(p.endswith("train_loss_histories.npz") for p in manifest.LEFT_OUT)


def test_committed_record_holds_the_manifests_bytes(committed):
    spec = records.RESULTS[NAME]
    assert spec.stored_files and committed.scale == spec.scale == "released"
    assert not committed.stale
    entries = committed.data["files"]
    assert [e["path"] for e in entries] == list(manifest.MANIFEST)
    for entry in entries:
        want = manifest.MANIFEST[entry["path"]]
        assert entry["blob"] == want, entry["path"]
        assert records.git_blob_id(records.file_bytes(entry)) == want, entry["path"]
        assert entry["repository"] == manifest.REPOSITORY
        assert entry["commit"] == manifest.COMMIT
        assert entry["encoding"] == ("base64" if entry["path"].endswith(".npz") else "text")
    assert committed.config == {
        "repository": manifest.REPOSITORY,
        "commit": manifest.COMMIT,
        "files": 68,
        "left_out": list(manifest.LEFT_OUT),
    }


def _altered_copy(tmp_path, committed, path, change, *, recompute_blob=False):
    """A copy of the committed record in ``tmp_path`` with stored file ``path`` changed by
    ``change(bytes) -> bytes`` (its recorded blob id kept, or recomputed)."""
    raw = json.loads(committed.path.read_text())
    entry = next(e for e in raw["data"]["files"] if e["path"] == path)
    data = change(records.file_bytes(entry))
    if entry["encoding"] == "text":
        entry["content"] = data.decode("utf-8")
    else:
        entry["content"] = base64.b64encode(data).decode("ascii")
    if recompute_blob:  # a consistent forgery: every hash the record carries recomputed
        entry["blob"] = records.git_blob_id(data)
        raw["data_sha256"] = records.data_hash(raw["data"])
        raw["record_sha256"] = records.record_hash(raw)
    (tmp_path / f"{NAME}.json").write_text(json.dumps(raw, indent=1))
    return tmp_path


@pytest.mark.parametrize("path", [TEXT_FILE, NPZ_FILE])
def test_one_changed_byte_makes_load_refuse_the_record(tmp_path, committed, path):
    copy = _altered_copy(tmp_path, committed, path, lambda b: _flip(b, _digit_at(b)))
    with pytest.raises(records.ResultError, match="the record was altered") as err:
        records.load(NAME, directory=copy)
    assert path in str(err.value) and str(copy / f"{NAME}.json") in str(err.value)
    with pytest.raises(records.ResultError, match=path):
        manifest.load(copy)


def test_undecodable_content_is_refused_naming_the_file(tmp_path, committed):
    raw = json.loads(committed.path.read_text())
    entry = next(e for e in raw["data"]["files"] if e["path"] == NPZ_FILE)
    entry["content"] = entry["content"][:-3] + "!!!"
    (tmp_path / f"{NAME}.json").write_text(json.dumps(raw))
    with pytest.raises(records.ResultError, match=f"{NPZ_FILE}: .*not valid base64"):
        records.load(NAME, directory=tmp_path)


def test_a_consistent_forgery_is_refused_by_the_manifest(tmp_path, committed):
    """Changed bytes with a recomputed blob id pass the record's own check, not the
    manifest's."""
    copy = _altered_copy(
        tmp_path, committed, TEXT_FILE, lambda b: _flip(b, _digit_at(b)), recompute_blob=True
    )
    assert records.load(NAME, directory=copy) is not None
    with pytest.raises(records.ResultError, match=f"stored file {TEXT_FILE} is .* not "):
        manifest.load(copy)


def test_load_without_a_record_says_how_to_make_one(tmp_path):
    with pytest.raises(records.ResultError, match="authors --from"):
        manifest.load(tmp_path)


def test_files_rejects_another_record():
    with pytest.raises(ValueError, match="record must be the authors_released record"):
        manifest.files("authors_released.json")


def test_a_folder_of_the_same_bytes_saves_the_same_data(tmp_path, committed, release_bytes):
    folder = _write_folder(tmp_path / "checkout", release_bytes)
    out = tmp_path / "out"
    assert cli.main(["authors", "--from", str(folder), "--out", str(out)]) == 0
    again = records.load(NAME, directory=out)
    assert again.data == committed.data and again.config == committed.config


@pytest.mark.parametrize("damage", ["missing", "changed"])
def test_authors_fails_before_writing_naming_the_file(
    tmp_path, monkeypatch, capsys, release_bytes, damage
):
    path = TEXT_FILE if damage == "missing" else NPZ_FILE
    files = dict(release_bytes)
    if damage == "missing":
        del files[path]
    else:
        files[path] = _flip(files[path], len(files[path]) // 2)
    folder = _write_folder(tmp_path / "checkout", files)
    committed_dir, out = tmp_path / "committed", tmp_path / "out"
    monkeypatch.setattr(store, "RESULTS_DIR", committed_dir)
    for argv in (["--out", str(out)], []):  # an explicit folder, and book/results/
        with pytest.raises(SystemExit) as err:
            cli.main(["authors", "--from", str(folder), *argv])
        assert err.value.code == 2
        message = capsys.readouterr().err
        assert path in message and "Traceback" not in message
        assert ("1 files missing" if damage == "missing" else "1 files with other bytes") in message
        assert not out.exists() and not committed_dir.exists()


def test_a_failed_run_keeps_the_previous_record(tmp_path, capsys, release_bytes):
    folder = _write_folder(tmp_path / "checkout", release_bytes)
    out = tmp_path / "out"
    assert cli.main(["authors", "--from", str(folder), "--out", str(out)]) == 0
    before = (out / f"{NAME}.json").read_bytes()
    (folder / TEXT_FILE).unlink()
    with pytest.raises(SystemExit):
        cli.main(["authors", "--from", str(folder), "--out", str(out)])
    assert (out / f"{NAME}.json").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == [f"{NAME}.json"]


def test_authors_needs_a_folder(tmp_path, capsys):
    with pytest.raises(SystemExit) as err:
        cli.main(["authors", "--from", str(tmp_path / "nowhere"), "--out", str(tmp_path)])
    assert err.value.code == 2
    assert "directory must be an existing folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["authors"])
    assert "--from" in capsys.readouterr().err


_LIGHT = """
import sys
from cotbook import cli
assert cli.main(["authors", "--from", sys.argv[1], "--out", sys.argv[2]]) == 0
heavy = ("torch", "numba", "dask", "distributed", "jupytext", "nbclient", "scipy", "numpy")
print(sorted(m for m in heavy if m in sys.modules))
"""


def test_authors_imports_no_heavy_library(tmp_path, release_bytes):
    folder = _write_folder(tmp_path / "checkout", release_bytes)
    done = subprocess.run(
        [sys.executable, "-c", _LIGHT, str(folder), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines()[-1] == "[]"
