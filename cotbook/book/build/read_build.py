"""The readable book from the committed executed chapters: ``python -m cotbook build``.

Reading the book needs no kernel: every chapter has a committed executed copy
(``tests/book/notebooks/<name>.ipynb``, written by ``python -m cotbook chapters``, compared by
the nbval tests).  :func:`stage` copies the book with each chapter ``<name>.md`` replaced by
that copy and execution off; :func:`build` builds the staged book with the project's flags
(``-W -n --keep-going``) and puts the pages at ``_build/html``.  A chapter edited since its copy
was written is refused by name (:func:`drifted`): the pages would not show the edit.
``build(..., execute=True)`` re-executes every chapter instead (the plain ``jupyter-book build``).
Cross-chapter glue (``{glue:text}`chapter.md::key```) resolves either way: myst-nb maps
``chapter.md`` to the document name ``book/chapter`` whatever the source file's suffix.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat
import yaml

from . import chapters

__all__ = ["BookBuild", "STRAY_NOTEBOOKS", "drifted", "stage", "run_jupyter_book", "build"]

#: The folders of the book's sources (chapters, references.bib, images/, results/).
BOOK_FOLDERS = ("book",)
#: The pattern of ``_config.yml``'s exclude_patterns that keeps a notebook written next to its
#: chapter (``jupytext --to notebook --execute book/x.md``) out of the build; the staged book,
#: whose chapters are such notebooks, drops it.
STRAY_NOTEBOOKS = "book/*.ipynb"


@dataclass(frozen=True)
class BookBuild:
    """Outcome of `jupyter-book build`: exit status, its whole log and the HTML folder."""

    returncode: int
    log: str
    html: Path


def drifted(root) -> list[str]:
    """The chapters of ``<root>/_toc.yml`` whose executed copy is missing or whose cells differ
    from the chapter's (a chapter edited since ``python -m cotbook chapters`` last ran on it)."""
    found = []
    for chapter in chapters.chapter_paths(root):
        copy = chapters.executed_copy(root, chapter)
        if not copy.is_file() or chapters.cell_sources(
            jupytext.read(chapter)
        ) != chapters.cell_sources(nbformat.read(copy, as_version=4)):
            found.append(chapter.stem)
    return found


def stage(
    source: str | os.PathLike,
    dest: str | os.PathLike,
    executed: Mapping[str | os.PathLike, str | os.PathLike] | None = None,
    folders: tuple[str, ...] = BOOK_FOLDERS,
) -> Path:
    """Copy the book in `source` to `dest`, each chapter replaced by its executed notebook.

    `executed` maps a chapter's ``.md`` file (a path inside `source`) to its executed
    ``.ipynb`` (default: every chapter of the table of contents to its committed copy); the
    staged book has ``<chapter>.ipynb`` in place of ``<chapter>.md``, the copy with the line of
    the chapter where each of its cells starts (:func:`_source_map`). `_config.yml`, `_toc.yml`
    and `folders` (without notebooks) are copied; the staged `_config.yml` is the real one with
    ``execute.execute_notebooks: off`` and without :data:`STRAY_NOTEBOOKS`, so building the
    staged book executes nothing.  Returns `dest`.
    """
    source, dest = Path(source).resolve(), Path(dest)
    if not (source / "_config.yml").is_file() or not (source / "_toc.yml").is_file():
        raise ValueError(f"source must be a book folder with _config.yml and _toc.yml: {source}")
    if dest.exists() and any(dest.iterdir()):
        raise ValueError(f"dest must be a new or empty folder: {dest}")
    if executed is None:
        executed = {c: chapters.executed_copy(source, c) for c in chapters.chapter_paths(source)}
    if not executed:
        raise ValueError("executed must map at least one chapter to its executed notebook")
    replaced: dict[Path, Path] = {}
    for chapter, notebook in executed.items():
        chapter = (source / chapter).resolve()
        if chapter.suffix != ".md" or not chapter.is_file() or not chapter.is_relative_to(source):
            raise ValueError(f"executed: {chapter} is not a chapter .md file inside {source}")
        if Path(notebook).suffix != ".ipynb" or not Path(notebook).is_file():
            raise ValueError(
                f"executed: no executed notebook for {chapter.name}: {notebook} "
                f"(write it with `python -m cotbook chapters {chapter.stem}`)"
            )
        replaced[chapter.relative_to(source)] = Path(notebook)

    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / "_toc.yml", dest / "_toc.yml")
    config = yaml.safe_load((source / "_config.yml").read_text()) or {}
    config.setdefault("execute", {})
    config["execute"]["execute_notebooks"] = "off"
    patterns = config.get("exclude_patterns") or []
    config["exclude_patterns"] = [p for p in patterns if p != STRAY_NOTEBOOKS]
    (dest / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    ignore = shutil.ignore_patterns(".*", "_build", "__pycache__", "*.ipynb_checkpoints", "*.ipynb")
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
    chapter's (a chapter edited since its copy was written: :func:`drifted` names it).

    Without it myst-nb numbers a notebook's lines ``10000 * (cell index + 1)``, and an
    ``{eval-rst}`` block is parsed after that many blank lines (it pads its text to the
    block's line): the API pages' 27 blocks cost some 4.5 million lines, a third of the build."""
    from myst_nb.core.read import read_myst_markdown_notebook

    read = read_myst_markdown_notebook(chapter.read_text(), add_source_map=True, path=chapter)
    if chapters.cell_sources(read) != chapters.cell_sources(notebook):
        return None
    return read.metadata["source_map"]


def run_jupyter_book(
    source: str | os.PathLike, out: str | os.PathLike, timeout_s: float = 1800
) -> BookBuild:
    """Build the book in `source` into `out`/_build with the project's flags (-W -n --keep-going).

    The build's failure is returned, not raised, so that a caller can show the log.  The
    default time limit only guards against a hung build, never against a slow machine.
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


def build(root, *, execute: bool = False, timeout_s: float = 7200) -> BookBuild:
    """Build the book of the repository `root` into ``<root>/_build/html``.

    ``execute=False`` (the reader's build): from the committed executed copies, executing
    nothing; refused (``ValueError`` naming them) where a chapter has drifted from its copy.
    The new pages replace ``_build/html`` only when the build succeeds.  ``execute=True``:
    every chapter executed afresh (``jupyter-book build <root>``, also written to
    ``<root>/_build``).
    """
    root = Path(root).resolve()
    if execute:
        return run_jupyter_book(root, root, timeout_s)
    stale = drifted(root)
    if stale:
        raise ValueError(
            f"chapters edited since their executed copies were written: {', '.join(stale)}; "
            f"write the copies with `python -m cotbook chapters {' '.join(stale)}` "
            "or build with --execute"
        )
    (root / "_build").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root / "_build", prefix="read-") as tmp:
        staged = stage(root, Path(tmp) / "book")
        result = run_jupyter_book(staged, Path(tmp) / "out", timeout_s)
        html = root / "_build" / "html"
        if result.returncode == 0:
            if html.exists():
                shutil.rmtree(html)
            shutil.move(result.html, html)
    return BookBuild(result.returncode, result.log, html)
