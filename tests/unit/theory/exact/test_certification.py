"""The theory wing never returns a number it has not certified.

Regression tests for the faults a careful user found (an underflowed coefficient certified as
0.0, raw numpy errors, minutes of work before a size error), the input rules shared by every
public function, and a property test over random points: E_0 = 1, E_t >= 0 and finite, and
error_curve, error_at and error_grid agree wherever each returns.
"""

import time

import numpy as np
import pytest

from cotbook import theory
from cotbook.theory import domain, lagrange, phases
from cotbook.theory.exact import _tier

# ---- underflow is never certified ----------------------------------------------------------


def test_underflowed_coefficients_are_not_certified():
    """alpha = tau = 2 at t = 1000: phi~_0^t underflows in float64 and the old grid returned
    0.0 with bound 0.  The float64 block now refuses it; the contours give 1.4515e87, which
    Result 2's law E_t ~ K t^-1/2 Lambda^t carries over from the certified E_300 to 1%."""
    E, bound = lagrange.stream_depth(np.array([2.0]), np.array([2.0]), 0.01, 1000)
    assert not np.isfinite(bound[0])
    got = theory.error_grid([2.0], [2.0], 0.01, 1000)[0, 0]
    assert got == pytest.approx(1.45150513150e87, rel=1e-9)
    e300 = theory.error_curve(2.0, 2.0, 0.01, 300)[300]
    law = e300 * phases.decay_rate(2.0, 2.0, 0.01) ** 700 * (300 / 1000) ** 0.5
    assert got == pytest.approx(law, rel=1e-2)


def test_deep_saturation_value_is_the_floor_not_zero():
    """t = 3000 in the saturation regime: the old grid returned 0.0 instead of ~E_inf."""
    tau = 10 * phases.tau_c(0.5, 0.01)
    got = theory.error_grid([0.5], [tau], 0.01, 3000)[0, 0]
    assert got == pytest.approx(phases.error_floor(0.5, tau, 0.01), rel=1e-3)
    assert theory.error_at(0.5, tau, 0.01, 3000) == pytest.approx(got, rel=1e-10)


@pytest.mark.slow
def test_long_double_bound_refuses_underflow_too():
    """The same range rule holds in the extended-precision tier (x87: 1e-4932).

    At (2, 1e3, 100) and t = 3000, c_0 = (alpha/(K rho))^3000 ~ 1e-5587 underflows to 0 and so
    does E_t; without the rule the bound would be 0 too (a certified E_t = 0, the fault above),
    so only the range rule refuses it.  (The earlier point, (2, 3, 1) at t = 11000, took 4 s and
    could not fail: its subnormal term is 0 * inf = NaN, refused whether or not the rule holds.)
    """
    if not _tier.HAVE_LONGDOUBLE:
        pytest.skip("no extended precision on this platform")
    E, bound = lagrange.stream_depth(
        np.array([2.0]), np.array([1e3]), 100.0, 3000, dtype=np.longdouble
    )
    assert E[0] == 0.0  # the underflow reached the value: only the bound can refuse it
    assert not np.isfinite(bound[0])


# ---- one depth ------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [(2.0, 3.0, 0.01), (0.5, 10.0, 1e-4), (4.0, 1.3, 0.1)])
def test_error_at_is_the_curve_at_that_depth(p):
    E = theory.error_curve(*p, 120)
    for t in (0, 1, 37, 120):
        assert theory.error_at(*p, t) == pytest.approx(E[t], rel=1e-10, abs=1e-300)


def test_error_at_reaches_deep_single_depths_without_the_curve():
    """t = 10^4 at sigma2 = 1e-4 near tau_c: the streamed form in extended precision, in a few
    seconds, agreeing with the certified curve at 4000 (Result 2's asymptotics in between)."""
    p = (2.0, 1.05 * phases.tau_c(2.0, 1e-4), 1e-4)
    start = time.perf_counter()
    deep = theory.error_at(*p, 10_000)
    assert time.perf_counter() - start < 20
    assert 0 < deep < theory.error_at(*p, 4000)


