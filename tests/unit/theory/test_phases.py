"""Tests of cotbook.phases (Results 2, 3 and Theorem 1)."""

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, optimize

from cotbook import theory
from cotbook.theory import ball, phases
from cotbook.theory.asymptotics import DOUBLE_POLE


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


# --- where E_t stays bounded: tau_stable = max(tau_c, tau_+) (issue: wrong regime at large noise)

RESOLVE = 10.0
"""A point's long-depth behaviour is resolved at depth T when |log rate| T >= RESOLVE (the
leading term changes by e^10 between T and 2T), with the rate the largest of the saddle rates
and the alpha < 1 pole term's (the candidates of the asymptotic law; the law itself is not
computed, its saddle analysis fails at large noise)."""
T1, T2 = 500, 1000


def _behaviour(alpha, tau, s):
    """What the exact curve does between T1 and T2: 'grows' (x100 or beyond float64),
    'vanishes' (/1000) or E_T2 relative to Result 2's floor; computed from E_t alone."""
    e1, e2 = theory.errors_at(alpha, tau, s, [T1, T2], rtol=1e-3)
    if not math.isfinite(e2) or e2 > 100 * e1:
        return "grows"
    if e2 < 1e-3 * e1:
        return "vanishes"
    return e2


@pytest.mark.slow
def test_regime_agrees_with_the_exact_curve_at_any_noise():
    rng = np.random.default_rng(20261126)
    checked, band, by_regime = 0, 0, {}
    while checked < 500:
        alpha = float(np.exp(rng.uniform(math.log(0.05), math.log(20.0))))
        s = float(rng.uniform(0.0, 3.0))
        tau = float(phases.tau_stable(alpha, s) * np.exp(rng.uniform(-0.7, 0.7)))
        if tau <= 1.001:
            continue
        r = phases.rates(alpha, tau, s)
        pole = math.sqrt(r["branch_point"]) if alpha < 1 else r["branch_point"]
        if abs(math.log(max(r["negative"], r["positive"], pole))) * T1 < RESOLVE:
            continue  # too close to rate 1 for depth 1000 to tell
        checked += 1
        name = phases.regime(alpha, tau, s)
        by_regime[name] = by_regime.get(name, 0) + 1
        band += phases.tau_c(alpha, s) < tau < phases.tau_plus(alpha, s)
        seen = _behaviour(alpha, tau, s)
        if name == "overthinking":
            assert seen == "grows", (alpha, tau, s, seen)
        elif name == "exponential":
            assert seen == "vanishes", (alpha, tau, s, seen)
        else:
            assert name == "saturation", (alpha, tau, s, name)
            floor = phases.error_floor(alpha, tau, s)
            assert floor > 0 and seen == pytest.approx(floor, rel=1e-3), (alpha, tau, s, seen)
    # the band where Result 2's tau_c rule was wrong is well sampled, and so is every regime
    assert band >= 50 and min(by_regime.values()) >= 40 and len(by_regime) == 3, (band, by_regime)


def test_tau_plus_is_where_the_positive_saddle_rate_crosses_one():
    for alpha, s in ((0.5, 0.5), (0.5, 1.0), (2.0, 1.0), (4.0, 2.0), (1.0, 0.7)):
        tp = phases.tau_plus(alpha, s)
        assert phases.rates(alpha, tp * 0.999, s)["positive"] > 1.0
        above = phases.rates(alpha, tp * 1.001, s)["positive"]
        assert above < 1.0 or (alpha == 1.0 and above == 1.0)  # alpha = 1: a_+ = 1, critical
        assert phases.rates(alpha, tp, s)["positive"] == pytest.approx(1.0, abs=1e-12)
        assert phases.tau_stable(alpha, s) == max(tp, phases.tau_c(alpha, s))


def test_noise_threshold_is_where_tau_c_stops_being_the_boundary():
    for alpha in (0.01, 0.3, 1.0, 2.0, 50.0):
        s_star = phases.noise_threshold(alpha)
        assert phases.tau_c(alpha, s_star) == pytest.approx(
            phases.tau_plus(alpha, s_star), rel=1e-12
        )
        assert phases.tau_stable(alpha, 0.9 * s_star) == phases.tau_c(alpha, 0.9 * s_star)
        assert phases.tau_stable(alpha, 1.1 * s_star) == phases.tau_plus(alpha, 1.1 * s_star)
    assert phases.noise_threshold(1.0) == pytest.approx(0.25, rel=1e-12)


