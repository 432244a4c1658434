"""cotbook.theory.exact.contour: deep depths by contours through the saddle points.

Checked against independent evaluations: ball arithmetic (python-flint arb, a rigorous
enclosure of the finite quadratic form) at t = 30 - 3000, and extended precision at t = 10^4
where the form is well conditioned.
"""

import math
import time

import pytest

from cotbook import theory
from cotbook.theory import ball, closed_form, contour, lagrange, phases


def _value(v):
    return v.mantissa * math.exp(v.log_scale)


def _tc(alpha, sigma2, factor):
    return factor * phases.tau_c(alpha, sigma2)


# every regime, alpha < 1, = 1, > 1, sigma2 from 0 to 1
POINTS = [
    (2.0, _tc(2.0, 0.01, 0.9), 0.01),  # overthinking
    (2.0, _tc(2.0, 0.01, 1.0), 0.01),  # critical
    (2.0, _tc(2.0, 0.01, 1.05), 0.01),  # exponential, near tau_c
    (2.0, 30.0, 0.01),  # far above tau_c: the positive saddle a_+ ~ sqrt(alpha) dominates
    (4.0, 1.3, 0.1),
    (0.5, _tc(0.5, 0.01, 1.5), 0.01),  # saturation
    (0.2, _tc(0.2, 0.1, 1.0), 0.1),  # saturation at tau_c, 1/beta between a_+ and r_T
    (0.2, _tc(0.2, 0.01, 0.9), 0.01),  # alpha < 1 overthinking, 1/beta inside the torus
    (1.0, 10.0, 0.01),  # the line alpha = 1 (R has no pole)
    (1.0, 30.0, 0.01),
    (0.5, 5.0, 0.0),
    (2.0, 1.2, 1.0),
]


@pytest.mark.parametrize("p", POINTS)
def test_contours_match_the_ball_enclosure_and_bound_their_error(p):
    """At t = 30, 100, 250 against the rigorous ball-arithmetic enclosure: the contour value
    lies within its own error estimate (plus the ball's radius), and that estimate is below
    1e-10 relative."""
    depths = [30, 100, 250]
    got = contour.deep_errors(*p, depths, 1e-10)
    assert set(got) == set(depths)
    for t in depths:
        v, enclosure = got[t], ball.ball_error_at(*p, t)
        mid, rad = float(enclosure.mid), float(enclosure.radius)
        assert abs(_value(v) - mid) <= v.error * math.exp(v.log_scale) + rad
        assert v.error <= 1e-10 * abs(v.mantissa)


BALL_POINTS = [
    (2.0, _tc(2.0, 0.01, 1.0), 0.01, 3000),  # near tau_c, sigma2 = 0.01
    (2.0, 2.0, 0.01, 1000),  # overthinking: 1.4515e87
    (0.5, _tc(0.5, 0.1, 1.2), 0.1, 2000),  # saturation, sigma2 = 0.1
    (1.0, 30.0, 0.1, 2000),  # alpha = 1
    (4.0, 10.0, 0.1, 1500),
]


@pytest.mark.parametrize("p", BALL_POINTS)
@pytest.mark.slow
def test_contours_inside_the_ball_arithmetic_enclosure(p):
    *point, t = p
    enclosure = ball.ball_error_at(*point, t)
    v = contour.deep_errors(*point, [t], 1e-10)[t]
    mid, rad = float(enclosure.mid), float(enclosure.radius)
    assert abs(_value(v) - mid) <= v.error * math.exp(v.log_scale) + rad
    assert abs(_value(v) / mid - 1) < 1e-11


@pytest.mark.slow
def test_deep_single_depth_agrees_with_extended_precision():
    """sigma2 = 1e-4 near tau_c, t = 10^4: the streamed form in long double is certified
    there (bound ~1e-12), an independent evaluation of the same E_t."""
    p = (2.0, _tc(2.0, 1e-4, 1.05), 1e-4)
    E, bound = lagrange.stream_depth([p[0]], [p[1]], p[2], 10_000, dtype=closed_form.np.longdouble)
    assert bound[0] < 1e-10 * E[0]
    v = contour.deep_errors(*p, [10_000], 1e-10)[10_000]
    assert _value(v) == pytest.approx(float(E[0]), rel=1e-10)


def test_deep_depths_are_fast_and_follow_result2():
    """t = 10^4 and 10^5 at sigma2 = 0.01 on tau_c: certified to 1e-8 in well under a second
    each, and E_t ~ K t^-1/2 there (Lambda = 1), so E_10^5 / E_10^4 ~ 10^-1/2."""
    p = (2.0, phases.tau_c(2.0, 0.01), 0.01)
    start = time.perf_counter()
    e4 = theory.error_at(*p, 10_000, rtol=1e-8)
    e5 = theory.error_at(*p, 100_000, rtol=1e-8)
    assert time.perf_counter() - start < 5
    assert e5 / e4 == pytest.approx(10**-0.5, rel=2e-3)


def test_cancelling_residues_are_dropped_not_summed():
    """alpha < 1 near tau = 1 with large noise: the residue of the S term at b = 1/beta and the
    residue of h at b = alpha (where a*(alpha) = 1/beta) are equal and opposite and of size
    psi(1/beta)^t, here e^{1.6 t} larger than E_t.  Dropped as a pair, the contours agree with
    the ball enclosure (1024 bits) at t = 1000: E_1000 = 1.7173710367377765e300."""
    p = (0.364946, 1.43686, 0.552282)
    g = contour.geometry(*p, 1000)
    assert contour._cancelling(g, contour._crossed_poles(g)) == {1.0 / g.beta}
    v = contour.deep_errors(*p, [1000], 1e-10)[1000]
    assert _value(v) == pytest.approx(1.71737103673777654e300, rel=1e-12)


def test_pole_near_the_contour_when_alpha_is_close_to_1():
    """alpha = 1.0092: a_+ (1.0046), b = 1 and b = alpha (poles of h) nearly coincide, so the
    residue contour passes 0.005 from a pole; finer nodes (up to 2^15) resolve it, and the
    value is inside the ball enclosure."""
    p = (1.0092330908131266, 15.1197, 0.018438652870052103)
    v = contour.deep_errors(*p, [1377], 1e-10)[1377]
    enclosure = ball.ball_error_at(*p, 1377)
    assert abs(_value(v) - float(enclosure.mid)) <= v.error * math.exp(v.log_scale)
    assert abs(_value(v) / float(enclosure.mid) - 1) < 1e-11


@pytest.mark.slow
def test_contours_match_the_papers_recursion_to_1e12():
    """The paper's own algorithm (Appendix D's coefficient recursion, mpmath) at t <= 80, on
    tau_c at the paper's noise: the contours, certified to 1e-11, agree to 1e-12 at every tenth
    depth from 20."""
    p = (2.0, phases.tau_c(2.0, 0.01), 0.01)
    ref = closed_form.ridgeless_curve(*p, 80, method="recursion")
    depths = list(range(20, 81, 10))
    got = contour.deep_errors(*p, depths, 1e-11)
    assert set(got) == set(depths)
    for t in depths:
        assert _value(got[t]) == pytest.approx(ref[t], rel=1e-12)
