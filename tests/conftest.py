"""Shared test set-up.

Matplotlib writes "building the font cache" to stderr the first time it is imported on a fresh
machine; nbval compares stderr, so the cache is built here, before any chapter kernel starts.

The book-level tests (the `book` marker) and their fixtures live in tests/book/conftest.py;
`pytest -m "not book"` runs the unit tests only.
"""

import os
import subprocess
import sys
from pathlib import Path

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

_NARROW_WARMING = pytest.StashKey[list]()


@pytest.hookimpl(trylast=True)  # after pytest's own set-up (its temporary folders)
def pytest_configure(config):
    """Under pytest-xdist, the controller compiles numba's kernels before the workers start
    (cotbook.book.kernel_cache), in two processes (one per core). On a fresh clone the workers,
    their chapter kernels and the subprocesses they start would otherwise each compile the same
    kernels, several at the same time; a warm cache is only loaded (about 2 s).

    The nbval kernels' narrower path (tests/book/perturbed.py) has its own cache, fresh in each
    run and shared by the workers: the controller fills it too, in the background while the
    workers start and collect (a chapter kernel that needs a kernel before it is written
    compiles it, as it would without)."""
    if "PYTEST_XDIST_WORKER" in os.environ or not config.getoption("numprocesses", None):
        return
    sys.path.insert(0, str(Path(__file__).parent / "book"))
    import perturbed

    from cotbook.book.execution import ONE_THREAD

    narrow = perturbed.shared_numba_cache(config._tmp_path_factory.getbasetemp())
    narrow.mkdir(exist_ok=True)

    def warm(env):
        code = "from cotbook.book import kernel_cache; kernel_cache.warm({!r})"
        return [
            subprocess.Popen([sys.executable, "-c", code.format(groups)], env={**os.environ, **env})
            for groups in (("attention",), ("theory", "ridge"))
        ]

    for process in warm(ONE_THREAD):  # a failure shows again, by name, in the tests that call it
        process.wait()
    config.stash[_NARROW_WARMING] = warm(perturbed.environment(narrow))


def pytest_unconfigure(config):
    for process in config.stash.get(_NARROW_WARMING, []):
        process.wait()


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
