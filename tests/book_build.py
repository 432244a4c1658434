"""Building a Jupyter Book from the tests (the real book once per session, tiny test books)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class BookBuild:
    """Outcome of `jupyter-book build`: exit status, its whole log and the HTML folder."""

    returncode: int
    log: str
    html: Path


def build_book(
    source: str | os.PathLike, out: str | os.PathLike, timeout_s: float = 900
) -> BookBuild:
    """Build the book in `source` into `out`/_build with the project's flags (-W -n --keep-going).

    The build's failure is returned, not raised, so that a test can show the log.
    """
    source, out = Path(source), Path(out)
    if not (source / "_config.yml").is_file():
        raise ValueError(f"source must be a book folder with a _config.yml: {source}")
    if not timeout_s > 0:
        raise ValueError(f"timeout_s must be > 0, got {timeout_s!r}")
    jb = Path(sys.executable).with_name("jupyter-book")
    result = subprocess.run(
        [str(jb), "build", str(source), "-W", "-n", "--keep-going", "--path-output", str(out)],
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    return BookBuild(result.returncode, result.stdout + result.stderr, out / "_build" / "html")
