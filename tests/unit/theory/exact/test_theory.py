"""Tests of cotbook.theory: every method against the paper's recursion and independent checks."""

import functools
import math

import numpy as np
import pytest

from cotbook import theory
from cotbook.theory import lagrange, phases

RTOL = 1e-10

# (alpha, tau, sigma2): all four regimes, alpha < 1, = 1, > 1, near tau_c, sigma2 in
# {0, 1e-4, 1e-2, 1e-1}.
POINTS = [
    (2.0, 3.0, 0.01),  # overthinking
    (4.0, 1.5, 0.0),  # overthinking, sigma2 = 0
    (0.3, 2.0, 0.01),  # overthinking, alpha < 1
    (0.05, 1.01, 0.0),  # deep overthinking, E_t huge
    (1.0, 10.0, 1e-4),  # alpha = 1 (tau_c ~ 139): overthinking
    (1.0, 300.0, 1e-4),  # alpha = 1, exponential
    (3.0, 50.0, 0.01),  # exponential
    (10.0, 100.0, 0.0),  # exponential, E_t tiny
    (20.0, 1.2, 0.1),  # exponential, sigma2 = 0.1
    (0.5, 5.0, 0.1),  # saturation
    (0.1, 100.0, 0.0),  # saturation
    (2.0, phases.tau_c(2.0, 1e-4), 1e-4),  # critical (alpha > 1)
    (0.5, phases.tau_c(0.5, 0.01) * (1 + 1e-6), 0.01),  # just above tau_c, alpha < 1
]


def test_points_cover_all_regimes():
    got = {phases.regime(*p) for p in POINTS}
    assert got == {"overthinking", "critical", "exponential", "saturation"}


def _rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.max(np.abs(a - b) / np.maximum(np.abs(b), theory.TINY))


@pytest.mark.parametrize("p", POINTS)
def test_methods_agree_with_recursion(p):
    T = 30
    ref = theory.error_curve(*p, T, method="recursion")
    assert ref[0] == pytest.approx(1.0, rel=1e-15)
    for method in ("auto", "lagrange", "lagrange_mp"):
        got = theory.error_curve(*p, T, method=method)
        assert got.shape == (T + 1,) and got.dtype == np.float64
        assert _rel(got, ref) < RTOL, method


def test_recursion_precision_is_sufficient():
    p = (0.3, 2.0, 0.01)
    a = theory.error_curve(*p, 24, method="recursion")
    b = theory.error_curve(*p, 24, method="recursion", dps=80)
    assert _rel(a, b) < 1e-15


@pytest.mark.parametrize("p", [POINTS[0], POINTS[2], POINTS[9], POINTS[11]])
def test_t80_fast_vs_high_precision(p):
    ref = theory.error_curve(*p, 80, method="lagrange_mp", dps=60)
    assert _rel(theory.error_curve(*p, 80), ref) < RTOL
    assert _rel(theory.error_curve(*p, 80, method="lagrange"), ref) < 1e-12


def test_recursion_t40_against_auto():
    p = (0.5, 5.0, 0.1)
    assert _rel(theory.error_curve(*p, 40), theory.error_curve(*p, 40, method="recursion")) < RTOL


def test_E0_and_E1_closed_form():
    # E_1 = F_00 - 2 F_10/alpha + F_11/alpha^2 with F_10 = g_1 = alpha/c and
    # F_11 = g_1^2 (1 + gamma/alpha)  =>  E_1 = 1 - 2/c + (1 + gamma/alpha)/c^2.
    for a, tau, s in POINTS:
        c = 1 + (1 + s) / a
        beta = (1 + s) / (a * (tau - 1))
        gam = 1 + beta * (a + 1)
        e1 = 1 - 2 / c + (1 + gam / a) / c**2
        E = theory.error_curve(a, tau, s, 1)
        assert E[0] == 1.0
        assert E[1] == pytest.approx(e1, rel=1e-13)


