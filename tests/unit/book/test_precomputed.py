"""The chapters' precomputed studies (cotbook.book.precomputed): each committed record holds what
its computing functions give now, it stales with any module they import, and the loader refuses a
record of another configuration and computes a missing one."""

import dataclasses
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from cotbook import cli
from cotbook.book import precompute, precomputed, records
from cotbook.book.records import provenance
from cotbook.theory import asymptotics, contour, phases, saturation, scaling, stopping


def _committed(name):
    record = records.load(name)
    assert record is not None, f"{name}.json is missing: `{records.RESULTS[name].command}`"
    return precomputed.STUDIES[name].decode(record.data)


def test_every_study_is_a_record_whose_producers_are_its_import_closure():
    assert set(precomputed.STUDIES) == set(records.PRECOMPUTED_ROOTS) == set(precompute.NAMES)
    for name, roots in records.PRECOMPUTED_ROOTS.items():
        spec = records.RESULTS[name]
        assert spec.roots == (f"cotbook.book.precompute.{name}",) == roots
        assert spec.command == f"python -m cotbook precompute --only {name}"
        # how one record is computed is hashed with it, and with no other record
        others = {f"cotbook.book.precompute.{n}" for n in precompute.NAMES if n != name}
        assert not others & set(spec.producers), name
    # the loader only reads records: no record stales when it changes
    assert not [n for n, s in records.RESULTS.items() if "cotbook.book.precomputed" in s.producers]
    for name, spec in records.RESULTS.items():  # every record, experiments and benches too
        assert spec.producers == records.import_closure(*spec.roots), name
        assert set(spec.roots) <= set(spec.producers), name


def test_the_figure_2_grid_depends_on_the_layer_not_on_the_theory():
    """The attention and simulation faces import their studies on first use, so the grid's
    records (hours of training) stale with the layer's code, not with the theory's."""
    grid = set(records.RESULTS["attention_grid"].producers)
    assert {"cotbook.attention.layer", "cotbook.attention._kernels", "cotbook._threads"} <= grid
    assert not any(m.startswith(("cotbook.theory", "cotbook.simulation")) for m in grid)
    instability = set(records.RESULTS["attention_instability"].producers)
    assert not any(m.startswith("cotbook.theory") for m in instability)  # its margin: a chapter's
    # the theory's face is lazy: Result 2's regimes do not bring the closed system of App. C.9
    regimes = set(records.RESULTS["optimal_depths"].producers)
    ridge = set(records.RESULTS["ridge_depths"].producers)
    assert "cotbook.theory.phases" in regimes
    for closed_system in ("cotbook.theory.derivation", "cotbook.theory.ridge"):
        assert closed_system not in regimes and closed_system in ridge


@pytest.mark.parametrize(
    "root, code",
    [
        (  # the Figure 2 grid: a tiny unit, computed
            "cotbook.attention.grid",
            "from cotbook.attention import grid\n"
            "spec = grid.GRID_SCALES['tiny']\n"
            "grid.run_unit(spec, spec.units()[0])\n",
        ),
        (  # Result 2's regimes and Result 3's optimal depth (the instability study's theory)
            "cotbook.theory.phases",
            "from cotbook.theory import phases\n"
            "phases.regime(2.0, 3.0, 0.01), phases.optimal_depth(2.0, 3.0, 0.01)\n"
            "phases.error_floor(0.5, 10.0, 0.01), phases.decay_rate(2.0, 10.0, 0.01)\n",
        ),
        (  # the face, at a ridge: through the lazy package, into the closed system
            "cotbook.theory.curve",
            "from cotbook import theory\ntheory.error_curve(2.0, 3.0, 0.01, 5, lam=1e-3)\n",
        ),
    ],
)
def test_what_a_fresh_process_loads_is_inside_the_static_closure(tmp_path, root, code):
    """The static closure against what a fresh process really loads: importing a record's
    root and computing with it loads no cotbook module outside the closure (the lazy faces
    load on first use, and the closure reads their tables)."""
    script = code + (
        "import sys, json\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'cotbook')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(records.ROOT)},
    )  # fmt: skip
    loaded = set(json.loads(out.stdout.splitlines()[-1]))
    assert root in loaded
    assert loaded <= set(records.import_closure(root)), loaded - set(records.import_closure(root))


