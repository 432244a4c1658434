"""Result records: what ``python -m cotbook ...`` computes once and the chapters read.

Every saved result has a name registered in :data:`RESULTS`, with the modules whose code
produced its numbers and the command that re-creates it.  A record (JSON) carries its name, the
schema version, the scale, its configuration, the code version (package version, git commit,
a dirty flag over the package and its pinned requirements, and a hash of the producing modules'
code), library versions and thread counts, the time it was written, its timings and its data.

- :func:`save` writes atomically (a temporary file in the same folder, flushed and fsynced,
  then ``os.replace``): a kill or a full disk leaves the previous file as it was.
- :func:`load` validates and raises :class:`ResultError` naming the file and what is wrong.
- :attr:`Record.stale` compares the recorded code hash with the code now; a chapter's caption
  says so.
- :class:`Checkpoint` keeps the finished units of a long run, so that ``--resume`` finishes an
  interrupted run with the same final record.
- A record of someone else's files (``ResultSpec.stored_files``) keeps their raw bytes, each
  with its repository, commit, path and git blob id (:func:`stored_file`); :func:`load`
  recomputes every blob id from the stored bytes and refuses the record, naming the file, if
  one differs (:func:`file_bytes` gives the bytes back).

Committed records live in ``book/results/`` (:data:`RESULTS_DIR`) and are written there only
at their committed scale (or with ``force=True``); other runs go to ``_build/results/``
(:data:`SCRATCH_DIR`, ignored by git) or to a folder of their own.
"""

from __future__ import annotations

import ast
import base64
import datetime
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from .. import __version__

__all__ = [
    "SCHEMA",
    "RESULTS_DIR",
    "SCRATCH_DIR",
    "ResultSpec",
    "RESULTS",
    "ResultError",
    "Record",
    "code_info",
    "environment",
    "source_hash",
    "default_directory",
    "target_directory",
    "check_writable",
    "save",
    "write_atomic",
    "git_blob_id",
    "stored_file",
    "file_bytes",
    "validate",
    "load",
    "Checkpoint",
]

SCHEMA = 2
ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = ROOT / "book" / "results"
SCRATCH_DIR = ROOT / "_build" / "results"
_LIBRARIES = ("numpy", "scipy", "mpmath", "torch", "numba")
_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


@dataclass(frozen=True)
class ResultSpec:
    """A saved result: its ``name``, the ``scale`` committed to ``book/results/``, the modules
    whose code produced its numbers, the ``command`` that re-creates it, and whether the book
    must have it committed (``required``; an optional record is a measurement of the machine
    it ran on, which a chapter shows when present), and whether its data keep the raw bytes of
    files (``stored_files``: ``data["files"]``, a list of :func:`stored_file` entries, each
    re-verified against its git blob id on load)."""

    name: str
    scale: str
    producers: tuple
    command: str
    required: bool = True
    stored_files: bool = False


_ATTENTION = ("cotbook.attention.layer", "cotbook.attention._kernels", "cotbook.attention.grid")
# the lambda = 0 engine: closed_form and every module it runs (a change in any stales a record)
_THEORY_ENGINE = (
    "cotbook.theory.closed_form",
    "cotbook.theory.contour",
    "cotbook.theory._recurrences",
    "cotbook.theory.domain",
)
_SIMULATION = (
    "cotbook.tasks",
    "cotbook.simulation.pretrain",
    "cotbook.simulation.simulate",
    "cotbook.simulation.finite_size",
    *_THEORY_ENGINE,
)
RESULTS = {
    spec.name: spec
    for spec in (
        ResultSpec(
            "attention_grid", "paper", _ATTENTION, "python -m cotbook experiments --scale paper --only grid"
        ),
        ResultSpec(
            "attention_sensitivity",
            "paper",
            _ATTENTION,
            "python -m cotbook experiments --scale paper --only sensitivity",
        ),
        ResultSpec(
            "attention_instability",
            "paper",
            (
                "cotbook.attention.layer",
                "cotbook.attention._kernels",
                "cotbook.attention.instability",
                "cotbook.tasks",
                "cotbook.simulation.pretrain",
                "cotbook.simulation.simulate",
                "cotbook.theory.phases",
                *_THEORY_ENGINE,
            ),
            "python -m cotbook experiments --scale paper --only instability",
        ),
        ResultSpec(
            "authors_protocol",
            "paper",
            (*_ATTENTION, "cotbook.attention.protocol"),
            "python -m cotbook experiments --scale paper --only protocol",
            required=False,
        ),
        ResultSpec(
            "attention_softmax",
            "paper",
            (*_ATTENTION, "cotbook.attention.softmax_study"),
            "python -m cotbook experiments --scale paper --only softmax",
        ),
        ResultSpec(
            "attention_benchmark",
            "paper",
            (*_ATTENTION, "cotbook.bench"),
            "python -m cotbook bench attention",
        ),
        ResultSpec(
            "engine_scaling",
            "paper",
            (*_ATTENTION, "cotbook.book.execution", "cotbook.book.runner", "cotbook.book.scaling"),
            "python -m cotbook bench scaling",
            required=False,
        ),
        ResultSpec(
            "authors_released",
            "released",
            ("cotbook.book.authors_release",),
            "python -m cotbook authors --from CHECKOUT",
            stored_files=True,
        ),
        ResultSpec(
            "theory_accuracy",
            "paper",
            (*_THEORY_ENGINE, "cotbook.theory.phases", "cotbook.theory.numerics"),
            "python -m cotbook bench accuracy",
        ),
        ResultSpec(
            "theory_vs_simulation", "paper", _SIMULATION, "python -m cotbook simulate --scale paper"
        ),
        ResultSpec(
            "theory_vs_simulation_precision",
            "precision",
            _SIMULATION,
            "python -m cotbook simulate --scale precision",
        ),
    )
}
"""Every saved result of the book, by name."""


