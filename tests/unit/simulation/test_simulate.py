import numpy as np
import pytest

from cotbook import tasks
from cotbook.simulation import model, pretrain, simulate


def test_design_errors_equal_literal_cot_summed_over_a_basis(rng):
    D, L, M, t_max = 5, 8, 15, 6
    w, v = tasks.sample_features(D, L, M, 0.01, rng)
    A = pretrain.ridge_solution(w, v, 0.0)
    X = rng.standard_normal((2, D, L)) / np.sqrt(D)
    got = simulate.design_errors(A, X, t_max)
    for n in range(2):
        np.testing.assert_allclose(got[n], model.literal_error_curve(A, X[n], t_max), rtol=1e-10)
    np.testing.assert_array_equal(got[:, 0], 1.0)


def test_first_step_matches_exact_finite_D_expectation(rng):
    """For fixed A, E_X |I - (D/L) A X X^T|_F^2 / D = 1 - 2 Tr A / D + (L+D+1)/L |A|_F^2 / D.

    (Uses E[S] = (L/D) I and E[S^2] = L (L + D + 1) / D^2 I for S = X X^T, x ~ N(0, I/D).)
    A wrong normalisation of the CoT step (alpha instead of 1/alpha, or a missing D) fails this.
    """
    D, L, n = 10, 14, 20000
    A = np.eye(D) * 0.6 + rng.standard_normal((D, D)) * 0.05
    X = rng.standard_normal((n, D, L)) / np.sqrt(D)
    e1 = simulate.design_errors(A, X, 1)[:, 1]
    exact = 1 - 2 * np.trace(A) / D + (L + D + 1) / L * np.sum(A * A) / D
    assert abs(e1.mean() - exact) < 5 * e1.std() / np.sqrt(n)
    assert abs(e1.mean() - exact) < 0.01 * exact


def test_error_curve_shapes_determinism_and_sem():
    kw = dict(alpha=1.5, tau=3.0, sigma2=0.01, lam=1e-5, D=20, t_max=8, trials=4, test_designs=3)
    mean, sem, per = simulate.simulated_curve(**kw, seed=5)
    assert mean.shape == sem.shape == (9,) and per.shape == (4, 9)
    np.testing.assert_array_equal(mean[0], 1.0)
    np.testing.assert_allclose(mean, per.mean(0))
    np.testing.assert_allclose(sem, per.std(0, ddof=1) / 2)
    again = simulate.simulated_curve(**kw, seed=5)
    np.testing.assert_array_equal(again[2], per)
    other = simulate.simulated_curve(**kw, seed=6)
    assert not np.allclose(other[2], per)
    assert np.all(sem[1:] > 0)


def test_error_curve_rounds_sizes_and_uses_them():
    """alpha D and tau D are rounded; the curve equals design_errors with those sizes."""
    alpha, tau, D = 1.26, 2.34, 10  # L = 13, M = 23
    mean, _, per = simulate.simulated_curve(
        alpha, tau, 0.0, 3, D=D, lam=1e-5, trials=2, test_designs=2, seed=9
    )
    stream = np.random.SeedSequence(9).spawn(2)[0]
    rng = np.random.default_rng(stream)
    w, v = tasks.sample_features(D, 13, 23, 0.0, rng)
    A = pretrain.ridge_solution(w, v, 1e-5)
    X = rng.standard_normal((2, D, 13)) / np.sqrt(D)
    np.testing.assert_allclose(per[0], simulate.design_errors(A, X, 3).mean(0), rtol=1e-12)


def test_depth_helps_with_rich_pretraining_and_hurts_without():
    """Qualitative check at small D: tau = 10 improves for 10 steps, tau = 1.3 blows up."""
    good = simulate.simulated_curve(
        2.0, 10.0, 0.01, 10, D=60, lam=1e-5, trials=3, test_designs=3, seed=1
    )[0]
    bad = simulate.simulated_curve(
        2.0, 1.3, 0.01, 10, D=60, lam=1e-5, trials=3, test_designs=3, seed=1
    )[0]
    assert np.all(np.diff(good) < 0)
    assert bad[10] > 10 * bad.min()


