"""Result records: what ``python -m cotbook ...`` computes once and the chapters read.

Every saved result has a name registered in :data:`RESULTS`, with the modules whose code
produced its numbers and the command that re-creates it.  A record (JSON) carries its name, the
schema version, the scale, its configuration, the code version (package version, git commit,
a dirty flag over the package and its pinned requirements, and a hash of the producing modules'
code), library versions and thread counts, the time it was written, its timings and its data.

- :func:`save` writes atomically (a temporary file in the same folder, flushed and fsynced,
  then ``os.replace``): a kill or a full disk leaves the previous file as it was.
- :func:`load` validates and raises :class:`ResultError` naming the file and what is wrong.
  JSON is read strictly (:func:`parse_json`: no ``NaN``/``Infinity``, no key twice), the data
  must be a non-empty object, and a record carries ``data_sha256``, the SHA-256 of its data's
  canonical JSON (:func:`data_hash`) written by :func:`save`, and ``record_sha256``, the
  SHA-256 of every other field (:func:`record_hash`: name, schema, scale, config, code,
  environment, time, timings and the data's hash): a record whose data, configuration,
  provenance or timings were edited is refused.  :func:`add_hashes` adds the fields to a
  record written before they existed.
- :attr:`Record.stale` compares the recorded code hash with the code now; a chapter's caption
  says so.
- :class:`Checkpoint` keeps the finished units of a long run, so that ``--resume`` finishes an
  interrupted run with the same final record.  It holds a lock on its record in the output
  folder (``<name>.lock``) while open, so a second run of the same record there fails at once;
  every unit file carries the run id of its checkpoint and an HMAC-SHA-256 of its content
  keyed by a secret of the run (in its ``meta.json``, never in a unit), and a unit that does
  not match, or a checkpoint folder without its ``meta.json``, is refused by
  name (:class:`CheckpointError`), never taken over or recomputed silently.
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
import fcntl
import functools
import hashlib
import hmac
import importlib.metadata
import inspect
import json
import math
import os
import platform
import re
import secrets
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from . import precompute

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
    "import_closure",
    "default_config",
    "default_directory",
    "target_directory",
    "check_writable",
    "save",
    "write_atomic",
    "parse_json",
    "canonical_json",
    "data_hash",
    "record_hash",
    "add_hashes",
    "git_blob_id",
    "stored_file",
    "file_bytes",
    "validate",
    "load",
    "Checkpoint",
    "CheckpointError",
]

SCHEMA = 2
ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = ROOT / "book" / "results"
SCRATCH_DIR = ROOT / "_build" / "results"
_LIBRARIES = ("numpy", "scipy", "mpmath", "torch", "numba")
_THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)


@dataclass(frozen=True)
class ResultSpec:
    """A saved result: its ``name``, the ``scale`` committed to ``book/results/``, the modules
    whose functions compute it (``roots``), the ``command`` that re-creates it, and whether the
    book must have it committed (``required``; an optional record is a measurement of the
    machine it ran on, which a chapter shows when present), and whether its data keep the raw
    bytes of files (``stored_files``: ``data["files"]``, a list of :func:`stored_file` entries,
    each re-verified against its git blob id on load).

    Its :attr:`producers` are the import closure of its roots (:func:`import_closure`): every
    module whose code runs when they are imported, so the record stales on any change of the
    code its numbers come from, and of no other."""

    name: str
    scale: str
    roots: tuple
    command: str
    required: bool = True
    stored_files: bool = False

    @functools.cached_property
    def producers(self) -> tuple:
        """The modules whose code the record's :func:`source_hash` covers."""
        return import_closure(*self.roots)


#: The chapter studies of :mod:`cotbook.book.precomputed`, with the modules that compute them.
PRECOMPUTED_ROOTS = {name: (f"{precompute.__name__}.{name}",) for name in precompute.NAMES}


