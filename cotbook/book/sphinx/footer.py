"""Sphinx extension: every page's footer names the code that built it and the licences.

The footer reads ``cotbook <version> · git <commit>`` (``+dirty`` when the package differs from
that commit, as :func:`cotbook.book.records.code_info` decides), the licences of the code
(BSD-3-Clause, ``LICENSE``) and of the text and figures (CC BY 4.0, ``LICENSE-CONTENT``), and
where to find how to cite it (the introduction's "How to cite"; the footer is one piece of HTML
for pages at every folder depth, so it names the section instead of linking it). It is
sphinx-book-theme's ``extra_footer``, filled in when the configuration is read, so the commit
is the one the pages were built from.

Enable it in ``_config.yml`` under ``sphinx.extra_extensions`` as ``cotbook.book.sphinx.footer``.
"""

from __future__ import annotations

import html

from cotbook.book import records

CODE_LICENCE = "BSD-3-Clause"
CONTENT_LICENCE = "CC BY 4.0"
CONTENT_LICENCE_URL = "https://creativecommons.org/licenses/by/4.0/"


def footer(code: dict) -> str:
    """The footer's HTML for :func:`cotbook.book.records.code_info`'s ``code``.

    Examples
    --------
    >>> print(footer({"version": "0.1.0", "commit": "0123456789abcdef", "dirty": True}))
    <p>Built by cotbook 0.1.0 · git 0123456+dirty · code BSD-3-Clause, text and figures
    <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a> ·
    how to cite: the introduction, or CITATION.cff</p>
    """
    commit = code.get("commit")
    built = f"git {commit[:7]}{'+dirty' if code.get('dirty') else ''}" if commit else "no git"
    return (
        f"<p>Built by cotbook {html.escape(str(code['version']))} · {html.escape(built)} · "
        f"code {CODE_LICENCE}, text and figures\n"
        f'<a href="{CONTENT_LICENCE_URL}">{CONTENT_LICENCE}</a> ·\n'
        "how to cite: the introduction, or CITATION.cff</p>"
    )


def _fill(app, config) -> None:
    options = dict(config.html_theme_options or {})
    options["extra_footer"] = footer(records.code_info())
    config.html_theme_options = options


def setup(app):
    app.connect("config-inited", _fill)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