def test_import_closure_follows_relative_absolute_and_nested_imports():
    closure = records.import_closure("cotbook.theory.laws.stopping")
    # stopping imports phases (relative), phases imports closed_form, which imports contour;
    # the packages' __init__s run on the way and load nothing themselves (their names are lazy)
    theory = ("cotbook.theory", "cotbook.theory.laws", "cotbook.theory.exact")
    for module in ("cotbook", *theory, "cotbook.theory.phases", "cotbook.theory.exact.contour"):
        assert module in closure
    assert "cotbook.theory.derivation" not in closure
    # a module that binds the lazy package (from .. import theory) may reach every name in it
    assert "cotbook.theory.derivation" in records.import_closure("cotbook.book.runs.kernel_cache")
    # ... and every name of a sub-package's face on it (theory.ridge.ridge_curve)
    bound = provenance._bound("cotbook.theory")
    assert {"cotbook.theory.ridge.engine", "cotbook.theory.laws.stopping"} <= set(bound)
    assert "cotbook.attention" not in closure and "cotbook.book" not in closure
    assert records.import_closure("cotbook._checks") == ("cotbook", "cotbook._checks")
    # from ..attention import grid (a submodule) and from . import records (the book package)
    book = records.import_closure("cotbook.book.studies")
    assert {"cotbook.attention.grid", "cotbook.book", "cotbook.book.records"} <= set(book)
    assert tuple(sorted(book)) == book


@pytest.mark.slow
def test_committed_best_depth_is_what_saturation_optimum_gives_now():
    maps = _committed("stopping_maps")["maps"]
    again = stopping.saturation_optimum(0.5, 10.0 * _tau_x(0.5), 0.01)
    saved = maps[0.01][0.5, 10.0]
    assert isinstance(saved, stopping.SaturationOptimum)
    for field in ("t_best", "t_min", "t_flip", "t_stop"):
        assert getattr(saved, field) == getattr(again, field), field
    for field in ("gain_best", "E_min", "gain", "E_inf"):
        assert getattr(saved, field) == pytest.approx(getattr(again, field), rel=1e-9), field
    assert set(maps) == {0.01, 0.0, 0.1} and len(maps[0.0]) == 20


# the brute force's deepest depth at each alpha: over twice the deepest best depth of the maps
# there (4, 18, 72 and 356), and 32 more
_BRUTE_T = {0.1: 40, 0.3: 80, 0.5: 180, 0.7: 750}


def _brute_force_minimum(alpha, tau, sigma2, t_max):
    """``(t, E_t - E_inf)`` at the smallest ``E_t - E_inf`` over ``t = 1 .. t_max``: every depth
    evaluated (the contours on their first nodes, with the absolute bound they certify), the
    minimum taken, and the depths whose bounds leave them within reach of it evaluated again,
    to 1e-6 relative (asymptotics.excess); the minimum must then be resolved from every
    other depth."""
    got = contour.deep_errors(alpha, tau, sigma2, range(1, t_max + 1), math.inf, excess=True)
    assert sorted(got) == list(range(1, t_max + 1))
    value = {t: v.mantissa * math.exp(v.log_scale) for t, v in got.items()}
    bound = {t: v.error * math.exp(v.log_scale) for t, v in got.items()}
    for _ in range(2):
        t = min(value, key=value.get)
        near = [k for k in value if k != t and value[k] - bound[k] <= value[t] + bound[t]]
        if not near:
            return t, value[t]
        again = asymptotics.excess(
            alpha, tau, sigma2, [t, *near], drop_uncertified=True, n_max=4096
        )
        for k, la, sg in zip(again.depths.tolist(), again.log_abs, again.sign, strict=True):
            value[k], bound[k] = sg * math.exp(la), 1e-6 * math.exp(la)
    raise AssertionError(f"the minimum at depth {t} is not resolved from depths {near}")


@pytest.mark.slow
@pytest.mark.parametrize("sigma2", [0.01, 0.0])
def test_committed_best_depths_are_the_brute_force_minima(sigma2):
    """The chapter's maps (20 points at each noise) against brute force, no shape of the curve
    assumed: the best depth over t >= 1 and its gain, and over t >= 0 with E_0 = 1.  At
    sigma2 = 0, E_t - E_inf alternates between even and odd depths (a search that assumed one
    minimum printed 16 for 18 at (0.3, 20 tau_x), 50 for 48 at (0.5, 5), 270 for 268 at
    (0.7, 5))."""
    maps = _committed("stopping_maps")["maps"][sigma2]
    assert len(maps) == 20
    for (alpha, factor), best in maps.items():
        tau = factor * phases.pole_crossover(alpha, sigma2)
        t, excess = _brute_force_minimum(alpha, tau, sigma2, _BRUTE_T[alpha])
        assert best.t_min == t, (alpha, factor)
        assert best.gain == pytest.approx(-excess, rel=1e-6)
        floor = phases.error_floor(alpha, tau, sigma2)
        assert best.E_inf == pytest.approx(floor, rel=1e-14)
        assert best.t_best == (0 if 1 - floor < excess else t), (alpha, factor)
        assert best.gain_best == pytest.approx(max(floor - 1, -excess), rel=1e-6)
    if sigma2 == 0.0:
        assert [maps[p].t_min for p in [(0.3, 20.0), (0.5, 5.0), (0.7, 5.0)]] == [18, 48, 268]


