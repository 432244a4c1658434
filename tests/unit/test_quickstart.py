"""The quick start of README.md and of the book's introduction cannot go stale: both examples are
run from a scratch folder and must print exactly what the README shows; and
:func:`cotbook.theory.summary`, which they call, is checked against the functions it gathers."""

import math
import re
import shlex
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

from cotbook import theory
from cotbook.theory import overview, phases

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)
COMMAND = ".venv/bin/python -m cotbook theory "


def _readme_blocks():
    """The fenced blocks of README.md's quick start: (language, text) in order."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Quick start", 1)[1].split("\n## ", 1)[0]
    return FENCE.findall(section)


def _run(args, cwd):
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_readme_quick_start_is_python_output_command_output():
    assert [kind for kind, _ in _readme_blocks()] == ["python", "text", "bash", "text"]
    python = _readme_blocks()[0][1]
    assert len([line for line in python.splitlines() if line.strip()]) == 5  # five lines


@pytest.mark.slow
def test_readme_python_example_prints_what_the_readme_shows(tmp_path):
    (_, code), (_, shown), *_ = _readme_blocks()
    assert "theory.summary(" in code
    assert _run([sys.executable, "-c", code], tmp_path) == shown


@pytest.mark.slow
def test_readme_command_prints_what_the_readme_shows(tmp_path):
    *_, (_, command), (_, shown) = _readme_blocks()
    assert command.startswith(COMMAND) and command.count("\n") == 1
    args = [sys.executable, *shlex.split(command)[1:]]
    out = _run(args, tmp_path)
    assert out == shown
    assert max(len(line) for line in out.splitlines()) <= overview.WIDTH


def _intro_cells():
    text = (ROOT / "book" / "intro.md").read_text()
    section = text.split("\n## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```\{code-cell\} ipython3\n(.*?)^```$", section, re.S | re.M)


def test_intro_quick_start_is_the_readme_example_and_its_copy_prints_it():
    cells = _intro_cells()
    blocks = _readme_blocks()
    assert cells[0] == blocks[0][1]
    notebook = nbformat.read(ROOT / "tests" / "book" / "notebooks" / "intro.ipynb", as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code[0].source.strip() == cells[0].strip()
    assert "".join(o.get("text", "") for o in code[0].outputs) == blocks[1][1]
    assert "".join(o.get("text", "") for o in code[1].outputs) == blocks[3][1]


# ---- theory.summary against the functions it gathers ---------------------------------------

POINTS = {  # one point in each regime of Result 2 (sigma2 = 0.01 unless noted)
    "overthinking": (2.0, 3.0, 0.01),
    "saturation": (0.5, 10.0, 0.01),
    "exponential": (4.0, 4.0, 0.01),
    "critical": (2.0, phases.tau_c(2.0, 0.01), 0.01),
}


@pytest.mark.parametrize("regime", list(POINTS))
def test_summary_gathers_results_1_to_3(regime):
    alpha, tau, sigma2 = POINTS[regime]
    s = theory.summary(alpha, tau, sigma2, [80, 0, 10, 1, 10])
    assert list(s.E) == [0, 1, 10, 80]  # sorted, without repeats
    E = theory.error_curve(alpha, tau, sigma2, 80)
    np.testing.assert_allclose(list(s.E.values()), E[[0, 1, 10, 80]], rtol=1e-12, atol=0)
    assert s.regime == regime == phases.regime(alpha, tau, sigma2)
    assert s.tau_c == phases.tau_c(alpha, sigma2)
    assert s.decay_rate == phases.decay_rate(alpha, tau, sigma2)
    law = phases.asymptotic_law(alpha, tau, sigma2)
    assert s.leading_law == (law.rate, law.power, law.source, law.t_scale)
    if regime == "overthinking":
        assert s.error_floor is None and s.optimal_depth == phases.optimal_depth(alpha, tau, sigma2)
    else:
        assert s.error_floor == phases.error_floor(alpha, tau, sigma2)
        assert s.optimal_depth is None
    assert max(len(line) for line in str(s).splitlines()) <= overview.WIDTH


def test_summary_numbers():
    """Known values: E_1 = 0.500557 at (2, 3, 0.01) (the docstring of error_curve), tau_c =
    3.321557, t* = 30; the saturation floor (1 - alpha)(tau - 1)/(tau - 2 - sigma2)."""
    s = theory.summary(2.0, 3.0, 0.01, 1)
    assert s.E[1] == pytest.approx(0.500557, abs=5e-7)
    assert s.tau_c == pytest.approx(3.321557, abs=5e-7) and s.optimal_depth[0] == 30
    sat = theory.summary(0.5, 10.0, 0.01, [1000])
    assert sat.error_floor == pytest.approx(0.5 * 9.0 / 7.99, rel=1e-14)
    assert sat.E[1000] == pytest.approx(sat.error_floor, rel=1e-6)  # converged to the floor
    assert sat.leading_law[:2] == (pytest.approx(0.943188, abs=5e-7), -1.5)  # not Lambda
    assert sat.decay_rate == pytest.approx(0.912271, abs=5e-7)


@pytest.mark.slow
def test_summary_near_tau_c_reports_the_optimal_depth_as_not_found():
    s = theory.summary(2.0, 3.32, 0.01, 1)  # t* ~ C_t/(tau_c - tau) lies beyond 1024
    assert s.regime == "overthinking" and s.optimal_depth is None
    assert f"so t* >= {overview.OPTIMAL_T_MAX}" in str(s)


@pytest.mark.slow
def test_summary_with_ridge_gives_E_t_only():
    s = theory.summary(2.0, 0.5, 0.01, [1, 5], lam=0.1)  # tau < 1 is allowed when lam > 0
    E = theory.error_curve(2.0, 0.5, 0.01, 5, lam=0.1)
    assert list(s.E.values()) == [E[1], E[5]]
    assert (s.tau_c, s.regime, s.decay_rate, s.error_floor, s.optimal_depth) == (None,) * 5
    assert "for lam = 0 only" in str(s)


def test_summary_at_alpha_1_noiseless_has_infinite_tau_c():
    s = theory.summary(1.0, 3.0, 0.0, [2])
    assert s.tau_c == math.inf and s.regime == "overthinking"
    assert s.to_dict()["tau_c"] == "inf"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"alpha": 0.0}, r"alpha must be a finite number in \[1e-12, 1e\+12\]"),
        ({"tau": 1.0}, r"tau must be a finite number in \(1, 1e\+12\].*lam = 0 needs tau > 1"),
        ({"tau": 0.0, "lam": 0.1}, r"tau must be a finite number in \[1e-12, 1e\+12\]"),
        ({"sigma2": -1.0}, r"sigma2 must be a finite number in \[0, 1e\+12\]"),
        ({"lam": math.nan}, r"lam must be a finite number in \[0, 1e\+12\]"),
        ({"t": -1}, r"t must be an integer >= 0"),
        ({"t": [1, 2.5]}, r"t must be an integer >= 0"),
        ({"t": True}, r"t must be an integer >= 0"),
        ({"t": []}, r"t must be a depth or a non-empty sequence"),
        ({"t": 100_001}, r"t must be <= 100000 when lam = 0"),
        ({"t": 10_001, "lam": 1.0}, r"t must be <= 10000 when lam > 0"),
    ],
)
def test_summary_rejects_bad_input_naming_the_parameter(kwargs, message):
    args = {"alpha": 2.0, "tau": 3.0, "sigma2": 0.01, "t": 1, **kwargs}
    lam = args.pop("lam", 0.0)
    with pytest.raises(ValueError, match=message):
        theory.summary(**args, lam=lam)
