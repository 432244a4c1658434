import json
import math

import numpy as np
import pytest
import torch

from cotbook.attention import layer, regimes
from cotbook.attention import softmax_study as ss

CPU = torch.device("cpu")


def _case(model, merged=False, D=5, L=7, B=6, k=3, scale=0.4):
    """Random float64 parameters (larger than trained ones, so the softmax is not uniform),
    test tasks, query estimates and ``k`` earlier estimates."""
    c = layer.Config(model=model, L=L, M=3, D=D, merged=merged, init_scale=scale)
    p = {n: v.double() for n, v in layer.init_params(c).items()}
    Z, w, est = layer.test_set(c, B)
    gen = torch.Generator().manual_seed(4)
    history = torch.randn(B, k, D, dtype=torch.float64, generator=gen)
    return c, p, Z.double(), w, est, history


def _step(p, model, Z, est, history):
    examples = Z.transpose(1, 2) @ Z if model == "linear" else Z
    tokens = None if history is None else ss._tokens(history)[None]
    return layer.step(p, model, examples, est[None], tokens, L=Z.shape[1])[0]


def _gradient_descent_layer(D, eta):
    """Hand-set merged weights: one step of gradient descent on the in-context least squares,
    ``w <- w + (eta / L) X^T (y - X w)`` (as in test_layer)."""
    d = 2 * D + 2
    W, V = torch.zeros(1, d, d, dtype=torch.float64), torch.zeros(1, d, d, dtype=torch.float64)
    W[0, :D, D + 1 : 2 * D + 1] = -torch.eye(D)
    W[0, D, 2 * D + 1] = 1.0
    V[0, D + 1 : 2 * D + 1, :D] = eta * torch.eye(D)
    return {"W": W, "W_V": V}


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
@pytest.mark.parametrize("model", layer.MODELS)
@pytest.mark.parametrize("merged", [False, True])
@pytest.mark.parametrize("with_history", [False, True])
@pytest.mark.slow
def test_jacobian_against_finite_differences_and_autograd(model, merged, with_history):
    c, p, Z, _, est, history = _case(model, merged)
    history = history if with_history else None
    J = ss.jacobian(p, model, Z, est, history)
    assert J.shape == (6, 5, 5)
    h = 1e-5
    fd = torch.stack(
        [
            (_step(p, model, Z, est + h * e, history) - _step(p, model, Z, est - h * e, history))
            / (2 * h)
            for e in torch.eye(5, dtype=torch.float64)
        ],
        dim=-1,
    )
    scale = float(J.abs().max())
    assert scale > 0.5  # not the identity alone: the update term is exercised
    assert float((J - fd).abs().max()) < 1e-7 * scale
    auto = torch.stack(
        [
            torch.func.jacfwd(
                lambda x, b=b: _step(
                    p, model, Z[b : b + 1], x[None], None if history is None else history[b : b + 1]
                )[0]
            )(est[b])
            for b in range(6)
        ]
    )
    assert float((J - auto).abs().max()) < 1e-12 * scale
    # a wrong sign of the softmax centring term (or a missing history block) is caught
    if with_history:
        assert float((J - ss.jacobian(p, model, Z, est, None)).abs().max()) > 1e-3


@pytest.mark.parametrize("model", layer.MODELS)
def test_attention_weights_sum_to_one_and_rebuild_the_step(model):
    c, p, Z, _, est, history = _case(model)
    a = ss.attention_weights(p, model, Z, est, history)
    assert a.shape == (6, c.L + 3)
    if model == "softmax":
        assert float((a.sum(1) - 1).abs().max()) < 1e-14
        assert float(a.min()) > 0 and float(a.max()) < 0.99  # not one-hot at this scale
    # the update is W_V sum_s a_s z_s over the visible tokens, examples then estimates
    D = c.D
    tokens = torch.zeros(6, c.L + 3, 2 * D + 2, dtype=torch.float64)
    tokens[:, : c.L, : D + 1] = Z
    tokens[:, c.L :, D + 1 :] = ss._tokens(history)
    update = torch.einsum("bs,bsi->bi", a, tokens) @ p["W_V"][0, D + 1 : 2 * D + 1].T
    step = _step(p, model, Z, est, history)
    assert float((est + update - step).abs().max()) < 1e-12 * float(step.abs().max())