def _tau_x(alpha):
    return phases.pole_crossover(alpha, 0.01)


@pytest.mark.slow
def test_committed_ridge_curve_is_what_the_closed_system_gives_now():
    from cotbook import theory

    data = _committed("ridge_depths")
    again = theory.error_curve(2.0, 2.0, 0.01, 40, lam=0.1)
    np.testing.assert_allclose(data["curves"][2.0, 0.1], again, rtol=1e-9)
    assert data["depth_map"][0.1]["t_star"].dtype.kind == "i"
    assert len(data["curves"]) == 9  # tau = 0.5 only at lam > 0


@pytest.mark.slow
def test_committed_ridge_checks_are_what_the_system_and_the_simulation_give_now():
    from cotbook.simulation import simulate
    from cotbook.theory import ridge

    data = _committed("ridge_depths")
    check = data["system_checks"][0.5, 10.0]
    again = ridge.ridge_curve(0.5, 10.0, 0.01, 30, lam=0.0)
    assert check.radius == again.radius
    np.testing.assert_allclose(check.E, again.E, rtol=1e-9)
    # the bound is made of round-off (the FFT's upper bins): the same within a factor of ten
    assert np.all(check.error[1:] <= 10 * again.error[1:])
    assert np.all(again.error[1:] <= 10 * check.error[1:])
    run = data["simulations"][0.5, 0.5, 1.0]
    sim = simulate.simulated_curve(0.5, 0.5, 0.01, 5, D=800, lam=1.0, trials=3, test_designs=1)
    np.testing.assert_allclose(run["sim"], sim.mean, rtol=1e-9)
    np.testing.assert_allclose(run["sem"], sim.sem, rtol=1e-6)
    assert len(data["simulations"]) == 5 and len(data["system_checks"]) == 3
    # t = 10^4 certified at every point: beyond |x| = 1 where E_t settles, and where it grows
    # (overthinking, tau < tau_c) on a torus inside |x| = 1 and the mixed sector's pole beyond
    # it; lam -> 0 is the ridgeless engine within the bounds, to t = 10^4 (the pole path
    # itself: test_ridge_pole)
    for row in data["reach"].values():
        assert row["reach"] == 10_000 and row["error_end"] <= 1e-6 * row["E_end"] + 1e-12
        grows = row["E_end"] > 1e10
        assert grows == (row["pole_from"] is not None)
        deep_path = row["beyond_from"] is not None or row["loop_from"] is not None
        assert (row["radius"] < 1) == (grows or deep_path)
    # E_t past the float range before t = 10^4 (tau <= 1, a large ridge; the saddle on the
    # positive axis): certified to the depth before, that refused by name, and E_t there
    # within one step's growth of the largest float
    top = np.log10(np.finfo(float).max)
    assert len(data["float_range"]) == 3
    for row in data["float_range"].values():
        assert row["overflow"] and 0 < row["x0"] < 1 and row["log10_E"][1] is None
        assert top - np.log10(row["growth"]) < row["log10_E"][0] < top
    for row in [*data["lam_limit"].values(), data["lam_limit_deep"]]:
        assert row["over_bound"] <= 1 and row["rel_limit"] <= 1e-9
        assert row["rel_lam"] > 5 * row["rel_limit"]  # the ridge is seen, and removed