class ResultError(ValueError):
    """A result file that cannot be read as a valid record (the message names the file)."""


def _spec(name) -> ResultSpec:
    if name not in RESULTS:
        raise ValueError(f"name must be one of {sorted(RESULTS)}, got {name!r}")
    return RESULTS[name]


# --------------------------------------------------------------------------------------------
# provenance
# --------------------------------------------------------------------------------------------
def _code_of(module) -> str:
    """The module's code without docstrings, comments or layout (``ast.dump``)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ValueError(f"module {module!r} not found")
    tree = ast.parse(Path(spec.origin).read_text())
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


def source_hash(modules) -> str:
    """SHA-256 (first 16 hex digits) of the code of ``modules``: changes when their code does,
    not when a docstring, a comment or the layout does."""
    digest = hashlib.sha256()
    for module in sorted(modules):
        digest.update(module.encode() + b"\0" + _code_of(module).encode() + b"\0")
    return digest.hexdigest()[:16]


def _git(*args):
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip()


def code_info(producers=()) -> dict:
    """``{"version", "commit", "dirty", "source_hash"}``: the package version, the git commit
    (``None`` outside a git checkout, said so rather than dropped), whether the package or its
    pinned requirements differ from that commit, and :func:`source_hash` of ``producers``."""
    commit = _git("rev-parse", "HEAD")
    dirty = None
    if commit is not None:
        status = _git("status", "--porcelain", "--", "cotbook", "pyproject.toml", "requirements.txt")
        dirty = bool(status)
    return {
        "version": __version__,
        "commit": commit,
        "dirty": dirty,
        "source_hash": source_hash(producers) if producers else None,
    }


def environment(**extra) -> dict:
    """Python, platform, library versions and thread counts of this process (plus ``extra``)."""
    versions = {}
    for lib in _LIBRARIES:
        try:
            versions[lib] = importlib.metadata.version(lib)
        except importlib.metadata.PackageNotFoundError:
            versions[lib] = None
    threads = {"cpu_count": os.cpu_count()}
    for var in _THREAD_VARIABLES:
        if var in os.environ:
            threads[var] = os.environ[var]
    if "torch" in sys.modules:
        threads["torch"] = sys.modules["torch"].get_num_threads()
    if "numba" in sys.modules:
        threads["numba"] = sys.modules["numba"].get_num_threads()
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "libraries": versions,
        "threads": threads,
        **extra,
    }


# --------------------------------------------------------------------------------------------
# records
# --------------------------------------------------------------------------------------------
_FIELDS = {
    "name": str,
    "schema": int,
    "scale": str,
    "config": dict,
    "code": dict,
    "environment": dict,
    "created": str,
    "timings_s": dict,
    "data": dict,
}
_CODE_FIELDS = ("version", "commit", "dirty", "source_hash")


@dataclass(frozen=True)
class Record:
    """A validated result record, read from ``path``."""

    path: Path
    name: str
    scale: str
    config: dict
    code: dict
    environment: dict
    created: str
    timings_s: dict
    data: dict

    @property
    def spec(self) -> ResultSpec:
        return RESULTS[self.name]

    @property
    def stale(self) -> bool:
        """Whether the code that produced the record differs from the code now (an unknown
        hash, from before hashes were recorded, counts as different)."""
        return self.code["source_hash"] != source_hash(self.spec.producers)

    def written_by(self) -> str:
        """``cotbook <version> (git <commit>[+dirty])``, or ``(no git)``."""
        commit = self.code["commit"]
        if commit is None:
            return f"cotbook {self.code['version']} (no git)"
        return f"cotbook {self.code['version']} (git {commit[:7]}{'+dirty' if self.code['dirty'] else ''})"


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


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader sees the old file or the whole new one:
    a temporary file in the same folder, synced, then renamed over it.  The file gets the
    mode ``open`` gives a new one (``0o666`` less the umask), not a private temporary file's
    ``0o600``, which other users of a shared file system could not read."""
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
    path = _path(name, directory)
    write_atomic(path, json.dumps(record, indent=1, allow_nan=False) + "\n")
    return path