def test_ridge_allows_fewer_tasks_than_dimensions():
    mean, _, _ = simulate.simulated_curve(2.0, 0.5, 0.0, 3, D=20, lam=0.1, trials=2, test_designs=2)
    assert np.all(np.isfinite(mean))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(alpha=0.0), "alpha must be a finite number > 0"),
        (dict(alpha=-1.0), "alpha must be a finite number > 0"),
        (dict(tau=float("nan")), "tau must be a finite number > 0"),
        (dict(sigma2=-0.01), "sigma2 must be a finite number >= 0"),
        (dict(lam=-1e-5), "lam must be a finite number >= 0"),
        (dict(lam=0.0, tau=0.5), "lam must be > 0 when tau"),
        (dict(D=0), "D must be an integer >= 1"),
        (dict(t_max=-1), "t_max must be an integer >= 0"),
        (dict(t_max=2.5), "t_max must be an integer >= 0"),
        (dict(trials=1), "trials must be an integer >= 2"),
        (dict(test_designs=0), "test_designs must be an integer >= 1"),
        (dict(seed=-1), "seed must be an integer >= 0"),
        (dict(alpha=0.01), "must round to at least 1"),
    ],
)
def test_error_curve_bad_input(kwargs, message):
    args = dict(alpha=1.0, tau=2.0, sigma2=0.0, lam=1e-5, D=10, t_max=2) | kwargs
    with pytest.raises(ValueError, match=message):
        simulate.simulated_curve(**args)


def test_design_errors_bad_input(rng):
    X = rng.standard_normal((2, 3, 4))
    with pytest.raises(ValueError, match="A must have shape"):
        simulate.design_errors(np.eye(4), X, 2)
    with pytest.raises(ValueError, match="X must be a 3-dimensional array"):
        simulate.design_errors(np.eye(3), X[0], 2)
    with pytest.raises(ValueError, match="t_max must be an integer >= 0"):
        simulate.design_errors(np.eye(3), X, -2)


def test_design_errors_chunking_does_not_change_results(rng, monkeypatch):
    D, L = 6, 9
    A = np.eye(D) * 0.5
    X = rng.standard_normal((5, D, L)) / np.sqrt(D)
    whole = simulate.design_errors(A, X, 4)
    monkeypatch.setattr(simulate, "MEMORY_BUDGET", 2 * 3 * 8 * D * D)  # two designs per chunk
    np.testing.assert_array_equal(simulate.design_errors(A, X, 4), whole)


def test_deep_overthinking_curve_has_no_nan():
    """Formerly (I - A S/alpha)^t overflowed and E_t became inf - inf = NaN around t ~ 2000.
    Now the power carries its own power-of-two exponent: beyond the float64 range is inf,
    never NaN, and the early depths agree with the plain matrix power."""
    curve = simulate.simulated_curve(2.0, 1.5, 0.01, 3000, D=30, lam=1e-5, trials=2)
    assert not np.isnan(curve.mean).any() and not np.isnan(curve.sem).any()
    assert np.isinf(curve.mean[-1]) and np.isinf(curve.sem[-1])
    rng = np.random.default_rng(3)
    A = rng.standard_normal((6, 6)) / 6
    X = rng.standard_normal((2, 6, 12)) / np.sqrt(6)
    step = np.eye(6) - 0.5 * (A @ X) @ np.swapaxes(X, 1, 2)  # D/L = 6/12
    plain = [np.linalg.matrix_power(step[k], t) for k in range(2) for t in range(4)]
    direct = np.array([np.sum(P * P) / 6 for P in plain]).reshape(2, 4)
    np.testing.assert_allclose(simulate.design_errors(A, X, 3), direct, rtol=1e-13)
