"""cotbook.theory.stopping: the best finite depth inside saturation, the final crossing of the
floor, and how the best depth and the gain scale as tau grows (issue 30)."""

import math

import numpy as np
import pytest

from cotbook.theory import asymptotics, closed_form, phases, stopping

# (alpha, tau, sigma2): a dip below E_inf that closes again (tau < tau_x), the pole term's
# approach from below (tau > tau_x), sigma2 = 0 and 0.1, far above tau_c, and E_inf > E_0 = 1
OPTIMUM_POINTS = [
    pytest.param(0.5, 6.0, 0.01, marks=pytest.mark.slow),
    pytest.param(0.5, 10.0, 0.01, marks=pytest.mark.slow),
    (0.2, 20.0, 0.0),
    pytest.param(0.5, 100.0, 0.01, marks=pytest.mark.slow),
    (0.3, 8.0, 0.1),
    (0.05, 3.0, 0.01),
    (0.1, 10.0, 0.01),
    pytest.param(0.5, 10.0, 0.1, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("alpha,tau,sigma2", OPTIMUM_POINTS)
def test_saturation_optimum_matches_high_precision_evaluation(alpha, tau, sigma2):
    """Against E_t of the Lagrange form in 60-digit mpmath (a finite sum, independent of the
    contours that certify E_t - E_inf) minus the floor formula in mpmath: the depth of the
    minimum, the first depth below the floor and the gain."""
    import mpmath as mp

    best = stopping.saturation_optimum(alpha, tau, sigma2)
    assert best.t_min is not None and best.t_min <= 100
    T = 2 * best.t_min + 10
    E = closed_form.ridgeless_curve(alpha, tau, sigma2, T, method="lagrange_mp", dps=60)
    with mp.workdps(60):
        floor = (1 - mp.mpf(alpha)) * (tau - 1) / (mp.mpf(tau) - 2 - sigma2)
        exact = np.array([float(mp.mpf(float(e)) - floor) for e in E])
    assert best.t_min == int(np.argmin(exact))
    assert best.t_flip == int(np.argmax(exact < 0))
    assert best.gain == pytest.approx(-exact.min(), rel=1e-6)
    assert best.E_inf == pytest.approx(float(floor), rel=1e-13)
    assert best.E_min == pytest.approx(float(floor) - best.gain, rel=1e-12)


def test_saturation_optimum_refuses_other_regimes_and_bad_depths():
    with pytest.raises(ValueError, match="tau must put .* saturation regime.*overthinking"):
        stopping.saturation_optimum(0.5, 3.0, 0.01)  # tau_c = 5.3
    with pytest.raises(ValueError, match="alpha"):
        stopping.saturation_optimum(2.0, 10.0, 0.01)
    with pytest.raises(ValueError, match="t_search"):
        stopping.saturation_optimum(0.5, 10.0, 0.01, t_search=1)
    with pytest.raises(ValueError, match="t_search"):
        stopping.saturation_optimum(0.5, 10.0, 0.01, t_search=200001)


def test_no_finite_depth_beats_the_floor_when_the_search_stops_before_the_dip():
    best = stopping.saturation_optimum(0.5, 10.0, 0.01, t_search=10)  # the dip starts at 18
    assert (best.t_flip, best.t_min, best.gain) == (None, None, 0.0)
    assert best.E_min == best.E_inf


@pytest.mark.parametrize(
    "alpha,delta",
    [
        (0.3, 3e-3),
        pytest.param(0.5, 1e-2, marks=pytest.mark.slow),
        pytest.param(0.7, 1e-2, marks=pytest.mark.slow),
    ],
)
def test_t_flip_law_predicts_the_last_change_of_sign(alpha, delta):
    """The two-term law (constants of the asymptotic terms) against the certified sign of
    E_t - E_inf from the contours: measured within 4% here (5.4% at 1e-3 above tau_x)."""
    tau = (1 + delta) * phases.pole_crossover(alpha, 0.01)
    law = stopping.t_flip_law(alpha, tau, 0.01)
    flip = stopping.last_flip(alpha, tau, 0.01)
    assert law == pytest.approx(flip, rel=0.04)
    e = asymptotics.excess(
        alpha, tau, 0.01, [flip - 1, flip, 2 * flip, 10 * flip], drop_uncertified=True
    )
    signs = dict(zip(e.depths.tolist(), e.sign.tolist(), strict=True))
    assert signs.get(flip - 1, 0) >= 0 and all(signs[t] < 0 for t in signs if t >= flip)


def test_t_flip_law_only_just_above_tau_x():
    tx = phases.pole_crossover(0.5, 0.01)
    assert stopping.t_flip_law(0.5, 0.99 * tx, 0.01) is None  # Lambda leads: no last flip
    assert stopping.last_flip(0.5, 0.99 * tx, 0.01) is None
    # two percent above tau_x the pole term outweighs Lambda's at every depth: the curve is
    # below its floor from the early dip on
    assert stopping.t_flip_law(0.5, 1.02 * tx, 0.01) is None
    assert stopping.last_flip(0.5, 1.02 * tx, 0.01) == 14


def test_constants_scale_as_the_large_tau_law_says():
    """Far above tau_x: psi_max does not move, K_p falls as 1/tau, the saddles' K as 1/tau^2,
    and the positive saddle's rate tends to psi_max^2 (the balance behind t_min's growth)."""
    law = stopping.large_tau_law(0.5, 0.01)
    terms = [
        {c.source: c for c in asymptotics.candidates(0.5, f * law.tau_x, 0.01)} for f in (1e3, 1e4)
    ]
    poles = [t[asymptotics.POLE] for t in terms]
    assert poles[0].rate == pytest.approx(law.psi_max, rel=1e-12)
    assert poles[1].rate == pytest.approx(law.psi_max, rel=1e-12)
    assert poles[0].K / poles[1].K == pytest.approx(10.0, rel=2e-3) and poles[1].K < 0
    for name in ("negative saddle", "positive saddle"):
        assert terms[0][name].K / terms[1][name].K == pytest.approx(100.0, rel=5e-3)
    assert terms[1]["positive saddle"].rate == pytest.approx(law.psi_max**2, rel=1e-6)
    assert law.depth_per_efold == pytest.approx(1 / math.log(1 / law.psi_max))
    with pytest.raises(ValueError, match="alpha"):
        stopping.large_tau_law(1.5, 0.01)


@pytest.mark.slow
def test_best_depth_and_gain_follow_the_large_tau_law():
    """Exact optima a decade apart: t_min grows by depth_per_efold per e-fold of tau (5%), and
    the gain falls as tau^-2 t_min^-3/2 (its local exponent, -2.17 here, within 0.05)."""
    (row,) = stopping.large_tau_check(0.5, 0.01, (300, 3000))
    assert row.t_min == (114, 154)
    assert row.slope == pytest.approx(row.slope_law, rel=0.05)
    assert row.exponent == pytest.approx(row.exponent_law, abs=0.05)
    assert row.exponent < -2.1
    with pytest.raises(ValueError, match="factors"):
        stopping.large_tau_check(0.5, 0.01, (300,))


def test_a_dip_too_small_to_certify_is_refused_not_called_absent():
    """At 10^4 tau_x the dip (a gain near 2e-12) is below what the contours certify: the
    optimum is refused, naming the depths, instead of reported as "no gain"."""
    tau = 1e4 * phases.pole_crossover(0.5, 0.01)
    with pytest.raises(ArithmeticError, match="not certified at depths 165..473"):
        stopping.saturation_optimum(0.5, tau, 0.01)


@pytest.mark.slow
def test_depths_the_contours_leave_out_are_resolved_a_second_way():
    """At (0.7532, 11.59, 0.1) the contours leave depths 69..125 out; E_t certified by the
    closed form, minus the floor, resolves them (positive, above the minimum), so the optimum
    is still answered: the one a 60-digit evaluation gives."""
    best = stopping.saturation_optimum(0.7532386941884159, 11.593127696442176, 0.1)
    assert (best.t_flip, best.t_min) == (190, 242)
    assert best.gain == pytest.approx(2.3356e-05, rel=1e-4)
