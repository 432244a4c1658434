"""Sphinx extension: the book's data to take away, written beside the pages when the book is built.

- Every file a chapter offered with :func:`cotbook.book.downloads.offer` (carried in its
  executed notebook, in the output's metadata under :data:`~cotbook.book.downloads.KEY`) is
  written to ``data/<name>`` beside the chapter's page, where the offered link points.
- The reproduction report's ledger is written as ``data/reproduction_report.json`` beside the
  report page: one record per row (:func:`cotbook.book.report_file.records`), filled with the
  values the chapters glued in this build, plus the code's provenance; and drawn as
  ``data/verdict_summary.png`` (:func:`cotbook.book.plotting.verdict_summary`), which the
  report page shows.

Enable it in ``_config.yml`` under ``sphinx.extra_extensions`` as ``cotbook.book.sphinx.data``.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
from sphinx.util import logging

from .. import downloads, records, report_file

logger = logging.getLogger(__name__)

#: The report page (docname) and the file its ledger is written to, beside it.
REPORT_PAGE = "book/reproduction_report"
REPORT_FILE = "reproduction_report.json"
SUMMARY_FIGURE = "verdict_summary.png"


def _executed(app) -> dict[str, nbformat.NotebookNode]:
    """Every executed notebook of this build, by docname."""
    root = Path(app.outdir).parent / "jupyter_execute"
    notebooks = {}
    for docname in sorted(app.env.found_docs):
        path = root / f"{docname}.ipynb"
        if path.is_file():
            notebooks[docname] = nbformat.read(path, as_version=4)
    return notebooks


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _offered_target(app, docname, offered) -> Path | None:
    """Where an offered file goes, ``data/<name>`` beside the page; ``None`` (and a warning,
    fatal under ``-W``) when the notebook's metadata does not hold a valid offer: a name that
    :func:`~cotbook.book.downloads.offer` would refuse (a folder, ``..``, an absolute path)
    or content that is not text.  A notebook is data: its metadata never chooses a path
    outside the build folder."""
    folder = (Path(app.outdir) / Path(docname).parent / "data").resolve()
    try:
        if not isinstance(offered, dict) or not isinstance(offered.get("content"), str):
            raise ValueError("an offer must be {'name': ..., 'content': text}")
        target = (folder / downloads.check_name(offered.get("name"))).resolve()
        if target.parent != folder:
            raise ValueError(f"name {offered['name']!r} leaves {folder}")
    except ValueError as err:
        logger.warning(f"cotbook.book.sphinx.data: {docname} offers a download not written: {err}")
        return None
    return target


def _write_offered(app, notebooks) -> None:
    seen: dict[Path, str] = {}
    for docname, nb in notebooks.items():
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                offered = out.get("metadata", {}).get(downloads.KEY)
                if offered is None:
                    continue
                target = _offered_target(app, docname, offered)
                if target is None:
                    continue
                if target in seen:
                    logger.warning(
                        f"cotbook.book.sphinx.data: {offered['name']} is offered by both "
                        f"{seen[target]} and {docname}"
                    )
                    continue
                seen[target] = docname
                _write(target, offered["content"])


def _page_source(app, docname) -> str:
    """The Markdown text of page ``docname`` (its .md source, or the markdown cells of the staged
    .ipynb the tests build from)."""
    path = Path(app.env.doc2path(docname))
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return path.read_text(encoding="utf-8")


def _write_report(app) -> None:
    if REPORT_PAGE not in app.env.found_docs:
        return
    root = Path(app.outdir).parent / "jupyter_execute"
    glued = {
        path.name.removesuffix(".glue.json"): report_file.stored_values(
            json.loads(path.read_text())
        )
        for path in root.rglob("*.glue.json")
    }
    labels = app.env.domaindata["std"]["labels"]
    rows = report_file.records(_page_source(app, REPORT_PAGE), glued)
    for row in rows:
        row["page"] = labels.get(row["chapter"], ("",))[0] + ".html"
    document = {
        "title": "Reproduction report: An Asymptotic Theory of Chain-of-Thought in In-Context "
        "Learning (Takanami & Pehlevan)",
        "code": records.code_info(),
        "rows": rows,
    }
    folder = Path(app.outdir) / Path(REPORT_PAGE).parent / "data"
    _write(folder / REPORT_FILE, json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    _draw_summary(rows, folder / SUMMARY_FIGURE)


def _draw_summary(rows, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # the build has no display
    import matplotlib.pyplot as plt

    from .. import plotting

    fig = plotting.verdict_summary(rows)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _build_finished(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    notebooks = _executed(app)
    _write_offered(app, notebooks)
    _write_report(app)


def setup(app):
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
