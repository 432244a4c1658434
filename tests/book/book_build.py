"""Building Jupyter Books from the tests: the real book and tiny test books.

The tests never execute the chapters inside the book build: nbval already executes each
chapter's committed executed copy (``tests/book/notebooks/<name>.ipynb``) and compares its
outputs, and the drift test checks that the copy's cells are the chapter's cells. So the book is
built as a reader builds it (``python -m cotbook build``): from a staged copy in which every
chapter is its executed copy and execution is off (:mod:`cotbook.book.build.read_build`); every
other setting (``-W -n --keep-going``, the Sphinx configuration, the extensions) is the real
book's.
"""

from pathlib import Path

from cotbook.book.build.read_build import BookBuild  # noqa: F401 (the tests import it from here)
from cotbook.book.build.read_build import run_jupyter_book as build_book  # noqa: F401
from cotbook.book.build.read_build import stage as stage_executed_book  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
