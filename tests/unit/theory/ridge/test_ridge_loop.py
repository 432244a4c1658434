"""Tests of cotbook.theory.ridge.loop: a settling lambda > 0 curve from a circle inside
|x| = 1 and a loop round the sectors' cut in y, against independent references.

The loop's quadrature against a function whose coefficients are known; the cut's ends
against the sectors' jump; the curve against a torus inside |x| = 1 where that certifies and
against a torus beyond 1 (poles at 1 taken out) where one serves: other contours, other
frames; the join into ridge_curve; a growing curve, whose pole between the loop and the small
circle adds its share, against a torus; and a pole crossing the loop, which a wider loop
leaves beyond it, against a torus.
"""

import numpy as np
import pytest

from cotbook.theory import derivation as dv
from cotbook.theory import ridge as rg
from cotbook.theory.ridge import _cut
from cotbook.theory.ridge import beyond as rb
from cotbook.theory.ridge import loop as rl
from cotbook.theory.ridge import torus as rt

# (1.253, 7.368, 0.207, lam = 0.01226): a coverage point refused at t = 683 before the loop;
# its cut starts at y_e - 1 = 5.8e-3, E_t decays to 1e-8 by t = 1000
DECAYING = (1.253, 7.368, 0.207, 0.01226)


def test_loop_reproduces_the_coefficients_of_a_pole_it_encloses():
    """``f(y) = 1/(y - c)`` with ``c`` on the cut: the loop encloses it, so
    ``-(1/2 pi i) oint f y^-t-1 dy = [y^t] f = -c^-t-1`` at every depth."""
    q_b, q_a = 6.3e-4, 1.97
    for q_c in (2e-3, 0.5, 1.5):
        c = 1 / (1 - q_c)
        y, w = _cut.loop(q_b, q_a, 0.05, 1024)
        t = np.array([0, 1, 2, 10, 100, 1000])
        got = (w[None, :] * y[None, :] ** -(t[:, None] - 1.0) / (y - c)[None, :]).sum(1)
        np.testing.assert_allclose(got, -(c ** (-t - 1.0)), rtol=1e-11, atol=1e-15)
    # every second node is the loop at half the nodes
    y, w = _cut.loop(q_b, q_a, 0.05, 512)
    y2, w2 = _cut.loop(q_b, q_a, 0.05, 1024)
    np.testing.assert_allclose(y2[::2], y, rtol=1e-15)
    np.testing.assert_allclose(2 * w2[::2], w, rtol=1e-14)


def test_cut_ends_where_the_sectors_jump():
    """Both sectors' cuts are the same interval (the spectrum's image); just inside its ends
    the sectors jump across the real axis, just outside they do not."""
    p = dv.Point.of(*DECAYING)
    v_cut, u_cut = _cut.cut(p, 1e-4), _cut.cut(p, 1e-4, v_sector=False)
    np.testing.assert_allclose(v_cut, u_cut, rtol=1e-8)
    q_b, q_a = v_cut
    assert 5e-3 < q_b < 7e-3 and 1 < q_a < 2
    for v_sector in (True, False):
        z_b, z_a = 1 / (p.alpha * q_b), 1 / (p.alpha * q_a)
        inside = np.array([z_a * (1 + 1e-6), z_b * (1 - 1e-6)])
        outside = np.array([z_a * (1 - 1e-6), z_b * (1 + 1e-6)])
        assert _cut.on_cut(p, inside, v_sector).all()
        assert not _cut.on_cut(p, outside, v_sector).any()


@pytest.fixture(scope="module")
def decaying():
    return rl.deep_curve(dv.Point.of(*DECAYING), 10_000, rg.RIDGE_RTOL, 1e-12)


