"""What the test suite costs, measured: the README's test command run once in a checkout, its
junit report summed per file and per group of files, saved as the record ``test_suite``
(``python -m cotbook bench tests``), which the chapter Running the book shows; its timings are
the run's CPU time (``total``, the work) and its wall-clock (``this_session``), as a long run's.

The README's command is ``python -m pytest -n 2 --dist loadfile`` (:data:`COMMAND`); the run
adds only a junit report and no cache (``-p no:cacheprovider``).  A test's seconds are its
set-up, call and tear-down as pytest timed them on its worker; the wall-clock and the CPU time
(user and system, of pytest and every process it started) are the whole run's, start-up,
collection and numba's warm-up included.  A red run is not saved: its time is no measure of
the suite.  A change to this module stales the record, and the suite fails on a stale record
(``tests/unit/book/records/test_results.py``): remove it before measuring again.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

__all__ = ["AIM_S", "COMMAND", "ENGINE", "GROUPS", "measure", "summary"]

AIM_S = 300.0
"""The project's aim for the whole run on 2 quiet cores, in seconds (five minutes)."""

COMMAND = ("-m", "pytest", "-n", "2", "--dist", "loadfile")
"""The README's test command (after ``python``)."""

ENGINE = "2 pytest-xdist workers"
"""How :data:`COMMAND` runs, in the words a record's ``environment.engine`` uses."""

GROUPS = (
    ("chapters under nbval", "tests/book/notebooks/"),
    ("book build, browser and PDF checks", "tests/book/"),
    ("unit: theory", "tests/unit/theory/"),
    ("unit: runs, records and the book's code", "tests/unit/book/"),
    ("unit: attention", "tests/unit/attention/"),
    ("unit: the rest", "tests/unit/"),
    ("the rest", ""),
)
"""Each file falls in the first group whose folder holds it."""


def measure(root) -> dict:
    """Run :data:`COMMAND` in the checkout ``root`` and return what it cost: ``{"tests",
    "skipped", "wall_s", "cpu_s", "files": {path: test-seconds}, "groups": {group:
    test-seconds}}``.  ``ValueError`` where ``root`` holds no ``tests/`` folder;
    ``RuntimeError`` (with the end of pytest's output) where a test fails or errs."""
    root = Path(root)
    if not (root / "tests").is_dir():
        raise ValueError(f"root must be a checkout with a tests/ folder, got {root}")
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        argv = [sys.executable, *COMMAND, "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        run = subprocess.run(argv, cwd=root, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if run.returncode != 0 or not report.is_file():
            tail = (run.stdout + run.stderr)[-3000:]
            raise RuntimeError(f"the test run failed (exit {run.returncode}):\n{tail}")
        cases = ET.parse(report).getroot().iter("testcase")
        files, skipped, count = Counter(), 0, 0
        for case in cases:
            count += 1
            skipped += case.find("skipped") is not None
            files[_file(case.get("classname", ""), root)] += float(case.get("time", 0.0))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    groups = Counter()
    for path, seconds in files.items():
        groups[next(name for name, folder in GROUPS if path.startswith(folder))] += seconds
    return {
        "tests": count,
        "skipped": skipped,
        "wall_s": wall,
        "cpu_s": cpu,
        "files": dict(sorted(files.items())),
        "groups": {name: groups[name] for name, _ in GROUPS if name in groups},
    }


def _file(classname: str, root: Path) -> str:
    """The test file of a junit ``classname`` (``tests.unit.test_cli`` or, for a test in a
    class, ``tests.unit.test_cli.TestX``; nbval's items: ``tests.book.notebooks.model.ipynb``):
    the longest dotted prefix that names a file under ``root``."""
    parts = classname.split(".")
    for k in range(len(parts), 0, -1):
        stem = "/".join(parts[:k])
        for suffix in (".py", ".ipynb"):
            if (root / (stem + suffix)).is_file():
                return stem + suffix
    return classname.replace(".", "/")


def summary(data, top=8) -> tuple[list, list]:
    """``(groups, files)``: the groups' test-seconds, largest first, and the ``top`` files
    with the most test-seconds, each as ``(name, seconds, share of all test-seconds)``."""
    total = sum(data["files"].values())
    groups = sorted(data["groups"].items(), key=lambda kv: -kv[1])
    files = sorted(data["files"].items(), key=lambda kv: -kv[1])[:top]
    return (
        [(name, s, s / total) for name, s in groups],
        [(name, s, s / total) for name, s in files],
    )