def _invalid(path, what):
    return ResultError(f"{path}: {what}")


# --------------------------------------------------------------------------------------------
# stored files
# --------------------------------------------------------------------------------------------
_TEXT_SUFFIXES = (".csv", ".json", ".txt", ".md")
_FILE_FIELDS = ("repository", "commit", "path", "blob", "encoding", "content")


def git_blob_id(data: bytes) -> str:
    """Git's id of a file holding ``data``: ``sha1(b"blob <len>\\0" + data)``, 40 hex digits.

    >>> git_blob_id(b"")
    'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
    """
    if not isinstance(data, bytes):
        raise ValueError(f"data must be bytes, got {type(data).__name__}")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def stored_file(repository: str, commit: str, path: str, data: bytes) -> dict:
    """The record entry keeping the file ``path`` of ``repository`` at ``commit``: its git
    blob id and its bytes, as text when it is a CSV, JSON, text or Markdown file in UTF-8,
    else in base64.

    >>> entry = stored_file("owner/repo", "0" * 40, "a/b.csv", b"1,2\\n")
    >>> entry["encoding"], entry["content"], file_bytes(entry)
    ('text', '1,2\\n', b'1,2\\n')
    """
    for key, value in (("repository", repository), ("commit", commit), ("path", path)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{key} must be a non-empty string, got {value!r}")
    blob = git_blob_id(data)
    encoding = "base64"
    if path.lower().endswith(_TEXT_SUFFIXES):
        try:
            content = data.decode("utf-8")
            encoding = "text"
        except UnicodeDecodeError:
            pass
    if encoding == "base64":
        content = base64.b64encode(data).decode("ascii")
    return {
        "repository": repository,
        "commit": commit,
        "path": path,
        "blob": blob,
        "encoding": encoding,
        "content": content,
    }


def file_bytes(entry: dict) -> bytes:
    """The bytes a :func:`stored_file` entry keeps (``ValueError`` if they cannot be decoded;
    their blob id is checked by :func:`load`, not here)."""
    if not isinstance(entry, dict) or not all(k in entry for k in _FILE_FIELDS):
        raise ValueError(f"entry must be a stored file with fields {list(_FILE_FIELDS)}")
    content = entry["content"]
    if not isinstance(content, str):
        raise ValueError(f"entry content must be a string, got {type(content).__name__}")
    if entry["encoding"] == "text":
        return content.encode("utf-8")
    if entry["encoding"] == "base64":
        try:
            return base64.b64decode(content.encode("ascii"), validate=True)
        except (ValueError, UnicodeEncodeError) as err:
            raise ValueError(f"entry content is not valid base64 ({err})") from None
    raise ValueError(f"entry encoding must be 'text' or 'base64', got {entry['encoding']!r}")


def _check_stored_files(data, path, spec) -> None:
    """Every stored file's bytes have the blob id it records; the first that does not is
    named."""
    files = data.get("files")
    if not isinstance(files, list) or not files:
        raise _invalid(path, "data must hold 'files', a non-empty list of stored files")
    seen = set()
    for entry in files:
        if not isinstance(entry, dict) or any(
            not isinstance(entry.get(k), str) for k in _FILE_FIELDS
        ):
            raise _invalid(path, f"a stored file lacks a string field of {list(_FILE_FIELDS)}")
        name = entry["path"]
        if name in seen:
            raise _invalid(path, f"stored file {name} appears twice")
        seen.add(name)
        try:
            blob = git_blob_id(file_bytes(entry))
        except ValueError as err:
            raise _invalid(path, f"stored file {name}: {err}") from None
        if blob != entry["blob"]:
            raise _invalid(
                path,
                f"stored file {name} has git blob id {blob}, not the {entry['blob']} it records "
                f"(the record was altered): re-create it with `{spec.command}`",
            )


def validate(raw, path) -> Record:
    """The :class:`Record` of the parsed JSON ``raw``; :class:`ResultError` naming ``path``
    and the first thing that is wrong otherwise."""
    if not isinstance(raw, dict):
        raise _invalid(path, "not a JSON object")
    if raw.get("schema") != SCHEMA:
        raise _invalid(path, f"schema must be {SCHEMA}, got {raw.get('schema')!r}")
    for key, kind in _FIELDS.items():
        if key not in raw:
            raise _invalid(path, f"missing field {key!r}")
        if not isinstance(raw[key], kind) or (kind is int and isinstance(raw[key], bool)):
            raise _invalid(path, f"field {key!r} must be a {kind.__name__}")
    if raw["name"] not in RESULTS:
        raise _invalid(path, f"unknown result name {raw['name']!r}")
    if path.stem != raw["name"]:
        raise _invalid(path, f"holds the record {raw['name']!r}, not {path.stem!r}")
    missing = [k for k in _CODE_FIELDS if k not in raw["code"]]
    if missing:
        raise _invalid(path, f"code lacks {missing}")
    if RESULTS[raw["name"]].stored_files:
        _check_stored_files(raw["data"], path, RESULTS[raw["name"]])
    fields = {k: raw[k] for k in _FIELDS if k != "schema"}
    return Record(path=path, **fields)


def load(name, directory=RESULTS_DIR) -> Record | None:
    """The validated record of ``name`` in ``directory``, or ``None`` if there is none.

    A file that is not valid JSON or not a valid record raises :class:`ResultError` naming the
    file, what is wrong and the command that re-creates it.
    """
    spec = _spec(name)
    path = _path(name, directory)
    if not path.is_file():
        return None
    try:
        raw = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError) as err:
        raise _invalid(path, f"not valid JSON ({err}); re-create it with `{spec.command}`") from None
    return validate(raw, path)


