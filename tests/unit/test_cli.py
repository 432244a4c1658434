import json
import math
import re

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


@pytest.mark.slow
def test_chapters_command_writes_copies(tiny_book, capsys):
    assert cli.main(["chapters", "--root", str(tiny_book), "one"]) == 0
    assert (tiny_book / "tests" / "book" / "notebooks" / "one.ipynb").is_file()
    assert not (tiny_book / "tests" / "book" / "notebooks" / "two.ipynb").exists()
    assert "executing book/one.md" in capsys.readouterr().out


@pytest.mark.slow
def test_chapters_command_enforces_budget(tiny_book, capsys):
    assert cli.main(["chapters", "--root", str(tiny_book), "--budget", "1e-9", "two"]) == 1
    assert "over the 0 s budget: two" in capsys.readouterr().err
    for bad in ("-5", "inf", "nan", "soon"):  # a budget no chapter can exceed is no budget
        with pytest.raises(SystemExit):
            cli.main(["chapters", "--root", str(tiny_book), "--budget", bad])
        assert f"must be a finite number > 0, got {bad!r}" in capsys.readouterr().err


def test_chapters_command_rejects_unknown_names(tiny_book):
    with pytest.raises(SystemExit, match="unknown chapter.*chapters are: one, two"):
        cli.main(["chapters", "--root", str(tiny_book), "three"])


def test_simulate_command_saves_a_record_outside_the_committed_results(tmp_path, capsys):
    from cotbook.book import records

    assert cli.main(["simulate", "--scale", "tiny", "--seed", "4", "--out", str(tmp_path)]) == 0
    record = records.load("theory_vs_simulation", directory=tmp_path)
    assert (
        record.scale == "tiny" and record.config["seed"] == 4 and record.config["dims"] == [20, 40]
    )
    assert set(record.data) == {
        "saturation",
        "overthinking",
        "critical",
        "exponential",
        "deep overthinking",
    }
    assert not (tmp_path / "theory_vs_simulation.partial").exists()  # checkpoint removed
    assert "saved" in capsys.readouterr().out


def test_finite_d_command_saves_either_record(tmp_path, capsys):
    from cotbook.book import records

    args = ["finite-d", "--only", "shares", "--seed", "2", "--out", str(tmp_path)]
    assert cli.main(args) == 0  # the default scale is the smoke test
    record = records.load("finite_d_shares", directory=tmp_path)
    assert record.scale == "tiny" and record.config["seed"] == 2
    assert list(record.data["cells"]) == ["L=5/M=20", "L=5/M=40"]
    assert records.RESULTS["finite_d_shares"].command.startswith("python -m cotbook finite-d ")
    args = ["finite-d", "--only", "corrections", "--seed", "2", "--out", str(tmp_path)]
    assert cli.main(args) == 0
    record = records.load("finite_d_corrections", directory=tmp_path)
    assert record.scale == "tiny" and record.config["seed"] == 2
    assert list(record.data["exponential"]["dims"]) == ["20", "40"]
    with pytest.raises(SystemExit):
        cli.main(["finite-d", "--only", "nothing"])


@pytest.mark.slow
def test_cheap_runs_go_to_the_scratch_folder(tmp_path, monkeypatch):
    """`simulate --scale tiny` (or book) without --out writes under _build/results/, never into
    book/results/; writing there needs --force."""
    from cotbook.book.records import store

    committed, scratch = tmp_path / "committed", tmp_path / "scratch"
    committed.mkdir()
    monkeypatch.setattr(store, "RESULTS_DIR", committed)
    monkeypatch.setattr(store, "SCRATCH_DIR", scratch)
    assert cli.main(["simulate", "--scale", "tiny"]) == 0
    assert (scratch / "theory_vs_simulation.json").is_file() and not list(committed.iterdir())
    with pytest.raises(SystemExit) as err:
        cli.main(["simulate", "--scale", "tiny", "--out", str(committed)])
    assert err.value.code == 2 and not list(committed.iterdir())
    assert cli.main(["simulate", "--scale", "tiny", "--out", str(committed), "--force"]) == 0


