"""Tests of cotbook.theory.ridge.pole: the deep depths of a growing lambda > 0 curve from the
mixed sector's pole, against independent references.

References: a torus of cotbook.theory.ridge (a 2-D FFT, another discretisation and another
contour) where both certify; the ridgeless contour engine of cotbook.theory.exact.contour as
lambda -> 0 (another parametrisation altogether, at lambda = 0); and the growth law
psi0^-t t^(-1/2) of a simple pole met at a saddle, with psi0 read off the pole on the
real axis (negative, or positive where the pole curve crosses x = 1).  ridge_curve's splice
and overlap check are tested here with planted values and in test_ridge on a real curve
(t = 400 at the same point); its refusal past the float range here.
"""

import numpy as np
import pytest

from cotbook import theory
from cotbook.theory import derivation as dv
from cotbook.theory import ridge as rg
from cotbook.theory.ridge import _nodes
from cotbook.theory.ridge import beyond as rb
from cotbook.theory.ridge import pole as rp
from cotbook.theory.ridge import torus as rt

GROWING = (2.0, 3.0, 0.01, 1e-5)  # Figure 1's point and ridge: E_t grows like 1.027^t
CROSSING = (0.5, 0.5, 0.01, 1.0)  # tau < 1, a large ridge: the saddle on the positive axis


@pytest.fixture(scope="module")
def growing():
    """The pole path at GROWING, t = 1 .. 1000, on 2048 contour nodes."""
    return rp.deep_curve(dv.Point.of(*GROWING), 1, 1000, n=2048)


@pytest.mark.slow
def test_the_pole_path_meets_a_torus_where_both_certify(growing):
    """The torus r = 0.9734 (2048 points per circle) certifies t <= 454 here; from t = 200
    the pole path certifies too, and the two agree within their bounds at every depth (they
    share only the closed system's values, not a node)."""
    torus = rg.ridge_curve(*GROWING[:3], 454, lam=GROWING[3], n=2048, radius=0.9734267292643225)
    E, err = growing.E[199:454], growing.error[199:454]  # t = 200 .. 454
    assert np.all(err <= 1e-6 * E)
    assert np.all(np.abs(E - torus.E[200:]) <= err + torus.error[200:])
    assert np.max(np.abs(E / torus.E[200:] - 1)) < 1e-9  # both far inside their bounds


@pytest.mark.slow
def test_a_growing_curve_follows_the_law_of_its_saddle(growing):
    """E_t ~ C psi0^-t t^-1/2 (a simple pole met at a saddle): the local rate at t = 1000 is
    -log psi0 - 1/(2t) to 5e-6 (the t^-1/2 alone is 5e-4 of it), psi0 = x0 y_k(x0) read off
    the pole on the negative axis (1/psi0 = 1.027 per step here), and E_t is certified to 1e-6
    from t = 200 on."""
    E = growing.E
    assert np.all(growing.error[199:] <= 1e-6 * E[199:])
    rate = np.log(E[999] / E[989]) / 10  # t = 1000 and 990
    assert abs(rate + np.log(growing.psi0) + 1 / (2 * 995)) < 5e-6
    assert -1.0 < growing.x0 < -0.95 and 0.97 < growing.psi0 < 0.98


@pytest.mark.slow
def test_lam_to_zero_meets_the_ridgeless_engine_deep():
    """lam = 1e-10 moves E_1000 by 2e-7 relative, more than the bounds; 2 E(lam) - E(2 lam)
    removes it and meets the lambda = 0 contour engine to its bound (the quadratic term
    left, (2e-7)^2, is below it).  (The same holds at t = 10^4, 8192 nodes: 1.5e-12 apart,
    bound 4.7e-11.)"""
    depths = list(range(990, 1001))
    one, two = (
        rp.deep_curve(dv.Point.of(*GROWING[:3], lam), 990, 1000, n=2048) for lam in (1e-10, 2e-10)
    )
    ridgeless = theory.errors_at(*GROWING[:3], depths)
    assert np.all(np.abs(one.E / ridgeless - 1) > 10 * one.error / one.E)
    limit, bound = 2 * one.E - two.E, 2 * one.error + two.error
    assert np.all(np.abs(limit - ridgeless) <= bound)


