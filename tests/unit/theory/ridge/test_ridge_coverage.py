"""The coverage study of the lambda > 0 engine: its points, what each outcome means, and its
units against ``ridge_curve`` called directly."""

import math

import numpy as np
import pytest

from cotbook.theory import ridge
from cotbook.theory.ridge import coverage as rc
from cotbook.theory.ridge import engine


def test_points_are_drawn_from_their_boxes_and_rounded():
    spec = rc.CoverageSpec(seed=3, count=400, t_max=100)
    pts = np.array(spec.points())
    assert pts.shape == (400, 4) and spec.points() == rc.CoverageSpec(seed=3, count=400).points()
    for k, name in enumerate(("alpha", "tau", "sigma2", "lam")):
        lo, hi = getattr(spec, name)
        col = pts[:, k][pts[:, k] > 0]
        assert lo * (1 - 1e-4) <= col.min() and col.max() <= hi * (1 + 1e-4), name
        # log-uniform: the median of the logs near the middle of the box (400 draws)
        assert abs(np.median(np.log(col)) - np.log(lo * hi) / 2) < 0.15 * np.log(hi / lo), name
    zero = np.mean(pts[:, 2] == 0)
    assert 0.14 < zero < 0.26  # zero_noise = 0.2, 400 draws
    assert all(float(f"{v:.4g}") == v for v in pts.ravel())
    assert rc.CoverageSpec(seed=4, count=5).points() != spec.points()[:5]


def test_spec_round_trips_and_names_bad_parameters():
    spec = rc.CoverageSpec(seed=2, count=4, t_max=50, tau=(0.5, 2.0), zero_noise=0.0)
    assert rc.CoverageSpec.from_dict(spec.to_dict()) == spec
    assert spec.units()[1].startswith("1: (") and len(spec.units()) == 4
    for kwargs, name in (
        ({"tau": (2.0, 1.0)}, "tau"),
        ({"alpha": (0.0, 1.0)}, "alpha"),
        ({"lam": (1e-8,)}, "lam"),
        ({"zero_noise": 1.5}, "zero_noise"),
        ({"t_max": ridge.RIDGE_T_MAX + 1}, "t_max"),
        ({"count": 0}, "count"),
    ):
        with pytest.raises(ValueError, match=name):
            rc.CoverageSpec(**kwargs)


def test_a_certified_point_reports_the_curve_it_returned():
    got = rc.outcome(2.0, 3.0, 0.01, 0.1, 40)
    curve = ridge.ridge_curve(2.0, 3.0, 0.01, 40, lam=0.1)
    assert got.outcome == "certified" and got.reach == 40
    assert got.log10_E == pytest.approx(math.log10(curve.E[40]), rel=1e-12)
    assert got.log10_E_half == pytest.approx(math.log10(curve.E[20]), rel=1e-12)
    assert got.radius == curve.radius and got.pole_from is None and got.beyond_from is None
    assert got.loop_from is None


@pytest.mark.parametrize("overflow, word", [(True, "float64"), (False, "refused")])
def test_a_refusal_is_classed_by_its_cause(monkeypatch, overflow, word):
    E = np.geomspace(1.0, 1e300, 41)

    def refuse(*args, **kwargs):
        raise ridge.RidgeAccuracyError("planted", 40, 0.9, 512, (E, E * 1e-15), overflow)

    monkeypatch.setattr(engine, "ridge_curve", refuse)  # what outcome calls
    got = rc.outcome(2.0, 1.0, 0.1, 0.1, 100)
    assert got == (word, 40, pytest.approx(300.0), pytest.approx(150.0), 0.9, None, None, None)
    monkeypatch.setattr(  # a refusal of the pole path carries no curve
        engine,
        "ridge_curve",
        lambda *a, **k: (_ for _ in ()).throw(ridge.RidgeAccuracyError("planted", 70)),
    )
    assert rc.outcome(2.0, 1.0, 0.1, 0.1, 100) == ("refused", 70, *[None] * 6)


