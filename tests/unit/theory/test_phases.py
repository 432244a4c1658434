"""Tests of cotbook.phases (Results 2, 3 and Theorem 1)."""

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, optimize

from cotbook import theory
from cotbook.theory import phases


def _crossing_tau(alpha, s):
    """tau at which the negative singular root satisfies x(a) = -1, found numerically."""

    def f(tau):
        a = -theory.negative_singular_root(alpha, tau, s)
        return (alpha + 1 + s) * a / (alpha + s * a + a * a) + 1.0

    return optimize.brentq(f, 1 + 1e-9, 1e6, xtol=1e-14, rtol=1e-15)


@pytest.mark.parametrize("alpha,s", [(0.3, 0.0), (0.5, 0.01), (2.0, 1e-4), (4.0, 0.1), (1.0, 0.01)])
def test_tau_c_matches_numerical_crossing(alpha, s):
    tc = phases.tau_c(alpha, s)
    assert tc == pytest.approx(_crossing_tau(alpha, s), rel=1e-9)
    assert phases.decay_rate(alpha, tc, s) == pytest.approx(1.0, abs=1e-12)
    assert phases.decay_rate(alpha, 0.9 * tc + 0.1, s) > 1.0
    assert phases.decay_rate(alpha, 1.5 * tc, s) < 1.0


def test_tau_c_special_cases():
    assert math.isinf(phases.tau_c(1.0, 0.0))
    assert phases.regime(1.0, 1e6, 0.0) == "overthinking"
    # alpha < 1, sigma2 = 0: tau_c = 1 + (3 alpha + 1)/(1 - alpha)
    a = 0.25
    assert phases.tau_c(a, 0.0) == pytest.approx(1 + (3 * a + 1) / (1 - a), rel=1e-14)


def test_decay_rate_continuous_in_tau():
    taus = np.linspace(1.5, 30.0, 600)
    lam = np.array([phases.decay_rate(2.0, t, 0.01) for t in taus])
    assert np.all(np.isfinite(lam)) and np.all(np.diff(lam) < 0)
    assert np.max(np.abs(np.diff(lam)) / lam[1:]) < 0.1


def test_regimes_and_floor():
    assert phases.regime(2.0, 3.0, 0.01) == "overthinking"
    assert phases.regime(2.0, 30.0, 0.01) == "exponential"
    assert phases.regime(0.5, 30.0, 0.01) == "saturation"
    tc = phases.tau_c(2.0, 0.01)
    assert phases.regime(2.0, tc, 0.01) == "critical"
    assert phases.regime(2.0, tc * (1 + 1e-6), 0.01) == "exponential"
    assert phases.error_floor(2.0, 30.0, 0.01) == 0.0
    assert phases.error_floor(0.5, 30.0, 0.01) == pytest.approx(0.5 * 29 / (28 - 0.01))


def test_error_floor_is_the_limit():
    a, tau, s = 0.5, 8.0, 0.01
    E = theory.error_curve(a, tau, s, 600)
    assert E[-1] == pytest.approx(phases.error_floor(a, tau, s), rel=1e-6)


@pytest.mark.parametrize(
    "p",
    [(2.0, 3.0, 0.01), (4.0, 1.5, 0.0), (0.3, 2.0, 0.01), (20.0, 1.2, 0.1), (8.0, 3.0, 1e-4)],
)
def test_fitted_ratio_approaches_lambda(p):
    # overthinking and exponential points where the negative branch dominates
    r = phases.rates(*p)
    assert r["negative"] >= r["positive"]
    t = 250
    E = theory.error_curve(*p, t + 1, rtol=1e-8)
    ratio = E[t + 1] / E[t]
    assert ratio == pytest.approx(r["negative"] * math.sqrt(t / (t + 1)), rel=3e-3)


def test_large_tau_rate_is_theorem1_not_negative_branch():
    # inconsistency documented in phases: for sigma2 > 0 and large tau the observed rate is the
    # positive-side one -> ((2 sqrt(a) + s)/(a + 1 + s))^2 (Theorem 1)
    a, s = 3.0, 0.1
    r = phases.rates(a, 1e6, s)
    assert r["positive"] == pytest.approx(r["branch_point"], rel=1e-4)
    assert r["negative"] < r["positive"]