@pytest.mark.parametrize("model", layer.MODELS)
@pytest.mark.parametrize("unroll_loss", ss.UNROLL_LOSSES)
def test_unrolled_objective_against_the_literal_prompt(model, unroll_loss):
    """The k-step objective against the paper's prompt written out token by token: at step s
    the prompt holds the L examples and the estimates w_hat_0..w_hat_s, the query the last,
    under the history mask (:func:`layer.literal_step`)."""
    c, p, Z, w, est0, _ = _case(model, B=5)
    k = 3
    estimates = est0[:, None]
    errors = []
    for _ in range(k):
        nxt = layer.literal_step(p, model, Z, estimates, "history")
        errors.append(((nxt - w.double()) ** 2).sum(-1).mean())
        estimates = torch.cat([estimates, nxt[:, None]], dim=1)
    want = errors[-1] if unroll_loss == "last" else sum(errors) / k
    examples = (Z.transpose(1, 2) @ Z if model == "linear" else Z)[None]
    got = ss.unrolled_objective(
        p, model, examples, est0[None], w.double()[None], L=c.L, unroll=k, unroll_loss=unroll_loss
    )
    assert got.shape == (1,)
    assert float(got[0]) == pytest.approx(float(want), rel=1e-12)
    assert float(errors[0]) != pytest.approx(float(errors[-1]), rel=1e-3)  # steps differ


