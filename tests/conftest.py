"""Shared test set-up.

Matplotlib writes "building the font cache" to stderr the first time it is imported on a fresh
machine; nbval compares stderr, so the cache is built here, before any chapter kernel starts.

The book-level tests (the `book` marker) and their fixtures live in tests/book/conftest.py;
`pytest -m "not book"` runs the unit tests only.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.font_manager  # noqa: E402,F401  (builds the font cache)
import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
