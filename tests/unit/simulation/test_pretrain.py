import numpy as np
import pytest

from cotbook import tasks
from cotbook.simulation import model, pretrain


@pytest.fixture
def data(rng):
    D, L, M = 6, 9, 20
    X, y, w = tasks.sample_tasks(D, L, M, 0.05, rng)
    return X, y, w, pretrain.features(X, y)


def test_features_are_the_readout_with_identity(data):
    X, y, w, v = data
    D = X.shape[1]
    literal = model.readout(np.eye(D), X, y, np.zeros(w.shape))
    np.testing.assert_allclose(v, literal, rtol=1e-13)
    np.testing.assert_allclose(v, (D / X.shape[2]) * np.einsum("mdl,ml->md", X, y), rtol=1e-13)


@pytest.mark.parametrize("lam", [0.0, 1e-3, 2.0])
def test_ridge_solution_matches_augmented_least_squares(data, lam):
    """Independent solver: min_A sum |w - A v|^2 + (M lam / 2) |A|^2 by lstsq on stacked rows."""
    X, y, w, v = data
    M, D = w.shape
    design = np.vstack([v, np.sqrt(M * lam / 2) * np.eye(D)])
    target = np.vstack([w, np.zeros((D, D))])
    A_lstsq = np.linalg.lstsq(design, target, rcond=None)[0].T
    np.testing.assert_allclose(pretrain.ridge_solution(w, v, lam), A_lstsq, rtol=1e-9, atol=1e-11)


def test_gradient_vanishes_at_the_minimiser_and_loss_rises(data, rng):
    X, y, w, v = data
    lam = 1e-2
    A = pretrain.ridge_solution(w, v, lam)
    scale = np.linalg.norm(pretrain.loss_gradient(np.zeros_like(A), w, v, lam))
    assert np.linalg.norm(pretrain.loss_gradient(A, w, v, lam)) < 1e-12 * scale
    base = pretrain.loss(A, X, y, w, lam)
    for _ in range(20):
        assert pretrain.loss(A + 1e-3 * rng.standard_normal(A.shape), X, y, w, lam) > base


def test_literal_loss_equals_reduced_formula(data, rng):
    X, y, w, v = data
    A = rng.standard_normal((X.shape[1],) * 2)
    lam = 0.3
    reduced = np.mean(np.sum((w - v @ A.T) ** 2, axis=1)) + lam / 2 * np.sum(A**2)
    assert pretrain.loss(A, X, y, w, lam) == pytest.approx(reduced, rel=1e-12)


def test_gradient_check_and_perturbation_rises(data, rng, monkeypatch):
    X, y, w, v = data
    lam = 0.1
    A = rng.standard_normal((X.shape[1],) * 2)
    assert pretrain.gradient_check(A, X, y, w, lam, rng, n_directions=3) < 1e-8
    # The check catches a wrong gradient (here: the factor 2 forgotten).
    right = pretrain.loss_gradient
    monkeypatch.setattr(pretrain, "loss_gradient", lambda *args: right(*args) / 2)
    assert pretrain.gradient_check(A, X, y, w, lam, rng, n_directions=3) > 0.4
    monkeypatch.undo()
    A_star = pretrain.ridge_solution(w, v, lam)
    rises, predicted = pretrain.perturbation_rises(A_star, X, y, w, lam, rng, n=30)
    assert np.all(rises > 0)
    np.testing.assert_allclose(rises, predicted, rtol=1e-6)
    # Away from the minimiser the rise is not the pure quadratic form (linear term present).
    rises_off, predicted_off = pretrain.perturbation_rises(A_star + 0.1, X, y, w, lam, rng, n=30)
    assert np.max(np.abs(rises_off - predicted_off) / np.abs(predicted_off)) > 0.1


def test_underdetermined_needs_ridge(rng):
    w, v = tasks.sample_features(8, 10, 5, 0.0, rng)  # M = 5 < D = 8
    with pytest.raises(ValueError, match=r"lam must be > 0 when M < D"):
        pretrain.ridge_solution(w, v, 0.0)
    A = pretrain.ridge_solution(w, v, 0.1)
    assert np.linalg.norm(pretrain.loss_gradient(A, w, v, 0.1)) < 1e-12


def test_bad_input(data):
    X, y, w, v = data
    with pytest.raises(ValueError, match="lam must be a finite number >= 0"):
        pretrain.ridge_solution(w, v, -1.0)
    with pytest.raises(ValueError, match="lam must be a finite number >= 0"):
        pretrain.loss(np.eye(X.shape[1]), X, y, w, float("inf"))
    with pytest.raises(ValueError, match="w and v must have the same shape"):
        pretrain.ridge_solution(w[:-1], v, 0.1)
    with pytest.raises(ValueError, match="y must have shape"):
        pretrain.features(X, y[:, :-1])
    with pytest.raises(ValueError, match="A must have shape"):
        pretrain.loss_gradient(np.eye(2), w, v, 0.1)
    with pytest.raises(ValueError, match="w must have shape"):
        pretrain.loss(np.eye(X.shape[1]), X, y, w[:, :-1], 0.1)
    with pytest.raises(ValueError, match="v must contain only finite"):
        pretrain.ridge_solution(w, np.full_like(v, np.nan), 0.1)


def test_sampled_solution_accumulates_blocks_exactly(monkeypatch):
    """Block accumulation equals ridge_solution on the same draws, concatenated."""
    monkeypatch.setattr(pretrain, "TASK_BLOCK", 7)
    D, L, M, sigma2, lam = 5, 6, 23, 0.1, 1e-3
    got = pretrain.sampled_solution(D, L, M, sigma2, lam, np.random.default_rng(4))
    rng = np.random.default_rng(4)
    draws = [tasks.sample_features(D, L, n, sigma2, rng) for n in (7, 7, 7, 2)]
    w = np.concatenate([d[0] for d in draws])
    v = np.concatenate([d[1] for d in draws])
    np.testing.assert_allclose(got, pretrain.ridge_solution(w, v, lam), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="lam must be > 0 when M < D"):
        pretrain.sampled_solution(D, L, 3, sigma2, 0.0, rng)
    with pytest.raises(ValueError, match="M must be an integer >= 1"):
        pretrain.sampled_solution(D, L, 0, sigma2, lam, rng)