@pytest.fixture(scope="module")
def crossing():
    """The pole path at CROSSING, t = 1 .. 1000, on 1024 contour nodes."""
    return rp.deep_curve(dv.Point.of(*CROSSING), 1, 1000, n=1024)


@pytest.mark.slow
def test_a_saddle_on_the_positive_axis_meets_a_torus_and_its_law(crossing):
    """At CROSSING the pole curve crosses x = 1 inside the unit circle (F(1, y) is singular,
    so the poles at 1 cannot be taken out): the path goes round the saddle x0 = 0.85 on
    |x| = x0, inside those poles.  The torus r = 0.8349 (2048 points) certifies t <= 400;
    from t = 112 the path certifies too, and the two agree within both bounds (4e-12 apart).
    At t = 1000 the local rate is -log psi0 - 1/(2t) to 5e-6 (1e-6 measured)."""
    assert 0.8 < crossing.x0 < 0.9 and 0.71 < crossing.psi0 < 0.73
    torus = rg.ridge_curve(*CROSSING[:3], 400, lam=CROSSING[3], n=2048, radius=0.834896507208988)
    E, err = crossing.E[111:400], crossing.error[111:400]  # t = 112 .. 400
    assert np.all(crossing.error[111:] <= 1e-6 * crossing.E[111:])
    assert np.all(np.abs(E - torus.E[112:]) <= err + torus.error[112:])
    assert np.max(np.abs(E / torus.E[112:] - 1)) < 1e-10
    rate = np.log(crossing.E[999] / crossing.E[989]) / 10
    assert abs(rate + np.log(crossing.psi0) + 1 / (2 * 995)) < 5e-6


@pytest.mark.slow
def test_two_branches_of_poles_on_one_contour_are_both_followed():
    """At (0.958, 0.7506, 0, lam = 0.0339) the pole curve has a branch on each axis, with
    saddles 0.549 (x0 = 0.74) and 0.576 (x0 = -0.75) apart by 5 %: the circle |x| = 0.74
    meets both, and a path that followed one left the other's poles in its rows (a random
    sweep's point, refused at t = 1172 after a minute).  Both followed, the path certifies
    t >= 58, meets the torus r = 0.6926 (2048 points, certified to t = 119) within both
    bounds, and follows the faster saddle's law at t = 1000 (2e-6 measured)."""
    point = (0.958, 0.7506, 0.0, 0.0339)
    curve = rp.deep_curve(dv.Point.of(*point), 1, 1000, n=1024)
    assert 0.7 < curve.x0 < 0.8 and abs(curve.psi0 - 0.549) < 1e-3
    assert np.all(curve.error[57:] <= 1e-6 * curve.E[57:])
    E, err, _ = rt.curve(dv.Point.of(*point), 0.69255, 2048, 119)
    assert np.all(err[58:] <= 1e-6 * E[58:])
    assert np.all(np.abs(curve.E[57:119] - E[58:]) <= curve.error[57:119] + err[58:])
    rate = np.log(curve.E[999] / curve.E[989]) / 10
    assert abs(rate + np.log(curve.psi0) + 1 / (2 * 995)) < 5e-6


