"""The law of E_t - E_inf (cotbook.theory.asymptotics) against fits on certified deep curves,
and the excess E_t - E_inf against an independent high-precision evaluation."""

import math

import mpmath as mp
import numpy as np
import pytest

from cotbook.theory import asymptotics, contour, lagrange, phases, saturation

# one point per case of the law, each where its fit window resolves it (t_scale << t)
CASES = {
    # (alpha, tau, sigma2): (source, power, sign)
    (2.0, 2.0, 0.01): ("negative saddle", -0.5, 1),  # overthinking
    (0.5, 4.0, 0.01): ("negative saddle", -0.5, 1),  # overthinking, alpha < 1
    (2.0, 5.0, 0.01): ("negative saddle", -0.5, 1),  # exponential
    (2.0, 5.0, 0.0): ("negative saddle", -0.5, 1),
    (1.0, 20.0, 0.01): ("positive saddle", -0.5, 1),  # alpha = 1 above tau_c: rate 1
    (0.5, 6.0, 0.01): ("negative saddle", -0.5, 1),  # saturation near tau_c
    (0.5, 10.0, 0.01): ("alpha < 1 pole term, saddle at sqrt(alpha)", -1.5, -1),  # far above
    (0.2, 50.0, 0.1): ("alpha < 1 pole term, saddle at sqrt(alpha)", -1.5, -1),
    (0.5, 10.0, 0.0): ("alpha < 1 pole term, saddle at sqrt(alpha)", -1.5, -1),
    (0.2, 3.0, 0.1): ("residue at b = 1/beta", 0.0, -1),  # 1/beta inside the contour
    # a symmetric point with f'' < 0 is not crossed downhill and gives no term
    (0.5, 1.05, 0.01): ("negative saddle", -0.5, 1),  # the positive one dropped
    (0.3, 1.1, 0.5): ("positive saddle", -0.5, 1),  # the negative one dropped
}


@pytest.mark.parametrize("point", list(CASES))
def test_law_matches_fit_on_certified_deep_curve(point):
    source, power, sign = CASES[point]
    law = phases.asymptotic_law(*point)
    assert (law.source, law.power, law.sign) == (source, power, sign)
    T = 20000
    assert law.t_scale < T / 50
    fit = asymptotics.local_law(*point, T)
    assert fit.rate == pytest.approx(law.rate, rel=1e-5)  # the issue asks for 1e-3
    assert fit.power == pytest.approx(law.power, abs=0.01)
    K = law.K + (-1) ** T * law.K_alt
    assert fit.K == pytest.approx(K, rel=0.03)  # O(1/t) corrections


def test_law_of_paper_near_tau_c_is_lambda():
    # Result 2's Lambda is the law near tau_c, on both sides and for alpha < 1 too
    for alpha, sigma2 in [(2.0, 0.01), (0.5, 0.01), (4.0, 0.1)]:
        tc = phases.tau_c(alpha, sigma2)
        for tau in (0.95 * tc, 1.05 * tc):
            law = phases.asymptotic_law(alpha, tau, sigma2)
            assert law.source == "negative saddle"
            assert law.rate == pytest.approx(phases.decay_rate(alpha, tau, sigma2), rel=1e-12)


def test_pole_term_rate_is_psi_max_not_squared():
    law = phases.asymptotic_law(0.5, 10.0, 0.01)
    psi_max = (2 * math.sqrt(0.5) + 0.01) / 1.51
    assert law.rate == pytest.approx(psi_max, rel=1e-14)
    # slower than both squared rates the book used to name
    r = phases.rates(0.5, 10.0, 0.01)
    assert law.rate > max(r["negative"], r["positive"]) + 0.03


def test_unresolved_window_is_flagged():
    # a_+ close to sqrt(alpha): the positive saddle leads only for t >> t_scale, and a fit at
    # t = 5000 still sees another power
    law = phases.asymptotic_law(4.0, 20.0, 0.01)
    assert law.source == "positive saddle" and law.t_scale > 1e4
    fit = asymptotics.local_law(4.0, 20.0, 0.01, 5000)
    assert abs(fit.power - law.power) > 0.3


@pytest.mark.parametrize(
    "point", [(0.5, 10.0, 0.01), (0.2, 3.0, 0.1), (0.7, 50.0, 0.0), (0.5, 5.3, 0.01)]
)
def test_floor_residues_are_result2_floor(point):
    alpha, tau, sigma2 = point
    assert phases.regime(*point) == "saturation"
    assert contour.floor(*point) == pytest.approx(phases.error_floor(*point), rel=1e-13)


@pytest.mark.parametrize("point", [(2.0, 5.0, 0.01), (4.0, 20.0, 0.01), (1.5, 2.0, 0.1)])
def test_floor_residues_vanish_above_alpha_one(point):
    assert contour.floor(*point) == pytest.approx(0.0, abs=1e-14)


@pytest.mark.parametrize("point,t", [((0.5, 7.0, 0.01), 200), ((0.2, 3.0, 0.1), 150)])
@pytest.mark.slow
def test_excess_against_high_precision_lagrange_form(point, t):
    # the mpmath quadratic form at 80 digits shares nothing with the contours
    exact = lagrange.mp_curve(*point, t, 80, depths=[t])[t]
    with mp.workdps(80):
        alpha, tau, sigma2 = (mp.mpf(x) for x in point)
        reference = float(exact - (1 - alpha) * (tau - 1) / (tau - 2 - sigma2))
    e = asymptotics.excess(*point, [t])
    assert e.sign[0] * math.exp(e.log_abs[0]) == pytest.approx(reference, rel=1e-9)


