"""The lambda = 0 route (cotbook.theory.exact.route): one ordered list of tiers, walked by one function.

The order in which the tiers answer each kind of ask is read off the walk's trace: first with
tiers that keep their reach but certify nothing (the order alone, no arithmetic), then with the
real tiers at points that need each of them.  Leaving a tier out changes an answer into a
refusal, and a refusal names the depth asked for.
"""

import math
import time

import numpy as np
import pytest

from cotbook.theory.domain import AccuracyError
from cotbook.theory.exact import _tier, closed_form, contour, lagrange, route

# ---- the order alone -------------------------------------------------------------------------


class Silent:
    """A tier of the route that reaches what the real one reaches and certifies nothing."""

    def __init__(self, tier):
        self.name, self.reach = tier.name, tier.reach

    def answer(self, ask, pairs, ledger):
        for pair in pairs:
            ledger.improve(pair, 1.0, math.inf)


SILENT = [Silent(tier) for tier in route.TIERS]
LONG_DOUBLE = ["long double"] if _tier.HAVE_LONGDOUBLE else []
SHALLOW_SINGLE = ["float64 stream", *LONG_DOUBLE, "contour", "mpmath"]
DEEP_SINGLE = ["float64 stream", *LONG_DOUBLE, "mpmath"]


def ask(kind, points=1, **kwargs):
    alpha, tau = np.full(points, 2.0), np.full(points, 3.0)
    return _tier.Ask(alpha=alpha, tau=tau, sigma2=0.01, rtol=1e-10, kind=kind, **kwargs)


def silent_walk(question, pairs):
    """``({pair: [tiers that reached it, in order]}, the refusal)`` of a walk of silent tiers."""
    trace = []
    with pytest.raises(AccuracyError) as refused:
        route.walk(question, pairs, tiers=SILENT, trace=trace)
    reached = {}
    for name, asked in trace:
        for pair in asked:
            reached.setdefault(pair, []).append(name)
    return reached, str(refused.value)


def test_a_curve_tries_the_tiers_in_the_documented_order():
    reached, refusal = silent_walk(ask("curve", t_max=250), [(0, t) for t in range(251)])
    shallow = ["float64 curve", *LONG_DOUBLE, "contour", "mpmath"]
    deep = ["float64 curve", "contour", *(["long double deep"] if LONG_DOUBLE else []), "mpmath"]
    assert reached[0, 0] == reached[0, 199] == shallow
    assert reached[0, 200] == reached[0, 250] == deep
    assert refusal.startswith("E_0 at (alpha=2, tau=3, sigma2=0.01): float64, the contours")
    assert "(251 depths fail)" in refusal


def test_a_curve_beyond_the_mpmath_tier_or_fast_refuses_before_it():
    reached, refusal = silent_walk(ask("curve", t_max=2001), [(0, t) for t in range(2002)])
    assert reached[0, 2001] == ["float64 curve", "contour"]  # long double: too many deep depths
    assert refusal.endswith(
        "and the mpmath tier stops at t_max = 300 (the Lagrange quadratic form is "
        "ill-conditioned here)"
    )
    reached, refusal = silent_walk(ask("curve", t_max=10, mp=False), [(0, t) for t in range(11)])
    assert "mpmath" not in reached[0, 10]
    assert "method='fast' leaves out the mpmath tier" in refusal


def test_single_depths_try_the_contours_first_from_depth_200():
    for t, order in [(150, SHALLOW_SINGLE), (250, ["contour first", *DEEP_SINGLE])]:
        reached, _ = silent_walk(ask("depth", points=3), [(i, t) for i in range(3)])
        assert reached == {(i, t): order for i in range(3)}


def test_several_depths_retry_the_contours_one_depth_at_a_time():
    reached, _ = silent_walk(ask("depths"), [(0, 150), (0, 250)])
    assert reached == {
        (0, 150): SHALLOW_SINGLE,
        (0, 250): ["contour first", "contour again", *DEEP_SINGLE],
    }
    reached, refusal = silent_walk(ask("depths"), [(0, 150), (0, 250), (0, 1000), (0, 30000)])
    assert reached[0, 150] == SHALLOW_SINGLE[:-1]  # no mpmath: a depth beyond it is open
    assert reached[0, 1000] == ["contour first", "contour again", *DEEP_SINGLE[:-1]]
    assert reached[0, 30000] == ["contour first", "contour again"]  # beyond the streamed forms
    assert refusal.startswith("E_1000 at (alpha=2, tau=3, sigma2=0.01): neither the contours")


def test_a_single_depth_beyond_the_mpmath_tier_is_refused_by_name():
    reached, refusal = silent_walk(ask("depth"), [(0, 30000)])
    assert reached == {(0, 30000): ["contour first"]}
    assert refusal == (
        "E_30000 at (alpha=2, tau=3, sigma2=0.01): neither the contours nor the streamed forms "
        "reach rtol=1e-10, and the mpmath tier stops at t = 300"
    )


# ---- the real tiers --------------------------------------------------------------------------