@pytest.mark.parametrize("model", layer.MODELS)
def test_unrolled_training_draws_the_batches_of_layer_train(model):
    """With one step the unrolled path (torch) trains as :func:`layer.train` (fused kernel):
    the same batches, first estimates and updates, to float32 round-off; and the first loss of
    a 2-step run is the 2-step objective of the initial parameters on the first batch."""
    base = dict(D=4, L=6, steps=25, batch=16, init_scale=0.1)
    configs = [layer.Config(model=model, M=m, trial=r, **base) for m, r in ((3, 0), (40, 1))]
    fused, fused_losses = layer.train(configs, dev=CPU)
    with layer._flush_denormals():
        torch_path, torch_losses = ss._train_unrolled(configs, 1, "mean", CPU)
    for name in fused:
        torch.testing.assert_close(torch_path[name], fused[name], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(torch_losses, fused_losses, rtol=1e-4, atol=1e-6)
    _, losses = ss.train_unrolled(configs, 2, dev=CPU)
    pool, w_pool, _ = layer._training_sets(configs)
    idx, est0 = next(ss._batches(configs))
    params = {k: torch.cat([layer.init_params(c)[k] for c in configs]) for k in fused}
    fit = ss.unrolled_objective(params, model, pool[idx], est0, w_pool[idx], L=6, unroll=2)
    torch.testing.assert_close(losses[0], layer._objective(params, fit, 1e-5), rtol=1e-5, atol=0)


def test_probe_on_gradient_descent_weights():
    """Hand-set gradient-descent weights: the CoT map is e -> (I - eta S_x / L) e per task, so
    the Jacobian's spectral radius is max |1 - eta lambda_i| over the eigenvalues of the task's
    S_x / L, the truth is a fixed point, and the earlier estimates get no attention."""
    D, L, eta = 4, 30, 0.5
    c = layer.Config(model="linear", L=L, M=1, D=D, merged=True)
    p = _gradient_descent_layer(D, eta)
    Z, w, est0 = layer.test_set(c, 32)
    X = Z[..., :D].double()
    lam = torch.linalg.eigvalsh(X.transpose(1, 2) @ X / L)
    radius = (1 - eta * lam).abs().amax(-1)
    out = ss.probe(c, p, t_max=6, tasks=32, jacobian_depths=(0, 3))
    assert out["depths"] == [0, 3]
    for r in out["radius_median"]:
        assert r == pytest.approx(float(radius.median()), rel=1e-10)
    assert out["radius_above_1"] == [float((radius > 1).double().mean())] * 2
    assert max(out["estimate_share"]) == 0.0
    assert 1 < out["sources"][0] <= L  # |a_s| spread over the examples
    assert all(0 < r < 1 for r in out["ratio"])  # gradient descent contracts e at every step
    loss = ss.one_step_loss(c, p, Z, w, est0)
    e1 = torch.einsum("bij,bj->bi", torch.eye(D) - eta * X.transpose(1, 2) @ X / L, w - est0)
    assert loss == pytest.approx(float((e1**2).mean()), rel=1e-6)  # labels are float32
    assert 0.1 < loss < 2
    assert ss.drift_at_truth(c, p, Z, w) < 1e-12 * loss  # float32 labels: not exactly 0


def test_tiny_scale_end_to_end():
    """The tiny study: every unit trains and is measured; the data are JSON (no NaN), the
    first errors are E_0 = E|w - w_hat_0|^2 / D ~ 2, and the summary has one row per unit."""
    spec = ss.SCALES["tiny"]
    data, timings = ss.run(spec)
    assert list(timings) == spec.units() and list(data["units"]) == spec.units()
    text = json.dumps(data, allow_nan=False)
    assert ss.SoftmaxSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec
    d16 = json.loads(text)["units"]["D = 16/softmax/1"]
    assert (d16["L"], d16["M"], d16["D"]) == (40, 80, 16)  # alpha and tau of (20, 40) at D = 8
    for unit in data["units"].values():
        for m in unit["trials"]:
            assert m["E"]["history"][0] == pytest.approx(2.0, rel=0.3)
            assert m["loss_test"] == pytest.approx(m["E"]["history"][1], rel=1e-6)
            assert m["loss_train"] > 0 and m["drift_at_truth"] >= 0
            assert len(m["probe"]["ratio"]) == spec.t_max
    rows = regimes.softmax_summary(spec, data, depth=2)
    assert [(r["variant"], r["model"]) for r in rows][:3] == [
        ("paper", "linear"),
        ("paper", "linear"),
        ("paper", "softmax"),
    ]
    for r in rows:
        assert len(r["regimes"]) == 4
        assert set(r["regimes"]) <= {"decay", "saturation", "overthinking"}
        assert math.isfinite(r["loss_test"]) and r["radius_depth"] == 2


def test_regime_counts_an_overflow_as_overthinking():
    t = np.arange(41.0)
    assert regimes.softmax_regime(2 * 0.8**t) == "decay"
    curve = 2 * 0.8**t
    curve[-3:] = np.inf
    assert regimes.softmax_regime(curve) == "overthinking"


def test_bad_input():
    with pytest.raises(ValueError, match="unroll must be an integer >= 1"):
        ss.Variant(unroll=0)
    with pytest.raises(ValueError, match="unroll_loss must be one of"):
        ss.Variant(unroll=2, unroll_loss="first")
    with pytest.raises(ValueError, match="settings must be among"):
        ss.Variant(dict(stepz=3))
    with pytest.raises(ValueError, match="models must be a non-empty list"):
        ss.Variant(models=("relu",))
    tiny = ss.SCALES["tiny"].to_dict()
    with pytest.raises(ValueError, match="probe_tasks must be in"):
        ss.SoftmaxSpec.from_dict(dict(tiny, probe_tasks=10**6))
    with pytest.raises(ValueError, match="jacobian_depths must be"):
        ss.SoftmaxSpec.from_dict(dict(tiny, jacobian_depths=[4]))
    with pytest.raises(ValueError, match="points must be indices"):
        ss.SoftmaxSpec.from_dict(dict(tiny, variants={"x": {"points": [5]}}))
    with pytest.raises(ValueError, match="unit must be one of"):
        ss.SCALES["tiny"].unit_configs("paper/linear/7")
    c, p, Z, w, est, history = _case("softmax")
    with pytest.raises(ValueError, match="Z must have shape"):
        ss.jacobian(p, "softmax", Z[:, :, :-1], est)
    with pytest.raises(ValueError, match="history must be None or of shape"):
        ss.attention_weights(p, "softmax", Z, est, history[:, :, :-1])
    with pytest.raises(ValueError, match="model must be one of"):
        ss.attention_weights(p, "relu", Z, est)
    with pytest.raises(ValueError, match="unroll must be an integer >= 1"):
        ss.train_unrolled([c], 0)
    with pytest.raises(ValueError, match="depth must be in"):
        regimes.softmax_summary(ss.SCALES["tiny"], {"units": {}}, depth=99)
    with pytest.raises(ValueError, match="jacobian_depths must lie in"):
        ss.probe(c, p, t_max=3, jacobian_depths=(3,))


@pytest.mark.slow
def test_loader_runs_now_or_reads_the_record(tmp_path, monkeypatch):
    """``studies.softmax``: the book scale computed now when no record is saved (tiny here),
    the saved record with its provenance otherwise."""
    from cotbook.book import records, studies
    from cotbook.book.records import store

    monkeypatch.setattr(store, "RESULTS_DIR", tmp_path)
    monkeypatch.setattr(records.load, "__defaults__", (tmp_path,))
    spec = ss.SCALES["tiny"]
    monkeypatch.setitem(ss.SCALES, "book", spec)
    now = studies.softmax()
    assert now.record is None and now.spec == spec
    assert now.caption.startswith("book scale, computed now\n  points (L, M) = [[5, 40], [20, 40]]")
    records.save(
        "attention_softmax",
        scale="paper",
        config=spec.to_dict(),
        data=now.data,
        timings=now.timings_s,
        directory=tmp_path,
    )
    saved = studies.softmax()
    assert saved.spec == spec and not saved.record.stale
    assert json.dumps(saved.data) == json.dumps(now.data)
    assert saved.record.code["source_hash"] == records.source_hash(
        records.RESULTS["attention_softmax"].producers
    )
    with pytest.raises(ValueError, match="scale must be one of"):
        studies.softmax("huge")


def test_committed_record_is_the_paper_scale():
    from cotbook.book import records

    record = records.load("attention_softmax")
    if record is None:
        pytest.skip("no committed attention_softmax record")
    spec = ss.SoftmaxSpec.from_dict(record.config)
    assert spec == ss.SCALES["paper"] and record.scale == "paper"
    assert set(record.timings_s) >= {*spec.units(), "total"}
    assert record.code["commit"] is not None and record.environment["threads"]["cpu_count"] >= 1
    assert len(regimes.softmax_summary(spec, record.data)) == len(spec.units())
