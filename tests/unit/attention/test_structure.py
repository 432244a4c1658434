import numpy as np
import pytest

from cotbook.attention import structure


def test_block_report_on_the_theory_structure():
    """W_13 = c I, W_24 = -c, V_31 = -A / c (features of variance 1): everything is in the kept
    blocks and A_eff recovers A; noise in another block lowers the kept fractions."""
    D, c = 4, 0.5
    A = np.diag([1.0, 2.0, 3.0, 2.0]) + 0.1
    W, V = np.zeros((10, 10)), np.zeros((10, 10))
    b = structure.block_slices(D)
    W[b["W_13"]] = c * np.eye(D)
    W[b["W_24"]] = -c
    V[b["V_31"]] = -A / c
    r = structure.block_report(W, V, D)
    assert r["W_kept"] == pytest.approx(1.0) and r["V_kept"] == pytest.approx(1.0)
    assert r["c"] == pytest.approx(c) and r["W_13_offdiag"] == pytest.approx(0.0, abs=1e-15)
    assert r["W_24_over_c"] == pytest.approx(-1.0)
    assert r["A_eff_identity"] == pytest.approx(np.trace(A) / D)
    off = A - np.trace(A) / D * np.eye(D)
    assert r["A_eff_offdiag"] == pytest.approx(np.linalg.norm(off) / np.linalg.norm(A))
    W[b["W_14"]] = 1.0  # mass outside the kept blocks
    assert structure.block_report(W, V, D)["W_kept"] == pytest.approx(1.25 / 5.25)
    with pytest.raises(ValueError, match="W and V must have shape"):
        structure.block_report(W[:-1], V, D)


def _theory_layer(A, D, c=0.7):
    """W = W_K^T W_Q and W_V of a layer with the theory's structure and A_eff = A."""
    import torch

    W, V = np.zeros((2 * D + 2,) * 2), np.zeros((2 * D + 2,) * 2)
    b = structure.block_slices(D)
    W[b["W_13"]] = c * np.eye(D)
    W[b["W_24"]] = -c
    V[b["V_31"]] = -A / c
    return {"W": torch.tensor(W)[None], "W_V": torch.tensor(V)[None]}


def test_one_step_objective_is_the_trained_layers_mean_loss():
    """The closed-form expectation over w_hat_0 against a Monte Carlo mean of the loss of a
    layer built with the theory's blocks, run through attention.step on the training tasks."""
    import torch

    from cotbook import attention

    config = attention.Config(model="linear", L=6, M=30, D=4, merged=True)
    w, r, S = structure.training_moments(config)
    rng = np.random.default_rng(0)
    A = np.eye(4) * 0.6 + 0.05 * rng.standard_normal((4, 4))
    Z, w32 = attention.example_rows(config.M, 4, 6, 0.0, attention.config_seeds(config)["data"])
    np.testing.assert_allclose(w, w32.double().numpy())
    Zd = Z.double()
    second = Zd.transpose(1, 2) @ Zd
    draws = 4000
    est0 = torch.tensor(rng.standard_normal((draws, config.M, 4)))
    losses = []
    for k in range(draws // 500):
        e = est0[k * 500 : (k + 1) * 500]  # (500, M, D) -> one query per (draw, task)
        q = e.reshape(1, -1, 4)
        ex = second.repeat(500, 1, 1)[None]
        pred = attention.step(_theory_layer(A, 4), "linear", ex, q, L=6)
        losses.append(((pred[0] - torch.tensor(w).repeat(500, 1)) ** 2).sum(-1).numpy())
    losses = np.concatenate(losses)
    mc, sem = losses.mean(), losses.std() / np.sqrt(losses.size)
    exact = structure.one_step_objective(A, w, r, S, 0.0)
    assert abs(mc - exact) < 4 * sem and sem < 0.01 * exact


def test_optimal_A_minimises_the_one_step_objective():
    from cotbook import attention
    from cotbook.simulation import pretrain

    config = attention.Config(model="linear", L=6, M=30, D=4, lam=1e-3)
    w, r, S = structure.training_moments(config)
    A = structure.optimal_A(config)
    np.testing.assert_allclose(A["paper"], pretrain.ridge_solution(w, r, 1e-3))
    f0 = structure.one_step_objective(A["random_init"], w, r, S, 1e-3)
    rng = np.random.default_rng(1)
    h = 1e-5
    for _ in range(5):
        E = rng.standard_normal((4, 4))
        up = structure.one_step_objective(A["random_init"] + h * E, w, r, S, 1e-3)
        down = structure.one_step_objective(A["random_init"] - h * E, w, r, S, 1e-3)
        assert abs(up - down) / (2 * h) < 1e-6 * f0  # stationary
        assert min(up, down) > f0  # and a minimum
    # The paper's reading (w_hat_init = 0) is a different matrix: larger, no S^2 term.
    assert structure.compare_A(A["paper"], A["random_init"])["distance"] > 0.05
    got = structure.compare_A(2 * A["paper"], A["paper"])
    assert got["distance"] == pytest.approx(1.0) and got["trace_ratio"] == pytest.approx(2.0)
    with pytest.raises(ValueError, match="one shape"):
        structure.compare_A(np.eye(3), np.eye(4))
