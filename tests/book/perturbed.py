"""The floating-point path the nbval tests execute the chapters on: another one than the path that
wrote the chapters' executed copies, so a printed number that depends on the last bits fails them.

`python -m cotbook chapters` writes an executed copy on the machine's own path: numpy's widest
SIMD kernels, OpenBLAS's kernels for this CPU, numba compiled for this CPU (or loaded from its
cache), every core. Each nbval kernel starts on a narrower one (:func:`environment`, applied by
:func:`pytest_runtest_setup`, which tests/book/conftest.py registers):

- numpy: every SIMD dispatch target above its baseline that this CPU has, disabled
  (``NPY_DISABLE_CPU_FEATURES``; on x86-64 e.g. AVX2/FMA3, AVX-512);
- OpenBLAS: an older core's kernels (``OPENBLAS_CORETYPE``: no FMA on x86-64);
- numba: compiled for a generic CPU (``NUMBA_CPU_NAME``) into a cache that starts empty in each
  test run (``NUMBA_CACHE_DIR``; the pytest-xdist workers share it), so its fastmath kernels
  vectorise and contract differently;
- torch: its scalar CPU kernels (``ATEN_CPU_CAPABILITY``);
- one thread for numba, OpenMP and BLAS (:data:`cotbook.book.runs.execution.ONE_THREAD`).

So a number whose printed digits depend on the last bits no longer matches the copy (issue 32:
a round-off difference over a round-off bound, printed as ``2.2e-02`` in the copy and ``1.1e-02``
on an AMD EPYC; an error bound made of round-off; a value printed past its certified accuracy).
Which numbers move depends on the machine: on this project's AMD EPYC (AVX2) the narrower path
moved the printed error bounds of the closed system at λ > 0 (book/ridge.md, then part of the
derivation chapter) through numpy's SIMD kernels, while the ratio of issue 32 was the same on
every path tried there (its copy came from another CPU).

It costs no second execution of the chapters (about 10 minutes of CPU time): it is the execution
nbval does anyway, on the narrower path about 12% more CPU time (456 s to 511 s for all
chapters, one-time numba compilation included), some 30 s of a test run on two workers.
A chapter prints such a number as a verdict or at a resolution its method guarantees
(``cotbook.book.report.check(..., verdict=True)``, ``report.bound(..., report.DECADES)``),
never through a sanitizer rule that hides a number.
"""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import tempfile

import pytest

from cotbook.book.runs.execution import ONE_THREAD, environ_kept

# An older core's OpenBLAS kernels, per machine (OpenBLAS's DYNAMIC_ARCH names). On x86-64,
# Sandy Bridge's: AVX without FMA, so every fused multiply-add of a newer core's kernels rounds
# twice. Nehalem's (SSE only) change the bits too, at about twice the cost (the six longest
# chapters took 21% more CPU time on the narrower path with them, 12% with Sandy Bridge's).
OPENBLAS_CORE = {
    "x86_64": "Sandybridge",
    "AMD64": "Sandybridge",
    "aarch64": "ARMV8",
    "arm64": "ARMV8",
}
_CACHE_KEY = pytest.StashKey[str]()
_OWN_CACHE_KEY = pytest.StashKey[bool]()


def numpy_fast_paths() -> list[str]:
    """numpy's SIMD dispatch targets above its baseline that this CPU has (what is disabled)."""
    from numpy._core import _multiarray_umath as umath  # what numpy.show_runtime() reads

    found = umath.__cpu_features__
    return [name for name in umath.__cpu_dispatch__ if found.get(name)]


def environment(numba_cache_dir) -> dict[str, str]:
    """The variables that put a new process on the narrower floating-point path."""
    env = dict(ONE_THREAD)
    env.update(
        NUMBA_CPU_NAME="generic",
        NUMBA_CACHE_DIR=str(numba_cache_dir),
        ATEN_CPU_CAPABILITY="default",
    )
    fast = numpy_fast_paths()
    if fast:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(fast)
    core = OPENBLAS_CORE.get(platform.machine())
    if core:
        env["OPENBLAS_CORETYPE"] = core
    return env


@contextlib.contextmanager
def applied(env):
    """``os.environ`` updated with ``env`` inside (processes started there inherit it),
    restored after."""
    with environ_kept(env):
        os.environ.update(env)
        yield


def _numba_cache(config) -> str:
    """The test run's fresh numba cache for the nbval kernels.

    The pytest-xdist workers share one, in the run's common temporary folder (which pytest
    removes with its old runs): a kernel one worker compiled, the other loads (numba writes a
    cache file to a temporary name and moves it into place, so concurrent writers are safe).
    Without workers it is this process's own folder, removed at the end of the run."""
    if _CACHE_KEY not in config.stash:
        if "PYTEST_XDIST_WORKER" in os.environ:
            shared = config._tmp_path_factory.getbasetemp().parent / "numba-narrow-path"
            shared.mkdir(exist_ok=True)
            config.stash[_CACHE_KEY] = str(shared)
            config.stash[_OWN_CACHE_KEY] = False
        else:
            config.stash[_CACHE_KEY] = tempfile.mkdtemp(prefix="cotbook-numba-")
            config.stash[_OWN_CACHE_KEY] = True
    return config.stash[_CACHE_KEY]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    """nbval starts a notebook's kernel while its first cell is set up: start it on the
    narrower path. Nothing else (this process, the unit tests) is touched."""
    from nbval.plugin import IPyNbCell

    if not isinstance(item, IPyNbCell):
        return (yield)
    with applied(environment(_numba_cache(item.config))):
        return (yield)


def pytest_unconfigure(config):
    cache = config.stash.get(_CACHE_KEY, None)
    if cache and config.stash.get(_OWN_CACHE_KEY, False):
        shutil.rmtree(cache, ignore_errors=True)
