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

from . import grid, layer, protocol, regimes, released, softmax_study, structure, versus_theory
from .layer import *  # noqa: F403  (the layer's public names are this wing's face)
from .layer import __all__ as _layer_all

__all__ = [
    "grid",
    "layer",
    "protocol",
    "regimes",
    "released",
    "softmax_study",
    "structure",
    "versus_theory",
    *_layer_all,
]
