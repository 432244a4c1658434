"""What the status page shows of the machine that built the book: code, processor, device and
library versions (the page's other half, each chapter's execution time in that build, is
myst-nb's ``{nb-exec-table}``, filled by the build itself)."""

from __future__ import annotations

import importlib.metadata
import os
import platform

from cotbook import __version__

from . import records

__all__ = ["LIBRARIES", "environment_rows"]

#: The libraries whose versions the status page lists: the computation's, then the book's.
LIBRARIES = (
    "numpy",
    "scipy",
    "mpmath",
    "numba",
    "torch",
    "dask",
    "jupyter-book",
    "myst-nb",
    "sphinx",
    "nbval",
)


def _cores() -> int:
    """The cores this process may run on (its affinity where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def _memory() -> str:
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return "unknown"
    return f"{total / 2**30:.0f} GiB"


def _device() -> str:
    import torch

    if torch.cuda.is_available():
        return f"GPU: {torch.cuda.get_device_name(0)}"
    return "CPU only (no GPU)"


def environment_rows() -> list[tuple[str, str]]:
    """``(what, value)`` rows describing this process's machine: the cotbook version (every
    page's footer gives the commit), Python, the operating system, processor (its vector
    instruction sets too), usable cores, memory, compute device (what
    :func:`cotbook.attention.layer.device` would use) and the version of each of
    :data:`LIBRARIES` (``"not installed"`` where one is missing).

    Examples
    --------
    >>> rows = dict(environment_rows())
    >>> rows["Python"] == platform.python_version() and int(rows["cores"]) >= 1
    True
    """
    rows = [
        ("cotbook", __version__),
        ("Python", platform.python_version()),
        ("system", platform.platform()),
        ("processor", records.cpu_text(records.cpu())),
        ("cores", str(_cores())),
        ("memory", _memory()),
        ("device", _device()),
    ]
    for lib in LIBRARIES:
        try:
            rows.append((lib, importlib.metadata.version(lib)))
        except importlib.metadata.PackageNotFoundError:
            rows.append((lib, "not installed"))
    return rows
