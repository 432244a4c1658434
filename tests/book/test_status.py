"""The status page (book/status.md): each page's execution time in the build that executed it
(myst-nb's nb-exec-table) and the machine (cotbook.book.status)."""

import re

import jupytext
import nbformat
import yaml
from book_build import ROOT, build_book

from cotbook.book import status


def _page(title: str, *extra: str) -> str:
    """A MyST notebook (jupytext) titled ``title`` with one code cell, then ``extra`` Markdown."""
    kernelspec = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook = nbformat.v4.new_notebook(metadata={"kernelspec": kernelspec})
    notebook.cells = [
        nbformat.v4.new_markdown_cell(f"# {title}"),
        nbformat.v4.new_code_cell(f'print("{title} executed")'),
        *(nbformat.v4.new_markdown_cell(text) for text in extra),
    ]
    return jupytext.writes(notebook, fmt="md:myst")


def _rows(html: str) -> list[list[str]]:
    body = re.search(r"<tbody>(.*?)</tbody>", html, flags=re.S)
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body.group(1) if body else "", flags=re.S)
    return [[re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)]
            for r in rows]


def test_status_page_shows_the_machine(built_book):
    page = (built_book.html / "book" / "status.html").read_text()
    assert "Run Time (s)" in page  # the execution table (empty: the test build executes nothing)
    for lib in status.LIBRARIES:
        assert f"<td class=\"text-left\"><p>{lib}</p></td>" in page, lib
    assert "processor" in page and "device" in page


def test_an_executing_build_fills_the_table(tmp_path):
    """A two-page book built with the book's execution settings and extensions: the status
    table lists both executed pages with a run time and "ok" (in words: cotbook.book.sphinx.pages,
    not myst-nb's emoji, which need a font the book does not ship)."""
    real = yaml.safe_load((ROOT / "_config.yml").read_text())
    config = {
        "title": "tiny",
        "only_build_toc_files": True,
        "exclude_patterns": [".*", "**/.*", "_build"],
        "execute": real["execute"],
        "sphinx": {"extra_extensions": real["sphinx"]["extra_extensions"]},
    }
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config))
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: one\nchapters:\n  - file: two\n")
    (tmp_path / "one.md").write_text(_page("One", "```{nb-exec-table}\n```"))
    (tmp_path / "two.md").write_text(_page("Two"))
    build = build_book(tmp_path, tmp_path / "out", timeout_s=300)
    assert build.returncode == 0, build.log[-3000:]
    rows = _rows((build.html / "one.html").read_text())
    assert [r[0] for r in rows] == ["one", "two"], rows
    for row in rows:
        assert float(row[3]) >= 0 and row[4] == "ok", row
