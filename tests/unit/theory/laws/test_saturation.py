"""cotbook.saturation: the floor against E_0, its approach, overtaking, Figure 1 summaries."""

import math

import numpy as np
import pytest

from cotbook import theory
from cotbook.theory import phases, saturation


def test_e0_is_one():
    assert theory.error_curve(0.3, 7.0, 0.01, 0)[0] == saturation.E0 == 1.0


def test_floor_excess_alpha_exact_at_zero_noise():
    # sigma2 = 0: tau_c = 1 + (3 alpha + 1)/(1 - alpha) meets 1 + 1/alpha at alpha = 1/3
    assert saturation.floor_excess_alpha(0.0) == pytest.approx(1 / 3, abs=1e-12)
    a = saturation.floor_excess_alpha(0.01)
    assert 0.34 < a < 0.36
    assert phases.tau_c(a, 0.01) == pytest.approx(1 + 1.01 / a, rel=1e-10)


@pytest.mark.parametrize("alpha,sigma2", [(0.1, 0.01), (0.2, 0.0), (0.3, 0.01)])
@pytest.mark.slow
def test_floor_excess_interval_matches_scan_of_error_floor(alpha, sigma2):
    lo, hi = saturation.floor_excess_interval(alpha, sigma2)
    assert hi == pytest.approx(1 + (1 + sigma2) / alpha)
    scan = np.linspace(1.01, 30.0, 30001)
    above = scan[[phases.error_floor(alpha, t, sigma2) > 1.0 for t in scan]]
    step = scan[1] - scan[0]
    assert abs(above[0] - lo) < 2 * step and abs(above[-1] - hi) < 2 * step
    assert phases.error_floor(alpha, hi, sigma2) == pytest.approx(1.0, rel=1e-12)


def test_floor_excess_interval_empty_and_validation():
    assert saturation.floor_excess_interval(0.5, 0.01) is None
    with pytest.raises(ValueError, match=r"alpha must be a finite number in \(0, 1\)"):
        saturation.floor_excess_interval(1.5, 0.01)
    with pytest.raises(ValueError, match=r"sigma2 must be a finite number in \[0, 1e\+12\]"):
        saturation.floor_excess_interval(0.2, -1.0)


def test_floor_equals_curve_at_large_depth():
    for alpha, tau in ((0.2, 4.0), (0.5, 8.0)):
        curve = theory.error_curve(alpha, tau, 0.01, 1000, rtol=1e-8)
        assert curve[-1] == pytest.approx(phases.error_floor(alpha, tau, 0.01), rel=1e-8)


def test_long_curve_keeps_its_small_depths():
    """Regression: at t_max = 1000 float64 Lagrange flushed the entries read by depths 1..98
    (q = rho/alpha ~ 1.9) and returned E_t = 0 as certified."""
    tau = 3 * phases.tau_c(0.2, 0.01)
    long = theory.error_curve(0.2, tau, 0.01, 1000, rtol=1e-7)
    short = theory.error_curve(0.2, tau, 0.01, 100, rtol=1e-10)
    np.testing.assert_allclose(long[:101], short, rtol=1e-7)
    independent = theory.error_grid([0.2], [tau], 0.01, 5)[0, 0]
    assert long[5] == pytest.approx(independent, rel=1e-9)


@pytest.mark.slow
def test_approach_sides_and_law():
    near = saturation.approach(0.5, 1.1 * phases.tau_c(0.5, 0.01), 0.01)
    assert near["sign"] == +1 and near["law"].source == "negative saddle"
    assert near["law"].sign == +1 and near["t_law"] >= 1000
    deep = saturation.approach(0.5, 1.5 * phases.tau_c(0.5, 0.01), 0.01)
    assert deep["sign"] == -1 and 5 < deep["t_flip"] < 100
    assert deep["law"].sign == -1 and deep["law"].power == -1.5  # the alpha < 1 pole term
    # brute force: the sign of E_t - E_inf from an independent single-depth evaluation, where
    # the float curve still resolves the difference
    tau = 1.5 * phases.tau_c(0.5, 0.01)
    e = theory.error_grid([0.5], [tau], 0.01, 60)[0, 0]
    assert e < deep["floor"] * (1 - 1e-5)
    # the sign flips late where the pole term leads only slowly (t_scale ~ 180)
    late = saturation.approach(0.8, 3 * phases.tau_c(0.8, 0.01), 0.01)
    assert late["sign"] == late["law"].sign == -1 and 500 < late["t_flip"] < 1000


