"""Records on disk: which folder a record goes to, atomic writes, :func:`save` and :func:`load`.

- :func:`save` writes atomically (a temporary file in the same folder, flushed and fsynced,
  then ``os.replace``): a kill or a full disk leaves the previous file as it was.
- :func:`load` validates (:func:`~.schema.validate`) and raises
  :class:`~.registry.ResultError` naming the file and what is wrong.  :func:`add_hashes` adds
  the hash fields to a record written before they existed.

Committed records live in ``book/results/`` (:data:`RESULTS_DIR`) and are written there only
at their committed scale (or with ``force=True``); other runs go to ``_build/results/``
(:data:`SCRATCH_DIR`, ignored by git) or to a folder of their own.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import tempfile
import uuid
from pathlib import Path

from .provenance import ROOT, code_info, environment
from .registry import RESULTS, ResultError, _spec
from .schema import (
    _HASHES,
    SCHEMA,
    Record,
    _as_loaded,
    _invalid,
    data_hash,
    parse_json,
    record_hash,
    validate,
)

RESULTS_DIR = ROOT / "book" / "results"
SCRATCH_DIR = ROOT / "_build" / "results"


def _path(name: str, directory) -> Path:
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_-]+", name):
        raise ValueError(
            f"name must be a non-empty string of letters, digits, '-' or '_', got {name!r}"
        )
    return Path(directory) / f"{name}.json"


def default_directory(name, scale) -> Path:
    """``book/results/`` for the committed scale of ``name``, ``_build/results/`` otherwise."""
    return RESULTS_DIR if scale == _spec(name).scale else SCRATCH_DIR


def target_directory(name, scale, directory=None, *, force=False) -> Path:
    """Where the record of ``name`` at ``scale`` is written: ``directory``, or
    :func:`default_directory`.  Writing into ``book/results/`` a scale other than the committed
    one raises ``ValueError`` unless ``force`` is true: a cheap run never overwrites a committed
    record by accident."""
    spec = _spec(name)
    directory = default_directory(name, scale) if directory is None else Path(directory)
    if directory.resolve() == RESULTS_DIR.resolve() and scale != spec.scale and not force:
        raise ValueError(
            f"scale {scale!r} would overwrite the committed {spec.scale}-scale record "
            f"{RESULTS_DIR / name}.json: write it elsewhere (--out DIR) or force it (--force)"
        )
    return directory


def write_atomic(path: Path, text: str, *, parents: bool = True) -> None:
    """Write ``text`` to ``path`` so that a reader sees the old file or the whole new one:
    a temporary file in the same folder, synced, then renamed over it.  The file gets the
    mode ``open`` gives a new one (``0o666`` less the umask), not a private temporary file's
    ``0o600``, which other users of a shared file system could not read.  ``parents=False``
    writes only into a folder that exists (``FileNotFoundError`` otherwise): a checkpoint
    never re-creates a folder another process removed."""
    if parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{uuid.uuid4().hex}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def check_writable(directory) -> Path:
    """Create ``directory`` if needed and prove a file can be written there (before any work);
    raise ``ValueError`` naming it otherwise."""
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as err:
        raise ValueError(f"output folder {directory} is not writable: {err}") from None
    return directory


def save(
    name,
    *,
    scale,
    config,
    data,
    timings,
    code=None,
    environment_extra=None,
    directory=None,
    force=False,
) -> Path:
    """Write the record of ``name`` atomically and return its path.

    ``code`` is :func:`code_info` taken when the run started (default: now); ``directory`` and
    ``force`` as for :func:`target_directory`.
    """
    spec = _spec(name)
    directory = target_directory(name, scale, directory, force=force)
    data = _as_loaded(data, "data")
    if not isinstance(data, dict) or not data:
        raise ValueError(f"data must be a non-empty dict, got {data!r:.80}")
    record = {
        "name": name,
        "schema": SCHEMA,
        "scale": scale,
        "config": config,
        "code": code_info(spec.producers) if code is None else code,
        "environment": environment(**(environment_extra or {})),
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "timings_s": timings,
        "data": data,
    }
    record = _with_hashes(_as_loaded(record, "the record"))
    path = _path(name, directory)
    text = json.dumps(record, indent=1, allow_nan=False) + "\n"
    validate(parse_json(text), path)  # what is written, load reads back
    write_atomic(path, text)
    return path


def _read(path, spec):
    try:
        return parse_json(path.read_text())
    except (ValueError, UnicodeDecodeError) as err:
        raise _invalid(
            path, f"not valid JSON ({err}); re-create it with `{spec.command}`"
        ) from None


def load(name, directory=RESULTS_DIR) -> Record | None:
    """The validated record of ``name`` in ``directory``, or ``None`` if there is none.

    A file that is not valid JSON or not a valid record raises :class:`ResultError` naming the
    file, what is wrong and the command that re-creates it.
    """
    spec = _spec(name)
    path = _path(name, directory)
    if not path.is_file():
        return None
    return validate(_read(path, spec), path)


def _with_hashes(raw) -> dict:
    """``raw`` with ``record_sha256`` and ``data_sha256`` (computed where missing) placed
    before ``data``, every other field in its place."""
    data_sha256 = raw.get("data_sha256", data_hash(raw["data"]))
    new = {}
    for key, value in raw.items():
        if key in _HASHES:
            continue
        if key == "data":
            new["record_sha256"] = None
            new["data_sha256"] = data_sha256
        new[key] = value
    new["record_sha256"] = raw.get("record_sha256", record_hash(new))
    return new


def add_hashes(path) -> bool:
    """Add ``data_sha256`` and ``record_sha256``, where missing, to the record at ``path``,
    written before records carried them, and change nothing else: the file is rewritten
    (atomically) with those lines added before ``"data"``, every other byte as it was.
    Returns ``True`` if it added a field, ``False`` if the record has both already (and is
    valid).  It certifies the record as it is now: run it only on a record as its producer
    wrote it (for a committed record: unchanged since it was committed).  Raises
    :class:`ResultError` naming the file if it is not a valid record but for the missing
    fields, or not laid out as :func:`save` writes, so that the fields cannot be added
    without rewriting more than those lines."""
    path = Path(path)
    if path.stem not in RESULTS:
        raise ResultError(f"{path}: not the file of a record (names are {sorted(RESULTS)})")
    text = path.read_text()
    raw = _read(path, RESULTS[path.stem])
    if not isinstance(raw, dict):
        raise _invalid(path, "not a JSON object")
    if all(key in raw for key in _HASHES):
        validate(raw, path)
        return False
    if json.dumps(raw, indent=1, allow_nan=False) + "\n" != text or "data" not in raw:
        raise _invalid(
            path,
            "not laid out as save writes a record: its hashes cannot be added without "
            "rewriting the file; re-create it",
        )
    new = _with_hashes(raw)
    validate(new, path)
    write_atomic(path, json.dumps(new, indent=1, allow_nan=False) + "\n")
    return True