def test_derivative_formula_high_precision():
    for p in (POINTS[0], POINTS[9]):
        for t in (3, 8):
            d = theory.derivative_formula(*p, t, dps=40)
            assert d == pytest.approx(theory.error_curve(*p, t)[t], rel=1e-12)


def test_derivative_formula_float64_cancels():
    # the literal formula of Result 1 summed in float64 is wrong by orders of magnitude at t=20
    exact = theory.error_curve(2.0, 3.0, 0.01, 20)[20]
    naive = theory.derivative_formula(2.0, 3.0, 0.01, 20)
    assert abs(naive - exact) > 10 * abs(exact)


def test_large_tau_matches_population_error():
    for a, s in [(2.0, 0.01), (0.5, 0.1), (1.0, 0.0), (5.0, 1e-4)]:
        E = theory.error_curve(a, 1e9, s, 12)
        for t in (0, 1, 5, 12):
            assert E[t] == pytest.approx(phases.population_error(a, s, t), rel=1e-7)


def test_g_and_m13():
    a, s = 2.0, 0.01
    c = 1 + (1 + s) / a
    assert theory.g(0.0, a, s) == pytest.approx(1.0)
    for u in (-0.3, 0.05, 0.1 + 0.2j):
        gv = theory.g(u, a, s)
        assert abs(u * gv**2 - (c + u * (1 - a)) * gv + c) < 1e-13
    # F(u, 0) = g(u) since g(0) = 1
    assert theory.m13(-0.2, 0.0, a, 3.0, s) == pytest.approx(theory.g(-0.2, a, s))
    # m13 Taylor coefficient [u v] = g_1^2 (1 + gamma/alpha), by finite differences
    eps = 1e-4
    f = lambda u, v: theory.m13(u, v, a, 3.0, s)  # noqa: E731
    fuv = (f(eps, eps) - f(eps, -eps) - f(-eps, eps) + f(-eps, -eps)) / (4 * eps**2)
    g1 = a / c
    gam = 1 + (1 + s) / (a * 2.0) * (a + 1)
    assert fuv == pytest.approx(g1**2 * (1 + gam / a), rel=1e-6)


def test_h_coefficients():
    a, s = 2.0, 0.01
    h = theory.h_coefficients(a, s, 30)
    x = 0.05
    hx = np.polyval(h[::-1], x)
    assert hx == pytest.approx(theory.g(-x / (a * (1 - x)), a, s), rel=1e-13)
    assert h[0] == 1.0 and np.all(h[1:] <= 0)


def test_grid_matches_curve():
    al = np.array([0.3, 1.0, 2.5])
    ta = np.array([1.05, 3.0, 40.0])
    G = theory.error_grid(al, ta, 0.01, 40)
    assert G.shape == (3, 3)
    for i, a in enumerate(al):
        for j, tau in enumerate(ta):
            ref = theory.error_curve(a, tau, 0.01, 40, method="lagrange_mp", dps=50)[-1]
            assert G[i, j] == pytest.approx(ref, rel=RTOL)


@pytest.mark.slow
def test_large_depth_exponential_regime():
    # well conditioned (sigma2 small): the float64 bound certifies t = 1500 to 1e-9
    p = (2.0, 12.0, 1e-4)
    E = theory.error_curve(*p, 1500, rtol=1e-9)
    assert np.all(np.isfinite(E)) and np.all(E >= 0)
    # asymptotic ratio E_{t+1}/E_t -> Lambda (t/(t+1))^(1/2) (Result 2's t^-1/2 prefactor)
    lam = max(phases.rates(*p)["negative"], phases.rates(*p)["positive"])
    t = 1400
    assert E[t + 1] / E[t] == pytest.approx(lam * math.sqrt(t / (t + 1)), rel=2e-3)


