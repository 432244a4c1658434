import numpy as np
import pytest

from cotbook import cli

HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""


@pytest.fixture
def tiny_book(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "one.md").write_text(
        HEADER + "\n# One\n\n```{code-cell} ipython3\nx = 1\n```\n"
    )
    (tmp_path / "book" / "two.md").write_text(HEADER + "\n# Two\n")
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/one\nchapters:\n  - file: book/two\n"
    )
    return tmp_path


def test_chapters_command_writes_copies(tiny_book, capsys):
    assert cli.main(["chapters", "--root", str(tiny_book), "one"]) == 0
    assert (tiny_book / "tests" / "notebooks" / "one.ipynb").is_file()
    assert not (tiny_book / "tests" / "notebooks" / "two.ipynb").exists()
    assert "executing book/one.md" in capsys.readouterr().out


def test_chapters_command_enforces_budget(tiny_book, capsys):
    assert cli.main(["chapters", "--root", str(tiny_book), "--budget", "0", "two"]) == 1
    assert "over the 0 s budget: two" in capsys.readouterr().err


def test_chapters_command_rejects_unknown_names(tiny_book):
    with pytest.raises(SystemExit, match="unknown chapter"):
        cli.main(["chapters", "--root", str(tiny_book), "three"])


def test_simulate_command_saves_a_result(tmp_path, monkeypatch, capsys):
    from cotbook import finite_size, results

    monkeypatch.setitem(
        finite_size.SCALES, "book", dict(dims=(10,), trials=2, test_designs=1, t_max=2)
    )
    monkeypatch.setattr(results.save, "__defaults__", (tmp_path,))
    assert cli.main(["simulate", "--scale", "book", "--seed", "4"]) == 0
    record = results.load(finite_size.RESULT_NAME, directory=tmp_path)
    assert record["config"] == dict(
        dims=[10], trials=2, test_designs=1, t_max=2, sigma2=1e-4, lam=1e-5, seed=4, scale="book"
    )
    assert set(record["data"]) == set(finite_size.panels())
    assert "saved" in capsys.readouterr().out
    monkeypatch.setitem(
        finite_size.SCALES, "precision", dict(dims=(10,), trials=2, test_designs=1, t_max=1)
    )
    assert cli.main(["simulate", "--scale", "precision"]) == 0
    assert (
        results.load("theory_vs_simulation_precision", directory=tmp_path)["config"]["t_max"] == 1
    )
    assert results.load(finite_size.RESULT_NAME, directory=tmp_path)["config"]["t_max"] == 2


def test_bench_command_prints_key_value_lines(monkeypatch, capsys):
    from cotbook import bench

    monkeypatch.setattr(bench, "theory_benchmark", lambda: {"speed_ratio": 1234.5})
    monkeypatch.setattr(bench, "simulate_benchmark", lambda: {"four_panel_D500_s": 7.0})
    assert cli.main(["bench", "theory"]) == 0
    assert cli.main(["bench", "simulate"]) == 0
    assert capsys.readouterr().out == "speed_ratio: 1234.5\nfour_panel_D500_s: 7.0\n"


def test_experiments_command_saves_grid_and_sensitivity(tmp_path, monkeypatch, capsys):
    from cotbook import experiments, results

    monkeypatch.setitem(
        experiments.SCALES, "book", dict(Ls=(3,), Ms=(4, 6), trials=2, t_max=2, steps=3, D=2)
    )
    monkeypatch.setitem(
        experiments.SENSITIVITY_SCALES, "book", dict(points=((3, 4),), trials=1, t_max=2, D=2)
    )
    monkeypatch.setattr(
        experiments, "VARIANTS", {"paper": dict(steps=3), "merged W": dict(steps=3, merged=True)}
    )
    monkeypatch.setattr(results.save, "__defaults__", (tmp_path,))
    assert cli.main(["experiments", "--scale", "book", "--seed", "2"]) == 0
    grid = results.load(experiments.GRID_RESULT, directory=tmp_path)
    assert grid["config"]["Ls"] == [3] and grid["config"]["steps"] == 3
    assert grid["config"]["seed"] == 2 and grid["config"]["scale"] == "book"
    assert np.asarray(grid["data"]["E"]["softmax"]["history"]).shape == (1, 2, 2, 3)
    assert "total" in grid["timings_s"]
    sens = results.load(experiments.SENSITIVITY_RESULT, directory=tmp_path)
    assert set(sens["data"]["E"]) == {"paper", "merged W"}
    assert np.asarray(sens["data"]["E"]["merged W"]["linear"]["examples"]).shape == (1, 1, 3)
    assert capsys.readouterr().out.count("saved") == 2
