"""Result files written by ``python -m cotbook ...`` and read by the chapters.

Long runs (paper scale) are computed once by the CLI and saved as JSON in ``book/results/``
together with their full configuration, the code version that produced them and their
timings.  A chapter shows the saved result when there is one and says so; otherwise it computes
the book-scale version itself.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from . import __version__

__all__ = ["RESULTS_DIR", "code_version", "save", "load"]

RESULTS_DIR = Path(__file__).resolve().parents[1] / "book" / "results"


def code_version() -> str:
    """``cotbook <version>`` plus the git commit (and ``+dirty``) when run from a checkout."""
    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", "cotbook"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return f"cotbook {__version__}"
    return f"cotbook {__version__} (git {commit}{'+dirty' if dirty else ''})"


def _path(name: str, directory) -> Path:
    if not name or not all(ch.isalnum() or ch in "-_" for ch in name):
        raise ValueError(
            f"name must be a non-empty string of letters, digits, '-' or '_', got {name!r}"
        )
    return Path(directory) / f"{name}.json"


def save(name: str, config: dict, data: dict, timings: dict, directory=RESULTS_DIR) -> Path:
    """Write ``name``, ``config``, ``code_version``, ``timings_s`` and ``data`` as JSON.

    The file is ``<directory>/<name>.json``; it is returned.
    """
    path = _path(name, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "name": name,
        "config": config,
        "code_version": code_version(),
        "timings_s": timings,
        "data": data,
    }
    path.write_text(json.dumps(record, indent=1) + "\n")
    return path


def load(name: str, directory=RESULTS_DIR):
    """The saved record of ``name`` as a dict, or ``None`` if it has not been computed."""
    path = _path(name, directory)
    if not path.is_file():
        return None
    return json.loads(path.read_text())
