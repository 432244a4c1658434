"""The compute commands run on a bare compute node: one whose Python has the science stack
(numpy, scipy, torch, numba, Dask) but none of the chapter or Sphinx machinery.

Each command runs in a fresh interpreter whose ``sitecustomize`` refuses to import the book's
tools (Jupyter, jupytext, nbformat, nbclient, zmq, IPython, Sphinx, MyST, matplotlib), as a
node without them would; the command must finish and write its record.
"""

import json
import os
import subprocess
import sys

import pytest

from cotbook.book import records

BOOK_ONLY = (
    "jupytext", "nbformat", "nbclient", "nbval", "zmq", "IPython", "ipykernel",
    "jupyter_client", "jupyter_core", "sphinx", "myst_nb", "myst_parser", "jupyter_book",
    "matplotlib",
)  # fmt: skip

BLOCKER = f"""
import sys

class _BareNode:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {BOOK_ONLY!r}:
            raise ImportError("not on a bare node: " + name)
        return None

sys.meta_path.insert(0, _BareNode())
"""


def _run(tmp_path, *args):
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(records.ROOT)])}
    return subprocess.run(
        [sys.executable, "-m", "cotbook", *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_the_blocker_blocks(tmp_path):
    done = _run(tmp_path, "chapters", "--root", str(tmp_path))
    assert done.returncode != 0 and "not on a bare node" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "command, record",
    [
        (["experiments", "--scale", "tiny", "--only", "grid"], "attention_grid"),
        (["simulate", "--scale", "tiny"], "theory_vs_simulation"),
        (["bench", "accuracy", "--scale", "tiny"], "theory_accuracy"),
        (["bench", "coverage", "--scale", "tiny"], "ridge_coverage"),
    ],
)
def test_compute_commands_run_without_the_book_machinery(tmp_path, command, record):
    out = tmp_path / "out"
    done = _run(tmp_path, *command, "--out", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    saved = json.loads((out / f"{record}.json").read_text())
    assert saved["name"] == record and saved["scale"] == "tiny"


def test_theory_runs_without_the_book_machinery(tmp_path):
    done = _run(tmp_path, "theory", "--alpha", "2", "--tau", "3", "--sigma2", "0.01", "--t", "10")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "0.04616513618" in done.stdout  # E_10 at this point (Result 1)
