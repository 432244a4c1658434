"""The book builds with zero warnings (Sphinx -W, nitpicky), renders math offline, offers every
chapter as its executed notebook, and has no launch button into a wrong repository.

The book is built once per session by the `built_book` fixture (tests/book/conftest.py), from
the chapters' executed copies with execution off.
"""

import json
import re

import nbformat
import pytest
import yaml
from book_build import ROOT, stage_executed_book

from cotbook.book.build import chapters
from cotbook.book.sphinx.notebooks import has_real_repository


def test_book_builds_without_warnings(built_book):
    log = built_book.log
    assert built_book.returncode == 0, log[-5000:]
    # Sphinx reports "path:line: WARNING: ..."; -W already turns these into a failed build.
    assert "WARNING:" not in log, log[-5000:]
    html = built_book.html
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()  # MathJax bundled
    page = (html / "book" / "model.html").read_text()
    assert "mathjax/tex-chtml.js" in page and "cdn.jsdelivr" not in page
    assert page.count("<img alt=") >= 2  # the chapter's figures were executed and embedded


def test_book_build_executes_nothing(built_book):
    """The build renders the committed executed copies; nbval is where the chapters execute."""
    assert "execution_mode='off'" in built_book.log, built_book.log[-3000:]
    assert "Executed notebook" not in built_book.log and "Executing notebook" not in built_book.log


def test_stage_executed_book(tmp_path):
    chapter = chapters.chapter_paths(ROOT)[1]
    copy = chapters.executed_copy(ROOT, chapter)
    staged = stage_executed_book(ROOT, tmp_path / "staged", {chapter: copy})
    rel = chapter.relative_to(ROOT)
    assert not (staged / rel).exists()
    notebook = json.loads((staged / rel.with_suffix(".ipynb")).read_text())
    source_map = notebook["metadata"].pop("source_map")
    assert notebook == json.loads(copy.read_text())  # the executed copy, and where its cells are
    # the chapter's line (1-based) where each cell starts: a code cell, at its fence
    lines = chapter.read_text().splitlines()
    cells = zip(source_map, notebook["cells"], strict=True)
    code = [n for n, cell in cells if cell["cell_type"] == "code"]
    assert code and all(lines[n - 1].startswith("```{code-cell}") for n in code)
    assert (staged / "book" / "references.bib").is_file()
    config = yaml.safe_load((staged / "_config.yml").read_text())
    real = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["execute"]["execute_notebooks"] == "off"
    assert config["sphinx"] == real["sphinx"]
    with pytest.raises(ValueError, match="no executed notebook"):
        stage_executed_book(ROOT, tmp_path / "other", {chapter: tmp_path / "missing.ipynb"})
    with pytest.raises(ValueError, match="dest must be a new or empty folder"):
        stage_executed_book(ROOT, staged, {chapter: copy})
    # a copy that lost a cell the chapter has is staged as it is (the drift test names it)
    stale = tmp_path / "stale.ipynb"
    stale.write_text(json.dumps({**notebook, "cells": notebook["cells"][1:]}))
    third = stage_executed_book(ROOT, tmp_path / "third", {chapter: stale})
    assert json.loads((third / rel.with_suffix(".ipynb")).read_text()) == json.loads(
        stale.read_text()
    )


# Every page of the book is a notebook chapter (test_chapters.py keeps an executed copy of each).
NOTEBOOK_CHAPTERS = [
    p.relative_to(ROOT).with_suffix("").as_posix() for p in chapters.chapter_paths(ROOT)
]
# sphinx-book-theme's download menu entry for the notebook
NOTEBOOK_LINK = re.compile(r'<a href="([^"]+)"[^>]*class="[^"]*btn-download-notebook-button')


def test_chapters_found():
    assert len(NOTEBOOK_CHAPTERS) >= 13, NOTEBOOK_CHAPTERS


