"""Shared test set-up.

The book is built once per test session (`built_book`); the build test and the browser test
both read that build.

Matplotlib writes "building the font cache" to stderr the first time it is imported on a fresh
machine; nbval compares stderr, so the cache is built here, before any chapter kernel starts.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.font_manager  # noqa: E402,F401  (builds the font cache)
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from book_build import ROOT, build_book  # noqa: E402


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def built_book(tmp_path_factory):
    """The real book, built once per session with -W -n --keep-going (executes every chapter)."""
    return build_book(ROOT, tmp_path_factory.mktemp("book"))