# ---- limits come first ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: theory.error_curve(2.0, 3.0, 0.01, 10**5), "t_max must be <= 5000"),
        (lambda: theory.error_curve(2.0, 3.0, 0.01, 400, method="recursion"), "<= 160"),
        (lambda: theory.error_curve(2.0, 3.0, 0.01, 400, method="lagrange_mp"), "<= 300"),
        (lambda: theory.error_at(2.0, 3.0, 0.01, 10**6), "t must be <= 100000"),
        (lambda: theory.error_grid([2.0], [3.0], 0.01, 10**6), "t must be <= 100000"),
        (lambda: theory.error_curve(2.0, 3.0, 0.01, 10**5, lam=0.1), "t_max must be <= 10000"),
    ],
)
def test_size_limits_are_checked_before_any_work(call, match):
    start = time.perf_counter()
    with pytest.raises(ValueError, match=match):
        call()
    assert time.perf_counter() - start < 0.5


@pytest.mark.parametrize("chunk", [0, -1, 1.5, True, 10**6])
def test_grid_chunk_is_validated(chunk):
    with pytest.raises(ValueError, match="chunk must be an integer"):
        theory.error_grid([2.0], [3.0], 0.01, 5, chunk=chunk)


# ---- bad input: the same rules everywhere ---------------------------------------------------

BAD_ALPHA = [0.0, -1.0, float("nan"), float("inf"), True, 1e-13, 1e13, "2", None]
BAD_TAU = [1.0, 0.5, float("nan"), -float("inf"), False, 1e13]
BAD_SIGMA2 = [-1e-9, float("nan"), float("inf"), 1e13]
POINT_FUNCTIONS = [
    ("error_curve", lambda a, t, s: theory.error_curve(a, t, s, 3)),
    ("error_at", lambda a, t, s: theory.error_at(a, t, s, 3)),
    ("error_grid", lambda a, t, s: theory.error_grid(a, t, s, 3)),
    ("tau_c", lambda a, t, s: phases.tau_c(a, s)),
    ("regime", phases.regime),
    ("decay_rate", phases.decay_rate),
    ("error_floor", phases.error_floor),
]


@pytest.mark.parametrize("name,fun", POINT_FUNCTIONS)
def test_bad_points_raise_valueerror_naming_the_parameter(name, fun):
    for a in BAD_ALPHA:
        with pytest.raises(ValueError, match="alpha"):
            fun(a, 3.0, 0.01)
    if name != "tau_c":
        for t in BAD_TAU:
            with pytest.raises(ValueError, match="tau"):
                fun(2.0, t, 0.01)
    for s in BAD_SIGMA2:
        with pytest.raises(ValueError, match="sigma2"):
            fun(2.0, 3.0, s)


@pytest.mark.parametrize("t", [-1, 2.0, True, "3", np.float64(3.0)])
def test_non_integer_depths_are_refused(t):
    with pytest.raises(ValueError, match=r"t(_max)? must be an integer"):
        theory.error_at(2.0, 3.0, 0.01, t)
    with pytest.raises(ValueError, match=r"t(_max)? must be an integer"):
        theory.error_curve(2.0, 3.0, 0.01, t)


def test_zero_dimensional_arrays_are_scalars():
    E = theory.error_curve(np.asarray(2.0), np.asarray(3.0), np.asarray(0.01), np.asarray(4))
    np.testing.assert_array_equal(E, theory.error_curve(2.0, 3.0, 0.01, 4))
    assert theory.error_at(2.0, 3.0, 0.01, np.int64(4)) == pytest.approx(E[4], rel=1e-12)
    assert phases.tau_c(np.asarray(2.0), np.asarray(0.01)) == phases.tau_c(2.0, 0.01)


@pytest.mark.parametrize(
    "axes", [([], [3.0]), ([2.0], []), ([2.0, -1.0], [3.0]), ([2.0], [3.0, 0.9])]
)
def test_bad_grid_axes(axes):
    with pytest.raises(ValueError, match="alphas|taus"):
        theory.error_grid(*axes, 0.01, 3)


def test_domain_edges_give_finite_numbers():
    """The corners of the domain: every function returns a finite number or raises a
    ValueError/AccuracyError (formerly ZeroDivisionError at alpha ~ 1e-170, NaN from tau_c at
    alpha ~ 1e155)."""
    lo, hi = domain.LOWER, domain.UPPER
    for a in (lo, 1.0, hi):
        for s in (0.0, 1.0, hi):
            tc = phases.tau_c(a, s)
            assert tc > 1 and (np.isfinite(tc) or (a == 1.0 and s == 0.0))
            for tau in (1 + 1e-12, 2.0, hi):
                assert phases.regime(a, tau, s) in phases.REGIMES
                assert np.isfinite(phases.decay_rate(a, tau, s))
                try:
                    E = theory.error_curve(a, tau, s, 10)
                except theory.AccuracyError:
                    continue
                assert E[0] == 1.0 and np.all(np.isfinite(E)) and np.all(E >= 0)


