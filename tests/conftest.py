"""Shared test set-up.

Matplotlib writes "building the font cache" to stderr the first time it is imported on a fresh
machine; nbval compares stderr, so the cache is built here, before any chapter kernel starts.

The book-level tests (the `book` marker) and their fixtures live in tests/book/conftest.py;
`pytest -m "not book"` runs the unit tests only.
"""

import os
import shutil
from pathlib import Path

# The README's test command runs two pytest-xdist workers on two cores. Each worker, and every
# chapter kernel it starts, keeps numba, OpenMP and BLAS on one thread (read when numba is first
# imported, so set here, before): two processes each spinning two OpenMP threads on two cores
# made single tests up to ten times slower.
if "PYTEST_XDIST_WORKER" in os.environ:
    # what a cluster worker gets; imports no numba
    from cotbook.book.runs.execution import ONE_THREAD

    for var, value in ONE_THREAD.items():
        os.environ.setdefault(var, value)

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.font_manager  # noqa: E402,F401  (builds the font cache)
import numpy as np  # noqa: E402
import pytest  # noqa: E402

_WARMUP = pytest.StashKey[tuple]()


def pytest_configure(config):
    """Under pytest-xdist, the controller starts the numba warm-up (tests/warmup.py) before the
    workers start; they collect the tests meanwhile and wait for it before their first test."""
    if "PYTEST_XDIST_WORKER" in os.environ or not config.getoption("numprocesses", None):
        return
    import warmup

    from cotbook.book.runs.execution import ONE_THREAD

    folder, processes = warmup.start({**os.environ, **ONE_THREAD})
    os.environ[warmup.VARIABLE] = str(folder)  # the workers inherit it
    config.stash[_WARMUP] = (folder, processes)


def pytest_collection_finish(session):
    """A worker runs its first test once the warm-up has compiled the kernels (a failure there
    shows again, by name, in the tests that call them)."""
    if "PYTEST_XDIST_WORKER" in os.environ:
        import warmup

        warmup.wait()


def pytest_collection_modifyitems(config, items):
    """The test files slowest first, by the committed record of a run (tests/file_order.py)."""
    from cotbook.book import records

    try:
        record = records.load("test_suite")
    except records.ResultError:  # a damaged record fails its own test, not the collection
        return
    if record is None or not items:
        return
    import file_order

    root = Path(__file__).resolve().parent.parent
    files = [item.path.resolve().relative_to(root).as_posix() for item in items]
    items[:] = [items[i] for i in file_order.slowest_first(files, record.data["files"])]


def pytest_unconfigure(config):
    folder, processes = config.stash.get(_WARMUP, (None, ()))
    for process in processes:
        process.wait()
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
