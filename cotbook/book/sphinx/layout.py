"""Sphinx extension: the book's own stylesheets, and layout rules Markdown cannot express.

:func:`add_stylesheet` puts a stylesheet of ``static/`` on every page (the other extensions use
it for theirs).  This extension's own, ``static/cotbook-layout.css``, shows the reproduction
report's ledger (a MyST ``{table}`` of class ``ledger``) one card per item: its four cells
stacked at the text column's full width, each labelled with its column's name, instead of four
narrow columns whose cells grow a screen tall.

Enable it in ``_config.yml`` under ``sphinx.extra_extensions`` as ``cotbook.book.sphinx.layout``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["STATIC", "CSS", "add_stylesheet", "setup"]

STATIC = Path(__file__).resolve().parent / "static"
CSS = "cotbook-layout.css"


def _static_path(app) -> None:
    if str(STATIC) not in app.config.html_static_path:
        app.config.html_static_path.append(str(STATIC))


def add_stylesheet(app, name: str) -> None:
    """Put the stylesheet ``static/<name>`` on every page built by ``app``."""
    if not (STATIC / name).is_file():
        raise ValueError(f"name must be a stylesheet in {STATIC}, got {name!r}")
    app.connect("builder-inited", _static_path)
    app.add_css_file(name)


def setup(app):
    add_stylesheet(app, CSS)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
