"""numba's on-disk cache of the book's compiled kernels, written once before workers start.

Every numba kernel the studies' units call (``cotbook.attention._kernels``,
``cotbook.theory._recurrences``; ``cotbook.theory._torus`` serves only the lam > 0 curve) is
compiled with ``cache=True``: the first process that calls it compiles it and writes the
machine code beside the module (``__pycache__``), and later processes on the same machine
load it. On a fresh machine the worker processes of a local Dask cluster would all start with
an empty cache and each compile every kernel itself, at the same time, before their first unit
can finish. :func:`warm` compiles (or loads) each kernel once, in the process that starts the
cluster, through the same calls the units make, so the workers find them compiled.

Workers of a running cluster on other machines (``--scheduler``) keep their own caches; each of
them compiles once, on its first unit.
"""

from __future__ import annotations

import time

__all__ = ["warm"]


def warm() -> float:
    """Compile or load every numba kernel in this process, with the argument types the studies'
    units use (a tiny unit of the Figure 2 grid: both models, both masks, float32; the theory's
    recurrences at a point whose curve needs them). Returns the seconds it took."""
    from .. import theory
    from ..attention import grid

    start = time.perf_counter()
    spec = grid.GRID_SCALES["tiny"]
    grid.run_unit(spec, spec.units()[0])
    theory.error_curve(0.5, 2.0, 0.01, 80)
    return time.perf_counter() - start
