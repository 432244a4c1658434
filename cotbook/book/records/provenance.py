"""Where a record's numbers come from: the code that produced them and the machine.

- :func:`import_closure` lists every ``cotbook`` module that importing a record's roots loads
  (read from the source, never imported); :func:`source_hash` hashes their code without
  docstrings, comments or layout, so a record stales on any change of the code its numbers
  come from, and of no other.
- :func:`code_info` is the package version, the git commit, a dirty flag over the package and
  its pinned requirements, and that hash; :func:`environment` is Python, the platform, the CPU
  (:func:`cpu`), library versions and thread counts.

Modules are found under :data:`ROOT`, the checkout this package lies in: a wrong root would
find none, and every closure would be empty (a test holds it to the records' producers).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.metadata
import inspect
import os
import platform
import subprocess
import sys
from pathlib import Path

from ... import __version__

ROOT = Path(__file__).resolve().parents[3]


_LIBRARIES = ("numpy", "scipy", "mpmath", "torch", "numba")
_THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)


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
    them may be reached as an attribute (through a sub-package's face too).  A record whose producers are this closure stales on
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
                    out.extend(_bound(".".join(parts[:k])))
        elif isinstance(node, ast.ImportFrom):
            stem, *names = _module_names(node, name, is_package)
            out.append(stem)
            table = _lazy(stem)
            for alias, full in zip(node.names, names, strict=True):
                out.append(full)
                if alias.name in table:  # loaded by the package's __getattr__
                    out.append(table[alias.name])
                out.extend(_bound(full))  # a package bound by name: all of its table
    return tuple(out)


def _bound(package) -> list:
    """The modules a name bound to ``package`` may reach as attributes: every module of its
    ``_LAZY`` table, and where one of them is a package with a table of its own (a
    sub-package's face, ``theory.ridge``), every module of that table too."""
    out = []
    for module in _lazy(package).values():
        if module not in out and module != package:
            out.append(module)
            out.extend(m for m in _bound(module) if m not in out)
    return out


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
