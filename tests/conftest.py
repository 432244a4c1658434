"""Shared test set-up.

Matplotlib writes "building the font cache" to stderr the first time it is imported on a fresh
machine; nbval compares stderr, so the cache is built here, before any chapter kernel starts.

The book-level tests (the `book` marker) and their fixtures live in tests/book/conftest.py;
`pytest -m "not book"` runs the unit tests only.
"""

import os
import subprocess
import sys

# The README's test command runs two pytest-xdist workers on two cores. Each worker, and every
# chapter kernel it starts, keeps numba, OpenMP and BLAS on one thread (read when numba is first
# imported, so set here, before): two processes each spinning two OpenMP threads on two cores
# made single tests up to ten times slower.
if "PYTEST_XDIST_WORKER" in os.environ:
    from cotbook.book.execution import ONE_THREAD  # what a cluster worker gets; imports no numba

    for var, value in ONE_THREAD.items():
        os.environ.setdefault(var, value)

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.font_manager  # noqa: E402,F401  (builds the font cache)
import numpy as np  # noqa: E402
import pytest  # noqa: E402


def pytest_configure(config):
    """Under pytest-xdist, the controller compiles numba's kernels once, in two processes (one
    per core), before the workers start (cotbook.book.kernel_cache). On a fresh clone the
    workers, their chapter kernels and the subprocesses they start would otherwise each compile
    the same kernels, several at the same time; a warm cache is only loaded (about 2 s)."""
    if "PYTEST_XDIST_WORKER" in os.environ or not config.getoption("numprocesses", None):
        return
    from cotbook.book.execution import ONE_THREAD

    env = {**os.environ, **ONE_THREAD}
    code = "from cotbook.book import kernel_cache; kernel_cache.warm({!r})"
    warming = [
        subprocess.Popen([sys.executable, "-c", code.format(groups)], env=env)
        for groups in (("attention",), ("theory", "ridge"))
    ]
    for process in warming:  # a failure here shows again, by name, in the tests that call it
        process.wait()


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