def _random_points(n=500, seed=20261127):
    """``n`` points of the documented domain: alpha in [0.02, 20], tau - 1 in [0.01, 30] (both
    log-uniform), sigma2 = 0 one time in five, else log-uniform in [1e-3, 2]."""
    rng = np.random.default_rng(seed)
    alpha = np.exp(rng.uniform(math.log(0.02), math.log(20.0), n))
    tau = 1.0 + np.exp(rng.uniform(math.log(0.01), math.log(30.0), n))
    noisy = np.exp(rng.uniform(math.log(1e-3), math.log(2.0), n))
    sigma2 = np.where(rng.uniform(size=n) < 0.2, 0.0, noisy)
    return list(zip(alpha.tolist(), tau.tolist(), sigma2.tolist(), strict=True))


def test_law_is_returned_at_500_random_points():
    dropped = 0
    for point in _random_points():
        law = asymptotics.asymptotic_law(*point)
        assert math.isfinite(law.rate) and law.rate > 0 and law.sign in (-1, 0, 1)
        assert math.isfinite(law.K) and math.isfinite(law.t_scale) and law.t_scale >= 0
        sources = {c.source for c in asymptotics.candidates(*point)}
        dropped += not {"negative saddle", "positive saddle"} <= sources
    # the points where a symmetric point is not a descent saddle (they raised before) are many
    assert dropped >= 100


@pytest.mark.slow
def test_law_matches_fit_at_500_random_points():
    """Where the law leads early (t_scale <= 100), the fit at 100 t_scale (at least 4000) has
    the law's rate, power and sign; measured: rate to 4e-6, power to 0.036, at 419 points."""
    resolved = uncertified = 0
    for point in _random_points():
        law = asymptotics.asymptotic_law(*point)
        if law.t_scale > 100:
            continue
        T = int(min(max(100 * law.t_scale, 4000), 60000))
        try:
            fit = asymptotics.local_law(*point, T)
        except ArithmeticError:  # E_t - E_inf near a change of sign: not certified there
            uncertified += 1
            continue
        resolved += 1
        assert fit.rate == pytest.approx(law.rate, rel=3e-5), point
        assert fit.power == pytest.approx(law.power, abs=0.06), point
        assert law.sign == 0 or np.sign(fit.K) == law.sign, point
    assert resolved >= 400 and uncertified <= 5


def test_bad_input():
    with pytest.raises(ValueError, match="tau"):
        phases.asymptotic_law(2.0, 0.5, 0.01)
    with pytest.raises(ValueError, match="depths"):
        asymptotics.excess(0.5, 10.0, 0.01, [0])
    with pytest.raises(ValueError, match="window"):
        asymptotics.local_law(0.5, 10.0, 0.01, 100, window=100)


def _psi(alpha, sigma2, z):
    return (z + sigma2 + alpha / z) / (alpha + 1.0 + sigma2)


def test_residue_band_against_fits_inside_and_outside():
    alpha, sigma2 = 0.05, 0.01
    tc = phases.tau_c(alpha, sigma2)
    band = saturation.residue_band(alpha, sigma2)
    assert band.tau_lo / tc == pytest.approx(1.9999, abs=2e-4)
    assert band.tau_hi / tc == pytest.approx(2.5445, abs=2e-4)
    # Lambda's rule would have it lead up to tau_x; the residue takes over before
    assert band.tau_lo < phases.pole_crossover(alpha, sigma2) < band.tau_hi
    inside = 2.3 * tc
    fit = asymptotics.local_law(alpha, inside, sigma2, 4000)
    one_over_beta = alpha * (inside - 1.0) / (1.0 + sigma2)
    assert fit.rate == pytest.approx(_psi(alpha, sigma2, one_over_beta), rel=1e-6)
    assert fit.power == pytest.approx(0.0, abs=0.01)
    for outside in (1.9 * tc, 2.7 * tc):  # the negative saddle, then the pole term
        law = asymptotics.asymptotic_law(alpha, outside, sigma2)
        assert "residue" not in law.source
        fit = asymptotics.local_law(alpha, outside, sigma2, 4000)
        assert fit.rate == pytest.approx(law.rate, rel=1e-4)
        assert fit.power == pytest.approx(law.power, abs=0.25)  # pre-asymptotic at 2.7 tau_c


def test_residue_alpha_max_is_where_the_band_closes():
    a_max = saturation.residue_alpha_max(0.01)
    assert a_max == pytest.approx(0.0886, abs=1e-4)  # the audit: "about 0.089"
    assert saturation.residue_band(0.999 * a_max, 0.01) is not None
    assert saturation.residue_band(1.001 * a_max, 0.01) is None
    assert saturation.residue_band(0.005, 0.01).tau_lo == pytest.approx(2.01, rel=1e-5)
    above = np.geomspace(1.01 * a_max, 0.9, 8)
    assert all(saturation.residue_band(a, 0.01) is None for a in above)
    # at large noise a band lies away from tau_x: residue_alpha_max does not see it
    assert saturation.residue_alpha_max(0.5) is None
    band = saturation.residue_band(1e-3, 0.5)
    assert not band.tau_lo < phases.pole_crossover(1e-3, 0.5) < band.tau_hi