@pytest.mark.slow
def test_loop_curve_matches_a_torus_inside_where_it_certifies(decaying):
    """The circle-and-loop curve certifies every depth to 10^4 (the search for a torus had
    refused at t = 683); where the torus r = 0.97 (inside |x| = 1, another contour in both
    variables) certifies, the two agree within both bounds, and E_0 = 1 within its bound."""
    curve = decaying
    assert curve is not None and 1.005 < curve.y_e < 1.007 and curve.radius < 1
    assert curve.pole_radius is None
    assert np.all(curve.error <= rg.RIDGE_RTOL * np.abs(curve.E) + 1e-12)
    assert abs(curve.E[0] - 1) <= curve.error[0] < 1e-12
    E_in, err_in, _ = rt.curve(dv.Point.of(*DECAYING), 0.97, 2048, 1000)
    both = np.flatnonzero(err_in <= rg.RIDGE_RTOL * np.abs(E_in) + 1e-12)
    assert both[-1] > 150
    assert np.all(np.abs(curve.E[both] - E_in[both]) <= curve.error[both] + err_in[both])
    assert 5e-9 < curve.E[1000] < 2e-8 and curve.E[-1] < 1e-18


@pytest.mark.slow
def test_loop_curve_matches_a_torus_beyond_one_where_one_serves():
    """At (1.5219, 7.8562, 0.021019, lam = 2.59e-5) the cut starts at y_e = 1.022 and the
    torus r = 1.0135 beyond |x| = 1 (B's poles at 1 taken out) serves every depth: the two
    paths, different contours in different frames, agree within both bounds at every depth
    (measured: to 4e-16, a hundredth of the bounds)."""
    p = dv.Point.of(1.5219, 7.8562, 0.021019, 2.59e-05)
    curve = rl.deep_curve(p, 2000, rg.RIDGE_RTOL, 1e-12)
    E, err, _ = rt.beyond(p, 1.0135, 4096, 2000)
    assert curve is not None and 1.02 < curve.y_e < 1.025
    assert np.all(np.abs(curve.E - E) <= curve.error + err)
    assert np.abs(curve.E - E).max() < 1e-14 and curve.error.max() < 1e-12


@pytest.mark.slow
def test_ridge_curve_joins_the_loop_where_the_torus_stops(decaying, monkeypatch):
    """An inside torus's refusal is joined to the loop's curve where they agree: every depth
    to 10^4 certified, ``loop_from`` the first past the torus; a refusal whose curve
    disagrees is not joined, nor is one of a torus beyond 1."""
    p = dv.Point.of(*DECAYING)
    monkeypatch.setattr(rl, "deep_curve", lambda *args: decaying)
    with pytest.raises(rg.RidgeAccuracyError) as refused:
        rg.ridge_curve(*DECAYING[:3], 10_000, lam=DECAYING[3], n=4096, radius=0.9975)
    t_c = refused.value.certified_to
    assert 200 < t_c < 2000
    curve = rb._round_the_cut(p, refused.value, 10_000, rg.RIDGE_RTOL, 1e-12)
    assert curve.loop_from == t_c + 1 and curve.radius == 0.9975 and curve.E[0] == 1
    assert np.all(curve.error <= rg.RIDGE_RTOL * curve.E + 1e-12)
    np.testing.assert_array_equal(curve.E[t_c + 1 :], np.maximum(decaying.E[t_c + 1 :], 0))
    E, err = refused.value.curve
    bent = rg.RidgeAccuracyError("bent", t_c, 0.9975, 4096, (E * (1 + 1e-3), err))
    assert rb._round_the_cut(p, bent, 10_000, rg.RIDGE_RTOL, 1e-12) is None
    outside = rg.RidgeAccuracyError("beyond", t_c, 1.01, 4096, (E, err))
    assert rb._round_the_cut(p, outside, 10_000, rg.RIDGE_RTOL, 1e-12) is None


# (0.9063, 2.162, 0.36, lam = 1.04e-5): a growing coverage point refused at t = 1609 before
# the pole's share; a pole of B(x, .) lies between the y-contours all round the x-circle
GROWING = (0.9063, 2.162, 0.36, 1.04e-05)


def _certified_and_agrees_with_a_torus(p, curve, r, n, reach):
    """Every depth of ``curve`` certified, ``E_0 = 1`` within its bound, and the curve within
    both bounds of the torus of radius ``r`` (``n`` points per circle) at every depth the
    torus certifies (beyond ``reach`` at least)."""
    assert np.all(curve.error <= rg.RIDGE_RTOL * np.abs(curve.E) + 1e-12)
    assert abs(curve.E[0] - 1) <= curve.error[0] < 1e-10
    E_in, err_in, _ = rt.curve(p, r, n, len(curve.E) - 1)
    both = np.flatnonzero(err_in <= rg.RIDGE_RTOL * np.abs(E_in) + 1e-12)
    assert both[-1] > reach
    assert np.all(np.abs(curve.E[both] - E_in[both]) <= curve.error[both] + err_in[both])


