import numpy as np
import pytest
import torch

from cotbook.attention import layer as at


def _tokens(estimates):
    """Estimate tokens' estimate block and marker, ``[w_hat_s, 1]``."""
    return torch.cat([estimates, torch.ones_like(estimates[..., :1])], dim=-1)


def _random_case(model, merged, scale=0.3, D=4, L=7, B=3, k=4):
    c = at.Config(model=model, L=L, M=5, D=D, merged=merged, init_scale=scale)
    p = {n: v.double() for n, v in at.init_params(c).items()}
    Z, _ = at.example_rows(B, D, L, 0.0, seed=1)
    est = torch.randn(B, k, D, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    return c, p, Z.double(), est


@pytest.mark.parametrize("model", at.MODELS)
@pytest.mark.parametrize("merged", [False, True])
@pytest.mark.parametrize("mask", at.MASKS)
def test_fast_step_equals_literal_attention(model, merged, mask):
    """The reduced forms (score vector u, second moments S) against full token-by-token
    attention; a wrong mask (query visible, or history dropped) moves the result by O(1)."""
    c, p, Z, est = _random_case(model, merged)
    literal = at.literal_step(p, model, Z, est, mask)
    examples = Z.transpose(1, 2) @ Z if model == "linear" else Z
    history = _tokens(est[None, :, :-1]) if mask == "history" else None
    fast = at.step(p, model, examples, est[None, :, -1], history, L=c.L)[0]
    assert torch.max(torch.abs(fast - literal)) < 1e-13
    other = at.literal_step(p, model, Z, est, "examples" if mask == "history" else "history")
    assert torch.max(torch.abs(other - literal)) > 1e-3


def test_literal_deviation_is_round_off():
    for model in at.MODELS:
        for mask in at.MASKS:
            assert at.literal_deviation(model, mask, merged=True, D=4, L=7) < 1e-13


def test_gradient_descent_weights_give_gradient_descent():
    """Hand-set weights that make the layer one step of gradient descent on the in-context
    least squares, w <- w + (eta/L) sum_l x_l (y_l - x_l . w): E_t from :func:`evaluate`
    against the same iteration written in numpy on the same test tasks."""
    D, L, eta, T = 5, 40, 0.5, 6
    c = at.Config(model="linear", L=L, M=1, D=D, merged=True)
    d = 2 * D + 2
    W, V = torch.zeros(1, d, d), torch.zeros(1, d, d)
    W[0, :D, D + 1 : 2 * D + 1] = -torch.eye(D)  # z_l . u = y_l - x_l . w_hat
    W[0, D, 2 * D + 1] = 1.0
    V[0, D + 1 : 2 * D + 1, :D] = eta * torch.eye(D)  # value: eta x_l into the estimate block
    got = at.evaluate(c, {"W": W, "W_V": V}, T, tasks=64, dev=torch.device("cpu"))
    Z, w, est = at.test_set(c, 64)
    X, w, e = Z[..., :D].double().numpy(), w.numpy(), est.numpy()
    step = np.eye(D) - eta * np.einsum("nld,nle->nde", X, X) / L
    err = e - w
    want = []
    for _ in range(T + 1):
        want.append(np.mean(np.sum(err**2, -1)) / D)
        err = np.einsum("nde,ne->nd", step, err)
    for mask in at.MASKS:  # the estimate columns of V are zero: history changes nothing
        np.testing.assert_allclose(got[mask], want, rtol=2e-5)
    assert want[0] == pytest.approx(2.0, rel=0.2) and want[-1] < 0.2 * want[0]


@pytest.mark.slow
def test_batched_training_equals_training_alone_and_the_literal_baseline():
    """Stacked configurations (different M and trial) train as each would alone, and as the
    literal one-configuration baseline does, to float32 round-off."""
    base = dict(D=4, L=6, steps=25, batch=16, init_scale=0.1)
    for model in at.MODELS:
        configs = [
            at.Config(model=model, M=m, trial=r, **base) for m, r in ((3, 0), (40, 1), (9, 0))
        ]
        stacked, losses = at.train(configs, dev=torch.device("cpu"))
        assert losses.shape == (25, 3)
        alone, _ = at.train([configs[1]], dev=torch.device("cpu"))
        literal, lit_losses = at.train_literal(configs[1])
        for name in stacked:
            torch.testing.assert_close(stacked[name][1], alone[name][0], rtol=1e-5, atol=1e-6)
            torch.testing.assert_close(stacked[name][1], literal[name][0], rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(losses[:, 1], lit_losses[:, 0], rtol=1e-4, atol=1e-6)


@pytest.mark.slow
def test_training_is_deterministic_and_learns():
    c = at.Config(model="linear", L=20, M=200, D=5, steps=300, batch=64)
    p1, l1 = at.train([c], dev=torch.device("cpu"))
    p2, l2 = at.train([c], dev=torch.device("cpu"))
    for name in p1:
        assert torch.equal(p1[name], p2[name])
    errors = at.evaluate(c, p1, 3, tasks=256, masks=("examples",), dev=torch.device("cpu"))
    assert errors["examples"][0] == pytest.approx(2.0, rel=0.15)
    assert errors["examples"][1] < 0.7 * errors["examples"][0]


def test_seeds():
    c = at.Config(model="softmax", L=10, M=20, trial=1)
    s = at.config_seeds(c)
    assert len(set(s.values())) == 4
    assert at.config_seeds(at.Config(model="linear", L=10, M=40, trial=1))["test"] == s["test"]
    assert at.config_seeds(at.Config(model="linear", L=10, M=20, trial=1)) == s
    assert at.config_seeds(at.Config(model="linear", L=10, M=40, trial=1))["stream"] == s["stream"]
    assert at.config_seeds(at.Config(model="linear", L=10, M=20, trial=2))["stream"] != s["stream"]


def test_bad_input():
    with pytest.raises(ValueError, match="model must be one of"):
        at.Config(model="relu", L=1, M=1)
    with pytest.raises(ValueError, match="L must be"):
        at.Config(model="linear", L=0, M=1)
    with pytest.raises(ValueError, match="lam must be"):
        at.Config(model="linear", L=1, M=1, lam=-1.0)
    with pytest.raises(ValueError, match="agree on everything but M and trial"):
        at.train([at.Config(model="linear", L=2, M=1), at.Config(model="linear", L=3, M=1)])
    with pytest.raises(ValueError, match="non-empty list of Config"):
        at.train([])
    c = at.Config(model="linear", L=2, M=1, D=2)
    with pytest.raises(ValueError, match="masks must be drawn from"):
        at.evaluate(c, at.init_params(c), 1, masks=("causal",))
    with pytest.raises(ValueError, match="mask must be one of"):
        at.literal_step(
            at.init_params(c), "linear", torch.zeros(1, 2, 3), torch.zeros(1, 1, 2), "x"
        )


@pytest.mark.parametrize("model", at.MODELS)
def test_stacked_evaluation_equals_evaluating_each_alone(model):
    """Parameter sets evaluated together on shared test tasks (one matrix product per task
    over all of them) give each one's curves as evaluated alone, under both masks."""
    c = at.Config(model=model, L=6, M=5, D=4, init_scale=0.3)
    gen = torch.Generator().manual_seed(3)
    p = {
        k: v.expand(3, -1, -1) + 0.2 * torch.randn(3, *v.shape[1:], generator=gen)
        for k, v in at.init_params(c).items()
    }
    stacked = at.evaluate_stack(c, p, 4, tasks=64, chunk=24)
    for g in range(3):
        alone = at.evaluate(c, {k: v[g] for k, v in p.items()}, 4, tasks=64)
        for m in at.MASKS:
            np.testing.assert_allclose(stacked[m][g], alone[m], rtol=1e-12)
    assert not np.allclose(stacked["history"][0], stacked["history"][1], rtol=1e-3)
    with pytest.raises(ValueError, match="one configuration"):
        at.evaluate(c, p, 4, tasks=64)


@pytest.mark.parametrize("model", at.MODELS)
def test_fused_training_objective_equals_the_layer_and_its_gradient(model):
    """The CPU training kernel (one read of each task's data) against the torch form of the
    layer followed by the squared error: value and gradients, float64; and gradcheck."""
    c, p, Z, _ = _random_case(model, merged=False, B=5)
    Z32 = Z.float()
    data = (Z32.transpose(1, 2) @ Z32 if model == "linear" else Z32).numpy()
    idx = np.array([3, 0, 1, 1, 4, 2, 0], dtype=np.int64)  # G = 1, B = 7
    gen = torch.Generator().manual_seed(5)
    est = torch.randn(1, 7, c.D, dtype=torch.float64, generator=gen)
    w = torch.randn(1, 7, c.D, dtype=torch.float64, generator=gen)
    scale = 1 / np.sqrt(2 * c.D + 2)
    D = c.D

    def fused(W_K, W_Q, W_V):
        q = {"W_K": W_K, "W_Q": W_Q, "W_V": W_V}
        u = at._score_vector(q, est)[..., : D + 1]
        V = W_V[:, D + 1 : 2 * D + 1, : D + 1]
        return at._kernels.train_fit(data, idx, model, u, V, est, w, scale, c.L)

    def reference(W_K, W_Q, W_V):
        q = {"W_K": W_K, "W_Q": W_Q, "W_V": W_V}
        pred = at.step(q, model, torch.from_numpy(data[idx]).double(), est, L=c.L)
        return ((pred - w) ** 2).sum(-1).mean(-1)

    args = [p[k].clone().requires_grad_() for k in ("W_K", "W_Q", "W_V")]
    got, want = fused(*args), reference(*args)
    assert torch.allclose(got, want, rtol=1e-12, atol=0)
    g_got = torch.autograd.grad(got.sum(), args)
    g_want = torch.autograd.grad(want.sum(), args)
    for a, b in zip(g_got, g_want, strict=True):
        assert torch.max(torch.abs(a - b)) < 1e-12 * max(1.0, float(torch.max(torch.abs(b))))
        assert torch.max(torch.abs(b)) > 1e-3  # the comparison is not between zeros
    assert torch.autograd.gradcheck(fused, args)


@pytest.mark.parametrize("model", at.MODELS)
@pytest.mark.parametrize("merged", [False, True])
def test_evaluation_kernel_equals_the_torch_form(model, merged):
    """Per-task errors from the CPU kernel (each trajectory start to end in cache) against the
    torch form of the layer advanced for all tasks together, both masks, float64; and the
    default output is their mean over tasks."""
    c = at.Config(model=model, L=7, M=5, D=4, init_scale=0.3, merged=merged)
    gen = torch.Generator().manual_seed(3)
    p = {
        k: v.expand(3, -1, -1) + 0.2 * torch.randn(3, *v.shape[1:], generator=gen)
        for k, v in at.init_params(c).items()
    }
    test = at.test_set(c, 40)
    cpu = torch.device("cpu")
    got = at.evaluate_stack(c, p, 5, tasks=40, test=test, per_task=True, dev=cpu)
    Z, w, est0 = test
    pool = Z.transpose(1, 2) @ Z if model == "linear" else Z
    p64 = {k: v.double() for k, v in p.items()}
    want = at._evaluate_torch(c, p64, pool, w, est0, 5, at.MASKS, cpu, 16)
    for m in at.MASKS:
        assert got[m].shape == (3, 40, 6)
        np.testing.assert_allclose(got[m], want[m], rtol=1e-11)
        assert np.max(np.abs(want[m][..., -1] / want[m][..., 0] - 1)) > 0.5  # trajectories move
    assert not np.allclose(got["history"], got["examples"], rtol=1e-3)
    mean = at.evaluate_stack(c, p, 5, tasks=40, test=test, dev=cpu)
    for m in at.MASKS:
        np.testing.assert_allclose(mean[m], got[m].mean(1), rtol=1e-14)