@pytest.mark.parametrize("chapter", NOTEBOOK_CHAPTERS)
def test_chapter_downloads_as_executed_notebook(built_book, chapter):
    page = built_book.html / f"{chapter}.html"
    links = NOTEBOOK_LINK.findall(page.read_text())
    assert len(links) == 1, f"{chapter}.html: no .ipynb entry in the download menu"
    target = (page.parent / links[0]).resolve()
    assert target.is_relative_to(built_book.html.resolve()) and target.is_file(), (
        f"{chapter}.html: the .ipynb download {links[0]} is not in the build"
    )
    notebook = nbformat.read(target, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    # intro and references hold prose only; every chapter with code shows its executed outputs
    if code:
        assert any(cell.get("outputs") for cell in code), (
            f"{links[0]}: the downloaded notebook has no executed output"
        )


def test_no_launch_button_into_a_wrong_repository(built_book):
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    url = (config.get("repository") or {}).get("url")
    pages = sorted(built_book.html.rglob("*.html"))
    assert pages
    for page in pages:
        text = page.read_text()
        assert "executablebooks/jupyter-book" not in text, page
        if not has_real_repository(url):
            assert "mybinder.org" not in text and "launch-buttons" not in text, page


def test_has_real_repository():
    assert not has_real_repository(None)
    assert not has_real_repository("")
    assert not has_real_repository("https://github.com/executablebooks/jupyter-book/")
    assert has_real_repository("https://github.com/example-org/cotbook")
    with pytest.raises(ValueError, match="repository_url"):
        has_real_repository(42)


def test_figures_carry_only_the_papers_numbers(built_book):
    """No "Fig. N" of the book's own beside a caption that names the paper's figure
    (cotbook_figure_numbers: false, applied by cotbook.book.sphinx.notebooks)."""
    pages = sorted((built_book.html / "book").glob("*.html"))
    numbered = [p.name for p in pages if 'class="caption-number">Fig.' in p.read_text()]
    assert not numbered, f"book figure numbers on {numbered}"
    assert (
        "The paper’s Figure 1A, regenerated"
        in (built_book.html / "book" / "phase_diagram.html").read_text()
    )


def test_every_page_names_its_code_and_licences(built_book):
    from cotbook import __version__
    from cotbook.book import records

    commit = records.code_info()["commit"]
    pages = sorted((built_book.html / "book").glob("*.html"))
    assert len(pages) >= len(chapters.chapter_paths(ROOT))
    for page in pages:
        text = page.read_text()
        assert f"Built by cotbook {__version__}" in text, page.name
        assert commit is None or f"git {commit[:7]}" in text, page.name
        assert "code BSD-3-Clause" in text and "CC BY 4.0</a>" in text, page.name
        assert "how to cite: the introduction" in text, page.name
    intro = (built_book.html / "book" / "intro.html").read_text()
    assert 'id="how-to-cite"' in intro  # the section the footer names


def test_pasted_subscripts_are_typeset_and_caveats_not_bold(built_book):
    """The report's Result 2 caveat, glued as plain "τ_c ... E_t", reaches the page as math
    (cotbook.book.sphinx.pasted), and no pasted text keeps a subscript's underscore."""
    import re

    from cotbook.book.sphinx.pasted import SUBSCRIPTED

    report = (built_book.html / "book" / "reproduction_report.html").read_text()
    typeset = re.sub(r'<span class="math[^"]*">.*?</span>', "<MATH>", report, flags=re.S)
    pasted = re.findall(r'<span class="pasted-text">(.*?)</span>', typeset, flags=re.S)
    assert pasted, "no pasted glue text on the report page"
    assert not [p for p in pasted if SUBSCRIPTED.search(p)]
    assert any("<MATH>" in p for p in pasted) and r"\(\tau_{c}\)" in report
    # caveats are sentences: in the text's weight, not myst-nb's bold for pasted values
    caveats = re.findall(r'<span class="glued-caveats"><span class="pasted-text">', report)
    source = (ROOT / "book" / "reproduction_report.md").read_text()
    assert len(caveats) == source.count("_caveats:s`") >= 5
    assert 'href="../_static/cotbook-pasted.css' in report
    css = (built_book.html / "_static" / "cotbook-pasted.css").read_text()
    assert "span.glued-caveats span.pasted-text" in css and "font-weight: normal" in css


# The last part of the table of contents is reference material (running the book, its records,
# the API, the references): its pages have no finding to lead with.
REFERENCE_PART = "Running and extending"
HOUR_PART = "The paper in an hour"


def _parts() -> dict[str, list[str]]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return {part["caption"]: [c["file"] for c in part["chapters"]] for part in toc["parts"]}


def test_the_book_opens_with_the_hour_path():
    parts = _parts()
    assert list(parts)[0] == HOUR_PART and list(parts)[-1] == REFERENCE_PART
    assert parts[HOUR_PART][0] == "book/summary"  # the one-page summary, first after the intro
    assert parts[HOUR_PART][-1] == "book/reproduction_report"


def test_every_chapter_leads_with_its_finding(built_book):
    """The first thing after a chapter's title is its "What this chapter finds" box."""
    pages = ["book/intro"] + [
        page for part, files in _parts().items() if part != REFERENCE_PART for page in files
    ]
    missing = []
    for page in pages:
        html = (built_book.html / f"{page}.html").read_text()
        # the chapter's own title: the <h1> with a permalink (the print header's has none)
        title = re.search(r"<h1>.*?class=\"headerlink\".*?</h1>", html, flags=re.S)
        after_title = html[title.end() :] if title else ""
        first = re.search(r"<(?:div|p|section|table|figure|ul|ol|pre|img)\b[^>]*>", after_title)
        classes = re.search(r'class="([^"]*)"', first.group(0)) if first else None
        if not classes or not {"admonition", "finding"} <= set(classes.group(1).split()):
            missing.append(page)
    assert not missing, f"chapters that do not open with their finding: {missing}"
