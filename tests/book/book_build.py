"""Building a Jupyter Book from the tests (the real book once per session, tiny test books).

The tests never execute the chapters inside the book build: nbval already executes each
chapter's committed executed copy (``tests/book/notebooks/<name>.ipynb``) and compares its
outputs, and the drift test checks that the copy's cells are the chapter's cells. So the book is
built from a *staged* copy (:func:`stage_executed_book`) in which every chapter ``<name>.md`` is
replaced by its executed copy ``<name>.ipynb`` and execution is off; every other setting (``-W
-n --keep-going``, the Sphinx configuration, the extensions) is the real book's. Cross-chapter
glue references (``{glue:text}`chapter.md::key```) still resolve: myst-nb maps ``chapter.md`` to
the document name ``book/chapter``, whatever the source file's suffix.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml
from myst_nb.core.read import read_myst_markdown_notebook

from cotbook.book import chapters

ROOT = Path(__file__).resolve().parents[2]
#: The folders of the book's sources (chapters, references.bib, images/, results/).
BOOK_FOLDERS = ("book",)


@dataclass(frozen=True)
class BookBuild:
    """Outcome of `jupyter-book build`: exit status, its whole log and the HTML folder."""

    returncode: int
    log: str
    html: Path


def stage_executed_book(
    source: str | os.PathLike,
    dest: str | os.PathLike,
    executed: Mapping[str | os.PathLike, str | os.PathLike],
    folders: tuple[str, ...] = BOOK_FOLDERS,
) -> Path:
    """Copy the book in `source` to `dest`, each chapter replaced by its executed notebook.

    `executed` maps a chapter's ``.md`` file (a path inside `source`) to its executed ``.ipynb``;
    the staged book has ``<chapter>.ipynb`` in place of ``<chapter>.md``, the copy with the line
    of the chapter where each of its cells starts (:func:`_source_map`). `_config.yml`,
    `_toc.yml` and `folders` are copied; the staged `_config.yml` is the real one with
    ``execute.execute_notebooks: off``, so building the staged book executes nothing.
    Returns `dest`.
    """
    source, dest = Path(source).resolve(), Path(dest)
    if not (source / "_config.yml").is_file() or not (source / "_toc.yml").is_file():
        raise ValueError(f"source must be a book folder with _config.yml and _toc.yml: {source}")
    if dest.exists() and any(dest.iterdir()):
        raise ValueError(f"dest must be a new or empty folder: {dest}")
    if not executed:
        raise ValueError("executed must map at least one chapter to its executed notebook")
    replaced: dict[Path, Path] = {}
    for chapter, notebook in executed.items():
        chapter = (source / chapter).resolve()
        if chapter.suffix != ".md" or not chapter.is_file() or not chapter.is_relative_to(source):
            raise ValueError(f"executed: {chapter} is not a chapter .md file inside {source}")
        if Path(notebook).suffix != ".ipynb" or not Path(notebook).is_file():
            raise ValueError(f"executed: no executed notebook for {chapter.name}: {notebook}")
        replaced[chapter.relative_to(source)] = Path(notebook)

    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / "_toc.yml", dest / "_toc.yml")
    config = yaml.safe_load((source / "_config.yml").read_text()) or {}
    config.setdefault("execute", {})
    config["execute"]["execute_notebooks"] = "off"
    (dest / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    ignore = shutil.ignore_patterns(".*", "_build", "__pycache__", "*.ipynb_checkpoints")
    for folder in folders:
        shutil.copytree(source / folder, dest / folder, ignore=ignore)
    for chapter, notebook in replaced.items():
        (dest / chapter).unlink()
        staged = nbformat.read(notebook, as_version=4)
        source_map = _source_map(source / chapter, staged)
        if source_map is not None:
            staged.metadata["source_map"] = source_map
        nbformat.write(staged, (dest / chapter).with_suffix(".ipynb"))
    return dest


def _source_map(chapter: Path, notebook) -> list[int] | None:
    """The line of the chapter's ``.md`` at which each cell of its executed copy starts, as
    myst-nb records it when it reads the ``.md`` itself; None where the copy's cells are not the
    chapter's (a chapter edited since its copy was written: the drift test names it).

    Without it myst-nb numbers a notebook's lines ``10000 * (cell index + 1)``, and an
    ``{eval-rst}`` block is parsed after that many blank lines (it pads its text to the
    block's line): the API pages' 27 blocks cost some 4.5 million lines, a third of the build."""
    read = read_myst_markdown_notebook(chapter.read_text(), add_source_map=True, path=chapter)
    if chapters.cell_sources(read) != chapters.cell_sources(notebook):
        return None
    return read.metadata["source_map"]


def build_book(
    source: str | os.PathLike, out: str | os.PathLike, timeout_s: float = 1800
) -> BookBuild:
    """Build the book in `source` into `out`/_build with the project's flags (-W -n --keep-going).

    The build's failure is returned, not raised, so that a test can show the log. The default
    time limit is generous: it only guards against a hung build, never against a slow machine.
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
