"""Trained attention layers iterated as chain of thought (paper, Section 6 and Appendix A).

The layer and its training (:mod:`.layer`) are promoted here: ``attention.Config``,
``attention.train``, ``attention.evaluate`` and the rest of :data:`layer.__all__`.

Modules (each has one job):

- :mod:`.layer`     -- the linear and softmax layers, their training and CoT evaluation.
- :mod:`._kernels`  -- the fused CPU kernels (numba) behind :mod:`.layer`.
- :mod:`.grid`      -- the Figure 2 runs: :class:`~.grid.GridSpec`, the sensitivity study.
- :mod:`.regimes`   -- reading those runs: regimes, the paper's statements, references.
- :mod:`.versus_theory` -- trained linear attention against Result 1, quantitatively.
- :mod:`.structure` -- what fully learned linear attention learns (Appendix A figure).
- :mod:`.softmax_study` -- what trained softmax attention learns, and the untried protocols.
- :mod:`.released` -- the paper authors' released runs against the stated protocol and theory.
- :mod:`.protocol` -- the authors' released protocol run by this layer, several trials a cell.
"""

import importlib

from . import layer
from .layer import *  # noqa: F403  (the layer's public names are this wing's face)
from .layer import __all__ as _layer_all

# imported on first use, so that a study's import closure (the producers of its record) holds
# the modules it computes with and no others: the Figure 2 grid does not import the theory
# (cotbook.book.records.import_closure reads this table)
_LAZY = {
    "grid": "cotbook.attention.grid",
    "protocol": "cotbook.attention.protocol",
    "regimes": "cotbook.attention.regimes",
    "released": "cotbook.attention.released",
    "softmax_study": "cotbook.attention.softmax_study",
    "structure": "cotbook.attention.structure",
    "versus_theory": "cotbook.attention.versus_theory",
}


def __getattr__(name):
    if name in _LAZY:
        return importlib.import_module(_LAZY[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_LAZY])


__all__ = ["layer", *_LAZY, *_layer_all]