def test_optimal_depth():
    a, s = 2.0, 0.01
    tc = phases.tau_c(a, s)
    prev = 0
    for tau in (tc - 1.0, tc - 0.5, tc - 0.25):
        ts, es = phases.optimal_depth(a, tau, s)
        E = theory.error_curve(a, tau, s, 3 * ts + 50, rtol=1e-8)
        assert ts == int(np.argmin(E)) and es == pytest.approx(E[ts], rel=1e-12)
        assert ts > prev  # t* grows as tau -> tau_c (Result 3)
        prev = ts
    with pytest.raises(ValueError, match="overthinking"):
        phases.optimal_depth(a, tc + 1.0, s)


def test_mp_density_normalisation():
    for a in (0.25, 0.5, 2.0, 4.0):
        sm, sp = (1 - math.sqrt(a)) ** 2, (1 + math.sqrt(a)) ** 2
        mass = integrate.quad(phases.mp_density, sm, sp, args=(a,), epsabs=1e-13)[0]
        assert mass == pytest.approx(min(a, 1.0), rel=1e-9)
        # the paper's 1/(2 pi alpha s) version has mass min(a,1)/a: 1/a for a > 1 (not 1)
        if a > 1:
            assert mass / a == pytest.approx(1 / a)


def _pop_mp(a, s, t):
    mp.mp.dps = 30
    ac = a + 1 + s
    sm, sp = (1 - mp.sqrt(a)) ** 2, (1 + mp.sqrt(a)) ** 2
    w = sp - sm

    def f(th):
        sh2 = mp.sin(th / 2) ** 2
        x = sm + w * sh2
        ratio = 4 * mp.cos(th / 2) ** 2 * sh2 / x if x != 0 else 4 / w  # sin^2(th)/x
        return (1 - x / ac) ** (2 * t) * (w * w / 4) * ratio / (2 * mp.pi)

    d = 40 / mp.sqrt(2 * t)
    val = mp.quad(f, [0, d / 20, d / 4, d, mp.pi - d, mp.pi - d / 4, mp.pi - d / 20, mp.pi])
    return float(val + ((1 - a) if a < 1 else 0))


@pytest.mark.parametrize(
    "a,s,t", [(1.0, 0.01, 5000), (1.3, 1e-3, 5000), (0.5, 0.1, 3000), (2.0, 0.0, 400)]
)
def test_population_error_large_t(a, s, t):
    assert phases.population_error(a, s, t) == pytest.approx(_pop_mp(a, s, t), rel=1e-10)


def test_theorem1_rate():
    a, s = 1.5, 0.01
    r = ((2 * math.sqrt(a) + s) / (a + 1 + s)) ** 2
    e1, e2 = phases.population_error(a, s, 2000), phases.population_error(a, s, 2001)
    assert e2 / e1 == pytest.approx(r * (2000 / 2001) ** 1.5, rel=1e-4)


@pytest.mark.parametrize(
    "fn,args,name",
    [
        (phases.tau_c, (0.0, 0.1), "alpha"),
        (phases.tau_c, (1.0, -0.1), "sigma2"),
        (phases.tau_c, (float("nan"), 0.1), "alpha"),
        (phases.error_floor, (1.0, 1.0, 0.1), "tau"),
        (phases.error_floor, (1.0, float("inf"), 0.1), "tau"),
        (phases.decay_rate, (-1.0, 2.0, 0.1), "alpha"),
        (phases.decay_rate, (1.0, 2.0, float("nan")), "sigma2"),
        (phases.rates, (1.0, 0.9, 0.1), "tau"),
        (phases.regime, (1.0, 2.0, -1e-3), "sigma2"),
        (phases.optimal_depth, (1.0, 0.5, 0.1), "tau"),
        (phases.population_error, (1.0, 0.1, -1), "t"),
        (phases.population_error, (1.0, 0.1, 2.0), "t"),
        (phases.population_error, (0.0, 0.1, 2), "alpha"),
        (phases.mp_density, (1.0, -2.0), "alpha"),
    ],
)
def test_validation(fn, args, name):
    with pytest.raises(ValueError, match=name):
        fn(*args)


def test_mp_mass_is_min_alpha_one():
    for a in (0.25, 0.5, 1.0, 2.0, 4.0):
        assert phases.mp_mass(a) == pytest.approx(min(a, 1.0), rel=1e-9)
    with pytest.raises(ValueError, match=r"alpha must be a finite number in \[1e-12, 1e\+12\]"):
        phases.mp_mass(0.0)
