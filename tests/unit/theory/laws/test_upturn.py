"""cotbook.theory.laws.upturn: where the certified curve turns up within a horizon, at any ridge
(issue 32, item 2: where does tau_c(lambda) move?)."""

import pytest

from cotbook.theory import phases, ridge, upturn


def test_the_ridgeless_boundary_is_where_result_3s_optimal_depth_reaches_the_horizon():
    """lam = 0: E_t turns up before T exactly where Result 3's optimal depth t* (searched by
    phases.optimal_depth) is below T, so the bracket has t* < T at its lower end and t* >= T
    at its upper end, below tau_c (t* diverges as tau -> tau_c)."""
    b = upturn.boundary(2.0, 0.01, 40, tau_lo=1.25, tau_hi=12.0, xtol=1e-3)
    assert b.above / b.below - 1 <= 1e-3 and b.steps >= 3
    t_up = phases.optimal_depth(2.0, b.below, 0.01, t_max=200)[0]
    t_flat = phases.optimal_depth(2.0, b.above, 0.01, t_max=200)[0]
    assert t_up < 40 <= t_flat
    assert 3.0 < b.below < phases.tau_c(2.0, 0.01)  # 3.105 against tau_c = 3.322


@pytest.mark.slow
def test_the_closed_system_finds_the_ridgeless_boundary_as_lam_goes_to_0():
    """The closed system of App. C.9 at lam = 1e-8 and the ridgeless engine (an independent
    method) bracket the same boundary; a ridge of 0.1 moves it well down."""
    ridgeless = upturn.boundary(2.0, 0.01, 40, tau_lo=1.25, tau_hi=12.0, xtol=1e-3)
    tiny = upturn.boundary(2.0, 0.01, 40, lam=1e-8, tau_lo=1.25, tau_hi=12.0, xtol=1e-3)
    assert tiny.below <= ridgeless.above and ridgeless.below <= tiny.above
    ridged = upturn.boundary(2.0, 0.01, 40, lam=0.1, tau_lo=1.25, tau_hi=12.0, xtol=1e-2)
    assert ridged.above < 0.5 * ridgeless.below  # 1.49 against 3.11


def test_turns_up_reads_the_certified_curve():
    """Below the boundary E_t rises before the horizon (it rises from t = 0 at tau = 1.25);
    above it, it falls to the horizon; at lam > 0 the closed system decides."""
    assert upturn.turns_up(2.0, 1.25, 0.01, 40)
    assert not upturn.turns_up(2.0, 10.0, 0.01, 40)
    assert upturn.turns_up(2.0, 2.0, 0.01, 40, lam=1e-3)
    assert not upturn.turns_up(2.0, 3.0, 0.01, 40, lam=0.1)
    E = ridge.ridge_curve(2.0, 3.0, 0.01, 40, lam=0.1).E
    assert E.argmin() == 40


def test_a_torus_beyond_1_never_claims_faster_convergence_than_result_2():
    """At lam = 0 Result 2's rate Lambda is known: a torus of radius r > 1 can pass only where
    E_t changes at a rate below r^-2 = 0.943 (r = 1.03). It passes at tau = 6 (Lambda = 0.90)
    and fails at tau = 4 (Lambda = 0.963) and, overthinking, at tau = 2."""
    limit = 1 / upturn.DECAY_RADIUS**2
    assert phases.decay_rate(2.0, 6.0, 0.01) < limit < phases.decay_rate(2.0, 4.0, 0.01)
    assert upturn.decays(2.0, 6.0, 0.01)
    assert not upturn.decays(2.0, 4.0, 0.01)
    assert not upturn.decays(2.0, 2.0, 0.01, lam=1e-3)
    with pytest.raises(ValueError, match=r"radius must be in \(1, 2\]"):
        upturn.decays(2.0, 6.0, 0.01, radius=0.9)


def test_a_ridge_shrinks_the_overthinking_region_at_every_depth():
    """With lam = 0.1 the curve at tau = 2, below the ridgeless tau_c, is certified to converge
    at every depth (the bisection over such points: the ridge_depths record and its test)."""
    assert upturn.decays(2.0, 2.0, 0.01, lam=0.1) and 2.0 < phases.tau_c(2.0, 0.01)
    with pytest.raises(ValueError, match="tau_hi = 2: not certified to converge"):
        upturn.decay_boundary(2.0, 0.01, tau_lo=1.5, tau_hi=2.0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(tau_lo=10.0, tau_hi=12.0), "tau_lo = 10: E_t does not turn up before t = 40"),
        (dict(tau_lo=1.25, tau_hi=2.0), "tau_hi = 2: E_t turns up before t = 40"),
        (dict(tau_lo=3.0, tau_hi=2.0), "tau_lo must be < tau_hi"),
        (dict(tau_lo=1.25, tau_hi=12.0, xtol=0.0), r"xtol must be in \[1e-9, 1\]"),
        (dict(tau_lo=0.5, tau_hi=12.0), r"tau must be a finite number in \(1, 1e\+12\]"),
    ],
)
def test_a_bracket_without_the_boundary_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        upturn.boundary(2.0, 0.01, 40, **kwargs)


def test_the_horizon_is_checked_before_any_work():
    with pytest.raises(ValueError, match="horizon must be <= 10000"):
        upturn.turns_up(2.0, 3.0, 0.01, 10_001)
    with pytest.raises(ValueError, match="horizon"):
        upturn.turns_up(2.0, 3.0, 0.01, 0)
