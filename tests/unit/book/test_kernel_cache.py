"""kernel_cache.warm compiles every numba kernel the studies' units call, so that a worker
process started after it compiles nothing (issue 31: every worker compiled on its own)."""

import os
import subprocess
import sys

import pytest

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
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout + out.stderr


@pytest.mark.slow
def test_a_process_after_warm_loads_every_kernel_and_compiles_none(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), NUMBA_DEBUG_CACHE="1")
    warmed = _python("from cotbook.book import kernel_cache; kernel_cache.warm()", env)
    assert warmed.count("data saved to") >= 7  # 5 attention kernels, 2 recurrences
    worker = _python(UNITS, env)
    assert "data loaded from" in worker
    assert "data saved to" not in worker, [l for l in worker.splitlines() if "saved" in l]
