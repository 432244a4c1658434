import numpy as np
import pytest

from cotbook import tasks
from cotbook.simulation import model


@pytest.fixture
def task(rng):
    D, L = 7, 11
    X, y, w = tasks.sample_tasks(D, L, 1, 0.0, rng)
    A = rng.standard_normal((D, D)) / D
    return A, X[0], y[0], w[0]


def test_prompt_layout(rng):
    X, y, _ = tasks.sample_tasks(3, 4, 1, 0.1, rng)
    est = rng.standard_normal((3, 2))
    P = model.prompt(X[0], y[0], est)
    assert P.shape == (8, 6)
    np.testing.assert_array_equal(P[:3, :4], X[0])
    np.testing.assert_array_equal(P[3, :4], y[0])
    np.testing.assert_array_equal(P[4:7, 4:], est)
    np.testing.assert_array_equal(P[7], [0, 0, 0, 0, 1, 1])  # marker 1 on every estimate token
    assert not P[:4, 4:].any() and not P[4:, :4].any()


def test_prompt_single_estimate_and_batch(rng):
    X, y, _ = tasks.sample_tasks(3, 4, 5, 0.0, rng)
    E = model.prompt(X, y, np.zeros((5, 3)))
    assert E.shape == (5, 8, 5)
    np.testing.assert_array_equal(E[2], model.prompt(X[2], y[2], np.zeros(3)))


def test_block_parameters_blocks(rng):
    D = 4
    A = rng.standard_normal((D, D))
    W, V = model.block_parameters(A)
    expected_W = np.zeros((10, 10))
    expected_W[:4, 5:9] = np.eye(4)
    expected_W[4, 9] = -1
    np.testing.assert_array_equal(W, expected_W)
    np.testing.assert_array_equal(V[5:9, :4], -D * A)
    V[5:9, :4] = 0
    assert not V.any()


def test_read_extracts_estimate_slot(rng):
    X, y, _ = tasks.sample_tasks(3, 4, 1, 0.0, rng)
    est = rng.standard_normal((3, 3))
    np.testing.assert_array_equal(model.read(model.prompt(X[0], y[0], est)), est[:, -1])


def test_attention_readout_and_gradient_step_agree(task, rng):
    A, X, y, _ = task
    w_hat = rng.standard_normal(X.shape[0])
    W, V = model.block_parameters(A)
    L = X.shape[1]
    literal = model.read(model.attention(model.prompt(X, y, w_hat), W, V, L))
    closed = model.readout(A, X, y, w_hat)
    step = model.gradient_step(A, X, y, w_hat)
    np.testing.assert_allclose(literal, closed, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(step, closed, rtol=1e-12, atol=1e-13)
    # The update is not trivial: it moves the estimate by an O(1) amount.
    assert np.linalg.norm(closed - w_hat) > 0.1


def test_attention_divides_by_L_not_by_tokens(task):
    A, X, y, _ = task
    W, V = model.block_parameters(A)
    E = model.prompt(X, y, np.ones(X.shape[0]))
    L = X.shape[1]
    raw = model.attention(E, W, V, 1) - E
    np.testing.assert_allclose(model.attention(E, W, V, L) - E, raw / L, rtol=1e-13)


def test_cot_trajectory_is_the_error_recursion(task):
    A, X, y, w = task
    est = model.cot_trajectory(A, X, y, 12)
    err = model.error_recursion(A, X, w, 12)
    assert est.shape == err.shape == (13, X.shape[0])
    np.testing.assert_array_equal(est[0], 0)
    np.testing.assert_allclose(w - est, err, rtol=0, atol=1e-11 * np.abs(err).max())


def test_history_tokens_do_not_change_the_update(task, rng):
    """Under the block parameterisation only the latest estimate matters (Section 3)."""
    A, X, y, _ = task
    est = model.cot_trajectory(A, X, y, 6, w0=rng.standard_normal(X.shape[0]))
    for t in range(6):
        np.testing.assert_allclose(
            est[t + 1], model.readout(A, X, y, est[t]), rtol=1e-11, atol=1e-12
        )


def test_error_recursion_uses_alpha_from_sizes(task):
    A, X, y, w = task
    D, L = X.shape
    err = model.error_recursion(A, X, w, 1)
    np.testing.assert_allclose(err[1], w - (D / L) * A @ X @ X.T @ w, rtol=1e-13)


def test_bad_input(task):
    A, X, y, w = task
    D = X.shape[0]
    with pytest.raises(ValueError, match="A must be a square"):
        model.block_parameters(np.ones((2, 3)))
    with pytest.raises(ValueError, match="A must contain only finite"):
        model.block_parameters(np.full((2, 2), np.nan))
    with pytest.raises(ValueError, match="y shape"):
        model.prompt(X, y[:-1], w)
    with pytest.raises(ValueError, match="estimates must have shape"):
        model.prompt(X, y, np.ones(D + 1))
    W, V = model.block_parameters(A)
    with pytest.raises(ValueError, match="L must be an integer >= 1"):
        model.attention(model.prompt(X, y, w), W, V, 0)
    with pytest.raises(ValueError, match="W, V shape"):
        model.attention(model.prompt(X, y, w), W[:-1, :-1], V, 3)
    with pytest.raises(ValueError, match="E must have shape"):
        model.read(np.ones((5, 3)))
    with pytest.raises(ValueError, match="t_max must be an integer >= 0"):
        model.cot_trajectory(A, X, y, -1)
    with pytest.raises(ValueError, match="t_max must be an integer >= 0"):
        model.error_recursion(A, X, w, 2.0)
    with pytest.raises(ValueError, match="X must contain only finite"):
        model.readout(A, np.full_like(X, np.inf), y, w)
    with pytest.raises(ValueError, match=r"A must have shape"):
        model.readout(A[:-1, :-1], X, y, w)
    with pytest.raises(ValueError, match="w_init must have shape"):
        model.gradient_step(A, X, y, w[:-1])
    with pytest.raises(ValueError, match="w0 must have shape"):
        model.cot_trajectory(A, X, y, 2, w0=np.ones(D + 2))
