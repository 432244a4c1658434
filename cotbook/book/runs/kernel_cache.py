"""numba's on-disk cache of the book's compiled kernels, written once before workers start.

Every numba kernel the studies' units call (``cotbook.attention._kernels``,
``cotbook.theory.exact._recurrences``; ``cotbook.theory._torus`` serves only the closed system of
lam > 0) is compiled with ``cache=True``: the first process that calls it compiles it and
writes the machine code beside the module (``__pycache__``), and later processes on the same
machine load it. On a fresh machine the worker processes of a local Dask cluster would all start with
an empty cache and each compile every kernel itself, at the same time, before their first unit
can finish. :func:`warm` compiles (or loads) each kernel once, in the process that starts the
cluster, through the same calls the units make, so the workers find them compiled.

Workers of a running cluster on other machines (``--scheduler``) keep their own caches; each of
them compiles once, on its first unit.
"""

from __future__ import annotations

import time

__all__ = ["KERNELS", "warm"]


def _attention():
    from ...attention import grid

    spec = grid.GRID_SCALES["tiny"]
    grid.run_unit(spec, spec.units()[0])


def _theory():
    from ... import theory

    theory.error_curve(0.5, 2.0, 0.01, 80)


def _ridge():
    from ...theory import ridge

    ridge.ridge_curve(2.0, 3.0, 0.01, 3, lam=0.1)


KERNELS = {"attention": _attention, "theory": _theory, "ridge": _ridge}
"""The kernels by wing, each compiled (or loaded) by one call with the argument types its
callers use: ``attention`` -- a tiny unit of the Figure 2 grid (both models, both masks,
float32); ``theory`` -- the recurrences, at a point whose curve needs them; ``ridge`` -- the
lam > 0 curve's kernels, the closed system's sectors and ``m13`` on a torus (no study unit
calls them)."""


def warm(groups=("attention", "theory")) -> float:
    """Compile or load the numba kernels of ``groups`` (keys of :data:`KERNELS`; by default
    every kernel the studies' units call) in this process. Returns the seconds it took."""
    unknown = sorted(set(groups) - set(KERNELS))
    if unknown:
        raise ValueError(f"groups must be among {sorted(KERNELS)}, got {unknown}")
    start = time.perf_counter()
    for group in groups:
        KERNELS[group]()
    return time.perf_counter() - start
