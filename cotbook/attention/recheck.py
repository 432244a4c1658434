"""Fresh trials of the authors' protocol in the cells where their value fell outside the
book's three.

The committed ``authors_protocol`` record (:mod:`cotbook.attention.protocol`, three trials a
cell) puts the authors' single released value outside the 95% prediction interval of one more
of the book's trials at some ``t <= 10`` (:func:`cotbook.attention.released.cells_versus`) in
the cells of :data:`CELLS`.  Three trials estimate a spread poorly, and the cells were chosen
*because* their value fell outside it; the fair second look is a set of new trials drawn after
the choice.  :data:`SCALES` ``"paper"`` trains :data:`TRIALS` more models in each of those
cells under the same settings (:data:`cotbook.attention.protocol.RELEASED_SETTINGS`) from the
root seed :data:`SEED` (the ``authors_protocol`` record's is 0), so no new trial repeats an
old one.  The study is a :class:`cotbook.attention.protocol.ProtocolSpec` run by
:mod:`cotbook.attention.protocol` itself: ``python -m cotbook experiments --scale paper --only
recheck`` (record ``authors_recheck``).
"""

from __future__ import annotations

from .protocol import RELEASED_SETTINGS, ProtocolSpec

__all__ = ["CELLS", "TRIALS", "SEED", "SCALES"]

CELLS = {
    "linear": (
        (38, 400),
        (94, 38),
        (94, 66),
        (94, 233),
        (121, 10),
        (121, 400),
        (149, 316),
        (177, 316),
        (205, 400),
        (233, 94),
        (233, 233),
        (261, 38),
        (261, 121),
        (289, 400),
        (344, 94),
        (344, 316),
        (372, 66),
        (400, 121),
    ),
    "softmax": ((27, 1000), (100, 1000), (518, 1000), (1000, 100)),
}
"""``(L, M)`` of each model where the committed ``authors_protocol`` record (paper scale)
puts their released value outside the 95% interval at some ``t <= 10`` (a test recomputes
this list from the two committed records)."""

TRIALS = 5
"""New trials per cell: with the record's three, eight draws of the protocol."""

SEED = 1
"""The root seed of the new trials (:class:`cotbook.attention.layer.Config` ``seed``)."""

SCALES = {
    "tiny": ProtocolSpec(
        {"linear": [(10, 20)], "softmax": [(10, 20)]},
        trials=2,
        t_max=4,
        settings=dict(RELEASED_SETTINGS, D=8, steps=20, seed=SEED),
    ),
    "paper": ProtocolSpec(
        {model: list(cells) for model, cells in CELLS.items()},
        trials=TRIALS,
        settings=dict(RELEASED_SETTINGS, seed=SEED),
    ),
}
"""``tiny`` for tests; ``paper`` (the committed record): :data:`TRIALS` trials in every cell of
:data:`CELLS`, about 40 min of unit time (measured per cell from the ``authors_protocol``
record's units)."""
