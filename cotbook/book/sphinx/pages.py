"""Sphinx extension: pages that open without a console error and need no font the book lacks.

- **Each script once.** Sphinx 7.4 writes an inline script (one with a body and no file) twice
  when an extension adds it after the builder started, as sphinx-thebe does with ``const
  THEBE_JS_URL = ...`` (and sphinx-togglebutton with ``togglebuttonSelector``): the builder
  keeps it with the file name ``None``, then adds the registry's copy under ``""`` before
  writing, and the two do not compare equal. The second ``const`` stops the page's script with
  "Uncaught SyntaxError: Identifier 'THEBE_JS_URL' has already been declared". Each page's
  scripts are kept once (:func:`unique_scripts`).
- **Theme mode.** pydata-sphinx-theme reads the reader's light/dark mode from the template
  variable ``default_mode``; left unset, the page starts in the mode ``""`` and its script
  logs "Got invalid theme mode" before it falls back to ``auto``. The extension makes
  ``auto`` (follow the reader's system) the default of ``html_context``'s ``default_mode``.
- **Status in words.** myst-nb's ``{nb-exec-table}`` (the status page) marks each executed page
  ✅ or ❌, emoji that a browser or PDF without an emoji font draws as empty boxes; the table
  says ``ok`` or ``failed`` (:data:`STATUS_WORDS`) instead, a failure keeping its error as
  the word's explanation.

Enable it in ``_config.yml`` under ``sphinx.extra_extensions`` as ``cotbook.book.sphinx.pages``.
"""

from __future__ import annotations

from docutils import nodes
from myst_nb.ext.execution_tables import ExecutionStatsNode, make_stat_table
from myst_nb.sphinx_ import NbMetadataCollector
from sphinx.transforms.post_transforms import SphinxPostTransform

#: The words that replace myst-nb's marks in the status column of ``{nb-exec-table}``.
STATUS_WORDS = {"✅": "ok", "❌": "failed"}


def unique_scripts(scripts: list) -> list:
    """``scripts`` (Sphinx's ``_JavaScript`` assets of a page) without repeats, in their order:
    two are the same where their file (``None`` and ``""`` alike: none), priority and
    attributes (an inline script's body among them) are."""
    seen, kept = set(), []
    for script in scripts:
        key = (script.filename or "", script.priority, tuple(sorted(script.attributes.items())))
        if key not in seen:
            seen.add(key)
            kept.append(script)
    return kept


def status_in_words(table: nodes.table) -> nodes.table:
    """myst-nb's execution table ``table`` with its status marks as :data:`STATUS_WORDS`."""
    for text in list(table.findall(nodes.Text)):
        if str(text) in STATUS_WORDS:
            text.parent.replace(text, nodes.Text(STATUS_WORDS[str(text)]))
    return table


class ExecutionTableInWords(SphinxPostTransform):
    """Fills ``{nb-exec-table}`` as myst-nb would, then puts its status marks in words."""

    default_priority = 7  # before myst-nb's own ExecutionStatsPostTransform (8) fills it

    def run(self, **kwargs) -> None:
        data = NbMetadataCollector.get_doc_data(self.env)
        for node in list(self.document.findall(ExecutionStatsNode)):
            node.replace_self(status_in_words(make_stat_table(self.env.docname, data)))


def _scripts_once(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if scripts:
        scripts[:] = unique_scripts(scripts)


def _default_mode(app, config) -> None:
    config.html_context = {"default_mode": "auto", **(config.html_context or {})}


def setup(app):
    app.connect("config-inited", _default_mode)
    # after the other extensions' handlers (priority 500), which may add a page's scripts
    app.connect("html-page-context", _scripts_once, priority=900)
    app.add_post_transform(ExecutionTableInWords)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
