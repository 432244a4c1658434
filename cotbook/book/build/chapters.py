"""Deterministic execution of the book's chapters, and the drift check behind the nbval tests.

The chapters are jupytext MyST markdown (``book/*.md``).  For the nbval tests an *executed copy*
of each chapter is kept in ``tests/book/notebooks/<name>.ipynb``.  :func:`execute` writes such a
copy with deterministic cell ids (``<name>-<index>``) and no timing metadata, so re-executing an
unchanged chapter gives the same file; :func:`cell_sources` is what the drift test compares.  Its
kernels get CurveZMQ keys (:func:`kernel_config`); :mod:`cotbook.book.sphinx.notebooks` gives the
kernels of a book build the same settings.
"""

from __future__ import annotations

import base64
import time
from pathlib import Path

import jupytext
import nbformat
import yaml
import zmq
from nbclient import NotebookClient
from traitlets.config import Config

__all__ = [
    "chapter_paths",
    "executed_copy",
    "cell_sources",
    "macro_cell",
    "execute",
    "coalesce_streams",
    "figure_png",
    "write_readme_figure",
    "kernel_config",
]

NOTEBOOK_DIR = Path("tests") / "book" / "notebooks"
# The figure README.md shows: (chapter, myst-nb figure name, file), copied from the executed copy.
README_FIGURE = (
    "phase_diagram",
    "fig-phase-diagram",
    Path("book") / "images" / "phase_diagram.png",
)


def chapter_paths(root) -> list[Path]:
    """The chapter sources listed in ``<root>/_toc.yml``, in reading order."""
    root = Path(root)
    toc_file = root / "_toc.yml"
    if not toc_file.is_file():
        raise ValueError(f"root must be the repository root containing _toc.yml, got {root}")
    toc = yaml.safe_load(toc_file.read_text())
    entries = [toc["root"]]

    def walk(items):
        for item in items or []:
            if "file" in item:
                entries.append(item["file"])
            walk(item.get("chapters"))
            walk(item.get("sections"))

    walk(toc.get("chapters"))
    for part in toc.get("parts") or []:
        walk(part.get("chapters"))
    return [root / f"{entry}.md" for entry in entries]


def executed_copy(root, chapter: Path) -> Path:
    """Where the executed copy of ``chapter`` lives: ``tests/book/notebooks/<name>.ipynb``."""
    return Path(root) / NOTEBOOK_DIR / f"{Path(chapter).stem}.ipynb"


def macro_cell(root) -> str:
    """The source of the Markdown cell that defines the book's MathJax macros for JupyterLab.

    The book's build reads its macros (``\\vb``, ``\\calE``, ...) from ``<root>/_config.yml``
    (``sphinx.config.mathjax3_config.tex.macros``); JupyterLab's MathJax has no such setting,
    so a chapter that uses them opens with this cell: one ``$\\newcommand...$`` per macro,
    invisible once rendered, and tagged ``remove-cell`` so that the build leaves it out.
    """
    config = yaml.safe_load((Path(root) / "_config.yml").read_text())
    macros = config["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    lines = []
    for name, spec in macros.items():
        body, *args = spec if isinstance(spec, list) else [spec]
        arity = f"[{args[0]}]" if args else ""
        default = f"[{args[1]}]" if len(args) > 1 else ""
        lines.append(f"$\\newcommand{{\\{name}}}{arity}{default}{{{body}}}$")
    return "\n".join(lines)


def cell_sources(nb) -> list[tuple[str, str]]:
    """``(cell_type, source)`` of every cell: what must agree between a chapter and its copy."""
    return [(cell.cell_type, cell.source) for cell in nb.cells]


def kernel_config() -> Config:
    """Kernel manager settings for executing chapters: CurveZMQ-encrypted kernel sockets.

    A kernel talks to its manager over TCP sockets on localhost. Without encryption ipykernel
    (>= 7) logs "Kernel is running over TCP without encryption ..." to the terminal at start-up.
    ``KernelManager.transport_encryption = "auto"`` (jupyter_client >= 8.10) has the manager
    provision CurveZMQ keys for every kernel whose kernelspec declares ``supported_encryption:
    curve`` (ipykernel's does), so the sockets are encrypted and the warning has no cause. Where
    pyzmq lacks CurveZMQ the default (unencrypted, with the warning) is kept.
    """
    policy = "auto" if zmq.has("curve") else "disabled"
    return Config({"KernelManager": {"transport_encryption": policy}})


def execute(chapter, out_path, *, cell_timeout: int = 600) -> float:
    """Execute ``chapter`` (MyST ``.md``) in its own folder; write the notebook to ``out_path``.

    Cell ids are set to ``<name>-<index>`` and no execution timings are recorded, so the file is
    byte-identical run to run when the outputs are.  Returns the wall-clock seconds it took.
    """
    chapter = Path(chapter)
    if chapter.suffix != ".md" or not chapter.is_file():
        raise ValueError(f"chapter must be an existing .md file, got {chapter}")
    nb = jupytext.read(chapter)
    for index, cell in enumerate(nb.cells):
        cell["id"] = f"{chapter.stem}-{index}"
    client = NotebookClient(
        nb,
        timeout=cell_timeout,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(chapter.parent.resolve())}},
        config=kernel_config(),
    )
    start = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - start
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)
    Path(out_path).parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(out_path))
    return elapsed


def coalesce_streams(outputs) -> list:
    """Merge consecutive outputs of the same stream (stdout, stderr) into one.

    How the kernel splits a cell's printing into messages depends on timing (a busy machine
    flushes mid-cell), so without this the saved notebook would differ run to run.
    """
    merged = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (
            out.get("output_type") == "stream"
            and prev is not None
            and prev.get("output_type") == "stream"
            and prev.get("name") == out.get("name")
        ):
            prev["text"] = prev["text"] + out["text"]
        else:
            merged.append(out)
    return merged


def figure_png(nb, name: str) -> bytes:
    """The PNG drawn by the code cell whose myst-nb figure is called ``name``."""
    for cell in nb.cells:
        if cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name") == name:
            for out in cell.outputs:
                if "image/png" in out.get("data", {}):
                    return base64.b64decode(out["data"]["image/png"])
            raise ValueError(f"figure {name!r} has no PNG output: execute its chapter first")
    raise ValueError(f"name must be a figure of the notebook, got {name!r}")


def write_readme_figure(root) -> Path:
    """Copy :data:`README_FIGURE` from its chapter's executed copy to its file; returns the path."""
    chapter, name, rel = README_FIGURE
    copy = executed_copy(root, Path(chapter))
    out = Path(root) / rel
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(figure_png(nbformat.read(copy, as_version=4), name))
    return out