@pytest.fixture
def trace(monkeypatch):
    """The trace of every walk that closed_form's entry points start."""
    out = []
    walk = route.walk
    monkeypatch.setattr(route, "walk", lambda *args, **kwargs: walk(*args, trace=out, **kwargs))
    return out


def names(trace):
    return [name for name, _ in trace]


def test_a_curve_tries_extended_precision_before_the_contours_at_shallow_depths(trace):
    """Issue 32: error_curve(1.00403, 4.56885, 0.60497, 93) took 349 s.  float64 fails at 40
    depths from t = 54; the contours took 43 s for two of them, the streamed form in extended
    precision milliseconds.  Below depth 200 the cheap tier comes first."""
    point = (1.00403, 4.56885, 0.60497)
    start = time.perf_counter()
    E = closed_form.ridgeless_curve(*point, 93)
    assert time.perf_counter() - start < 30  # 0.8 s quiet
    _, bound = lagrange.float_curve(*point, 93)
    assert not np.all(bound[54:] <= 1e-10 * E[54:])  # float64 alone does not certify them
    if _tier.HAVE_LONGDOUBLE:
        assert names(trace) == ["float64 curve", "long double"]
        assert trace[1][1] == [(0, t) for t in range(54, 94)]
    exact = lagrange.mp_curve(*point, 93, 60, depths=[54, 93])  # mpmath, 60 digits
    for t in (54, 93):
        assert E[t] == pytest.approx(float(exact[t]), rel=1e-10)


@pytest.mark.slow
def test_a_curve_that_needs_mpmath_reaches_it_last_and_is_refused_without_it(trace):
    """At (0.5, 3, 1) float64 fails from t = 35, extended precision and the contours from 58:
    mpmath answers those; without it (``method="fast"``, or the tier left out) they are
    refused, naming the first."""
    point = (0.5, 3.0, 1.0)
    E = closed_form.ridgeless_curve(*point, 120)
    tiers = ["float64 curve", *LONG_DOUBLE, "contour", "mpmath"]
    assert names(trace) == tiers
    left = trace[-1][1]
    assert left[0] == (0, 58)
    exact = lagrange.mp_curve(*point, 120, 80, depths=[58, 120])
    for t in (58, 120):
        assert E[t] == pytest.approx(float(exact[t]), rel=1e-10)
    without = [tier for tier in route.TIERS if tier.name != "mpmath"]
    question = _tier.Ask(
        alpha=np.array([0.5]), tau=np.array([3.0]), sigma2=1.0, rtol=1e-10, kind="curve", t_max=120
    )
    with pytest.raises(AccuracyError, match=r"^E_58 at \(alpha=0.5, tau=3, sigma2=1\)"):
        route.walk(question, [(0, t) for t in range(121)], tiers=without)
    with pytest.raises(AccuracyError, match=r"E_58 .* \(63 depths fail\), and method='fast'"):
        closed_form.ridgeless_curve(*point, 120, method="fast")


def test_a_single_depth_goes_through_the_tiers_in_order(trace):
    point = (0.5, 3.0, 1.0)
    value = closed_form.error_at(*point, 120)
    assert names(trace) == SHALLOW_SINGLE
    assert value == pytest.approx(float(lagrange.mp_curve(*point, 120, 80, depths=[120])[120]))
    trace.clear()
    with pytest.raises(AccuracyError, match=r"^E_1000 at \(alpha=0.5, tau=3, sigma2=1\)"):
        closed_form.error_at(*point, 1000)
    assert names(trace) == ["contour first", *DEEP_SINGLE[:-1]]


def test_a_grid_asks_each_tier_once_for_the_points_left(trace):
    """One depth at many points: a tier is asked for every point still open, together."""
    grid = closed_form.error_grid([0.5, 2.0], [3.0, 10.0], 1.0, 120)
    assert names(trace) == SHALLOW_SINGLE
    assert trace[0][1] == [(0, 120), (1, 120), (2, 120), (3, 120)]
    assert trace[-1][1] == [(0, 120)]  # only (0.5, 3) needs mpmath
    assert grid[0, 0] == closed_form.error_at(0.5, 3.0, 1.0, 120)


def test_several_depths_call_the_contours_in_the_same_groups(trace, monkeypatch):
    """The contours choose their nodes from all the depths of a call, so the grouping is part
    of the result: all deep depths at once, then each failed one alone, then each shallow
    one alone."""
    calls = []
    deep_errors = contour.deep_errors
    monkeypatch.setattr(
        contour, "deep_errors", lambda *a, **k: calls.append(list(a[3])) or deep_errors(*a, **k)
    )
    with pytest.raises(AccuracyError, match=r"^E_1000 at"):
        closed_form.errors_at(0.5, 3.0, 1.0, [1000, 120, 250, 120])
    assert calls == [[250, 1000], [250], [1000], [120]]
    assert names(trace) == [
        "contour first",
        "contour again",
        "float64 stream",
        *LONG_DOUBLE,
        "contour",
    ]