def test_the_reported_large_noise_points():
    # regime and floor were wrong here: 'exponential' beside E_300 = 360314, a floor of -2,
    # and a ZeroDivisionError at tau = 2 + sigma2
    assert phases.regime(2.0, 1.83594, 1.0) == "overthinking"
    assert theory.errors_at(2.0, 1.83594, 1.0, [300])[0] == pytest.approx(360314.1, rel=1e-6)
    assert phases.regime(0.5, 2.2, 0.5) == "overthinking"
    with pytest.raises(ValueError, match="tau=2.2 lies in"):
        phases.error_floor(0.5, 2.2, 0.5)
    with pytest.raises(ValueError, match="floor does not apply"):
        phases.error_floor(0.5, 3.0, 1.0)
    t_star, e_star = phases.optimal_depth(2.0, 1.83594, 1.0)
    E = theory.error_curve(2.0, 1.83594, 1.0, 40)
    assert t_star == int(np.argmin(E)) and e_star == pytest.approx(E.min(), rel=1e-8)


@pytest.mark.parametrize("alpha, sigma2", [(0.5, 1.0), (0.5, 3.0)])
def test_on_tau_plus_below_alpha_1_E_t_grows_linearly(alpha, sigma2):
    """Issue 63: at tau = tau_+ = 2 + sigma2 (alpha < 1, above the noise threshold) the regime
    was "critical" while E_t grows linearly.  The law there is the double pole, E_t ~
    (1 - alpha)^2 t / (alpha + 1 + sigma2); the ball enclosure (independent of the law) gives
    E_200 - E_100 and E_400 - E_200 within 15% of K times the step, the slope rising towards K
    (E_t - K t ~ -c t^1/2), so the regime is "overthinking"."""
    tau = 2.0 + sigma2
    assert phases.regime(alpha, tau, sigma2) == "overthinking"
    law = phases.asymptotic_law(alpha, tau, sigma2)
    K = (1 - alpha) ** 2 / (alpha + 1 + sigma2)
    assert (law.rate, law.power, law.sign, law.source) == (1.0, 1.0, 1, DOUBLE_POLE)
    assert law.K == pytest.approx(K, rel=1e-14)
    E = {t: float(ball.ball_error_at(alpha, tau, sigma2, t).mid) for t in (100, 200, 400)}
    slopes = [(E[200] - E[100]) / 100, (E[400] - E[200]) / 200]
    assert 0.85 * K < slopes[0] < slopes[1] < K
    # just off tau_+ the regime is decided by the rate: above 1 below tau_+, below 1 above
    assert phases.regime(alpha, tau * (1 - 1e-6), sigma2) == "overthinking"
    assert phases.regime(alpha, tau * (1 + 1e-6), sigma2) == "saturation"


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
        (phases.tau_plus, (0.0, 0.1), "alpha"),
        (phases.tau_stable, (1.0, -0.1), "sigma2"),
        (phases.noise_threshold, (float("nan"),), "alpha"),
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


def test_the_floor_in_the_boundary_band_is_the_floor():
    """Within phases.regime's band just below tau_c (alpha < 1, low noise) the regime is
    "critical" and the limit the floor (it printed 0 there); just below the noise threshold,
    where tau_+ lies inside the band, tau < tau_+ keeps the paper's 0 (a referee found -5e8)."""
    tau = 5.29898759032888  # tau_c(0.5, 0.01) (1 - 1e-10)
    assert tau < phases.tau_c(0.5, 0.01) and phases.regime(0.5, tau, 0.01) == "critical"
    floor = phases.error_floor(0.5, tau, 0.01)
    assert floor == pytest.approx(0.5 * (tau - 1) / (tau - 2.01), rel=1e-15)
    assert floor == pytest.approx(theory.errors_at(0.5, tau, 0.01, [1000])[0], rel=2e-3)
    assert phases.error_floor(0.5, 2.2135254902296086, 0.21352549134889567) == 0.0