def test_regime_on_the_line_alpha_1_is_polynomial():
    """Lambda_+ = 1 exactly at alpha = 1: no exponential decay for any tau >= tau_c (the book's
    Result 2 chapter measures rate 1 and power -1/2 there), so not "exponential"."""
    tc = phases.tau_c(1.0, 0.01)
    assert phases.regime(1.0, 2 * tc, 0.01) == "critical"
    assert phases.regime(1.0, 0.9 * tc, 0.01) == "overthinking"
    assert phases.regime(1.001, 2 * tc, 0.01) == "exponential"
    assert phases.rates(1.0, 2 * tc, 0.01)["branch_point"] == 1.0


# ---- property test --------------------------------------------------------------------------


def _random_points(n, seed):
    rng = np.random.default_rng(seed)
    alpha = 10 ** rng.uniform(-1.5, 1.5, n)
    tau = 1 + 10 ** rng.uniform(-2, 2, n)
    sigma2 = np.where(rng.random(n) < 0.2, 0.0, 10 ** rng.uniform(-4, 0, n))
    t = np.minimum(rng.geometric(0.04, n), 800)
    return list(zip(alpha.tolist(), tau.tolist(), sigma2.tolist(), t.tolist(), strict=True))


@pytest.mark.slow
def test_property_ridgeless_invariants_and_agreement():
    """300 random points (sigma2 up to 1, t up to 800): whatever each entry point returns is
    finite, E_0 = 1, E_t >= 0, and curve, single depth and grid agree to 1e-9."""
    returned = 0
    for alpha, tau, s, t in _random_points(300, 17):
        values = {}
        for name, fun in (
            ("curve", lambda: theory.error_curve(alpha, tau, s, t)[t]),  # noqa: B023
            ("at", lambda: theory.error_at(alpha, tau, s, t)),  # noqa: B023
            ("grid", lambda: theory.error_grid(alpha, tau, s, t)[0, 0]),  # noqa: B023
        ):
            try:
                values[name] = float(fun())
            except theory.AccuracyError:
                continue
        for v in values.values():
            assert np.isfinite(v) and v >= 0
        if len(values) > 1:
            ref = next(iter(values.values()))
            for v in values.values():
                assert v == pytest.approx(ref, rel=1e-9, abs=1e-300), (alpha, tau, s, t, values)
        returned += bool(values)
    assert returned >= 250


@pytest.mark.slow
def test_property_ridge_invariants():
    """Random lam > 0 points, tau <= 1 included: E_0 = 1, E_t >= 0, finite, or AccuracyError."""
    rng = np.random.default_rng(5)
    returned = 0
    for _ in range(8):
        alpha, tau = 10 ** rng.uniform(-0.5, 0.7), 10 ** rng.uniform(-0.3, 0.7)
        s, lam = 10 ** rng.uniform(-3, 0), 10 ** rng.uniform(-3, 0)
        try:
            E = theory.error_curve(alpha, tau, s, 12, lam=lam)
        except theory.AccuracyError:
            continue
        returned += 1
        assert E[0] == 1.0 and np.all(np.isfinite(E)) and np.all(E >= 0)
    assert returned >= 6


@pytest.mark.slow
def test_property_deep_single_depths():
    """40 random points at depths 1000 - 10^4 (sigma2 up to 1), rtol = 1e-8: error_at and
    error_grid return the same positive value (the contour tier), or both raise AccuracyError.
    The value is finite, or +inf (E_t beyond 1.8e308, the documented float64 representation)
    in the overthinking regime only."""
    rng = np.random.default_rng(23)
    returned = 0
    for _ in range(40):
        alpha, tau = 10 ** rng.uniform(-1, 1), 1 + 10 ** rng.uniform(-1, 1.5)
        s, t = 10 ** rng.uniform(-4, 0), int(rng.integers(1000, 10_001))
        try:
            at = theory.error_at(alpha, tau, s, t, rtol=1e-8)
        except theory.AccuracyError:
            with pytest.raises(theory.AccuracyError):
                theory.error_grid(alpha, tau, s, t, rtol=1e-8)
            continue
        returned += 1
        assert at >= 0 and (np.isfinite(at) or phases.regime(alpha, tau, s) == "overthinking")
        assert theory.error_grid(alpha, tau, s, t, rtol=1e-8)[0, 0] == at
    assert returned >= 35