def test_approach_validation():
    with pytest.raises(ValueError, match="saturation regime"):
        saturation.approach(0.5, 3.0, 0.01)
    with pytest.raises(ValueError, match="resolve"):
        saturation.approach(0.5, 8.0, 0.01, resolve=0)


def test_overtake_depth_known_answer():
    t = np.arange(60)
    first = np.full(60, 0.5)
    second = 2.0 * 0.9**t  # second > first iff t < log(1/4)/log(0.9) = 13.16
    expected = math.ceil(math.log(0.25) / math.log(0.9))
    assert saturation.overtake_depth(second, first) == expected == 14
    assert saturation.overtake_depth(first, second) is None
    assert saturation.overtake_depth(first, first + 1) == 0
    with pytest.raises(ValueError, match="equal length"):
        saturation.overtake_depth(first, second[:10])


def test_overtake_matches_brute_force_scan():
    r = saturation.overtake(0.5, 1.0, 5.5, 0.01, t_max=300)
    c1 = theory.error_curve(0.5, 5.5, 0.01, 300, rtol=1e-7)
    c2 = theory.error_curve(1.0, 5.5, 0.01, 300, rtol=1e-7)
    scan = next(t for t in range(301) if all(c1[s] < c2[s] for s in range(t, 301)))
    assert r["t_over"] == scan
    assert 50 < scan < 150 and r["larger_better_at_1"]
    assert r["regimes"] == ("saturation", "overthinking")
    assert saturation.overtake(0.5, 2.0, 5.5, 0.01, t_max=300)["t_over"] is None
    with pytest.raises(ValueError, match="alpha2 must be larger than alpha1"):
        saturation.overtake(1.0, 0.5, 5.5, 0.01)


def test_regime_summary_and_tail_trend():
    alphas, taus = np.array([0.5, 2.0]), np.array([1.5, 20.0])
    grid = theory.error_grid(alphas, taus, 0.01, 40)
    rows = {r[0]: r for r in saturation.regime_summary(alphas, taus, grid, 0.01)}
    assert set(rows) == {"overthinking", "saturation", "exponential"}
    assert rows["overthinking"][1] == 2 and rows["saturation"][1] == 1
    assert rows["saturation"][5] == pytest.approx(
        abs(grid[0, 1] / phases.error_floor(0.5, 20.0, 0.01) - 1)
    )
    geometric = 3.0 * 0.8 ** np.arange(11)
    ratio, power = saturation.tail_trend(geometric)
    assert ratio == pytest.approx(0.8) and power == pytest.approx(5 * math.log2(0.8))
    ratio, power = saturation.tail_trend(np.arange(1, 202) ** -0.5)
    assert power == pytest.approx(math.log2((201 / 101) ** -0.5))
    with pytest.raises(ValueError, match="even last depth"):
        saturation.tail_trend(np.ones(4))


def test_figure_1a_grid_is_result_1_on_the_papers_axes():
    fig1a = saturation.figure_1a(n=5)
    assert (fig1a.sigma2, fig1a.t) == (0.01, 80) and fig1a.E.shape == (5, 5)
    assert fig1a.alphas[[0, -1]].tolist() == pytest.approx([0.1, 10.0])
    assert (fig1a.taus[[0, -1]] - 1).tolist() == pytest.approx([0.01, 100.0])
    assert fig1a.E[2, 3] == pytest.approx(
        theory.error_at(fig1a.alphas[2], fig1a.taus[3], 0.01, 80), rel=1e-9
    )
    with pytest.raises(ValueError, match="n"):
        saturation.figure_1a(n=0)


def _exact_floor_power(t, k, m):
    """floor(t^(k/m)) in integer arithmetic: the largest j with j^m <= t^k."""
    j = int(round(t ** (k / m)))
    while j**m > t**k:
        j -= 1
    while (j + 1) ** m <= t**k:
        j += 1
    return j


@pytest.mark.parametrize("t_max", [128, 2187, 16384, 78125, 1000, 4099])
def test_log_depths_are_the_exact_floors_of_the_log_spaced_points(t_max):
    """At a seventh power and 50 points, 7 of the points are integers in exact arithmetic;
    np.geomspace gives 7.999999999999999 for 8, so a plain cast sampled another depth than a
    CPU that rounds up would.  Checked against integer arithmetic."""
    n = 50
    exact = sorted({_exact_floor_power(t_max, k, n - 1) for k in range(n)})
    assert saturation.log_depths(t_max, n).tolist() == exact