@pytest.mark.slow
def test_committed_boundary_is_what_the_bisection_gives_now():
    """One bracket recomputed (lam = 0.1, T = 40); every bracket is as narrow as configured,
    turning points fall as the ridge grows, and at lam = 0 Result 2's tau_c lies between the
    deepest turning point and the smallest tau certified to converge."""
    from cotbook.theory import phases, upturn

    data = _committed("ridge_depths")
    config = precomputed.STUDIES["ridge_depths"].config["boundary"]
    again = upturn.boundary(
        2.0, 0.01, 40, lam=0.1, tau_lo=config["tau_lo"], tau_hi=config["tau_hi"], xtol=1e-3
    )
    saved = data["boundary"][40, 0.1]
    assert saved["below"] <= again.above and again.below <= saved["above"]
    assert len(data["boundary"]) == len(config["horizons"]) * len(config["lams"])
    tau_c = phases.tau_c(2.0, 0.01)
    for T in config["horizons"]:
        ups = [data["boundary"][T, lam]["below"] for lam in config["lams"]]
        assert ups == sorted(ups, reverse=True) and ups[0] < tau_c
    rows = [*data["boundary"].values(), *data["decays"].values()]
    rows = [r for r in rows if r["above"] is not None]  # None: not certified up to tau_hi
    assert len(rows) > len(data["boundary"])
    assert all(0 < r["above"] / r["below"] - 1 <= config["xtol"] for r in rows)
    assert data["boundary"][max(config["horizons"]), 0.0]["below"] < tau_c
    assert tau_c < data["decays"][0.0]["above"]
    assert data["decays"][0.1]["above"] < tau_c  # the ridge shrinks it at every depth


def test_ridge_boundary_summarises_both_sides_and_refuses_a_contradiction():
    """The chapter's boundary numbers from a small record: shifts against lam = 0, the
    horizon's bias against tau_c, the ridges certified to converge below tau_c."""
    from cotbook.book.studies import Study
    from cotbook.theory import phases

    tau_c = phases.tau_c(2.0, 0.01)
    spec = {
        "alpha": 2.0,
        "sigma2": 0.01,
        "boundary": {"horizons": [40, 300], "lams": [0.0, 0.1, 1.0]},
    }
    turns_up = {
        (40, 0.0): {"below": 3.0}, (40, 0.1): {"below": 1.5}, (40, 1.0): {"below": 1.2},
        (300, 0.0): {"below": 3.2}, (300, 0.1): {"below": 1.6}, (300, 1.0): {"below": 1.28},
    }  # fmt: skip
    decays = {0.0: {"above": 5.0}, 0.1: {"above": 2.0}, 1.0: {"above": None}}
    study = Study(spec, {"boundary": turns_up, "decays": decays}, {}, "", None)
    edge = precomputed.ridge_boundary(study)
    assert edge.tau_c == tau_c and edge.bias == pytest.approx(tau_c / 3.2 - 1)
    assert edge.shifts == {
        40: pytest.approx({0.1: 0.5, 1.0: 0.6}),
        300: pytest.approx({0.1: 0.5, 1.0: 0.6}),
    }
    assert edge.below_tau_c == (0.1,) and edge.bracket == {0.1: (1.6, 2.0)}
    decays[0.0]["above"] = 3.0  # below tau_c: the two certified sides contradict Result 2
    with pytest.raises(ArithmeticError, match="outside the lam = 0 bracket"):
        precomputed.ridge_boundary(study)


@pytest.mark.slow
def test_committed_optimal_depth_is_what_the_search_gives_now():
    data = _committed("optimal_depths")
    c_t, c_e, rows = data[2.0, 0.0]
    (again,) = scaling.optimal_depth_rows(2.0, 0.0, [0.5])
    assert rows[0].t_star == again.t_star and isinstance(rows[0].t_star, int)
    np.testing.assert_allclose(rows[0], again, rtol=1e-9)
    assert c_t == pytest.approx(1 / (2 * scaling.kappa(2.0, 0.0)), rel=1e-12)
    assert len(rows) == len(precomputed.STUDIES["optimal_depths"].config["deltas"])


@pytest.mark.slow
def test_committed_approach_is_what_saturation_approach_gives_now():
    data = _committed("saturation_approach")
    (key,) = [k for k in data if k[:2] == (0.5, 1.1)]
    again = saturation.approach(0.5, key[2], 0.01)
    saved = data[key]
    assert isinstance(saved["law"], asymptotics.AsymptoticLaw)
    assert {k: saved[k] for k in ("sign", "t_flip", "t_law")} == {
        k: again[k] for k in ("sign", "t_flip", "t_law")
    }
    assert saved["law"].source == again["law"].source
    np.testing.assert_allclose(saved["law"].rate, again["law"].rate, rtol=1e-12)
    assert saved["floor"] == pytest.approx(again["floor"], rel=1e-12)


def _quick(monkeypatch, value=1.5):
    """``optimal_depths`` replaced by a study that computes in no time."""
    study = dataclasses.replace(
        precomputed.STUDIES["optimal_depths"],
        compute=lambda config: {"cases": [{"alpha": 2.0, "sigma2": 0.0, "C_t": value,
                                           "C_E": 0.25, "rows": [[0.5, 25, 12.5, 0.02, 0.1]]}]},
    )  # fmt: skip
    monkeypatch.setitem(precomputed.STUDIES, "optimal_depths", study)
    return study