def _experiment(name, scale, root, only, **kwargs):
    command = f"python -m cotbook experiments --scale {scale} --only {only}"
    return ResultSpec(name, scale, (root,), command, **kwargs)


RESULTS = {
    spec.name: spec
    for spec in (
        *(
            ResultSpec(n, "paper", roots, f"python -m cotbook precompute --only {n}")
            for n, roots in PRECOMPUTED_ROOTS.items()
        ),
        _experiment("attention_grid", "paper", "cotbook.attention.grid", "grid"),
        _experiment("attention_sensitivity", "paper", "cotbook.attention.grid", "sensitivity"),
        _experiment(
            "attention_instability", "paper", "cotbook.attention.instability", "instability"
        ),
        _experiment(
            "authors_protocol", "paper", "cotbook.attention.protocol", "protocol", required=False
        ),
        _experiment(
            "authors_recheck", "paper", "cotbook.attention.recheck", "recheck", required=False
        ),
        _experiment(
            "authors_side_by_side",
            "paper",
            "cotbook.attention.side_by_side",
            "side_by_side",
            required=False,
        ),
        _experiment(
            "authors_draws",
            "paper",
            "cotbook.attention.their_draws",
            "their_draws",
            required=False,
        ),
        _experiment("authors_lottery", "book", "cotbook.attention.lottery", "lottery"),
        _experiment("attention_softmax", "paper", "cotbook.attention.softmax_study", "softmax"),
        ResultSpec(
            "attention_benchmark", "paper", ("cotbook.bench",), "python -m cotbook bench attention"
        ),
        ResultSpec(
            "theory_benchmark", "paper", ("cotbook.bench",), "python -m cotbook bench theory"
        ),
        ResultSpec(
            "engine_scaling",
            "paper",
            ("cotbook.book.scaling",),
            "python -m cotbook bench scaling",
            required=False,
        ),
        ResultSpec(
            "test_suite",
            "paper",
            ("cotbook.book.suite_timing",),
            "python -m cotbook bench tests",
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
            "authors_reruns",
            "paper",
            ("cotbook.book.authors_script",),
            "python -m cotbook authors rerun --from CHECKOUT ...",
            required=False,
        ),
        ResultSpec(
            "theory_explorer", "paper", ("cotbook.book.explorer",), "python -m cotbook explorer"
        ),
        ResultSpec(
            "theory_accuracy",
            "paper",
            ("cotbook.theory.numerics",),
            "python -m cotbook bench accuracy",
        ),
        ResultSpec(
            "ridge_coverage",
            "paper",
            ("cotbook.theory.ridge.coverage",),
            "python -m cotbook bench coverage",
        ),
        ResultSpec(
            "theory_vs_simulation",
            "paper",
            ("cotbook.simulation.finite_size",),
            "python -m cotbook simulate --scale paper",
        ),
        ResultSpec(
            "theory_vs_simulation_precision",
            "precision",
            ("cotbook.simulation.finite_size",),
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
def _source(module):
    """``(file, is_package)`` of a ``cotbook`` module, found on disk without importing it (a
    parent package's ``__init__`` may import torch), or ``(None, False)``."""
    path = ROOT.joinpath(*module.split("."))
    if (path / "__init__.py").is_file():
        return path / "__init__.py", True
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py"), False
    return None, False


def _code_of(module) -> str:
    """The module's code without docstrings, comments or layout (``ast.dump``)."""
    source, _ = _source(module)
    if source is None:
        raise ValueError(f"module {module!r} not found")
    stat = source.stat()
    return _code_of_file(source, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _code_of_file(source, mtime_ns, size) -> str:
    """:func:`_code_of` for one version of a file (its time and size are part of the key)."""
    tree = ast.parse(source.read_text())
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


def _module_names(node, module: str, is_package: bool) -> list[str]:
    """The absolute module names one import statement of ``module`` may load."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        parts = module.split(".")
        base = parts if is_package else parts[:-1]
        base = base[: len(base) - node.level + 1]
        stem = ".".join(base + ([node.module] if node.module else []))
    else:
        stem = node.module
    return [stem] + [f"{stem}.{alias.name}" for alias in node.names]


def import_closure(*modules) -> tuple:
    """Every ``cotbook`` module that importing ``modules`` loads, ``modules`` included, sorted.

    Static: each ``import`` and ``from ... import`` anywhere in a module's code (relative or
    absolute, inside functions too) is followed, with the packages whose ``__init__`` runs on
    the way; a name imported from a package counts when it is a submodule.  A package whose
    names are imported on first use lists them in a ``_LAZY`` table (name -> module): a name
    imported from it counts its module, and a module that binds the package itself (``from
    .. import theory``, ``import cotbook``) counts every module of its table, since any of
    them may be reached as an attribute.  A record whose producers are this closure stales on
    any change of the code its numbers come from.
    """
    seen: set[str] = set()
    todo = list(modules)
    while todo:
        name = todo.pop()
        if name in seen or not (name == "cotbook" or name.startswith("cotbook.")):
            continue
        source, is_package = _source(name)
        if source is None:
            continue  # an attribute imported from a package, not a module
        seen.add(name)
        todo.extend(".".join(name.split(".")[:k]) for k in range(1, name.count(".") + 1))
        stat = source.stat()
        todo.extend(_imports(name, is_package, source, stat.st_mtime_ns, stat.st_size))
    return tuple(sorted(seen))


@functools.cache
def _imports(name, is_package, source, mtime_ns, size) -> tuple:
    """The module names one module's import statements may load (parsed once per version of
    its file: the file's time and size are part of the key)."""
    out = []
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:  # binds the package and every package on its path
                parts = alias.name.split(".")
                out.append(alias.name)
                for k in range(1, len(parts) + 1):
                    out.extend(_lazy(".".join(parts[:k])).values())
        elif isinstance(node, ast.ImportFrom):
            stem, *names = _module_names(node, name, is_package)
            out.append(stem)
            table = _lazy(stem)
            for alias, full in zip(node.names, names, strict=True):
                out.append(full)
                if alias.name in table:  # loaded by the package's __getattr__
                    out.append(table[alias.name])
                out.extend(_lazy(full).values())  # a package bound by name: all of its table
    return tuple(out)


def _lazy(package) -> dict:
    """The ``_LAZY`` table (name -> module) of a ``cotbook`` package, ``{}`` if none."""
    source, is_package = _source(package) if package.startswith("cotbook") else (None, False)
    if source is None or not is_package:
        return {}
    stat = source.stat()
    return _lazy_table(source, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _lazy_table(source, mtime_ns, size) -> dict:
    for node in ast.parse(source.read_text()).body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == "_LAZY":
            table = ast.literal_eval(node.value)
            if not (
                isinstance(table, dict)
                and all(isinstance(v, str) and v.startswith("cotbook.") for v in table.values())
            ):
                raise ValueError(f"{source}: _LAZY must be a literal dict name -> cotbook module")
            return table
    return {}


def default_config(function) -> dict:
    """The keyword defaults ``function`` runs with, as a record's configuration (tuples as
    lists, as JSON holds them)."""
    return {
        name: list(p.default) if isinstance(p.default, tuple) else p.default
        for name, p in inspect.signature(function).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


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
        status = _git(
            "status", "--porcelain", "--", "cotbook", "pyproject.toml", "requirements.txt"
        )
        dirty = bool(status)
    return {
        "version": __version__,
        "commit": commit,
        "dirty": dirty,
        "source_hash": source_hash(producers) if producers else None,
    }


#: the vector instruction sets whose presence changes how float32 training kernels round
#: (torch and numba pick their code paths by them), as Linux's /proc/cpuinfo names them
VECTOR_FLAGS = ("avx2", "fma", "avx512f")


def cpu() -> dict:
    """This machine's CPU: ``{"model": name, "vector": [flags present]}`` from Linux's
    /proc/cpuinfo (``vector`` is ``None`` where it cannot be read).  Records carry it: the
    attention studies' float32 training gives other bits on another instruction set."""
    found = {}
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text(errors="replace").splitlines():  # the first CPU's lines
            key, _, value = (part.strip() for part in line.partition(":"))
            if key in ("model name", "flags") and key not in found:
                found[key] = value
            if len(found) == 2:
                break
    flags = found.get("flags")
    return {
        "model": found.get("model name") or platform.processor() or platform.machine(),
        "vector": None if flags is None else [f for f in VECTOR_FLAGS if f in flags.split()],
    }


def cpu_text(info) -> str:
    """A CPU as :func:`cpu` describes it, in words: ``"AMD EPYC (avx2, fma)"``; ``"not
    recorded"`` for ``None`` (a record written before records carried their CPU)."""
    if info is None:
        return "not recorded"
    vector = info["vector"]
    if vector is None:
        return info["model"]
    return f"{info['model']} ({', '.join(vector) or 'no AVX2'})"


def environment(**extra) -> dict:
    """Python, platform, CPU (:func:`cpu`), library versions and thread counts of this
    process (plus ``extra``)."""
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
        "cpu": cpu(),
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
    "record_sha256": str,
    "data_sha256": str,
    "data": dict,
}
_HASHES = ("record_sha256", "data_sha256")
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
    data_sha256: str
    record_sha256: str

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
        dirty = "+dirty" if self.code["dirty"] else ""
        return f"cotbook {self.code['version']} (git {commit[:7]}{dirty})"


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


def _no_constant(token):
    raise ValueError(f"{token} is not a JSON number")


def _finite_float(token):
    value = float(token)
    if not math.isfinite(value):
        raise ValueError(f"{token} is beyond the float64 range")
    return value


def _unique_keys(pairs):
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"the key {twice!r} appears twice in one object")
    return out


def parse_json(text):
    """``json.loads(text)``, strictly: ``NaN``, ``Infinity`` and ``-Infinity`` (which Python
    writes but JSON has not), a number beyond the float64 range (``1e400``, which Python reads
    as infinity) and a key given twice in one object (of which Python would keep the last,
    silently) raise ``ValueError``.

    >>> parse_json('{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    >>> parse_json('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    ValueError: the key 'a' appears twice in one object
    """
    return json.loads(
        text,
        parse_constant=_no_constant,
        parse_float=_finite_float,
        object_pairs_hook=_unique_keys,
    )


def canonical_json(value) -> str:
    """The canonical JSON text of ``value``: keys sorted, no spaces, ASCII, no NaN."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )


def data_hash(value) -> str:
    """SHA-256 (64 hex digits) of :func:`canonical_json` of ``value``: what a record's
    ``data_sha256`` and a checkpoint unit's ``sha256`` hold."""
    return hashlib.sha256(canonical_json(value).encode("ascii")).hexdigest()


def record_hash(raw) -> str:
    """:func:`data_hash` of every field of the record ``raw`` but ``data`` (which its
    ``data_sha256`` covers) and ``record_sha256`` itself: what a record's ``record_sha256``
    holds."""
    return data_hash({k: v for k, v in raw.items() if k not in ("data", "record_sha256")})


def _as_loaded(value, what):
    """``value`` as it reads back from the JSON written for it (tuples become lists, numbers
    keep their repr), so that the hash written is the hash a reader computes."""
    try:
        return parse_json(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as err:
        raise ValueError(f"{what} must be JSON without NaN or infinities ({err})") from None


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
    spec = RESULTS.get(raw["name"]) if isinstance(raw.get("name"), str) else None
    for key, kind in _FIELDS.items():
        if key in _HASHES and key not in raw and isinstance(raw.get("data"), dict):
            raise _invalid(
                path,
                f"missing field {key!r} (a record written before records carried it): if the "
                "record is as its producer wrote it, add the field with "
                "cotbook.book.results.add_hashes(path); else re-create it"
                + (f" with `{spec.command}`" if spec else ""),
            )
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
    spec = RESULTS[raw["name"]]
    if not raw["data"]:
        raise _invalid(path, f"its data are empty: re-create it with `{spec.command}`")
    if spec.stored_files:  # first: names the stored file that was altered
        _check_stored_files(raw["data"], path, spec)
    if data_hash(raw["data"]) != raw["data_sha256"]:
        raise _invalid(
            path,
            "its data do not have the SHA-256 written with them (data_sha256): the record was "
            f"edited or damaged after it was saved; re-create it with `{spec.command}`",
        )
    unknown = sorted(set(raw) - set(_FIELDS))
    if unknown:
        raise _invalid(path, f"unknown fields {unknown}: not written by save")
    if record_hash(raw) != raw["record_sha256"]:
        raise _invalid(
            path,
            "its name, scale, config, code, environment, created time, timings or data hash do "
            "not have the SHA-256 written with them (record_sha256): the record was edited or "
            f"damaged after it was saved; re-create it with `{spec.command}`",
        )
    fields = {k: raw[k] for k in _FIELDS if k != "schema"}
    return Record(path=path, **fields)


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


# --------------------------------------------------------------------------------------------
# checkpoints of long runs
# --------------------------------------------------------------------------------------------
def _slug(unit: str) -> str:
    return (
        re.sub(r"[^A-Za-z0-9_.=-]+", "_", unit) + "-" + hashlib.sha1(unit.encode()).hexdigest()[:8]
    )


class CheckpointError(ValueError):
    """A checkpoint that cannot be used as it is (the message names the folder or file, what
    is wrong and how to proceed), or a lock on a record held by another run."""


class _Lock:
    """An exclusive ``fcntl.flock`` on the file ``path``, taken at once or not at all: a
    holder in another process makes :class:`CheckpointError` with the message ``busy(lock)``,
    ``lock`` naming ``path`` and its holder's process id.  Within one process runs are
    sequential, so a new lock on a path this process already holds takes it over (the run
    that held it ended without releasing it, e.g. by an exception whose traceback keeps its
    checkpoint alive).  The kernel releases it when its holder dies, so a killed run leaves no
    lock behind; a released lock's file is removed (while still locked, so that whoever opened
    it in the meantime sees it gone and opens the new one)."""

    _held_here: dict = {}  # real path -> the _Lock of this process holding it

    def __init__(self, path: Path, busy):
        self.path = path
        self._key = os.path.realpath(path)
        previous = _Lock._held_here.get(self._key)
        if previous is not None:
            previous.release()
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                try:
                    holder = path.read_text().strip()
                except OSError:
                    holder = ""
                held = f" (process {holder})" if holder.isdigit() else ""
                raise CheckpointError(busy(f"{path}{held}")) from None
            except BaseException:
                os.close(fd)
                raise
            try:
                current = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                current = False
            if current:
                break
            os.close(fd)  # locked a file its holder had just released and removed: again
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        _Lock._held_here[self._key] = self

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is None:
            return
        if _Lock._held_here.get(self._key) is self:
            del _Lock._held_here[self._key]
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(self._fd)
            self._fd = None


_UNIT_FIELDS = ("unit", "run_id", "hmac", "result")


def _unit_mac(key, unit, run_id, result) -> str:
    """HMAC-SHA-256, keyed by a checkpoint's secret ``key``, of a unit's canonical JSON."""
    message = canonical_json({"unit": unit, "run_id": run_id, "result": result})
    return hmac.new(bytes.fromhex(key), message.encode("ascii"), hashlib.sha256).hexdigest()


def _remove_tree(path: Path) -> None:
    """Remove ``path`` and what it holds; what is already gone (removed by another process
    meanwhile) is no error."""
    try:
        entries = list(os.scandir(path))
    except FileNotFoundError:
        return
    except NotADirectoryError:
        path.unlink(missing_ok=True)
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            _remove_tree(Path(entry.path))
        else:
            Path(entry.path).unlink(missing_ok=True)
    try:
        path.rmdir()
    except FileNotFoundError:
        pass


class Checkpoint:
    """The finished units of one run of ``name``: ``<directory>/<name>.partial/``.

    Opening one takes the lock ``<directory>/<name>.lock`` (held until :meth:`close` or
    :meth:`remove`, or the end of a ``with`` block; a killed process's lock goes with it): a
    second run of ``name`` on the same folder raises :class:`CheckpointError` at once, naming
    the folder and the lock.  ``meta.json`` holds the run's scale, configuration, code hash
    and run id (a random uuid, new for each fresh run) and the run's secret ``key`` (random);
    each finished unit is one atomically written JSON file ``{"unit", "run_id", "hmac",
    "result"}``, ``hmac`` being the HMAC-SHA-256 of its unit, run id and result keyed by the
    run's secret, so a unit edited together with a recomputed plain hash is still refused
    (the key lies in the same folder: this catches edits by hand and damage, not a forger who
    reads ``meta.json``).  :class:`CheckpointError`, saying why and
    how to proceed, is raised for:

    - a checkpoint of a different configuration or code (``resume=True``), or any checkpoint
      when ``resume`` is false: a resumed run never mixes two runs;
    - a checkpoint folder without its ``meta.json`` (not a checkpoint this run can trust);
    - a unit file that is not valid strict JSON, not such an object, holds a unit under
      another unit's file name, carries another run id, or whose content does not match its
      ``hmac`` (edited or damaged): :meth:`done` names it and refuses it rather than
      recompute it, since its unit might have been changed by hand; removing that file makes
      ``--resume`` compute its unit again;
    - :meth:`add` to a checkpoint folder that another process removed (it is not re-created).
    """

    def __init__(self, name, directory, *, scale, config, resume):
        spec = _spec(name)
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.folder = directory / f"{name}.partial"
        self._lock = _Lock(
            directory / f"{name}.lock",
            lambda lock: (
                f"another run of {name} is writing to {directory}: it holds the lock {lock}; "
                "wait for it to finish, or write this run elsewhere (--out DIR)"
            ),
        )
        try:
            self.meta = self._open(
                {
                    "name": name,
                    "scale": scale,
                    "config": config,
                    "source_hash": source_hash(spec.producers),
                },
                resume,
            )
        except BaseException:
            self._lock.release()
            raise

    def _open(self, meta, resume) -> dict:
        meta_path = self.folder / "meta.json"
        start_over = f"remove the folder {self.folder} to start over"
        if not self.folder.exists() and not self.folder.is_symlink():
            self.folder.mkdir()
            meta = dict(meta, run_id=uuid.uuid4().hex, key=secrets.token_hex(32))
            text = json.dumps(meta, indent=1, allow_nan=False) + "\n"
            write_atomic(meta_path, text, parents=False)
            return meta
        if not self.folder.is_dir():
            raise CheckpointError(f"{self.folder} is in the way of the checkpoint: {start_over}")
        if not meta_path.is_file():
            raise CheckpointError(
                f"{self.folder} has no meta.json, so nothing says which run its units belong "
                f"to (a run that did not start, or files put there by hand): {start_over}"
            )
        if not resume:
            raise CheckpointError(
                f"an interrupted run of {self.name} is saved in {self.folder}: pass --resume to "
                f"finish it, or {start_over}"
            )
        try:
            old = parse_json(meta_path.read_text())
        except (ValueError, UnicodeDecodeError) as err:
            raise CheckpointError(f"{meta_path}: not valid JSON ({err}); {start_over}") from None
        if not (
            isinstance(old, dict)
            and isinstance(old.get("run_id"), str)
            and old["run_id"]
            and isinstance(old.get("key"), str)
            and re.fullmatch(r"[0-9a-f]{64}", old["key"])
        ):
            raise CheckpointError(
                f"{meta_path}: not a checkpoint's meta.json with a run id and key (written by "
                f"hand, or by an older cotbook whose units carry no keyed hash): {start_over}"
            )
        for key in ("name", "scale", "config", "source_hash"):
            if old.get(key) != meta[key]:
                what = "code" if key == "source_hash" else key
                raise CheckpointError(
                    f"cannot resume {self.folder}: it was written with a different {what} "
                    f"({start_over})"
                )
        return dict(meta, run_id=old["run_id"], key=old["key"])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _held(self):
        if not self._lock.held:
            raise CheckpointError(f"the checkpoint {self.folder} was closed")

    def _unit(self, path):
        """The ``(unit, result)`` of the unit file ``path``, checked."""

        def damaged(what):
            return CheckpointError(
                f"{path}: {what}. The unit is not used: remove that file to compute it again "
                f"(--resume), or remove the folder {self.folder} to start over"
            )

        try:
            entry = parse_json(path.read_text())
        except (ValueError, UnicodeDecodeError) as err:
            raise damaged(f"not valid JSON ({err})") from None
        if not isinstance(entry, dict) or sorted(entry) != sorted(_UNIT_FIELDS):
            raise damaged(f"not a unit of a checkpoint (a JSON object of {list(_UNIT_FIELDS)})")
        unit = entry["unit"]
        if not all(isinstance(entry[k], str) for k in ("unit", "run_id", "hmac")):
            raise damaged("its unit, run_id and hmac must be strings")
        if entry["run_id"] != self.meta["run_id"]:
            raise damaged(
                f"it belongs to the run {entry['run_id']!r}, not to this checkpoint's run "
                f"{self.meta['run_id']!r}"
            )
        if path.name != f"unit-{_slug(unit)}.json":
            raise damaged(f"it holds the unit {unit!r}, whose file is unit-{_slug(unit)}.json")
        mac = _unit_mac(self.meta["key"], unit, entry["run_id"], entry["result"])
        if not hmac.compare_digest(mac, entry["hmac"]):
            raise damaged(
                "its content does not have the keyed hash (hmac) this run wrote with it: it "
                "was edited or damaged after it was saved"
            )
        return unit, entry["result"]

    def done(self) -> dict:
        """``{unit: result}`` of the units finished so far, each checked (see the class)."""
        self._held()
        out = {}
        for path in sorted(self.folder.glob("unit-*.json")):
            unit, result = self._unit(path)
            out[unit] = result
        return out

    def add(self, unit, result) -> None:
        """Save the finished ``unit`` (its ``result`` JSON without NaN; kept as it reads back,
        so that its keyed hash is the one :meth:`done` computes)."""
        self._held()
        result = _as_loaded(result, "result")
        entry = {
            "unit": unit,
            "run_id": self.meta["run_id"],
            "hmac": _unit_mac(self.meta["key"], unit, self.meta["run_id"], result),
            "result": result,
        }
        path = self.folder / f"unit-{_slug(unit)}.json"
        try:
            write_atomic(path, json.dumps(entry, allow_nan=False), parents=False)
        except FileNotFoundError:
            raise CheckpointError(
                f"the checkpoint {self.folder} was removed while this run was writing to it "
                f"(by hand, or by another process): the unit {unit!r} is lost; run again"
            ) from None

    def close(self) -> None:
        """Release the lock, keeping the checkpoint (for ``--resume``)."""
        self._lock.release()

    def remove(self) -> None:
        """Remove the checkpoint (files another process removed already are no error) and
        release the lock."""
        self._held()
        try:
            _remove_tree(self.folder)
        finally:
            self._lock.release()
