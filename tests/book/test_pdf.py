"""The book as one PDF (cotbook.book.build.pdf, ``python -m cotbook pdf``): printed from the built
HTML in reading order, with its chapter titles, bookmarks and no blank or near-blank page.
Four pages are printed here (the introduction, the summary, the reproduction report and the
references; the whole book takes minutes); the command is the same."""

import pytest
from pypdf import PdfReader

from cotbook import cli
from cotbook.book.build import pdf

NEAR_BLANK = 150  # characters of text: a page with fewer holds a line or two


@pytest.fixture(scope="module")
def printed(built_book, tmp_path_factory):
    if pdf.find_chromium() is None:
        pytest.fail("Chromium is needed to print the book (apt-get install chromium)")
    order = pdf.reading_order(built_book.html)
    report = built_book.html / "book" / "reproduction_report.html"  # its ledger runs pages long
    pages = [order[0], order[1], report, order[-1]]  # the intro, the summary, ..., references
    out = tmp_path_factory.mktemp("pdf") / "book.pdf"
    return pages, pdf.build(built_book.html, out, pages=pages)


def test_reading_order_is_the_table_of_contents(built_book):
    order = pdf.reading_order(built_book.html)
    assert [p.relative_to(built_book.html).as_posix() for p in order[:2]] == [
        "book/intro.html",
        "book/summary.html",
    ]
    assert len(order) >= 20 and len(set(order)) == len(order)


def test_the_pdf_holds_each_chapter_with_its_title_and_no_blank_page(printed):
    pages, out = printed
    reader = PdfReader(out)
    titles = [pdf.chapter_title(p) for p in pages]
    assert [o.title for o in reader.outline] == titles
    text = [page.extract_text() for page in reader.pages]
    assert len(reader.pages) >= len(pages)
    squeezed = ["".join(t.split()) for t in text]  # extraction splits words at kerning
    for title in titles:
        assert any("".join(title.split()[:3]) in t for t in squeezed), title
    blank = [k for k, t in enumerate(text) if not t.strip() and not reader.pages[k].images]
    assert not blank, f"blank pages {blank}"
    # a page with a few lines and no figure, except where a chapter ends: a break gone wrong
    ends = {reader.get_destination_page_number(o) - 1 for o in reader.outline[1:]}
    ends.add(len(reader.pages) - 1)
    near = [
        k
        for k, t in enumerate(squeezed)
        if len(t) < NEAR_BLANK and k not in ends and not reader.pages[k].images
    ]
    assert not near, f"near-blank pages {near}: {[text[k] for k in near]}"


def test_bad_input_is_refused(tmp_path):
    with pytest.raises(ValueError, match="html_dir must hold the built book"):
        pdf.reading_order(tmp_path)
    with pytest.raises(ValueError, match="at least one"):
        pdf.build(tmp_path, tmp_path / "x.pdf", pages=[])
    with pytest.raises(SystemExit):
        cli.main(["pdf", "--jobs", "0"])
