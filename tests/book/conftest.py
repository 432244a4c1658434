"""Book-level tests: everything collected under tests/book is marked `book`.

That includes the nbval items, one per cell of each executed copy in tests/book/notebooks/
(nbval executes every chapter once and compares its outputs with the committed ones). So
`pytest -m "not book"` is the fast inner loop (unit tests only) and `pytest -m book` runs the
book checks only.

The book is built once per test run (`built_book`, shared by the pytest-xdist workers) from the
committed executed copies, with execution off (see book_build.stage_executed_book): a full test
run executes every chapter once, in nbval, not a second time in the build. nbval's kernels run
on a narrower floating-point path than the one that wrote the copies (perturbed.py), so that
execution also catches a printed number that depends on the last bits.
"""

import json
import os
from pathlib import Path

import pytest
from book_build import ROOT, BookBuild, build_book, stage_executed_book
from filelock import FileLock

# nbval's kernels start on another floating-point path than the one that wrote the executed
# copies (see perturbed.py): a printed number that depends on the last bits fails its cell.
from perturbed import pytest_runtest_setup, pytest_unconfigure  # noqa: F401  (hooks)

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m deselection sees the items
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.resolve().is_relative_to(HERE):
            item.add_marker(pytest.mark.book)


def _build_real_book(tmp_path_factory) -> BookBuild:
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


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> BookBuild:
    """The real book built with -W -n --keep-going from the chapters' executed copies, once
    per test run: the pytest-xdist workers share it (the first to ask builds it under a lock
    in the run's common temporary folder, the others read its outcome)."""
    shared = tmp_path_factory.getbasetemp()
    if "PYTEST_XDIST_WORKER" in os.environ:
        shared = shared.parent  # pytest-of-<user>/pytest-<n>/, common to the workers
    outcome = shared / "built_book.json"
    with FileLock(shared / "built_book.lock"):
        if not outcome.is_file():
            build = _build_real_book(tmp_path_factory)
            saved = {"returncode": build.returncode, "log": build.log, "html": str(build.html)}
            outcome.write_text(json.dumps(saved))
    saved = json.loads(outcome.read_text())
    return BookBuild(saved["returncode"], saved["log"], Path(saved["html"]))