@pytest.mark.slow
def test_ill_conditioned_large_depth_is_now_certified():
    """Saturation with sigma2 = 0.1: the quadratic form's condition grows exponentially in t and
    used to end in AccuracyError at t_max = 2500; the contour tier certifies those depths, and
    the curve settles on Result 2's floor."""
    E = theory.error_curve(0.5, 5.0, 0.1, 2500)
    assert E[0] == 1.0 and np.all(E > 0)
    assert E[-1] == pytest.approx(phases.error_floor(0.5, 5.0, 0.1), rel=1e-9)


BAD = [
    ("alpha", dict(alpha=0.0)),
    ("alpha", dict(alpha=-1.0)),
    ("alpha", dict(alpha=float("nan"))),
    ("alpha", dict(alpha=float("inf"))),
    ("tau", dict(tau=1.0)),
    ("tau", dict(tau=0.5)),
    ("tau", dict(tau=float("nan"))),
    ("sigma2", dict(sigma2=-0.1)),
    ("sigma2", dict(sigma2=float("inf"))),
    ("t_max", dict(t_max=-1)),
    ("t_max", dict(t_max=2.5)),
    ("t_max", dict(t_max=3.0)),
]


@pytest.mark.parametrize("name,kw", BAD)
def test_error_curve_validation(name, kw):
    args = dict(alpha=2.0, tau=3.0, sigma2=0.01, t_max=5)
    args.update(kw)
    with pytest.raises(ValueError, match=name):
        theory.error_curve(args["alpha"], args["tau"], args["sigma2"], args["t_max"])


def test_other_validation():
    with pytest.raises(ValueError, match="method"):
        theory.error_curve(2.0, 3.0, 0.01, 5, method="magic")
    with pytest.raises(ValueError, match="dps"):
        theory.error_curve(2.0, 3.0, 0.01, 5, method="recursion", dps=3)
    with pytest.raises(ValueError, match="alphas"):
        theory.error_grid([0.0, 1.0], [2.0], 0.01, 5)
    with pytest.raises(ValueError, match="taus"):
        theory.error_grid([1.0], [1.0], 0.01, 5)
    with pytest.raises(ValueError, match="sigma2"):
        theory.error_grid([1.0], [2.0], -1.0, 5)
    with pytest.raises(ValueError, match="t"):
        theory.error_grid([1.0], [2.0], 0.01, -2)
    with pytest.raises(ValueError, match="alpha"):
        theory.g(0.1, -1.0, 0.0)
    with pytest.raises(ValueError, match="u"):
        theory.g(float("nan"), 1.0, 0.0)
    with pytest.raises(ValueError, match="tau"):
        theory.m13(0.1, 0.1, 1.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="n_max"):
        theory.h_coefficients(1.0, 0.0, -1)
    with pytest.raises(ValueError, match="sigma2"):
        theory.h_coefficients(1.0, -0.5, 3)
    with pytest.raises(ValueError, match="t"):
        theory.derivative_formula(1.0, 2.0, 0.0, 1.5)
    with pytest.raises(ValueError, match="t"):
        theory.error_at(1.0, 2.0, 0.0, -1)


# --------------------------------------------------------------------------------------------
# long curves (t_max = 2000) against an independent high-precision reference.  Regression for
# the float64 Lagrange path: a common normalisation of R~ phi~^t flushed / underflowed entries
# that later depths read (E_1650 off by 2e-6 at the first point while its bound claimed 4e-12),
# and a rounded running log of the scale cost ~5e-11 at t >= 1000; both passed certification.
# --------------------------------------------------------------------------------------------
_T_LONG = 2000
_LONG_DEPTHS = (1, 7, 50, 100, 333, 777, 1000, 1234, 1500, 1650, 1800, 1999, 2000)
LONG_POINTS = [
    (0.2, 10 * phases.tau_c(0.2, 0.01), 0.01),  # saturation, far above tau_c; q = rho/alpha > 1
    (0.5, 10 * phases.tau_c(0.5, 0.01), 0.01),  # saturation, far above tau_c
    (0.5, 1.05 * phases.tau_c(0.5, 1e-4), 1e-4),  # just above tau_c, alpha < 1
    (0.1, 100.0, 0.0),  # saturation, sigma2 = 0 (phi~ has no linear term); old E_1800 off 6e-6
    (2.0, 1.05 * phases.tau_c(2.0, 1e-4), 1e-4),  # exponential, just above tau_c, alpha > 1
    (2.0, 1 + 0.5 * (phases.tau_c(2.0, 1e-4) - 1), 1e-4),  # overthinking, alpha > 1
]


