"""The book's trainer at the cells where it is set beside the authors' own script.

The comparison of the two implementations (chapter *Two implementations, one protocol*) was
fixed before any of its runs: the cells of :data:`CELLS` -- the six at ``M = 400`` and ``L >=
4D`` where the trained models stop at one of two floors, and four at small ``L`` where the
authors' released value lay above every trial of the book's -- each trained :data:`TRIALS`
times by :mod:`cotbook.attention.layer` under their released settings
(:data:`cotbook.attention.protocol.RELEASED_SETTINGS`) from the root seed :data:`SEED`, which
no earlier record uses (``authors_protocol``: 0, ``authors_recheck``: 1), and the authors'
script (:mod:`cotbook.book.authors.rerun`) at the seeds :data:`SCRIPT_SEEDS`.  The study is a
:class:`cotbook.attention.protocol.ProtocolSpec` run by :mod:`cotbook.attention.protocol`:
``python -m cotbook experiments --scale paper --only side_by_side`` (record
``authors_side_by_side``).
"""

from __future__ import annotations

from .protocol import RELEASED_SETTINGS, ProtocolSpec

__all__ = ["CELLS", "TRIALS", "SEED", "SCRIPT_SEEDS", "SCALES"]

CELLS = (
    (205, 400),
    (233, 400),
    (261, 400),
    (289, 400),
    (344, 400),
    (400, 400),
    (94, 38),
    (94, 66),
    (94, 233),
    (121, 10),
)
"""``(L, M)``, fixed before the runs (issue 61)."""

TRIALS = 10
"""The book's trials per cell."""

SEED = 11
"""The root seed of the book's trials (:class:`cotbook.attention.layer.Config` ``seed``)."""

SCRIPT_SEEDS = tuple(range(11, 21))
"""The seeds of the authors' script's runs (their ``np.random.seed``, ``torch.manual_seed``)."""

SCALES = {
    "tiny": ProtocolSpec(
        {"linear": [(10, 20), (12, 20)]},
        trials=2,
        t_max=4,
        settings=dict(RELEASED_SETTINGS, D=8, steps=20, seed=SEED),
    ),
    "paper": ProtocolSpec(
        {"linear": list(CELLS)},
        trials=TRIALS,
        settings=dict(RELEASED_SETTINGS, seed=SEED),
    ),
}
"""``tiny`` for tests; ``paper`` (the committed record): :data:`TRIALS` trials in every cell of
:data:`CELLS`."""
