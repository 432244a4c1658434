"""Tests of cotbook.theory.ridge.cross: a pole that crosses every y-loop of ridge_loop, served by
two loops chosen per node of the x-circle and the pole's share on the arc where it lies between
or along a path through the saddle of x y_p; against a torus inside |x| = 1 (another contour, no
loop) and the two shares against each other (another contour for the same residue)."""

import numpy as np
import pytest

from cotbook.theory import derivation as dv
from cotbook.theory import ridge as rg
from cotbook.theory.ridge import cross as rc
from cotbook.theory.ridge import loop as rl
from cotbook.theory.ridge import torus as rt

# refused by ridge_loop (test_ridge_loop.py: the pole crosses the standard and the wider loop);
# the torus search certifies it to t = 896
POINT = (0.6674, 9.5, 0.0, 2.951e-07)


@pytest.fixture(scope="module")
def route():
    """The route's pieces at ``POINT`` to ``t = 1500``: setup, circle, the two loops' checks at
    4096 nodes, the choice per node and the arc."""
    p = dv.Point.of(*POINT)
    s = rl.setup(p, 1500)
    r0, x, circle = rc._x_circle(p, s)
    loops = rc._loops(p, s, 4096, x, circle)
    use_narrow = rc._choose(*loops)
    return p, s, r0, x, loops, use_narrow, rc._arc(x, loops, use_narrow)


@pytest.mark.slow
def test_every_node_is_served_by_one_of_two_loops(route):
    """Each loop fails its check only on an arc where the pole crosses it; the two arcs are
    disjoint, so every node is served, and the pole lies between the chosen loop and the small
    circle on one arc round x = -r0 (measured: |arg x| >= 0.98 pi, the narrow loop on 164 of
    8192 nodes), where |x y_p| < 1 at x = -r0 makes the share grow."""
    p, s, r0, x, (standard, narrow), use_narrow, arc = route
    assert not standard.ok.all() and not narrow.ok.all()  # each meets the pole somewhere
    assert (standard.ok | narrow.ok).all()  # where one fails the other serves
    assert use_narrow is not None and 0 < use_narrow.sum() < 0.05 * len(x)
    between, phi_e = arc
    assert 0.97 < phi_e / np.pi < 0.99 and 0 < between.sum() < 0.05 * len(x)
    k = np.argmin(np.abs(np.angle(x) - np.pi))  # the node nearest x = -r0
    loop = narrow if use_narrow[k] else standard
    assert between[k] and abs(x[k] * loop.fit.y[k]) < 1


@pytest.mark.slow
def test_the_saddles_path_carries_the_arcs_share(route):
    """The pole's residue summed on the arc's nodes and integrated along the radial segments and
    the circle through the saddle (two Gauss-Legendre rules) are one analytic share: they agree
    within their bounds plus the end term at every depth, and to 1e-9 of the share where the
    end term has fallen below that (from t = 1144 on here)."""
    p, s, r0, x, loops, use_narrow, (between, phi_e) = route
    t = s.t
    on_arc = rc._arc_share(x, loops, use_narrow, between, t)
    r_s = rc._saddle(p, s, 4096, r0)
    assert r0 < r_s < 1  # at this point the saddle lies outside the loop's circle
    coarse, fine = (rc._path_share(p, s, 4096, r0, r_s, phi_e, t, m) for m in rc._PATH)
    end = rc._end_term(x, loops, use_narrow, between, t)
    arc_bound = np.abs(on_arc.P - on_arc.rule) + on_arc.data + (4 * t + 20) * rc._U * on_arc.moduli
    path_bound = np.abs(fine.P - coarse.P) + fine.data + (4 * t + 20) * rc._U * fine.moduli
    assert np.all(np.abs(on_arc.P - fine.P) <= arc_bound + path_bound + end)
    deep = end < 1e-9 * np.abs(fine.P)  # the end term falls as |x_e y_p(x_e)|^-t, 1.02^-t
    assert deep.sum() > 300 and deep[-1]
    assert np.all(np.abs(on_arc.P - fine.P)[deep] <= 1e-9 * np.abs(fine.P[deep]))


@pytest.mark.slow
def test_a_curve_refused_by_every_loop_is_certified_and_agrees_with_a_torus():
    """The route certifies every depth to 1500 (ridge_loop refuses the point), E_0 = 1 within
    its bound, and where a torus inside |x| = 1 (r = 0.99, 4096 points per circle) certifies,
    the two agree within both bounds."""
    p = dv.Point.of(*POINT)
    curve = rc.deep_curve(p, 1500, rg.RIDGE_RTOL, rg.RIDGE_ATOL)
    assert curve is not None
    assert np.all(curve.error <= rg.RIDGE_RTOL * np.abs(curve.E) + rg.RIDGE_ATOL)
    assert abs(curve.E[0] - 1) <= curve.error[0] < 1e-9
    E_in, err_in, _ = rt.curve(p, 0.99, 4096, 1500)
    both = np.flatnonzero(err_in <= rg.RIDGE_RTOL * np.abs(E_in) + rg.RIDGE_ATOL)
    assert both[-1] > 250
    assert np.all(np.abs(curve.E[both] - E_in[both]) <= curve.error[both] + err_in[both])
