"""Building the book: the chapters executed, the pages built from them, the book as a PDF.

:mod:`.chapters` executes each chapter deterministically into its executed copy (the nbval
copies under ``tests/book/notebooks/``); :mod:`.read_build` builds the readable book from those
copies (or executes afresh); :mod:`.pdf` prints the built pages into one PDF.

Modules (each has one job):

- :mod:`.chapters`   -- deterministic execution of the chapters (the nbval copies).
- :mod:`.read_build` -- the readable book from the executed chapters.
- :mod:`.pdf`        -- the book as one PDF.
"""

from __future__ import annotations

from ... import _lazy

#: Every public name of the package, with the module that defines it (imported on first use).
_LAZY = {
    "chapters": "cotbook.book.build.chapters",
    "read_build": "cotbook.book.build.read_build",
    "pdf": "cotbook.book.build.pdf",
}

__all__ = list(_LAZY)
__getattr__, __dir__ = _lazy.face(globals(), _LAZY)
