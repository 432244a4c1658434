"""The order in which a test run hands out its files (tests/conftest.py): slowest first.

pytest-xdist gives whole files to the workers in the collection's order (with
``--no-loadscope-reorder``, pyproject.toml), a file to whichever worker is free. Taken slowest
first by their measured test-seconds (the committed record of a whole run, ``python -m cotbook
bench tests``), each worker's last files are short ones and the two finish together (the
longest-first rule); xdist's own order (the files with the most tests first) left the three
slowest, about 100 s each, near the end.
"""

from __future__ import annotations

import math


def slowest_first(files: list[str], seconds: dict[str, float]) -> list[int]:
    """The positions of the collected items, given each one's file (``files``, in collection
    order), in the order to run them: files by their ``seconds``, largest first (a file not
    measured first of all: it may be slow), ties in collection order, each file's items
    together and in their own order."""
    first: dict[str, int] = {}
    for i, name in enumerate(files):
        first.setdefault(name, i)
    return sorted(
        range(len(files)), key=lambda i: (-seconds.get(files[i], math.inf), first[files[i]])
    )
