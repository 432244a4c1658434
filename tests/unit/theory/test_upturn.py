"""cotbook.theory.upturn: where the certified curve turns up within a horizon, at any ridge
(issue 32, item 2: where does tau_c(lambda) move?)."""

import pytest

from cotbook.theory import derivation, phases, upturn


def test_the_ridgeless_boundary_is_where_result_3s_optimal_depth_reaches_the_horizon():
    """lam = 0: E_t turns up before T exactly where Result 3's optimal depth t* (searched by
    phases.optimal_depth) is below T, so the bracket has t* < T at its lower end and t* >= T
    at its upper end, below tau_c (t* diverges as tau -> tau_c)."""
    b = upturn.boundary(2.0, 0.01, 40, tau_lo=1.25, tau_hi=12.0, xtol=1e-3)
    assert b.tau_flat / b.tau_up - 1 <= 1e-3 and b.steps >= 3
    t_up = phases.optimal_depth(2.0, b.tau_up, 0.01, t_max=200)[0]
    t_flat = phases.optimal_depth(2.0, b.tau_flat, 0.01, t_max=200)[0]
    assert t_up < 40 <= t_flat
    assert 3.0 < b.tau_up < phases.tau_c(2.0, 0.01)  # 3.105 against tau_c = 3.322


@pytest.mark.slow
def test_the_closed_system_finds_the_ridgeless_boundary_as_lam_goes_to_0():
    """The closed system of App. C.9 at lam = 1e-8 and the ridgeless engine (an independent
    method) bracket the same boundary; a ridge of 0.1 moves it well down."""
    ridgeless = upturn.boundary(2.0, 0.01, 40, tau_lo=1.25, tau_hi=12.0, xtol=1e-3)
    tiny = upturn.boundary(2.0, 0.01, 40, lam=1e-8, tau_lo=1.25, tau_hi=12.0, xtol=1e-3)
    assert tiny.tau_up <= ridgeless.tau_flat and ridgeless.tau_up <= tiny.tau_flat
    ridged = upturn.boundary(2.0, 0.01, 40, lam=0.1, tau_lo=1.25, tau_hi=12.0, xtol=1e-2)
    assert ridged.tau_flat < 0.5 * ridgeless.tau_up  # 1.49 against 3.11


def test_turns_up_reads_the_certified_curve():
    """Below the boundary E_t rises before the horizon (it rises from t = 0 at tau = 1.25);
    above it, it falls to the horizon; at lam > 0 the closed system decides."""
    assert upturn.turns_up(2.0, 1.25, 0.01, 40)
    assert not upturn.turns_up(2.0, 10.0, 0.01, 40)
    assert upturn.turns_up(2.0, 2.0, 0.01, 40, lam=1e-3)
    assert not upturn.turns_up(2.0, 3.0, 0.01, 40, lam=0.1)
    E = derivation.ridge_curve(2.0, 3.0, 0.01, 40, lam=0.1).E
    assert E.argmin() == 40


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
    with pytest.raises(ValueError, match="horizon must be <= 2000"):
        upturn.turns_up(2.0, 3.0, 0.01, 2001)
    with pytest.raises(ValueError, match="horizon"):
        upturn.turns_up(2.0, 3.0, 0.01, 0)
