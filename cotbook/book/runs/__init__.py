"""Long runs: a study computed unit by unit, checkpointed, on this process or a Dask cluster.

:func:`~.runner.run_study` runs the units a study has not finished yet, keeps each in
the record's checkpoint and saves the record (:mod:`cotbook.book.records`) when all are done;
the units execute where :func:`~.execution.open_engine` says (serially here, on a local
Dask cluster or on a running one, with byte-identical data), after numba's on-disk cache was
warmed once (:mod:`.kernel_cache`).  :mod:`.scaling` measures the Figure 2 grid on each engine
(the record ``engine_scaling``).

Modules (each has one job):

- :mod:`.runner`       -- a long run unit by unit, checkpointed, saved as a record.
- :mod:`.execution`    -- where a long run's units execute: this process or a Dask cluster.
- :mod:`.kernel_cache` -- numba's cache of the compiled kernels, warmed before workers start.
- :mod:`.scaling`      -- the Figure 2 grid over Dask workers: measured, and predicted.
"""

from __future__ import annotations

from ... import _lazy

#: Every public name of the package, with the module that defines it (imported on first use).
_LAZY = {
    "runner": "cotbook.book.runs.runner",
    "execution": "cotbook.book.runs.execution",
    "kernel_cache": "cotbook.book.runs.kernel_cache",
    "scaling": "cotbook.book.runs.scaling",
}

__all__ = list(_LAZY)
__getattr__, __dir__ = _lazy.face(globals(), _LAZY)
