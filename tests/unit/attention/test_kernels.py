"""A numba kernel leaves torch on the thread count it found.

That a freshly compiled kernel and its cached copy give the same bits is tested with the kernel
cache (tests/unit/book/runs/test_kernel_cache.py), on the fresh compile that test makes anyway.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

LEAK = """
import numpy as np
import torch
from cotbook.attention import _kernels

torch.set_num_threads(1)
seen = [torch.get_num_threads()]  # torch's threads start here, as in a unit that trains
rng = np.random.default_rng(4)
G, B, R, D = 1, _kernels.PARALLEL_ROWS, 10, 5  # enough queries for numba's two threads
pool = rng.standard_normal((B, R, D + 1)).astype(np.float32)
u, V, est, w = (
    torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
    for shape in ((G, B, D + 1), (G, D, D + 1), (G, B, D), (G, B, D))
)
u.requires_grad_(), V.requires_grad_()
loss = _kernels.train_fit(pool, np.arange(B), "softmax", u, V, est, w, 0.7, R)
seen.append(torch.get_num_threads())
loss.sum().backward()
K = 0.3 * rng.standard_normal((G, 2 * D + 2, D + 1))
V = 0.3 * rng.standard_normal((G, D, 2 * D + 2))
est0, w = rng.standard_normal((B, D)), rng.standard_normal((B, D))
_kernels.cot_errors(pool, "softmax", True, K, V, est0, w, 0.7, R, 3)
print(*seen, torch.get_num_threads())
"""


@pytest.mark.slow
def test_a_parallel_kernel_leaves_torch_on_the_threads_it_found():
    # numba's OpenMP layer sets the OpenMP count to its own two threads and torch reads that
    # count: without the restore, torch's reductions after a kernel ran on two threads in a
    # serial unit that had put torch on one, and rounded differently from a worker's
    env = {"NUMBA_NUM_THREADS": "2", "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", LEAK], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "1", "1"]
