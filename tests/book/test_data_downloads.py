"""What a reader takes away from the built book: the data behind each regenerated figure and the
reproduction report as JSON (cotbook.book.sphinx.data), checked on the `built_book` fixture."""

import csv
import io
import json
import re

import nbformat
from book_build import ROOT

from cotbook.book import downloads, ledger, report_file
from cotbook.book.build import chapters

DATA_LINK = re.compile(r'href="(data/[^"]+)"')
# The paper's figures the book regenerates, each with its data offered beside it: the chapter
# and the start of a file name it offers.
PAPER_FIGURES = {
    "Figure 1A": ("phase_diagram", "figure1a"),
    "Figure 1B": ("phase_diagram", "figure1b"),
    "Figure 1C": ("phase_diagram", "figure1c"),
    "Figure 2": ("attention_experiments", "figure2"),
    "Appendix A figure": ("parameter_structure", "appendix-a"),
    "Appendix E figure": ("theory_vs_simulation", "appendix-e"),
}


def _offered(chapter):
    """``{name: content}`` of every file offered in the executed copy of ``chapter``."""
    nb = nbformat.read(chapters.executed_copy(ROOT, ROOT / "book" / f"{chapter}.md"), 4)
    return {
        meta["name"]: meta["content"]
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if (meta := out.get("metadata", {}).get(downloads.KEY))
    }


def test_every_data_link_of_every_page_is_in_the_build(built_book):
    links = 0
    for page in sorted((built_book.html / "book").glob("*.html")):
        for href in DATA_LINK.findall(page.read_text()):
            target = page.parent / href
            assert target.is_file() and target.stat().st_size > 0, f"{page.name}: {href} missing"
            links += 1
    assert links >= len(PAPER_FIGURES) + 1


def test_each_regenerated_paper_figure_offers_its_data(built_book):
    for figure, (chapter, stem) in PAPER_FIGURES.items():
        offered = _offered(chapter)
        names = [name for name in offered if name.startswith(stem)]
        assert names, f"{figure}: {chapter} offers no file named {stem}*"
        for name in names:
            built = (built_book.html / "book" / "data" / name).read_text()
            assert built == offered[name], f"{name}: the build's file is not the chapter's"
            if name.endswith(".csv"):
                rows = list(csv.reader(io.StringIO(built)))
                assert len(rows) > 2 and all(len(r) == len(rows[0]) for r in rows), name
                float(rows[1][-1])  # numbers, not reprs
            else:
                assert json.loads(built), name


def test_reproduction_report_json_is_the_ledger(built_book):
    document = json.loads(
        (built_book.html / "book" / "data" / "reproduction_report.json").read_text()
    )
    markdown = (ROOT / "book" / "reproduction_report.md").read_text()
    rows = document["rows"]
    assert len(rows) == len(report_file.ledger_rows(markdown))
    glued = {
        p.stem: report_file.glued_values(nbformat.read(p, as_version=4))
        for p in sorted((ROOT / chapters.NOTEBOOK_DIR).glob("*.ipynb"))
    }
    for row in rows:
        assert row["verdict"] in ledger.VERDICTS, row["item"]
        assert (built_book.html / row["page"]).is_file(), row["page"]
        for ref, value in row["measured_values"].items():
            chapter, key = ref.split("::")
            assert glued[chapter][key] == value
    assert document["code"]["version"] and "commit" in document["code"]
    page = (built_book.html / "book" / "reproduction_report.html").read_text()
    assert 'href="data/reproduction_report.json"' in page
    assert 'src="data/verdict_summary.png"' in page
    png = (built_book.html / "book" / "data" / "verdict_summary.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