def test_units_are_the_direct_calls_and_assemble_needs_them_all():
    spec = rc.CoverageSpec(seed=1, count=2, t_max=20)
    results = {u: rc.run_unit(spec, u) for u in spec.units()}
    for (a, tau, s2, lam), unit in zip(spec.points(), spec.units(), strict=True):
        assert results[unit]["outcome"] == list(rc.outcome(a, tau, s2, lam, spec.t_max))
    data, timings = rc.assemble(spec, results)
    assert data["points"] == [list(p) for p in spec.points()] and set(timings) == set(results)
    with pytest.raises(ValueError, match="missing"):
        rc.assemble(spec, dict(list(results.items())[1:]))
    with pytest.raises(ValueError, match="unit must be"):
        rc.run_unit(spec, "9: (1, 1, 1, 1)")


def test_the_tally_counts_each_outcome_and_its_times():
    spec = rc.CoverageSpec(seed=1, count=4, t_max=100)
    rows = [
        ["certified", 100, 2.0, 1.0, 0.95, None, None, None],
        ["float64", 40, 308.0, 154.0, None, None, None, None],
        ["certified", 100, -1.0, -0.5, 1.03, None, None, None],
        ["refused", 70, None, None, None, None, None, None],
    ]
    timings = dict(zip(spec.units(), [1.0, 2.0, 3.0, 9.0], strict=True), total=15.0)
    got = rc.tally(spec, {"points": spec.points(), "outcomes": rows}, timings)
    assert got == [
        rc.Tally("certified", 2, 2.0, 3.0, 100),
        rc.Tally("float64", 1, 2.0, 2.0, 40),
        rc.Tally("refused", 1, 9.0, 9.0, 70),
    ]
    assert rc.growth_per_step(rows[0]) == pytest.approx(10 ** (1 / 50))
    assert rc.growth_per_step(rows[2]) == pytest.approx(10 ** (-0.5 / 50))
    assert rc.growth_per_step(rows[3]) is None
    settled = ["certified", 100, -19.2, -19.3, 1.03, None, None, 60]  # below atol: rounding
    assert rc.growth_per_step(settled) is None
    assert rc.growth_per_step([*settled[:2], -11.9, -11.95, *settled[4:]]) > 1
    with pytest.raises(ValueError, match="missing"):
        rc.tally(spec, {"points": [], "outcomes": rows}, {"total": 15.0})


def test_the_committed_record_holds_its_units():
    """The committed record: the paper spec's points, outcomes that mean what they say, and its
    fastest unit recomputed here to the same JSON."""
    from cotbook.book import records

    record = records.load("ridge_coverage")
    spec = rc.CoverageSpec.from_dict(record.config)
    assert spec == rc.SCALES["paper"] and not record.stale
    assert record.data["points"] == [list(p) for p in spec.points()]
    rows = [rc.Outcome(*row) for row in record.data["outcomes"]]
    assert {row.outcome for row in rows} <= set(rc.OUTCOMES)
    for row in rows:
        if row.outcome == "certified":  # log10_E is None where E_t is 0 within its bound
            assert row.reach == spec.t_max
            assert row.beyond_from is None or (row.radius < 1 and 0 < row.beyond_from < row.reach)
            assert row.loop_from is None or (row.radius < 1 and 0 < row.loop_from < row.reach)
            assert row.loop_from is None or row.beyond_from is None
        else:
            assert 0 <= row.reach < spec.t_max
        if row.outcome == "float64" and row.log10_E is not None:
            assert 300 < row.log10_E <= math.log10(np.finfo(float).max)
    fastest = min(spec.units(), key=record.timings_s.__getitem__)
    again = rc.run_unit(spec, fastest)["outcome"]
    assert again == record.data["outcomes"][spec.units().index(fastest)]