def test_load_computes_a_missing_record_now_and_says_so(monkeypatch, tmp_path):
    _quick(monkeypatch)
    monkeypatch.setattr(records.load, "__defaults__", (tmp_path,))  # nothing saved there
    study = precomputed.load("optimal_depths")
    assert study.record is None and "computed now" in study.caption
    c_t, c_e, rows = study.data[2.0, 0.0]
    assert c_t == 1.5 and rows == [scaling.OptimalDepth(0.5, 25, 12.5, 0.02, 0.1)]


def test_the_command_saves_and_the_loader_reads_back(monkeypatch, tmp_path, capsys):
    _quick(monkeypatch, value=2.5)
    assert cli.main(["precompute", "--only", "optimal_depths", "--out", str(tmp_path)]) == 0
    assert f"saved {tmp_path / 'optimal_depths.json'}" in capsys.readouterr().out
    monkeypatch.setattr(records.load, "__defaults__", (tmp_path,))
    study = precomputed.load("optimal_depths")
    assert study.record is not None and study.data[2.0, 0.0][0] == 2.5
    assert "read from book/results/optimal_depths.json" in study.caption


def test_a_record_of_another_configuration_is_refused(monkeypatch, tmp_path):
    quick = _quick(monkeypatch)
    assert cli.main(["precompute", "--only", "optimal_depths", "--out", str(tmp_path)]) == 0
    other = dataclasses.replace(quick, config={**quick.config, "deltas": [0.5]})
    monkeypatch.setitem(precomputed.STUDIES, "optimal_depths", other)
    monkeypatch.setattr(records.load, "__defaults__", (tmp_path,))
    with pytest.raises(records.ResultError, match="configuration differs"):
        precomputed.load("optimal_depths")


def test_bad_names_and_values_are_refused():
    with pytest.raises(ValueError, match="name must be one of"):
        precomputed.load("no_such_study")
    with pytest.raises(SystemExit):
        cli.main(["precompute", "--only", "no_such_study"])
    for bad in (math.nan, math.inf):
        with pytest.raises(ArithmeticError, match="not finite"):
            precompute.plain({"x": [1, bad]})
    assert precompute.plain((np.int64(3), np.float64(0.5), None, "a")) == [3, 0.5, None, "a"]


@pytest.mark.slow
def test_committed_learned_matrices_are_what_training_gives_now():
    """Training runs in float32, and another CPU's vector path rounds it differently: on an
    AMD EPYC machine W and V came out 7e-8 and 5e-8 of their norms from the record (float32's
    unit round-off is 6e-8), against 1e-9 elementwise on the machine that wrote it.  So the
    check is norm-wise at ten float32 round-offs."""
    from cotbook import attention
    from cotbook.attention import structure

    study = precomputed.STUDIES["attention_structure"]
    assert study.config["settings"] == structure.APPENDIX_A
    data = _committed("attention_structure")
    W, V = structure.trained_matrices(attention.Config(L=20, M=20, D=10, **structure.APPENDIX_A))
    for saved, now in zip(data[10, 20], (W, V)):
        assert saved.shape == now.shape
        assert np.linalg.norm(saved - now) <= 10 * 2.0**-24 * np.linalg.norm(now)
    assert data[50, 200][0].shape == (102, 102)


def test_the_learned_matrices_are_trained_on_one_thread(monkeypatch):
    """The record's bytes must not depend on the caller's thread count: on 2 torch threads W
    of the D = 50 run moved by up to 0.6 % (issue 63's rerun found it)."""
    import torch

    from cotbook.attention import structure
    from cotbook.book.precompute import attention_structure

    seen = []

    def spy(config):
        seen.append((config.D, config.L, torch.get_num_threads()))
        return np.zeros((2, 2)), np.zeros((2, 2))

    monkeypatch.setattr(structure, "trained_matrices", spy)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        attention_structure.compute(attention_structure.CONFIG)
        assert torch.get_num_threads() == 2  # the caller's count put back
    finally:
        torch.set_num_threads(before)
    assert seen == [(50, 20, 1), (50, 200, 1), (10, 20, 1), (10, 200, 1)]


def test_each_study_is_read_by_the_chapter_it_names():
    from pathlib import Path

    book = Path(__file__).resolve().parents[3] / "book"
    for name, study in precomputed.STUDIES.items():
        text = (book / f"{study.chapter}.md").read_text()
        assert f'precomputed.load("{name}")' in text, (name, study.chapter)
