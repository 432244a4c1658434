"""cotbook.book.suite_timing on a tiny checkout of its own: the README's command run there, its
junit report summed per file and group, a red run refused."""

import pytest

from cotbook.book import suite_timing

TESTS = {
    "tests/unit/theory/test_a.py": (
        "import time\n\ndef test_sleeps():\n    time.sleep(0.4)\n\ndef test_fast():\n    pass\n"
    ),
    "tests/unit/test_b.py": (
        "import pytest\n\nclass TestX:\n    def test_in_a_class(self):\n        pass\n\n"
        "@pytest.mark.skip(reason='planted')\ndef test_skipped():\n    pass\n"
    ),
    "tests/book/test_c.py": "import time\n\ndef test_c():\n    time.sleep(0.2)\n",
}


def _checkout(root, files):
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


@pytest.mark.slow
def test_a_run_is_summed_per_file_and_group(tmp_path):
    data = suite_timing.measure(_checkout(tmp_path, TESTS))
    assert data["tests"] == 5 and data["skipped"] == 1
    files = data["files"]
    assert set(files) == set(TESTS)  # a test in a class counts in its file
    assert files["tests/unit/theory/test_a.py"] >= 0.4 and files["tests/book/test_c.py"] >= 0.2
    assert files["tests/unit/test_b.py"] < 0.2
    groups = data["groups"]
    assert set(groups) == {"unit: theory", "book build, browser and PDF checks", "unit: the rest"}
    assert groups["unit: theory"] == files["tests/unit/theory/test_a.py"]
    assert sum(groups.values()) == pytest.approx(sum(files.values()))
    assert data["wall_s"] > 0.4 and data["cpu_s"] > 0  # the sleeps ran; pytest's CPU counted
    by_group, by_file = suite_timing.summary(data, top=2)
    assert [g for g, *_ in by_group][0] == "unit: theory"
    assert sum(share for *_, share in by_group) == pytest.approx(1)
    assert [f for f, *_ in by_file] == ["tests/unit/theory/test_a.py", "tests/book/test_c.py"]


@pytest.mark.slow
def test_a_red_run_is_not_measured(tmp_path):
    red = {"tests/unit/test_red.py": "def test_fails():\n    assert 1 == 2\n"}
    with pytest.raises(RuntimeError, match="test_fails"):
        suite_timing.measure(_checkout(tmp_path, red))


def test_a_folder_without_tests_is_refused(tmp_path):
    with pytest.raises(ValueError, match="root must be a checkout with a tests/ folder"):
        suite_timing.measure(tmp_path)


def test_junit_class_names_are_mapped_to_their_files(tmp_path):
    """nbval names a chapter's cells ``tests.book.notebooks.<stem>.ipynb``; a test in a class
    ``<module>.<class>``."""
    _checkout(tmp_path, {"tests/book/notebooks/model.ipynb": "{}", "tests/unit/test_b.py": ""})
    assert suite_timing._file("tests.book.notebooks.model.ipynb", tmp_path) == (
        "tests/book/notebooks/model.ipynb"
    )
    assert suite_timing._file("tests.unit.test_b.TestX", tmp_path) == "tests/unit/test_b.py"


def test_the_command_saves_work_and_wall_clock_as_a_long_run_does(monkeypatch, tmp_path, capsys):
    """``bench tests`` saves the run's CPU time as its work (``total``) and its wall-clock as
    ``this_session``, with the engine named, so that Long runs' table puts each in its column
    (the record is read back by the loader, which checks it)."""
    from cotbook import cli
    from cotbook.book import records

    fake = {
        "tests": 3,
        "skipped": 0,
        "wall_s": 120.0,
        "cpu_s": 200.0,
        "files": {"tests/unit/test_a.py": 150.0},
        "groups": {"unit: the rest": 150.0},
    }
    monkeypatch.setattr(suite_timing, "measure", lambda root: fake)
    assert cli.main(["bench", "tests", "--out", str(tmp_path)]) == 0
    record = records.load("test_suite", directory=tmp_path)
    assert record.data == fake and record.timings_s == {"total": 200.0, "this_session": 120.0}
    assert record.environment["engine"] == suite_timing.ENGINE
    assert "3 tests in 2.0 min, 200 CPU s" in capsys.readouterr().out
