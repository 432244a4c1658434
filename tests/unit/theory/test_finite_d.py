"""The first finite-D correction (cotbook.theory.finite_d), each method against an independent one:
c_1 against the exact tau -> infinity limit (a real-Wishart recursion), its machinery against the
jointly Gaussian model's exact answer, and c_1 against a Monte Carlo of the model at D = 50
(cotbook.simulation.first_step)."""

import math

import mpmath as mp
import numpy as np
import pytest

from cotbook.simulation import first_step
from cotbook.theory import closed_form, domain, finite_d


@pytest.mark.parametrize("alpha, sigma2", [(2.0, 0.01), (0.5, 0.0), (4.0, 0.1)])
def test_c1_meets_the_large_tau_limit(alpha, sigma2):
    """The delta-method expansion at tau = 1e7 against the Stein recursion at tau = infinity
    (they differ by O(1/tau))."""
    limit = finite_d.large_tau_correction(alpha, sigma2, 1)
    assert limit[0] == 0.0
    assert finite_d.first_step_correction(alpha, 1e7, sigma2) == pytest.approx(limit[1], rel=1e-5)
    # and it is not the tau -> infinity value at a finite tau
    assert abs(finite_d.first_step_correction(alpha, 3.0, sigma2) / limit[1] - 1) > 0.1


@pytest.mark.parametrize(
    "alpha, tau, sigma2", [(2.0, 3.0, 0.01), (4.0, 1.5, 0.0), (0.5, 10.0, 1.0)]
)
def test_the_machinery_gives_the_gaussian_model_s_exact_answer(alpha, tau, sigma2):
    """With a jointly Gaussian (w, v) of the same second moments, E tr A/D = a and E tr A A^T/D
    = a^2 + rho'/(c'(tau - 1 - 1/D)) exactly (an inverse Wishart mean): its 1/D coefficient
    against the delta-method machinery fed that model's pair statistics."""

    def exact(D):
        c1 = 1 + (1 + mp.mpf(sigma2)) / alpha + 1 / (alpha * D)  # c + 1/L
        a, rho = 1 / c1, 1 - 1 / c1
        tr_AA = a**2 + rho / (c1 * (tau - 1 - 1 / D))
        return 1 - 2 * a + (1 + 1 / mp.mpf(alpha) + 1 / (alpha * D)) * tr_AA

    with mp.workdps(60):
        far = mp.mpf(10) ** 25
        coefficient = (exact(far) - exact(10 * far)) / (1 / far - 1 / (10 * far))
        machinery = finite_d.gaussian_pairs_correction(alpha, tau, sigma2)
        assert abs(machinery / coefficient - 1) < 1e-12
    # the real model's pairs are not Gaussian: its c_1 differs
    assert abs(finite_d.first_step_correction(alpha, tau, sigma2) / machinery - 1) > 0.05


@pytest.mark.slow
def test_c1_against_the_model_simulated_at_D_50():
    """D (E_1(D) - E_1) measured at D = 50 (6000 pretraining sets) sits within its O(1/D)
    remainder (about 0.01 here) plus four standard errors of c_1, and far from the jointly
    Gaussian model's value."""
    alpha, tau, sigma2, D = 2.0, 3.0, 0.01, 50
    per_set = first_step.first_step_errors(alpha, tau, sigma2, D, trials=6000, seed=2026)
    E1 = closed_form.ridgeless_curve(alpha, tau, sigma2, 1)[1]
    measured = D * (per_set.mean() - E1)
    sem = D * per_set.std(ddof=1) / np.sqrt(per_set.size)
    c1 = finite_d.first_step_correction(alpha, tau, sigma2)
    assert sem < 0.01
    assert abs(measured - c1) < 0.015 + 4 * sem, (measured, sem, c1)
    gaussian = finite_d.gaussian_pairs_correction(alpha, tau, sigma2)
    assert abs(measured - gaussian) > 0.15


def test_c1_near_tau_1_grows_as_the_error_itself_and_refuses_by_name_at_the_edge():
    """E_1 diverges as 1/(tau - 1); its first correction as 1/(tau - 1)^2, down to tau - 1 =
    1e-11; closer, the expansion leaves its 1/D regime at D = 1e25 and is refused."""
    ratio = finite_d.first_step_correction(2.0, 1 + 1e-6, 0.01) / finite_d.first_step_correction(
        2.0, 1 + 1e-7, 0.01
    )
    assert ratio == pytest.approx(1e-2, rel=1e-3)
    with pytest.raises(domain.AccuracyError, match=r"c_1 at \(alpha=2.0, tau=1.0000000000001"):
        finite_d.first_step_correction(2.0, 1 + 1e-13, 0.01)


def test_large_tau_correction_is_certified_deep():
    deep = finite_d.large_tau_correction(2.0, 0.01, 30)
    assert deep.shape == (31,) and np.all(np.isfinite(deep))
    assert deep[:4] == pytest.approx([0.0, 0.222215, 0.245606, 0.238839], abs=1e-6)


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="tau \\* D must be an integer"):
        first_step.first_step_errors(2.0, 1.55, 0.0, 10, trials=2)
    with pytest.raises(ValueError, match="tau must be > 1"):
        first_step.first_step_errors(2.0, 1.0, 0.0, 10, trials=2)
    with pytest.raises(ValueError, match="trials must be an integer >= 2"):
        first_step.first_step_errors(2.0, 3.0, 0.0, 10, trials=1)
    with pytest.raises(ValueError, match="tau"):
        finite_d.first_step_correction(2.0, 1.0, 0.01)  # lam = 0 needs M > D
    with pytest.raises(ValueError, match="alpha"):
        finite_d.first_step_correction(-1.0, 3.0, 0.01)
    with pytest.raises(ValueError, match="sigma2"):
        finite_d.large_tau_correction(2.0, -0.1, 3)
    with pytest.raises(ValueError, match="t_max must be <= 200"):
        finite_d.large_tau_correction(2.0, 0.01, finite_d.LARGE_TAU_T_MAX + 1)
    with pytest.raises(ValueError, match="t_max"):
        finite_d.large_tau_correction(2.0, 0.01, 2.5)
    assert issubclass(domain.AccuracyError, ArithmeticError)


def test_finite_d_correction_gives_what_is_derived_and_refuses_the_rest():
    c = finite_d.finite_d_correction(2.0, 3.0, 0.01, 1)
    assert c[0] == 0.0 and c[1] == finite_d.first_step_correction(2.0, 3.0, 0.01)
    deep = finite_d.finite_d_correction(0.5, math.inf, 0.0, 20)
    assert np.array_equal(deep, finite_d.large_tau_correction(0.5, 0.0, 20))
    with pytest.raises(ValueError, match="t_max must be <= 1 .* measured .* finite-d"):
        finite_d.finite_d_correction(2.0, 3.0, 0.01, 2)
    with pytest.raises(ValueError, match="tau must be"):
        finite_d.finite_d_correction(2.0, 1.0, 0.01, 1)


def test_the_derived_depth_is_where_the_derived_words_run_out():
    # c_t needs the 1/D term of every word of needed_words(t); only DERIVED_WORDS have one
    derived = set(finite_d.DERIVED_WORDS)
    assert set(finite_d.needed_words(finite_d.DERIVED_T_MAX)) == derived
    deeper = set(finite_d.needed_words(finite_d.DERIVED_T_MAX + 1))
    assert deeper - derived == {"AA", "AAT", "AATT"}
