"""The numba warm-up of a test run on pytest-xdist workers (tests/conftest.py).

The controller compiles every kernel once (cotbook.book.runs.kernel_cache), in two processes, one
per core, while the workers start and collect the tests; each worker waits for both before its
first test. Without it, on a fresh clone the workers, their chapter kernels and the subprocesses
they start would each compile the same kernels, several at the same time; a warm cache is only
loaded.

Each warm-up process logs numba's cache events (``NUMBA_DEBUG_CACHE``), and the one that warms
the attention kernels then runs :data:`PROGRAM`, one call of the CoT-error kernel, hashed. On an
empty cache (a fresh clone) that is the first process of the kernel-cache test
(tests/unit/book/runs/test_kernel_cache.py), which then need not compile everything a second time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VARIABLE = "COTBOOK_TEST_WARMUP"  # the warm-up's folder, for the workers
GROUPS = (("attention",), ("theory", "ridge"))  # about 10 and 7 s of CPU on a fresh cache
WAIT_S = 600  # a worker waits at most this long, then runs its tests on whatever is compiled

# One call of the CoT-error kernel, with the argument types the units use (so warm() has
# compiled it), hashed; and the kernel's cache hits and misses in the process (a miss: compiled
# here; a hit: loaded).
PROGRAM = """
import hashlib
import numpy as np
from cotbook.attention import _kernels

rng = np.random.default_rng(3)
G, n, R, D = 2, 8, 12, 6
pool = rng.standard_normal((n, R, D + 1)).astype(np.float32)  # a grid's test data: float32
K = 0.3 * rng.standard_normal((G, 2 * D + 2, D + 1))
V = 0.3 * rng.standard_normal((G, D, 2 * D + 2))
est0, w = rng.standard_normal((n, D)), rng.standard_normal((n, D))
err = _kernels.cot_errors(pool, "softmax", True, K, V, est0, w, 0.7, R, 9)
stats = _kernels._cot_errors.stats
hits, misses = sum(stats.cache_hits.values()), sum(stats.cache_misses.values())
print("sha256", hashlib.sha256(err.tobytes()).hexdigest(), hits, misses)
"""
MARK = "---- PROGRAM ----"


def with_program(code: str) -> str:
    """``code``, then :data:`PROGRAM` after a line holding :data:`MARK`."""
    return code + f"print({MARK!r}, flush=True)\nexec({PROGRAM!r}, {{}})\n"


def split(log: str) -> tuple[str, list[str]]:
    """(the log before PROGRAM, PROGRAM's digest line: [sha256, hits, misses])."""
    before, mark, after = log.partition(MARK + "\n")
    assert mark, log[-2000:]
    (digest,) = [line.split()[1:] for line in after.splitlines() if line.startswith("sha256 ")]
    return before, digest


def start(env: dict) -> tuple[Path, list[subprocess.Popen]]:
    """Start the warm-up processes; returns their folder (logs and done-markers) and them."""
    folder = Path(tempfile.mkdtemp(prefix="cotbook-warmup-"))
    processes = []
    for i, groups in enumerate(GROUPS):
        code = f"from cotbook.book.runs import kernel_cache\nkernel_cache.warm({groups!r})\n"
        if "attention" in groups:
            code = with_program(code)
        done = folder / f"{i}.done"
        wrapped = (
            "import sys\ntry:\n    exec(compile(sys.argv[1], 'warm-up', 'exec'), {})\n"
            f"finally:\n    sys.stdout.flush(); sys.stderr.flush(); open({str(done)!r}, 'w')\n"
        )
        with open(folder / f"{i}.log", "w") as log:
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-c", wrapped, code],
                    env={**env, "NUMBA_DEBUG_CACHE": "1"},
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
    return folder, processes


def folder() -> Path | None:
    """This run's warm-up folder (set by the controller for its workers), or None."""
    value = os.environ.get(VARIABLE)
    return Path(value) if value else None


def wait() -> None:
    """Return once every warm-up process has finished (or after :data:`WAIT_S`)."""
    where = folder()
    if where is None or not where.is_dir():
        return
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if all((where / f"{i}.done").exists() for i in range(len(GROUPS))):
            return
        time.sleep(0.05)


def logs() -> list[str] | None:
    """The finished warm-up processes' logs, or None without a warm-up in this run."""
    where = folder()
    if where is None:
        return None
    wait()
    return [(where / f"{i}.log").read_text() for i in range(len(GROUPS))]
