"""kernel_cache.warm compiles every numba kernel the studies' units call, so that a worker
process started after it compiles nothing (issue 31: every worker compiled on its own).

And the numba kernels give the same bits whether compiled in the running process or loaded from
numba's cache: a kernel whose loop fused exp with its sum was vectorized only when compiled
fresh, so the first run after a change did not reproduce the next (the last bit of CoT errors).

Both claims need a process that compiles on an empty cache and a later one that loads from it;
a fresh compile takes seconds, so one such pair of processes serves both: the kernel call whose
bits are compared is one the units make, compiled by warm() in the first and loaded in the
second.
"""

import os
import subprocess
import sys

import pytest
import warmup

UNITS = """\
from cotbook import theory
from cotbook.attention import grid, layer
spec = grid.GRID_SCALES["tiny"]
grid.run_unit(spec, spec.units()[-1])  # another unit than warm()'s
for point in [(2.0, 3.0, 0.01), (0.3, 5.0, 0.0), (1.0, 1.5, 0.5)]:
    theory.error_curve(*point, 40)
    theory.error_curve(*point, 300)
"""


def _python(code, env):
    """Run ``code``, then PROGRAM: (the output before PROGRAM, PROGRAM's digest line)."""
    out = subprocess.run(
        [sys.executable, "-c", warmup.with_program(code)], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    before, digest = warmup.split(out.stdout)  # numba's cache log is printed to stdout
    return before + out.stderr, digest


@pytest.fixture(scope="module")
def processes(tmp_path_factory):
    """Two processes on an empty numba cache, as on a fresh machine: the first runs warm(),
    the second the units a worker runs; each then runs PROGRAM.

    On a fresh clone the test run's own warm-up (tests/warmup.py) is the first: it compiled
    every kernel on the empty cache and ran PROGRAM, and the workers' cache is the one it
    wrote. Elsewhere (a warm cache, no workers) both run here, on a cache of their own."""
    logs = warmup.logs()
    if logs is not None and not any("data loaded from" in log for log in logs):
        attention, digest = warmup.split(logs[0])  # every kernel compiled there: a fresh cache
        worker = _python(UNITS, dict(os.environ, NUMBA_DEBUG_CACHE="1"))
        return (attention + logs[1], digest), worker
    cache = tmp_path_factory.mktemp("numba")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), NUMBA_DEBUG_CACHE="1")
    warmed = _python("from cotbook.book.runs import kernel_cache; kernel_cache.warm()\n", env)
    worker = _python(UNITS, env)
    return warmed, worker


@pytest.mark.slow
def test_a_process_after_warm_loads_every_kernel_and_compiles_none(processes):
    (warmed, _), (worker, _) = processes
    assert warmed.count("data saved to") >= 7  # 5 attention kernels, 2 recurrences
    assert "data loaded from" in worker
    assert "data saved to" not in worker, [line for line in worker.splitlines() if "saved" in line]


@pytest.mark.slow
def test_a_freshly_compiled_kernel_and_its_cached_copy_agree_bit_for_bit(processes):
    (_, fresh), (_, cached) = processes
    # one type signature in each process: compiled in the first (a miss, no hit), loaded from
    # the cache it wrote in the second (a hit, no miss)
    assert fresh[1:] == ["0", "1"]
    assert cached[1:] == ["1", "0"]
    assert fresh[0] == cached[0]


def test_warm_names_the_groups_it_knows():
    from cotbook.book.runs import kernel_cache

    with pytest.raises(
        ValueError, match=r"groups must be among \['attention', 'ridge', 'theory'\]"
    ):
        kernel_cache.warm(("attention", "torus"))
