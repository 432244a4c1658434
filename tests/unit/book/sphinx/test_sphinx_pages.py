"""The book's Sphinx extension for clean pages: each script once, a valid theme mode, the
status table in words."""

from types import SimpleNamespace

from docutils import nodes
from myst_nb.ext.execution_tables import make_stat_table
from sphinx.builders.html._assets import _JavaScript

from cotbook.book.sphinx import pages as sphinx_pages


def test_a_script_is_kept_once_whether_its_file_is_none_or_empty():
    body = {"body": "const THEBE_JS_URL = 'x'"}
    scripts = [
        _JavaScript("_static/a.js", priority=200),
        _JavaScript(None, priority=500, **body),  # as the builder keeps it
        _JavaScript("_static/b.js", priority=500, **{"async": "async"}),
        _JavaScript("", priority=500, **body),  # the registry's copy, added before writing
        _JavaScript("_static/a.js", priority=800),  # another priority: another script
    ]
    kept = sphinx_pages.unique_scripts(scripts)
    assert kept == [scripts[0], scripts[1], scripts[2], scripts[4]]


def test_the_theme_mode_defaults_to_auto_and_a_chosen_one_is_kept():
    config = SimpleNamespace(html_context={"github_user": "x"})
    sphinx_pages._default_mode(None, config)
    assert config.html_context == {"default_mode": "auto", "github_user": "x"}
    chosen = SimpleNamespace(html_context={"default_mode": "light"})
    sphinx_pages._default_mode(None, chosen)
    assert chosen.html_context == {"default_mode": "light"}


def test_the_execution_table_says_ok_or_failed_in_words():
    run = {"mtime": 0.0, "method": "cache", "runtime": 1.5}
    data = {
        "book/a": {"exec_data": {**run, "succeeded": True}},
        "book/b": {"exec_data": {**run, "succeeded": False, "error": "ZeroDivisionError"}},
    }
    table = sphinx_pages.status_in_words(make_stat_table("book/status", data))
    rows = list(table.findall(nodes.row))[1:]  # (the first is the header)
    assert [row.children[-1].astext() for row in rows] == ["ok", "failed"]
    assert not {"\u2705", "\u274c"} & set(table.astext())
    failed = next(rows[1].children[-1].findall(nodes.abbreviation))
    assert failed["explanation"] == "ZeroDivisionError"