@functools.cache
def _refs_longdouble(sigma2):
    """Independent single-depth references for every long point with this sigma2: the streamed
    quadratic form in x87 long double (other scaling rho, Miller's recurrence for phi~^t, no
    normalisation), one pass per depth for all those points at once (stream_depth works column
    by column, elementwise: each point's value and bound are bitwise those of a pass alone)."""
    points = [p for p in LONG_POINTS if p[2] == sigma2]
    alphas, taus = np.array([p[0] for p in points]), np.array([p[1] for p in points])
    refs = {p: {} for p in points}
    for t in _LONG_DEPTHS:
        e, b = lagrange.stream_depth(alphas, taus, sigma2, t, dtype=np.longdouble)
        for i, p in enumerate(points):
            assert b[i] < 1e-3 * RTOL * abs(e[i])  # the reference is certified far below RTOL
            refs[p][t] = float(e[i])
    return refs


@functools.cache
def _long(p):
    """The certified curve of ``auto``, the float64 pass with its a-priori bound, and the
    long-double references, once per point."""
    E = theory.error_curve(*p, _T_LONG, rtol=RTOL)
    Ef, bound = lagrange.float_curve(*p, _T_LONG)
    return E, Ef, bound, _refs_longdouble(p[2])[p]


@pytest.mark.parametrize("p", LONG_POINTS)
@pytest.mark.slow
def test_long_curve_auto_within_rtol_of_reference(p):
    E, _, _, ref = _long(p)
    for t, r in ref.items():
        assert abs(E[t] - r) <= 3 * RTOL * abs(r), (t, E[t], r)


@pytest.mark.parametrize("p", LONG_POINTS)
@pytest.mark.slow
def test_long_curve_float64_bound_is_honest(p):
    # the a-priori bound must cover the actual float64 error at every sampled depth
    _, Ef, bound, ref = _long(p)
    for t, r in ref.items():
        assert abs(Ef[t] - r) <= bound[t], (t, abs(Ef[t] - r) / abs(r), bound[t] / abs(r))


@pytest.mark.slow
def test_long_curve_against_lagrange_mp():
    # a second, mpmath reference (the same quadratic form at 30 digits, rho = alpha)
    p = LONG_POINTS[0]
    E, Ef, bound, _ = _long(p)
    t = 400
    r = float(lagrange.mp_curve(*p, t, 30, depths=[t])[t])
    assert abs(E[t] - r) <= 3 * RTOL * r
    assert abs(Ef[t] - r) <= bound[t]


def test_rphi_representations_agree():
    # R~ phi~^t in one scale per row (fast) and with one exponent per entry: same values
    a, tau, s = 0.2, 10 * phases.tau_c(0.2, 0.01), 0.01
    rho = theory.negative_singular_root(a, tau, s)
    _, _, ph, q, _ = lagrange._lagrange_coeffs_rounded(a, tau, s, rho)
    fast, ext = lagrange._RPhi(q, ph, 151), lagrange._RPhi(q, ph, 151)
    assert fast.fast
    ext._to_ext()
    for t in range(151):
        pf, nf, ef = fast.window(t)
        pe, ne, ee = ext.window(t)
        assert ef == ee
        np.testing.assert_allclose(pf, pe, rtol=1e-13, atol=0)
        np.testing.assert_allclose(nf, ne, rtol=1e-13, atol=0)
        fast.step()
        ext.step()
    # with T = 2000 the entries span far more than 2^800: per-entry exponents
    long = lagrange._RPhi(q, ph, 2001)
    for _ in range(2000):
        long.step()
    assert not long.fast