@pytest.mark.slow
def test_a_pole_between_all_round_the_circle_adds_its_share():
    """The pole's share (read off the circle through its saddle) makes the growing curve: its
    E_0 = 1 within the bound, every depth to 1000 certified, and where a torus inside
    ``|x| = 1`` (another contour, no loop, no pole fitted) certifies, to t = 464 on 3072
    points per circle, the two agree within both bounds (measured: their difference is
    1.3e-5 of the bounds' sum at worst; 4096 points certify to 784 and cost 6x the time)."""
    p = dv.Point.of(*GROWING)
    curve = rl.deep_curve(p, 1000, rg.RIDGE_RTOL, 1e-12)
    assert curve is not None and curve.pole_radius is not None
    assert curve.pole_radius < curve.radius < 1
    _certified_and_agrees_with_a_torus(p, curve, 0.985, 3072, 400)
    assert curve.E[1000] > 1e6 * curve.E[0]  # it grows


def _loops_tried(monkeypatch):
    """The y-loops :func:`cotbook.theory.ridge.loop.deep_curve` tries, in turn, as
    ``(xi, refused)``: a list filled as it runs."""
    tried = []
    on_loop = rl._on_loop

    def record(p, t, y_loop, *rest):
        found = on_loop(p, t, y_loop, *rest)
        tried.append((y_loop.xi, found is None))
        return found

    monkeypatch.setattr(rl, "_on_loop", record)
    return tried


# (0.6674, 10.26, 0, lam = 2.951e-7): a settling coverage point refused at t = 894 before the
# wider loops; a pole of B(x, .) near the cut's far end crosses the narrower loop
CROSSING = (0.6674, 10.26, 0.0, 2.951e-07)


@pytest.mark.slow
def test_a_pole_crossing_the_loop_lies_beyond_a_wider_one(monkeypatch):
    """The narrower loop refuses (its check's miss falls less than tenfold with more nodes: a
    pole near ``x = -r0`` lies between on part of the circle only); the wider loop
    (``xi = 0.09``, its x-circle nearer ``|x| = 1``) has no pole between and certifies every
    depth to 1000, ``E_0 = 1`` within its bound, and where a torus inside ``|x| = 1``
    (another contour, no loop) certifies, to t = 305 on 4096 points per circle, the two
    agree within both bounds."""
    p = dv.Point.of(*CROSSING)
    q_b, q_a = _cut.cut(p, 80 / rl.N_MAX)
    assert _cut.width(q_b, q_a) == 0.05 and _cut.wider(q_b, q_a) == [0.09]
    tried = _loops_tried(monkeypatch)
    curve = rl.deep_curve(p, 1000, rg.RIDGE_RTOL, 1e-12)
    assert tried == [(0.05, True), (0.09, False)]
    assert curve is not None and curve.pole_radius is None
    narrow_r0 = 1 / np.abs(_cut.loop(q_b, q_a, 0.05, 4096)[0]).min()
    assert narrow_r0 < 0.99 < curve.radius < 0.999
    _certified_and_agrees_with_a_torus(p, curve, 0.99, 4096, 300)


@pytest.mark.slow
def test_a_pole_crossing_every_wider_loop_is_refused(monkeypatch):
    """At (0.6674, 9.5, 0, lam = 2.951e-7) ``|x y_p|`` stays below 1 at ``x = -r`` as ``r``
    nears 1 (0.9961 at r = 0.999), so the pole crosses the wider loop too: both loops are
    tried, and each refuses once its check's miss stops falling (no curve is returned here;
    test_ridge_cross.py takes the point)."""
    p = dv.Point.of(0.6674, 9.5, 0.0, 2.951e-07)
    tried = _loops_tried(monkeypatch)
    assert rl.deep_curve(p, 1000, rg.RIDGE_RTOL, 1e-12) is None
    assert tried == [(0.05, True), (0.09, True)]