@pytest.mark.slow
def test_interrupted_run_resumes_to_identical_data(tmp_path, monkeypatch):
    from cotbook.book import records
    from cotbook.simulation import finite_size

    whole, part = tmp_path / "whole", tmp_path / "part"
    assert cli.main(["simulate", "--scale", "tiny", "--out", str(whole)]) == 0
    real, calls = finite_size.run_unit, []

    def interrupted(spec, unit):
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(unit)
        return real(spec, unit)

    monkeypatch.setattr(finite_size, "run_unit", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cli.main(["simulate", "--scale", "tiny", "--out", str(part)])
    assert len(list((part / "theory_vs_simulation.partial").glob("unit-*.json"))) == 3
    with pytest.raises(SystemExit):  # an interrupted run is not silently restarted
        cli.main(["simulate", "--scale", "tiny", "--out", str(part)])
    with pytest.raises(SystemExit):  # nor resumed with another configuration
        cli.main(["simulate", "--scale", "tiny", "--seed", "1", "--out", str(part), "--resume"])
    monkeypatch.setattr(finite_size, "run_unit", real)
    assert cli.main(["simulate", "--scale", "tiny", "--out", str(part), "--resume"]) == 0
    a = records.load("theory_vs_simulation", directory=whole)
    b = records.load("theory_vs_simulation", directory=part)
    assert json.dumps(a.data) == json.dumps(b.data)


def test_unwritable_output_fails_before_any_work(tmp_path, monkeypatch):
    from cotbook.simulation import finite_size

    monkeypatch.setattr(finite_size, "run_unit", lambda *a: pytest.fail("work started"))
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(SystemExit) as err:
        cli.main(["simulate", "--scale", "tiny", "--out", str(blocker / "sub")])
    assert err.value.code == 2


def test_help_shows_scales_where_it_writes_and_where_costs_are_measured(capsys):
    """Each scale says what it is for; no run time is typed into the help (a typed one went
    stale: "paper: ~3 min" for a run of 27 unit-minutes): the help points to the chapter that
    reads them from the records."""
    for command in ("simulate", "experiments", "explorer", "precompute", "bench"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "book/long_runs.md" in text
        assert not re.search(r"~ ?\d|about \d+ min|\d+ min", text), text
        if command in ("simulate", "experiments"):
            assert "tiny: a smoke test" in text and "paper: the committed" in text
            assert "(default: book)" in text
            assert "_build/results/" in text and "book/results/" in text


def test_bench_command_prints_key_value_lines_and_saves_the_theory_timings(
    monkeypatch, capsys, tmp_path
):
    from cotbook import bench
    from cotbook.book import records

    settings = records.default_config(bench.theory_benchmark)
    assert settings["point"] == [2.0, 3.0, 0.01] and settings["t_max"] == 80
    monkeypatch.setattr(bench, "theory_benchmark", lambda: {"speed_ratio": 1234.5})
    monkeypatch.setattr(bench, "simulate_benchmark", lambda: {"four_panel_D500_s": 7.0})
    assert cli.main(["bench", "theory", "--out", str(tmp_path)]) == 0
    assert cli.main(["bench", "simulate"]) == 0
    saved = tmp_path / "theory_benchmark.json"
    assert capsys.readouterr().out == (
        f"saved {saved}\nspeed_ratio: 1234.5\nfour_panel_D500_s: 7.0\n"
    )
    record = records.load("theory_benchmark", directory=tmp_path)
    assert record.data == {"speed_ratio": 1234.5}
    assert record.config == {}  # the stand-in takes no arguments


@pytest.mark.slow
def test_experiments_command_saves_every_study(tmp_path, capsys):
    from cotbook.book import records

    assert cli.main(["experiments", "--scale", "tiny", "--seed", "2", "--out", str(tmp_path)]) == 0
    grid = records.load("attention_grid", directory=tmp_path)
    assert grid.config["Ls"] == [5, 20] and grid.config["steps"] == 20
    assert grid.config["seed"] == 2 and grid.scale == "tiny"
    assert np.asarray(grid.data["E"]["softmax"]["history"]).shape == (2, 2, 2, 5)
    assert "total" in grid.timings_s and grid.environment["device"] in ("cpu", "cuda")
    sens = records.load("attention_sensitivity", directory=tmp_path)
    assert set(sens.data["E"]) == {"paper", "merged W"}
    assert np.asarray(sens.data["E"]["merged W"]["linear"]["examples"]).shape == (1, 1, 5)
    inst = records.load("attention_instability", directory=tmp_path)
    assert set(inst.data) == {"grid", "dims", "sigma2s"} and inst.config["seed"] == 2
    assert np.asarray(inst.data["grid"]["trained"]["unstable"]).shape == (2, 2)
    soft = records.load("attention_softmax", directory=tmp_path)
    assert soft.config["seed"] == 2 and soft.config["variants"]["unroll 2"]["unroll"] == 2
    assert soft.data["units"]["D = 16/softmax/1"]["D"] == 16
    assert soft.code["source_hash"] == records.source_hash(soft.spec.producers)
    draws = records.load("authors_lottery", directory=tmp_path)
    assert draws.config["seed"] == 2 and np.asarray(draws.data["carriers"]).shape == (3, 5)
    assert capsys.readouterr().out.count("saved") == 5


@pytest.mark.slow
def test_interrupted_grid_resumes_to_identical_data(tmp_path, monkeypatch):
    """The Figure 2 grid killed after one of its (model, L) units and resumed: the same data
    as an uninterrupted run (tiny scale)."""
    from cotbook.attention import grid
    from cotbook.book import records

    whole, part = tmp_path / "whole", tmp_path / "part"
    args = ["experiments", "--scale", "tiny", "--only", "grid", "--out"]
    assert cli.main([*args, str(whole)]) == 0
    real = grid.run_unit

    def interrupted(spec, unit):
        if unit != spec.units()[0]:
            raise KeyboardInterrupt
        return real(spec, unit)

    monkeypatch.setattr(grid, "run_unit", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cli.main([*args, str(part)])
    monkeypatch.setattr(grid, "run_unit", real)
    assert cli.main([*args, str(part), "--resume"]) == 0
    a = records.load("attention_grid", directory=whole)
    b = records.load("attention_grid", directory=part)
    assert json.dumps(a.data) == json.dumps(b.data)


@pytest.mark.slow
def test_bench_accuracy_saves_its_record(tmp_path):
    from cotbook.book import records
    from cotbook.theory import numerics

    args = ["bench", "accuracy", "--scale", "tiny", "--out", str(tmp_path)]
    assert cli.main(args) == 0
    record = records.load("theory_accuracy", directory=tmp_path)
    rows = [numerics.AccuracyRow(*row) for row in record.data["rows"]]
    assert [r.alpha for r in rows] == [p[0] for p in numerics.SCALES["tiny"].points]
    assert rows[0].regime == "overthinking" and max(r.max_rel_diff for r in rows) < 1e-12
    assert record.scale == "tiny" and not record.stale and "total" in record.timings_s
    assert numerics.AccuracySpec.from_dict(record.config) == numerics.SCALES["tiny"]


@pytest.mark.slow
def test_bench_coverage_saves_its_record(tmp_path):
    from cotbook.book import records
    from cotbook.theory.ridge import coverage as ridge_coverage

    args = ["bench", "coverage", "--scale", "tiny", "--out", str(tmp_path)]
    assert cli.main(args) == 0
    record = records.load("ridge_coverage", directory=tmp_path)
    spec = ridge_coverage.CoverageSpec.from_dict(record.config)
    assert spec == ridge_coverage.SCALES["tiny"] and record.scale == "tiny" and not record.stale
    assert record.data["points"] == [list(p) for p in spec.points()]
    first = ridge_coverage.outcome(*spec.points()[0], spec.t_max)
    assert record.data["outcomes"][0] == list(first) and first.outcome == "certified"


# ---- python -m cotbook theory -------------------------------------------------------------

THEORY_POINTS = [  # (alpha, tau, sigma2): overthinking, saturation, exponential
    ("2", "3", "0.01"),
    ("0.5", "10", "0.01"),
    ("4", "4", "0.01"),
]


def _theory_args(point, depths, *extra):
    alpha, tau, sigma2 = point
    return ["theory", "--alpha", alpha, "--tau", tau, "--sigma2", sigma2, "--t", *depths, *extra]


def _theory_json(capsys, point, depths, *extra):
    assert cli.main(_theory_args(point, depths, *extra, "--json")) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("point", THEORY_POINTS)
def test_theory_command_prints_result_1_and_the_phases(point, capsys):
    from cotbook import __version__, theory
    from cotbook.theory import phases

    alpha, tau, sigma2 = map(float, point)
    got = _theory_json(capsys, point, ["40", "1", "7"])
    E = theory.error_curve(alpha, tau, sigma2, 40)
    assert got["t"] == [1, 7, 40]
    np.testing.assert_allclose(got["E_t"], E[[1, 7, 40]], rtol=1e-12, atol=0)
    assert got["parameters"] == {"alpha": alpha, "tau": tau, "sigma2": sigma2, "lam": 0.0}
    assert got["cotbook_version"] == __version__
    assert got["tau_c"] == phases.tau_c(alpha, sigma2)
    assert got["regime"] == phases.regime(alpha, tau, sigma2)
    assert got["decay_rate"] == phases.decay_rate(alpha, tau, sigma2)
    # the text form shows the same numbers to 10 digits, in lines of at most 100 characters
    assert cli.main(_theory_args(point, ["1", "7", "40"])) == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 100
    rows = dict(line.split() for line in text.splitlines()[2:5])
    np.testing.assert_allclose([float(rows[t]) for t in ("1", "7", "40")], got["E_t"], rtol=1e-9)
    assert f"regime    {got['regime']}" in text


def test_theory_command_known_values(capsys):
    got = _theory_json(capsys, THEORY_POINTS[0], ["1", "20"])
    assert got["E_t"][0] == pytest.approx(0.500557, abs=5e-7)  # error_curve's docstring
    assert got["E_t"][1] == pytest.approx(0.02080661, abs=5e-9)  # error_at's docstring
    assert got["tau_c"] == pytest.approx(3.321557, abs=5e-7)
    assert got["regime"] == "overthinking" and got["error_floor"] is None
    assert got["optimal_depth"]["t"] == 30  # Result 3 at this point
    sat = _theory_json(capsys, THEORY_POINTS[1], ["1"])
    assert sat["regime"] == "saturation"
    assert sat["error_floor"] == pytest.approx(0.5 * 9 / 7.99, rel=1e-14)
    assert sat["leading_law"]["power"] == -1.5 and sat["optimal_depth"] is None


@pytest.mark.slow
def test_theory_command_gives_the_law_where_a_symmetric_point_is_dropped(capsys):
    """(0.5, 1.05, 0.01): the positive symmetric point is not a descent saddle; the command
    used to print that the leading term could not be resolved."""
    got = _theory_json(capsys, ("0.5", "1.05", "0.01"), ["1"])
    law = got["leading_law"]
    assert law["source"] == "negative saddle" and law["power"] == -0.5
    assert law["rate"] == pytest.approx(15.411679, rel=1e-6)


def test_theory_command_with_ridge(capsys):
    from cotbook import theory

    got = _theory_json(capsys, ("2", "3", "0.01"), ["3", "1"], "--lam", "0.1")
    E = theory.error_curve(2.0, 3.0, 0.01, 3, lam=0.1)
    assert got["E_t"] == [E[1], E[3]] and got["parameters"]["lam"] == 0.1
    assert got["tau_c"] is None and got["regime"] is None


@pytest.mark.parametrize("point", THEORY_POINTS + [("2", "1.83594", "1"), ("0.5", "3", "1")])
def test_theory_json_says_what_the_text_says(point, capsys):
    """Issue 63: at (2, 1.83594, 1), above the noise threshold, E_t grows while Result 2's
    Lambda = 0.25 < 1; the text said Lambda is not the rate that leads, the JSON did not.  Now
    every note of the text is in the JSON's ``notes``, and ``decay_rate_leads`` says it."""
    got = _theory_json(capsys, point, ["1", "10"])
    assert cli.main(_theory_args(point, ["1", "10"])) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert set(got["notes"]) >= {"tau_c", "regime", "Lambda", "E_inf", "leading", "t*"}
    for note in got["notes"].values():
        assert " ".join(note.split()) in text
    leads = "negative saddle" in got["leading_law"]["source"]
    assert got["decay_rate_leads"] is leads
    assert ("not the rate that leads here" in got["notes"]["Lambda"]) is not leads
    if point == ("2", "1.83594", "1"):
        assert got["regime"] == "overthinking" and got["decay_rate"] < 1 and not leads


def test_theory_command_prints_minus_zero_as_zero(capsys):
    got = _theory_json(capsys, ("2", "3", "-0.0"), ["1"], "--lam", "-0.0")
    assert math.copysign(1.0, got["parameters"]["sigma2"]) == 1.0
    assert math.copysign(1.0, got["parameters"]["lam"]) == 1.0
    assert cli.main(_theory_args(("2", "3", "-0.0"), ["1"])) == 0
    assert "sigma2 = 0, lam = 0" in capsys.readouterr().out


@pytest.mark.parametrize(
    "point, depth, words",
    [
        (("2", "3", "0.01"), "30000", "exceeds the float64 range"),
        (("2", "3", "0.01"), "100000", "neither the contours nor the streamed forms"),
        (("4", "5", "0.1"), "50000", "lies below 1e-300"),
        (("4", "5", "0.1"), "99999", "neither the contours nor the streamed forms"),
    ],
)
def test_theory_command_refuses_values_beyond_float64(point, depth, words, capsys):
    """Issue 63: E_30000 at (2, 3, 0.01) printed "inf" and E_50000 at (4, 5, 0.1) "0.0" while
    E_100000 and E_99999 were refused.  A value outside the float64 range is refused too, by
    its depth, so no call prints inf or 0.0."""
    with pytest.raises(SystemExit, match=f"E_{depth} at .*{words}"):
        cli.main(_theory_args(point, ["1", depth]))
    assert capsys.readouterr().out == ""


def test_theory_command_csv(capsys):
    import csv
    import io

    point = THEORY_POINTS[2]
    want = _theory_json(capsys, point, ["0", "5", "60"])
    assert cli.main(_theory_args(point, ["60", "5", "0"], "--csv")) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [int(r["t"]) for r in rows] == want["t"]
    assert [float(r["E_t"]) for r in rows] == want["E_t"]  # every digit


@pytest.mark.parametrize(
    "change, names",
    [
        ({"--alpha": "-1"}, ["alpha", "[1e-12, 1e+12]"]),
        ({"--alpha": "two"}, ["--alpha", "must be a number"]),
        ({"--tau": "0.5"}, ["tau", "(1, 1e+12]", "lam = 0 needs tau > 1"]),
        ({"--sigma2": "nan"}, ["sigma2", "[0, 1e+12]"]),
        ({"--lam": "-0.1"}, ["lam", "[0, 1e+12]"]),
        ({"--t": "-3"}, ["t must be an integer >= 0"]),
        ({"--t": "2.5"}, ["--t", "must be an integer >= 0"]),
        ({"--t": "100001"}, ["t must be <= 100000"]),
    ],
)
def test_theory_command_rejects_bad_input_naming_the_parameter(change, names, capsys):
    args = {"--alpha": "2", "--tau": "3", "--sigma2": "0.01", "--t": "1", **change}
    with pytest.raises(SystemExit) as err:
        cli.main(["theory", *[x for kv in args.items() for x in kv]])
    assert err.value.code != 0
    message = capsys.readouterr().err
    assert all(name in message for name in names), message
    assert "Traceback" not in message


def test_theory_command_reports_an_uncertified_depth(monkeypatch, capsys):
    from cotbook.theory import AccuracyError, ridge

    def fail(*args, **kwargs):
        raise AccuracyError("ridge_curve: E_69 at (...) is known to +-7e-12")

    monkeypatch.setattr(ridge, "ridge_curve", fail)
    with pytest.raises(SystemExit) as err:
        cli.main(_theory_args(("2", "3", "0.01"), ["100"], "--lam", "0.1"))
    assert err.value.code == (
        "cotbook theory: for t = 100: ridge_curve: E_69 at (...) is known to +-7e-12 (the lam > 0 curve is "
        "certified to 1e-06 relative + 1e-12 absolute; here it is certified for shallower "
        "depths: ask for those)"
    )


@pytest.mark.slow
def test_theory_command_prints_the_papers_figure_1_depth_at_lam_1e_5(capsys):
    """The paper's Figure 1 states lambda = 1e-5 at t = 80; the refusal at E_51 is gone, and
    t = 1000 is answered too (it refused at E_67 here before the bisection above the ladder;
    a refusal's hint: test_theory_command_reports_an_uncertified_depth)."""
    assert cli.main(_theory_args(("2", "3", "0.01"), ["80"], "--lam", "1e-5")) == 0
    assert "80  0.0369016\n" in capsys.readouterr().out  # 0.03690160266 +- 1.3e-9: 7 digits
    assert cli.main(_theory_args(("2", "10", "0.01"), ["80", "1000"], "--lam", "1e-5")) == 0
    printed = capsys.readouterr().out
    assert "80  4.89043e-07\n" in printed  # +- 4e-13
    # E_1000 (about 1e-60) lies below the torus's floor (about 1e-17, a round-off level whose
    # digits move with the solver's last bits): printed as a bound, not as the 1e-19 it returns
    assert re.search(r"\n    1000  < 1(\.\d)?e-17\n", printed), printed


def test_theory_command_gives_the_bounds_of_a_ridge_curve(capsys):
    """Where lam > 0, the JSON and CSV carry each value's bound; the bound certifies the
    printed digits (against the value returned at a finer accuracy)."""
    import csv
    import io

    from cotbook import theory

    args = _theory_args(("2", "3", "0.01"), ["1", "30"], "--lam", "0.1")
    got = _theory_json(capsys, ("2", "3", "0.01"), ["1", "30"], "--lam", "0.1")
    fine = theory.error_curve(2.0, 3.0, 0.01, 30, lam=0.1, rtol=1e-9)
    assert len(got["E_error"]) == 2 and all(0 < b < 1e-6 for b in got["E_error"])
    for e, b, t in zip(got["E_t"], got["E_error"], (1, 30), strict=True):
        assert abs(e - fine[t]) <= b
    assert cli.main([*args, "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [float(r["error"]) for r in rows] == got["E_error"]
    assert _theory_json(capsys, ("2", "3", "0.01"), ["1"])["E_error"] is None  # lam = 0
    # E_0 = 1 exactly: its bound is 0 (it used to divide by it)
    assert cli.main(_theory_args(("2", "3", "0.01"), ["0", "1"], "--lam", "0.1")) == 0
    assert "\n       0  1\n" in capsys.readouterr().out


def test_theory_text_names_no_internal_function(capsys):
    """The row tau_+ explains itself in words, not by a function's name."""
    assert cli.main(_theory_args(("0.5", "1.2", "0.5"), ["1"])) == 0
    text = capsys.readouterr().out
    assert "tau_+" in text and "noise threshold" in text
    assert not re.search(r"\b[a-z_]+\.[a-z_]+\b", text), text


_ANSWER_ONLY = """
import sys
from cotbook import cli
try:
    cli.main(sys.argv[1:])
except SystemExit as done:
    print("exit", done.code)
heavy = ("torch", "numba", "dask", "distributed", "jupytext", "nbclient", "scipy", "numpy")
print(sorted(m for m in heavy if m in sys.modules))
"""


@pytest.mark.parametrize("args,code", [(["--version"], 0), (["--help"], 0), (["nonsense"], 2)])
def test_version_help_and_usage_errors_import_no_heavy_library(args, code):
    import subprocess
    import sys

    from cotbook import __version__

    done = subprocess.run(
        [sys.executable, "-c", _ANSWER_ONLY, *args], capture_output=True, text=True, check=True
    )
    lines = done.stdout.splitlines()
    assert lines[-2:] == [f"exit {code}", "[]"]
    if args == ["--version"]:
        assert lines[0] == f"cotbook {__version__}"