@pytest.mark.slow
def test_a_pole_between_1_01_and_1_03_is_met_on_the_nearer_circle():
    """At (1.533, 3.986, 0, lam = 3.179e-4) E_t grows like 1.064^t, and ridge_curve refused at
    t = 1577 (a random sweep's point): on |y| = 1.03 the rows show more than one pole (F is
    singular between 1.01 and 1.03), so the scan found no saddle.  On |y| = 1.01 one simple
    pole: the saddle x0 = -0.969, psi0 = 0.9396.  The path (2048 nodes) certifies t >= 227,
    meets the torus r = 0.955 (2048 points, certified to t = 391) within both bounds, and
    follows its saddle's law at t = 1000 (3e-6 measured)."""
    point = (1.533, 3.986, 0.0, 0.0003179)
    p = dv.Point.of(*point)
    assert rp._saddle(rp._Frame(p, rp._R_BEYOND[0]), rp._BEYOND_GRID) is None
    curve = rp.deep_curve(p, 1, 1000, n=2048)
    assert -0.98 < curve.x0 < -0.96 and abs(curve.psi0 - 0.9396) < 1e-3
    assert np.all(curve.error[226:] <= 1e-6 * curve.E[226:])
    E, err, _ = rt.curve(p, 0.955, 2048, 391)
    assert np.all(err <= 1e-6 * E)
    assert np.all(np.abs(curve.E[226:391] - E[227:]) <= curve.error[226:391] + err[227:])
    rate = np.log(curve.E[999] / curve.E[989]) / 10
    assert abs(rate + np.log(curve.psi0) + 1 / (2 * 995)) < 5e-6


def test_the_path_declines_where_no_pole_grows():
    """(4, 10): E_t decays to 0, no row of the saddle scan shows a pole inside |y| = R, and the
    path declines (ridge_curve's torus serves such points)."""
    assert rp.deep_curve(dv.Point.of(4.0, 10.0, 0.01, 0.1), 1, 10, n=1024) is None


def test_an_overflowing_curve_is_refused_where_it_leaves_the_float_range(monkeypatch):
    """Past the float range E_t is not a number the curve can hold: the refusal names the
    depth and keeps what the torus and the pole certified before it (planted pole values)."""
    t_max = 60
    E = np.geomspace(1.0, 1e300, t_max) * 1.5
    E[50:] = np.inf
    planted = rp.PoleCurve(E, np.minimum(1e-9 * E, 1e299), -0.9, 0.8)  # the bound stays finite
    monkeypatch.setattr(rp, "deep_curve", lambda *args, **kwargs: planted)
    beyond = rb._PastThePole(dv.Point.of(*GROWING), t_max, 1e-6, 1e-12)
    on_torus = np.concatenate(([1.0], E[:20]))  # t = 0 .. 20, as the pole's
    torus = rg.RidgeAccuracyError("torus", 20, 0.97, 512, (on_torus, 1e-9 * on_torus))
    refusal = beyond.extend(torus)
    assert isinstance(refusal, rg.RidgeAccuracyError) and refusal.certified_to == 50
    assert "E_51" in str(refusal) and "float64 range" in str(refusal)
    assert refusal.radius is None and refusal.n is None
    assert beyond.overflowed  # ridge_curve's search ends there: no torus brings it back


@pytest.mark.slow
def test_blocks_of_rows_and_depths_give_the_numbers_of_one_block(monkeypatch):
    """The path holds only its rows of Bh and blocks of rows or depths (``_nodes.BLOCK``
    elements): cut into blocks of 64 rows and 2 depths at GROWING, t = 1 .. 300, the curve and
    its bound are those of blocks as large as each array (any difference is in the last
    bits)."""
    p = dv.Point.of(*GROWING)
    whole = rp.deep_curve(p, 1, 300, n=1024)
    monkeypatch.setattr(_nodes, "BLOCK", 64 * rp._NY)
    blocks = _nodes.blocks(130, rp._NY)
    assert [(s.start, s.stop) for s in blocks] == [(0, 64), (64, 128), (128, 130)]
    assert len(_nodes.blocks(300, 1024)) == 2  # blocks of 256 depths of 1024 nodes
    monkeypatch.setattr(_nodes, "BLOCK", 2 * 1024)
    blocked = rp.deep_curve(p, 1, 300, n=1024)
    assert np.max(np.abs(blocked.E / whole.E - 1)) < 1e-13
    assert np.max(np.abs(blocked.error / whole.error - 1)) < 1e-6
    assert np.all(whole.error[199:] <= 1e-6 * whole.E[199:])  # a curve worth comparing
