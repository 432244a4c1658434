"""Book-level tests: everything collected under tests/book is marked `book`.

That includes the nbval items, one per cell of each executed copy in tests/book/notebooks/
(nbval executes every chapter once and compares its outputs with the committed ones). So
`pytest -m "not book"` is the fast inner loop (unit tests only) and `pytest -m book` runs the
book checks only.

The book is built once per test run (`built_book`, shared by the pytest-xdist workers, started
in the background as soon as the run is collected) from the committed executed copies, with
execution off (see book_build.stage_executed_book): a full test run executes every chapter
once, in nbval, not a second time in the build. nbval's kernels run on a narrower
floating-point path than the one that wrote the copies (perturbed.py), so that execution also
catches a printed number that depends on the last bits.
"""

import json
import os
import threading
from pathlib import Path

import pytest
from book_build import ROOT, BookBuild, build_book, stage_executed_book
from filelock import FileLock, Timeout

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
    try:
        staged = stage_executed_book(ROOT, tmp_path_factory.mktemp("staged_book"))
    except ValueError as missing:  # a chapter without its executed copy
        pytest.fail(str(missing), pytrace=False)
    return build_book(staged, tmp_path_factory.mktemp("book"))


def _shared(factory) -> Path:
    """The run's common temporary folder (the pytest-xdist workers' folders are inside it)."""
    shared = factory.getbasetemp()
    return shared.parent if "PYTEST_XDIST_WORKER" in os.environ else shared


def _build_once(factory, blocking: bool) -> None:
    """Build the book and save the outcome in the run's common folder, unless a worker has:
    the lock makes it one build per run. ``blocking=False``: give up at once where another
    worker holds the lock (it is building)."""
    shared = _shared(factory)
    lock = FileLock(shared / "built_book.lock")
    try:
        lock.acquire(timeout=-1 if blocking else 0)
    except Timeout:
        return
    try:
        outcome = shared / "built_book.json"
        if not outcome.is_file():
            build = _build_real_book(factory)
            saved = {"returncode": build.returncode, "log": build.log, "html": str(build.html)}
            outcome.write_text(json.dumps(saved))
    finally:
        lock.release()


def pytest_collection_finish(session):
    """Where this run will ask for ``built_book``, start the build now, in a thread (the build is
    a subprocess): its half minute then overlaps the unit tests instead of holding the first
    worker that needs it idle, and the other worker too while it waits (measured: 34 s and
    21 s). A build that fails here is built again, in the open, by the fixture."""
    if session.config.option.collectonly:
        return
    if any("built_book" in getattr(item, "fixturenames", ()) for item in session.items):
        factory = session.config._tmp_path_factory  # the tmp_path_factory fixture's own

        def build():
            try:
                _build_once(factory, blocking=False)
            except BaseException:  # noqa: BLE001 - the fixture builds again and reports it
                pass

        # not a daemon: a worker whose own tests end first still finishes the build it holds
        threading.Thread(target=build, name="built_book", daemon=False).start()


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> BookBuild:
    """The real book built with -W -n --keep-going from the chapters' executed copies, once
    per test run: the pytest-xdist workers share it (built under a lock in the run's common
    temporary folder, from the start of the run: :func:`pytest_collection_finish`; the others
    read its outcome)."""
    _build_once(tmp_path_factory, blocking=True)
    saved = json.loads((_shared(tmp_path_factory) / "built_book.json").read_text())
    return BookBuild(saved["returncode"], saved["log"], Path(saved["html"]))