# --------------------------------------------------------------------------------------------
# checkpoints of long runs
# --------------------------------------------------------------------------------------------
def _slug(unit: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", unit) + "-" + hashlib.sha1(unit.encode()).hexdigest()[:8]


class Checkpoint:
    """The finished units of one run of ``name``: ``<directory>/<name>.partial/``.

    ``meta.json`` holds the run's scale, configuration and code hash; each finished unit is one
    atomically written JSON file.  Opening a checkpoint of a different configuration or code
    raises ``ValueError`` saying why, so a resumed run never mixes two runs.
    """

    def __init__(self, name, directory, *, scale, config, resume):
        spec = _spec(name)
        self.folder = Path(directory) / f"{name}.partial"
        self.meta = {
            "name": name,
            "scale": scale,
            "config": config,
            "source_hash": source_hash(spec.producers),
        }
        meta_path = self.folder / "meta.json"
        if meta_path.is_file():
            if not resume:
                raise ValueError(
                    f"an interrupted run of {name} is saved in {self.folder}: pass --resume to "
                    "finish it, or remove that folder to start over"
                )
            try:
                old = json.loads(meta_path.read_text())
            except ValueError as err:
                raise ValueError(f"{meta_path}: not valid JSON ({err})") from None
            for key in ("scale", "config", "source_hash"):
                if old.get(key) != self.meta[key]:
                    what = "code" if key == "source_hash" else key
                    raise ValueError(
                        f"cannot resume {self.folder}: it was written with a different {what} "
                        "(remove that folder to start over)"
                    )
        else:
            write_atomic(meta_path, json.dumps(self.meta, indent=1) + "\n")

    def done(self) -> dict:
        """``{unit: result}`` of the units finished so far."""
        out = {}
        for path in sorted(self.folder.glob("unit-*.json")):
            try:
                entry = json.loads(path.read_text())
            except ValueError as err:
                raise ValueError(f"{path}: not valid JSON ({err})") from None
            out[entry["unit"]] = entry["result"]
        return out

    def add(self, unit, result) -> None:
        entry = {"unit": unit, "result": result}
        write_atomic(self.folder / f"unit-{_slug(unit)}.json", json.dumps(entry, allow_nan=False))

    def remove(self) -> None:
        shutil.rmtree(self.folder)
