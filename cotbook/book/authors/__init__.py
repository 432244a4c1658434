"""The paper authors' runs: their released files as a checked record, their script rerun, and
the book's runs set against both.

The authors released their measurement files at ``taka255/cot_asymptotics@1ed6569``;
:mod:`.manifest` checks each against its git blob id and keeps them, byte for byte, as the
record ``authors_released``, which :mod:`.runs` parses into named views (:func:`release`,
:func:`run`; those names are on this face).  Their training script itself is run by
:mod:`cotbook.book.authors_script` (it stays outside this package: it is the root of the
record ``authors_reruns``), whose runs :mod:`.rerun` grows and checks as a record.
:mod:`.versus` sets the book's runs of their protocol beside their released values, and
:mod:`.floors` the book's trainer beside their script, cell by cell.

Modules (each has one job):

- :mod:`.manifest` -- the authors' released files: manifest, checked record.
- :mod:`.runs`     -- the authors' released runs, parsed into named views.
- :mod:`.rerun`    -- the record of their script's runs, grown command by command.
- :mod:`.versus`   -- the book's runs of their protocol against their released ones.
- :mod:`.floors`   -- the book's trainer and their script, cell by cell: floors, shares, tests.
"""

from __future__ import annotations

from ... import _lazy

#: Every public name of the package, with the module that defines it (imported on first use).
_LAZY = {
    "MARKER_CHANGE": "cotbook.book.authors.runs",
    "HEATMAPS": "cotbook.book.authors.runs",
    "DYNAMICS": "cotbook.book.authors.runs",
    "LEARNED": "cotbook.book.authors.runs",
    "RunConfig": "cotbook.book.authors.runs",
    "Run": "cotbook.book.authors.runs",
    "Heatmap": "cotbook.book.authors.runs",
    "DynamicsCurve": "cotbook.book.authors.runs",
    "Dynamics": "cotbook.book.authors.runs",
    "Learned": "cotbook.book.authors.runs",
    "Release": "cotbook.book.authors.runs",
    "release": "cotbook.book.authors.runs",
    "run": "cotbook.book.authors.runs",
    "manifest": "cotbook.book.authors.manifest",
    "runs": "cotbook.book.authors.runs",
    "rerun": "cotbook.book.authors.rerun",
    "versus": "cotbook.book.authors.versus",
    "floors": "cotbook.book.authors.floors",
}

__all__ = list(_LAZY)
__getattr__, __dir__ = _lazy.face(globals(), _LAZY)
