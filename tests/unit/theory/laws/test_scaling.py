import math

import numpy as np
import pytest

from cotbook.theory import phases, scaling


def test_prefactor_limit_recovers_known_constants():
    t = np.array([100.0, 200.0, 400.0, 800.0])
    assert scaling.prefactor_limit(t, 0.3 * (1 + 7.0 / t)) == pytest.approx(0.3, rel=1e-12)
    assert scaling.prefactor_limit(t[:2], 2.0 * (1 - 1.0 / t[:2])) == pytest.approx(2.0, rel=1e-12)


def test_kappa_is_the_slope_of_log_lambda_at_tau_c():
    k = scaling.kappa(2.0, 0.0)
    assert k > 0
    assert scaling.kappa(2.0, 0.0, h=1e-3) == pytest.approx(k, rel=1e-6)
    tc = phases.tau_c(2.0, 0.0)
    assert math.log(phases.decay_rate(2.0, tc - 0.01, 0.0)) == pytest.approx(0.01 * k, rel=1e-2)


@pytest.mark.slow
def test_result3_constants_match_the_optimal_depth_search():
    """Independent routes agree: t* delta -> 1/(2 kappa), E_t* sqrt(t*) -> K_c e^{1/2}."""
    rows = scaling.optimal_depth_rows(2.0, 0.0, (0.01,))
    delta, t_star, t_delta, e_star, e_root = rows[0]
    assert t_delta == pytest.approx(1 / (2 * scaling.kappa(2.0, 0.0)), rel=0.015)
    assert e_root == pytest.approx(scaling.critical_prefactor(2.0, 0.0) * math.exp(0.5), rel=0.025)


def test_bad_input():
    with pytest.raises(ValueError, match="depths must be >= 2 positive depths"):
        scaling.prefactor_limit([10.0], [1.0])
    with pytest.raises(ValueError, match="alpha must be a finite number > 1"):
        scaling.critical_prefactor(0.5, 0.0)
    with pytest.raises(ValueError, match="kappa needs a finite tau_c"):
        scaling.kappa(1.0, 0.0)
    with pytest.raises(ValueError, match="delta must be a finite number > 0"):
        scaling.optimal_depth_rows(2.0, 0.0, (0.0,))


def test_theorem1_rate_is_the_lower_edge_factor():
    for alpha, sigma2 in ((2.0, 0.0), (4.0, 0.01), (10.0, 0.1)):
        lower, upper = scaling.edge_factors(alpha, sigma2)
        assert scaling.theorem1_rate(alpha, sigma2) == pytest.approx(lower, rel=1e-14)
        assert upper < 0 < lower < 1  # the proof's "0 < 1 - s/(alpha c)" fails at s_+
        assert abs(upper) <= lower
    assert scaling.edge_factors(1.0, 3.0)[1] > 0  # only when sigma2 > 2 sqrt(alpha)


def test_local_exponent_tends_to_minus_three_halves():
    for alpha, sigma2 in ((2.0, 0.0), (4.0, 0.01)):
        exps = scaling.local_exponent(alpha, sigma2, [10, 5000])
        assert abs(exps[1] + 1.5) < 0.005
        assert abs(exps[0] + 1.5) > 0.1  # far from the limit at small t: the test can fail


def test_population_error_log_scale():
    assert phases.population_error(2.0, 0.01, 50, log=True) == pytest.approx(
        math.log(phases.population_error(2.0, 0.01, 50)), rel=1e-12
    )
    assert phases.population_error(2.0, 0.01, 20000) == 0.0  # underflows in float64 ...
    assert math.isfinite(phases.population_error(2.0, 0.01, 20000, log=True))  # ... not in log
    assert phases.population_error(0.5, 0.1, 10**4, log=True) == pytest.approx(math.log(0.5))


def test_result2_rows_near_the_transition_and_far_above():
    near, far = scaling.result2_rows(4.0, 1e-4, (1.05, 30))
    assert near.regime == "exponential" and near.resolves and near.t_fit == 1000
    assert near.law.rate == near.rate_paper  # the paper's Lambda is the law near tau_c
    assert near.fit.rate == pytest.approx(near.rate_paper, rel=1e-5)
    assert near.fit.power == pytest.approx(-0.5, abs=0.01) and near.fit.K > 0
    # far above, the law's t_scale is beyond the deepest fit: measured, but not as the law
    assert not far.resolves and far.t_fit == scaling.FIT_DEPTHS[-1]
    assert abs(far.fit.power - far.law.power) > 0.05


def test_result2_rows_saturation_far_above():
    (row,) = scaling.result2_rows(0.5, 0.01, (10,))
    assert row.resolves and row.law.power == -1.5 and row.fit.K < 0
    assert row.fit.rate == pytest.approx((2 * 0.5**0.5 + 0.01) / 1.51, rel=1e-5)
    assert row.fit.rate > row.rate_paper + 0.07
