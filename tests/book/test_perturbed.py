"""The nbval kernels run on the narrower floating-point path of perturbed.py, and there a printed
number that depends on the last bits fails its cell (issue 32).

A pytest run in a scratch folder, with perturbed.py's hooks as its conftest, checks a tiny
notebook with nbval as the real run checks the chapters. Its first cell prints what its kernel
sees of each library's path: it must be the narrower one. Its second prints, in full, a BLAS
inverse and a numba fastmath sum, and holds them as this machine's own path computes them (as
`python -m cotbook chapters` would have written them): that cell must fail.
"""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import nbformat
import perturbed
import pytest

HERE = Path(__file__).resolve().parent

SEES = """\
import json, os
import numba, threadpoolctl
from numpy._core import _multiarray_umath as umath
blas = {i.get("architecture") for i in threadpoolctl.threadpool_info()
        if i["internal_api"] == "openblas"}
print(json.dumps({
    "numba_cpu": numba.config.CPU_NAME, "numba_threads": numba.config.NUMBA_NUM_THREADS,
    "numpy_fast": [n for n in umath.__cpu_dispatch__ if umath.__cpu_features__[n]],
    "openblas": sorted(blas) if "OPENBLAS_CORETYPE" in os.environ else None,
    "torch": os.environ.get("ATEN_CPU_CAPABILITY")}))
"""
LAST_BITS = """\
import numpy as np
from numba import njit

@njit(fastmath=True)
def squares(x):
    acc = 0.0
    for v in x:
        acc += v * v
    return acc

rng = np.random.default_rng(0)
x, a = rng.standard_normal(1000), rng.standard_normal((200, 200))
print(repr(float(np.linalg.inv(a)[0, 0])), repr(float(squares(x))))
"""


def _notebook(path, cells):
    """A notebook of ``(source, printed)`` code cells, as an executed copy holds them."""
    nb = nbformat.v4.new_notebook()
    for index, (source, printed) in enumerate(cells):
        cell = nbformat.v4.new_code_cell(source, id=f"c{index}", execution_count=index + 1)
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=printed)]
        nb.cells.append(cell)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, str(path))


def _run(source, env=None) -> str:
    out = subprocess.run([sys.executable, "-c", source], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_book_tests_register_the_hooks(request):
    """tests/book/conftest.py registers perturbed.py's hooks (the nbval run depends on it)."""
    conftest = HERE / "conftest.py"
    plugins = [
        p
        for p in request.config.pluginmanager.get_plugins()
        if getattr(p, "__file__", None) and Path(p.__file__).resolve() == conftest
    ]
    assert plugins, "tests/book/conftest.py is not loaded"
    assert plugins[0].pytest_runtest_setup is perturbed.pytest_runtest_setup
    assert plugins[0].pytest_unconfigure is perturbed.pytest_unconfigure


def test_nbval_kernels_run_on_the_narrower_path_and_catch_last_bits(tmp_path):
    core = perturbed.OPENBLAS_CORE.get(platform.machine())  # None: OpenBLAS left as it is
    sees = {
        "numba_cpu": "generic",
        "numba_threads": 1,
        "numpy_fast": [],
        "openblas": [core] if core else None,
        "torch": "default",
    }
    own_path = _run(LAST_BITS)  # what an executed copy written on this machine holds
    _notebook(tmp_path / "probe.ipynb", [(SEES, json.dumps(sees) + "\n"), (LAST_BITS, own_path)])
    (tmp_path / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(HERE)!r})\n"
        "from perturbed import pytest_runtest_setup, pytest_unconfigure  # noqa: F401\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "NUMBA_"))}
    options = "-p no:cacheprovider -p no:xdist --nbval --nbval-current-env -rA".split()
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *options, str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = run.stdout + run.stderr
    assert "PASSED probe.ipynb::Cell 0" in log, log  # the kernel is on the narrower path
    if "PASSED probe.ipynb::Cell 1" in log:
        narrow = _run(LAST_BITS, env={**env, **perturbed.environment(tmp_path / "numba")})
        if narrow == own_path:
            pytest.skip("this machine has no faster floating-point path than the narrower one")
    assert "FAILED probe.ipynb::Cell 1" in log and "mismatch 'stdout'" in log, log
