"""Book-level tests: everything collected under tests/book is marked `book`.

That includes the nbval items, one per cell of each executed copy in tests/book/notebooks/
(nbval executes every chapter once and compares its outputs with the committed ones). So
`pytest -m "not book"` is the fast inner loop (unit tests only) and `pytest -m book` runs the
book checks only.

The book is built once per session (`built_book`) from the committed executed copies, with
execution off (see book_build.stage_executed_book): a full test run executes every chapter once,
in nbval, not a second time in the build.
"""

from pathlib import Path

import pytest
from book_build import ROOT, BookBuild, build_book, stage_executed_book

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m deselection sees the items
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.resolve().is_relative_to(HERE):
            item.add_marker(pytest.mark.book)


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> BookBuild:
    """The real book built with -W -n --keep-going from the chapters' executed copies."""
    from cotbook.book import chapters

    executed = {}
    for chapter in chapters.chapter_paths(ROOT):
        copy = chapters.executed_copy(ROOT, chapter)
        if not copy.is_file():
            pytest.fail(
                f"missing {copy}: run `python -m cotbook chapters {chapter.stem}`", pytrace=False
            )
        executed[chapter] = copy
    staged = stage_executed_book(ROOT, tmp_path_factory.mktemp("staged_book"), executed)
    return build_book(staged, tmp_path_factory.mktemp("book"))
