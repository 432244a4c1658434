"""Thread counts of the libraries a computation rounds through (ground of every wing).

Two jobs, both context managers and decorators:

- :func:`one_blas_thread` / :func:`on_one_blas_thread`: BLAS on one thread for a call of the
  theory engine.  Its BLAS calls are small: on 2 idle cores a second BLAS thread gains nothing
  even for a 200 x 200 ``error_grid`` (1.16 s either way), while on a busy machine a BLAS pool
  that waits for cores held by other processes made ``error_curve(2, 3, 0.01, 80)`` take
  9.8 ms (median) instead of 1.0 ms (issue 32).  The pools are found once, so the limit costs
  about 20 microseconds (``threadpool_limits`` looks for them on every call: 2.2 ms).
- :func:`one_thread_unit`: a study unit (``run_unit(spec, unit)``) computed with BLAS and torch
  on one thread, however it is called: from a notebook, the serial runner or a cluster worker
  (whose processes start one-thread anyway).  Reductions over large arrays round differently
  on another thread count, so a unit's bytes would otherwise depend on its caller.  numba
  keeps its threads: its kernels give the same bits on any count (tested).
"""

from __future__ import annotations

import contextlib
import functools
import sys

__all__ = ["one_blas_thread", "on_one_blas_thread", "one_thread_unit"]


@functools.cache
def _blas_pools():
    """The process's BLAS thread pools (threadpoolctl), found once, at the first call."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread():
    """A context manager: BLAS on one thread inside, the previous counts restored after."""
    return _blas_pools().limit(limits=1, user_api="blas")


def on_one_blas_thread(fn):
    """``fn`` run under :func:`one_blas_thread` (for the engine's public entry points)."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        with one_blas_thread():
            return fn(*args, **kwargs)

    return call


@contextlib.contextmanager
def _one_thread_libraries():
    from threadpoolctl import threadpool_limits

    torch = sys.modules.get("torch")  # a unit that trains imports it with its module
    threads = None if torch is None else torch.get_num_threads()
    # the pools looked for now (2 ms a unit), not the engine's cached ones: torch may have
    # loaded a BLAS of its own since
    with threadpool_limits(1, user_api="blas"):
        if torch is not None:
            torch.set_num_threads(1)
        try:
            yield
        finally:
            if torch is not None:
                torch.set_num_threads(threads)


def one_thread_unit(run_unit):
    """``run_unit(spec, unit)`` computed with BLAS and torch (if imported) on one thread; the
    caller's counts are put back after."""

    @functools.wraps(run_unit)
    def call(spec, unit):
        with _one_thread_libraries():
            return run_unit(spec, unit)

    return call
