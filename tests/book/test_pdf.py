"""The book as one PDF (cotbook.book.pdf, ``python -m cotbook pdf``): printed from the built
HTML in reading order, with its chapter titles, bookmarks and no blank page. Three chapters
are printed here (the whole book takes minutes); the command is the same."""

import pytest
from pypdf import PdfReader

from cotbook import cli
from cotbook.book import pdf


@pytest.fixture(scope="module")
def printed(built_book, tmp_path_factory):
    if pdf.find_chromium() is None:
        pytest.fail("Chromium is needed to print the book (apt-get install chromium)")
    order = pdf.reading_order(built_book.html)
    pages = [order[0], order[1], order[-1]]  # the introduction, a chapter, the references
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


def test_bad_input_is_refused(tmp_path):
    with pytest.raises(ValueError, match="html_dir must hold the built book"):
        pdf.reading_order(tmp_path)
    with pytest.raises(ValueError, match="at least one"):
        pdf.build(tmp_path, tmp_path / "x.pdf", pages=[])
    with pytest.raises(SystemExit):
        cli.main(["pdf", "--jobs", "0"])
