"""Trained attention models iterated as chain of thought (paper, Section 6 and the appendix
"Experimental details"), trained for many configurations at once.

One residual attention layer acts on tokens in ``R^{2D+2}`` laid out as in the paper's prompt
(features ``D``, label ``1``, estimate ``D``, marker ``1``): example tokens ``(x_l, y_l, 0, 0)``
and estimate tokens ``(0, 0, w_hat_s, 1)``.  Only the last (query) token is updated,
``z_T -> z_T + W_V sum_s a_s z_s``, with

- linear attention: ``a_s = m_s (W_K z_s)^T (W_Q z_T) / L``;
- softmax attention: ``a_s = softmax_s((W_K z_s)^T (W_Q z_T) / sqrt(2D+2) + b_s)``;

and the next estimate is read from the estimate block of the updated query token.  Two masks
over source tokens: ``"history"`` (the paper: the ``L`` examples and all earlier estimates,
never the query itself) and ``"examples"`` (the authors' public code: the ``L`` examples only).
Both are the same during training, where the prompt holds one estimate token.

The score ``(W_K z_s)^T (W_Q z_T)`` equals ``z_s^T u`` with ``u = W_K^T W_Q z_T`` (or ``u = W
z_T`` for the merged parameterization ``W = W_K^T W_Q`` of the public code), so a step never
forms keys or values of every token: an example enters through ``z_l^T u`` and, for linear
attention, only through the per-task second moment ``S = sum_l z_l z_l^T`` of its ``[x, y]``
part.  :func:`literal_step` is the direct token-by-token implementation these fast forms are
tested against, and :func:`train_literal` the one-configuration baseline built on it.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import asdict, dataclass, replace

import numpy as np
import torch

from .. import _checks
from . import _kernels

__all__ = [
    "MODELS",
    "MASKS",
    "Config",
    "config_seeds",
    "example_rows",
    "init_params",
    "step",
    "literal_step",
    "literal_deviation",
    "train",
    "train_literal",
    "test_set",
    "evaluate",
    "evaluate_stack",
    "device",
]

MODELS = ("linear", "softmax")
MASKS = ("history", "examples")


def device() -> torch.device:
    """The device computations run on: the first GPU when one is present, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


@dataclass(frozen=True)
class Config:
    """One training run.  Defaults are the paper's appendix "Experimental details".

    ``init_scale``: parameters start as ``init_scale * N(0, 1)`` (the paper does not say; the
    authors' public code uses 0.01).  ``merged``: learn ``W = W_K^T W_Q`` as one matrix (public
    code) instead of separate ``W_K``, ``W_Q`` (paper).  ``sigma2``: label-noise variance.
    """

    model: str
    L: int
    M: int
    trial: int = 0
    D: int = 50
    steps: int = 3000
    batch: int = 300
    lr: float = 1e-3
    lam: float = 1e-5
    sigma2: float = 0.0
    merged: bool = False
    init_scale: float = 0.01
    seed: int = 0

    def __post_init__(self):
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}, got {self.model!r}")
        for name in ("L", "M", "D", "steps", "batch"):
            _checks.positive_int(name, getattr(self, name))
        for name in ("trial", "seed"):
            _checks.nonneg_int(name, getattr(self, name))
        _checks.positive("lr", self.lr)
        _checks.nonnegative("lam", self.lam)
        _checks.nonnegative("sigma2", self.sigma2)
        _checks.positive("init_scale", self.init_scale)

    def group_key(self):
        """Configurations with equal keys can be trained together in one tensor program."""
        return tuple(v for k, v in asdict(self).items() if k not in ("M", "trial"))

    def as_dict(self) -> dict:
        return asdict(self)


def config_seeds(config: Config) -> dict:
    """Independent integer seeds of one configuration: ``"data"`` and ``"init"`` from
    ``SeedSequence([seed, L, M, trial])``; ``"test"`` (test tasks and their first estimates)
    from ``SeedSequence([seed, L, trial, 1])``; ``"stream"`` (minibatch draws and the random
    first estimates during training) from ``SeedSequence([seed, trial])``.

    The model kind is not part of the seeds: linear and softmax runs of the same ``(L, M,
    trial)`` see the same tasks.  Test tasks do not depend on ``M`` either, so the errors
    along an ``M`` row of the grid are paired.  The stream depends only on the trial, so
    configurations trained side by side share it, and one trained alone reproduces it.
    """
    data, init = np.random.SeedSequence([config.seed, config.L, config.M, config.trial]).spawn(2)
    test = np.random.SeedSequence([config.seed, config.L, config.trial, 1])
    stream = np.random.SeedSequence([config.seed, config.trial])
    return {
        k: int(s.generate_state(1)[0])
        for k, s in (("data", data), ("init", init), ("test", test), ("stream", stream))
    }


def test_set(config: Config, tasks=4096):
    """The configuration's test tasks: ``(Z, w, est0)`` -- example rows (float32), weights and
    first estimates ``w_hat_0 ~ N(0, I)`` (float64) -- from its ``"test"`` seed."""
    tasks = _checks.positive_int("tasks", tasks)
    seed = config_seeds(config)["test"]
    Z, w = example_rows(tasks, config.D, config.L, config.sigma2, seed)
    est0 = torch.randn(tasks, config.D, generator=torch.Generator().manual_seed(seed))
    return Z, w.double(), est0.double()


def example_rows(n, D, L, sigma2, seed):
    """``n`` regression tasks as the experiments draw them: ``w ~ N(0, I_D)``, ``x_l ~ N(0,
    I_D)`` (not ``I/D`` as in the simplified model), ``y_l = w . x_l + noise`` (variance
    ``sigma2``).

    Returns float32 tensors ``Z`` of shape ``(n, L, D+1)`` (rows ``[x_l, y_l]``, the non-zero
    part of the example tokens) and ``w`` of shape ``(n, D)``.
    """
    n, D, L = (_checks.positive_int(k, v) for k, v in (("n", n), ("D", D), ("L", L)))
    sigma2 = _checks.nonnegative("sigma2", sigma2)
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((n, D))
    X = rng.standard_normal((n, L, D))
    y = np.einsum("nld,nd->nl", X, w) + math.sqrt(sigma2) * rng.standard_normal((n, L))
    Z = np.concatenate([X, y[..., None]], axis=-1)
    return torch.from_numpy(Z.astype(np.float32)), torch.from_numpy(w.astype(np.float32))


def init_params(config: Config, count: int = 1) -> dict:
    """Initial parameters, stacked over ``count`` copies (leading axis), drawn from the
    configuration's ``"init"`` seed: ``{"W_K", "W_Q", "W_V"}`` or ``{"W", "W_V"}`` (merged)."""
    d = 2 * config.D + 2
    gen = torch.Generator().manual_seed(config_seeds(config)["init"])
    names = ("W", "W_V") if config.merged else ("W_K", "W_Q", "W_V")
    return {
        k: (config.init_scale * torch.randn(d, d, generator=gen)).expand(count, d, d).clone()
        for k in names
    }


def _score_vector(params, est, rows=None):
    """``u = W_K^T W_Q z_T`` (or ``W z_T``) for query tokens ``z_T = (0, 0, est, 1)``; only
    its first ``rows`` entries if given (training needs the example block, ``D + 1``).

    ``est`` has shape ``(G, B, D)`` (G stacked configurations); returns ``(G, B, rows)``,
    by default ``rows = 2D + 2``.
    """
    D = est.shape[-1]
    if "W" in params:
        P = params["W"][:, :rows, D + 1 :]
    else:
        P = params["W_K"][:, :, :rows].transpose(1, 2) @ params["W_Q"][:, :, D + 1 :]
    return est @ P[:, :, :D].transpose(1, 2) + P[:, None, :, D]


def _adam(params, lr):
    """The optimizer of every training loop here: Adam, fused (one kernel per step)."""
    return torch.optim.Adam(params, lr=lr, fused=True)


def _logit_scale(D):
    """Softmax logits are scores divided by ``sqrt(2D + 2)``, the token dimension."""
    return 1.0 / math.sqrt(2 * D + 2)


def _examples_term(model, examples, u_ex, scale):
    """Linear: ``S u_ex``; softmax: ``(c, lse)``, the softmax-weighted mean of the example rows
    and the log-normaliser of their logits ``scale * Z u_ex``.

    ``examples`` of shape ``(B, ...)`` are shared by the ``G`` query vectors of each task:
    one matrix product per task over all ``G`` (evaluation); ``(G, B, ...)``: one per query.
    """
    if examples.dim() == u_ex.dim():
        U = u_ex.permute(1, 2, 0)  # (B, D+1, G)
        if model == "linear":
            return (examples @ U).permute(2, 0, 1)
        logits = (examples @ U) * scale  # (B, L, G)
        a = torch.softmax(logits, dim=1)
        c = (a.transpose(1, 2) @ examples).transpose(0, 1)
        return c, torch.logsumexp(logits, dim=1).T
    if model == "linear":
        return torch.einsum("...ij,...j->...i", examples, u_ex)
    logits = torch.einsum("...lj,...j->...l", examples, u_ex) * scale
    a = torch.softmax(logits, dim=-1)
    return torch.einsum("...l,...lj->...j", a, examples), torch.logsumexp(logits, dim=-1)


def _history_term(model, tokens, u_est, scale):
    """Linear: ``sum_s e_s (e_s . u_est)``; softmax: ``(c, lse)`` over the estimate tokens."""
    weights = tokens @ u_est[..., None]
    if model == "linear":
        return (tokens.transpose(-1, -2) @ weights)[..., 0]
    a = torch.softmax(weights[..., 0] * scale, dim=-1)
    return (a[..., None, :] @ tokens)[..., 0, :], torch.logsumexp(weights[..., 0] * scale, dim=-1)


def step(params, model, examples, est, history=None, *, L):
    """One CoT step for stacked configurations, in the fast form (module docstring).

    ``examples``: for ``"linear"`` per-task second moments ``S`` of shape ``(G, B, D+1,
    D+1)`` (or ``(B, D+1, D+1)``, shared by all G), for ``"softmax"`` the example rows ``Z`` of
    shape ``(G, B, L, D+1)`` (or ``(B, L, D+1)``).  ``est``: the query estimates ``(G, B,
    D)``.  ``history``: the earlier estimate tokens visible to the query, as their estimate
    block and marker ``[w_hat_s, 1]``, shape ``(G, B, k, D+1)``, or ``None`` (the
    examples-only mask, or training).  Returns the next estimates ``(G, B, D)``.
    """
    D = est.shape[-1]
    scale = _logit_scale(D)
    u = _score_vector(params, est)
    u_ex, u_est = u[..., : D + 1], u[..., D + 1 :]
    V = params["W_V"][:, D + 1 : 2 * D + 1, :]  # estimate-block rows: (G, D, 2D+2)
    tokens = history if history is not None and history.shape[-2] else None
    if model == "linear":
        c_ex = _examples_term(model, examples, u_ex, scale) / L
        c_est = None if tokens is None else _history_term(model, tokens, u_est, scale) / L
    else:
        c_ex, lse = _examples_term(model, examples, u_ex, scale)
        c_est = None
        if tokens is not None:  # one softmax over examples and earlier estimates together
            c_h, lse_h = _history_term(model, tokens, u_est, scale)
            total = torch.logaddexp(lse, lse_h)
            c_ex = c_ex * torch.exp(lse - total)[..., None]
            c_est = c_h * torch.exp(lse_h - total)[..., None]
    # One (B, .) x (., D) product per configuration: V is never copied per task.
    out = c_ex @ V[..., : D + 1].transpose(1, 2)
    if c_est is not None:
        out = out + c_est @ V[..., D + 1 :].transpose(1, 2)
    return est + out


def literal_step(params, model, Z, estimates, mask):
    """One CoT step written token by token, the way the paper's appendix writes it.

    One configuration (parameters without the stacking axis, or with a stacking axis of 1).
    ``Z``: examples ``(B, L, D+1)``; ``estimates``: the prompt's estimate tokens ``(B, t+1,
    D)``, the last being the query.  Builds the full prompt of ``L + t + 1`` tokens in
    ``R^{2D+2}``, forms keys, queries and values with full matrices, applies ``mask`` and
    returns the estimate block of the updated query token, ``(B, D)``.
    """
    if mask not in MASKS:
        raise ValueError(f"mask must be one of {MASKS}, got {mask!r}")
    p = {k: v[0] if v.ndim == 3 else v for k, v in params.items()}
    B, L, D1 = Z.shape
    D = D1 - 1
    k = estimates.shape[1]
    tokens = torch.zeros(B, L + k, 2 * D + 2, dtype=Z.dtype)
    tokens[:, :L, : D + 1] = Z
    tokens[:, L:, D + 1 : 2 * D + 1] = estimates
    tokens[:, L:, 2 * D + 1] = 1.0
    query = tokens[:, -1]
    if "W" in p:
        scores = torch.einsum("bsi,ij,bj->bs", tokens, p["W"], query)
    else:
        scores = torch.einsum("bsi,bsi->bs", tokens @ p["W_K"].T, (query @ p["W_Q"].T)[:, None])
    visible = torch.zeros(L + k, dtype=torch.bool)
    visible[: L if mask == "examples" else L + k - 1] = True
    if model == "linear":
        a = torch.where(visible, scores / L, torch.zeros(()))
    else:
        logits = scores / math.sqrt(2 * D + 2)
        a = torch.softmax(logits.masked_fill(~visible, -math.inf), dim=-1)
    updated = query + torch.einsum("bs,bsi->bi", a, tokens @ p["W_V"].T)
    return updated[:, D + 1 : 2 * D + 1]


def literal_deviation(model, mask, *, merged=False, D=50, L=30, tasks=16, depth=5, seed=1):
    """Largest relative difference between :func:`step` (reduced form, tensor path) and
    :func:`literal_step` on random float64 parameters (scale 0.3), the tasks of a test set and
    ``depth`` random earlier estimates -- the check that the reduced form is the paper's layer.
    """
    c = Config(model=model, L=L, M=1, D=D, merged=merged, init_scale=0.3)
    params = {k: v.double() for k, v in init_params(c).items()}
    Z = test_set(c, tasks)[0].double()
    gen = torch.Generator().manual_seed(seed)
    est = torch.randn(tasks, depth + 1, D, dtype=torch.float64, generator=gen)
    literal = literal_step(params, model, Z, est, mask)
    examples = Z.transpose(1, 2) @ Z if model == "linear" else Z
    history = None
    if mask == "history":
        earlier = est[None, :, :-1]
        history = torch.cat([earlier, torch.ones_like(earlier[..., :1])], dim=-1)
    fast = step(params, model, examples, est[None, :, -1], history, L=L)[0]
    return float((fast - literal).abs().max() / literal.abs().max())


def _check_group(configs):
    configs = list(configs)
    if not configs or not all(isinstance(c, Config) for c in configs):
        raise ValueError("configs must be a non-empty list of Config")
    if len({c.group_key() for c in configs}) != 1:
        raise ValueError(
            "configs trained together must agree on everything but M and trial "
            "(see Config.group_key)"
        )
    return configs


def _training_sets(configs):
    """The fixed training sets, concatenated: ``(pool, w, offsets)``; ``pool`` holds second
    moments ``S`` (linear) or example rows ``Z`` (softmax)."""
    pools, ws, offsets, start = [], [], [], 0
    for c in configs:
        Z, w = example_rows(c.M, c.D, c.L, c.sigma2, config_seeds(c)["data"])
        pools.append(Z.transpose(1, 2) @ Z if c.model == "linear" else Z)
        ws.append(w)
        offsets.append(start)
        start += c.M
    return torch.cat(pools), torch.cat(ws), torch.tensor(offsets)


def _objective(params, fit, lam):
    """Per-configuration objective: the data term ``fit`` (batch mean of ``||w_hat_1 -
    w||^2``, shape ``(G,)``) plus ``lam`` times the squared Frobenius norms of all trainable
    matrices."""
    return fit + lam * sum((p**2).sum((1, 2)) for p in params.values())


def train(configs, *, progress=False, dev=None):
    """Train configurations side by side in one tensor program (paper's appendix "Learning
    protocol"): for each, a fixed set of ``M`` tasks; the one-step objective from a random
    Gaussian ``w_hat_0``; Adam (``lr``), minibatches of ``batch`` tasks drawn with replacement,
    ``steps`` steps.

    All ``configs`` must share :meth:`Config.group_key`.  Parameters are stacked on a leading
    axis; Adam is elementwise, so this is the same as training each one alone (tested).

    Parameters
    ----------
    configs : list of Config
        ``G`` configurations with one :meth:`Config.group_key`.
    progress : bool
        Show a progress bar over steps.
    dev : torch.device, optional
        Where to train (default :func:`device`: the GPU when there is one).

    Returns
    -------
    params : dict of torch.Tensor
        Final parameters on the CPU, stacked on a leading axis of length ``G``.
    losses : torch.Tensor
        The training objective per step, shape ``(steps, G)``.

    Examples
    --------
    >>> config = Config(model="linear", L=5, M=8, D=4, steps=3)
    >>> params, losses = train([config])
    >>> sorted(params), tuple(losses.shape)
    (['W_K', 'W_Q', 'W_V'], (3, 1))
    """
    configs = _check_group(configs)
    with _flush_denormals():
        return _train(configs, progress, device() if dev is None else dev)


@contextlib.contextmanager
def _flush_denormals():
    """While training: treat float32 values below 1.2e-38 as zero.

    Entries that only the penalty acts on decay into the denormal range, where arithmetic is
    many times slower (measured: a group slowed five-fold as it went on).
    """
    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_flush_denormal(False)  # torch's default


def _train(configs, progress, dev):
    c0, G = configs[0], len(configs)
    pool, w_pool, offsets = _training_sets(configs)
    on_cpu = dev.type == "cpu"
    if on_cpu:  # the fused kernels read the pool in place
        pool = pool.numpy()
    else:
        pool = pool.to(dev)
        buffer = torch.empty(G * c0.batch, *pool.shape[1:], device=dev)
    sizes = torch.tensor([c.M for c in configs])
    params = {
        k: torch.cat([init_params(c)[k] for c in configs]).to(dev).requires_grad_()
        for k in init_params(c0)
    }
    opt = _adam(params.values(), c0.lr)
    trials = sorted({c.trial for c in configs})
    streams = {
        r: torch.Generator().manual_seed(config_seeds(replace(c0, trial=r))["stream"])
        for r in trials
    }
    row = torch.tensor([trials.index(c.trial) for c in configs])
    losses = torch.empty(c0.steps, G)
    D, scale = c0.D, _logit_scale(c0.D)
    steps = range(c0.steps)
    if progress:
        from tqdm import tqdm

        steps = tqdm(steps, desc=f"{c0.model} L={c0.L} ({G} runs)", unit="step", leave=False)
    for i in steps:
        draws = [
            (
                torch.rand(c0.batch, generator=streams[r]),
                torch.randn(c0.batch, c0.D, generator=streams[r]),
            )
            for r in trials
        ]
        uniform = torch.stack([d[0] for d in draws])[row]
        est0 = torch.stack([d[1] for d in draws])[row].to(dev)
        idx = offsets[:, None] + (uniform * sizes[:, None]).long().clamp_max(sizes[:, None] - 1)
        target = w_pool[idx].to(dev)
        if on_cpu:  # forward and backward in one read of each task's data
            u = _score_vector(params, est0, D + 1)
            V = params["W_V"][:, D + 1 : 2 * D + 1, : D + 1]
            flat = idx.view(-1).numpy()
            fit = _kernels.train_fit(pool, flat, c0.model, u, V, est0, target, scale, c0.L)
        else:
            torch.index_select(pool, 0, idx.view(-1).to(dev), out=buffer)
            examples = buffer.view(G, c0.batch, *pool.shape[1:])
            pred = step(params, c0.model, examples, est0, L=c0.L)
            fit = ((pred - target) ** 2).sum(-1).mean(-1)
        loss = _objective(params, fit, c0.lam)
        opt.zero_grad(set_to_none=True)
        loss.sum().backward()
        opt.step()
        losses[i] = loss.detach().cpu()
    return {k: v.detach().cpu() for k, v in params.items()}, losses


def train_literal(config: Config):
    """The baseline: one configuration, the literal token-by-token layer (:func:`literal_step`),
    the same data, initialisation, random streams and optimizer as :func:`train`.

    This is how a faithful one-configuration-per-process implementation computes; it exists to
    cross-check :func:`train` and to time it against.  Returns ``(params, losses)`` like
    :func:`train` (stacking axis of 1).
    """
    c = _check_group([config])[0]
    with _flush_denormals():  # as in train: the comparison measures the algorithms only
        return _train_literal(c)


def _train_literal(c):
    Z, w = example_rows(c.M, c.D, c.L, c.sigma2, config_seeds(c)["data"])
    params = {k: v[0].clone().requires_grad_() for k, v in init_params(c).items()}
    opt = _adam(params.values(), c.lr)
    stream = torch.Generator().manual_seed(config_seeds(c)["stream"])
    losses = torch.empty(c.steps, 1)
    for i in range(c.steps):
        uniform = torch.rand(c.batch, generator=stream)
        est0 = torch.randn(c.batch, c.D, generator=stream)
        idx = (uniform * c.M).long().clamp_max(c.M - 1)
        pred = literal_step(params, c.model, Z[idx], est0[:, None], "history")
        loss = ((pred - w[idx]) ** 2).sum(-1).mean() + c.lam * sum(
            (p**2).sum() for p in params.values()
        )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses[i, 0] = loss.detach()
    return {k: v.detach()[None] for k, v in params.items()}, losses


def evaluate(config: Config, params, t_max=40, **options):
    """Test error ``E_t = E ||w - w_hat_t||^2 / D`` for ``t = 0..t_max`` (paper's appendix
    "Inference protocol"): fresh tasks from the configuration's ``"test"`` seed, a random
    Gaussian ``w_hat_0``, the learned layer reapplied ``t_max`` times under each mask.

    Parameters
    ----------
    config : Config
        The configuration (its ``"test"`` seed draws the test tasks).
    params : dict of torch.Tensor
        One configuration's parameters (stacking axis of 1, as :func:`train` returns them, or
        none).
    t_max : int
        Deepest CoT step.
    **options
        As for :func:`evaluate_stack` (``tasks``, ``masks``, ...).

    Returns
    -------
    dict
        ``{mask: array of shape (t_max + 1,)}``, the mean over test tasks.

    Examples
    --------
    >>> config = Config(model="linear", L=5, M=8, D=4, steps=3)
    >>> E = evaluate(config, train([config])[0], 2, tasks=64)
    >>> sorted(E), E["history"].shape
    (['examples', 'history'], (3,))
    """
    params = {k: v if v.ndim == 3 else v[None] for k, v in params.items()}
    if next(iter(params.values())).shape[0] != 1:
        raise ValueError("params must hold one configuration; use evaluate_stack for several")
    return {m: e[0] for m, e in evaluate_stack(config, params, t_max, **options).items()}


@torch.no_grad()
def evaluate_stack(
    config: Config,
    params,
    t_max=40,
    *,
    tasks=4096,
    masks=MASKS,
    dev=None,
    chunk=1024,
    test=None,
    per_task=False,
):
    """:func:`evaluate` for ``G`` parameter sets stacked on a leading axis, all on the test
    tasks of ``config`` (configurations that differ only in ``M``, or in training, share
    them).

    ``test``: :func:`test_set` of ``config`` if already drawn.  Returns ``{mask: array of
    shape (G, t_max + 1)}``, the mean over tasks, or with ``per_task`` each task's error
    ``||w - w_hat_t||^2 / D``, shape ``(G, tasks, t_max + 1)``.  Arithmetic is float64 (a
    diverging trajectory overflows float32 within 40 steps) on float32 task data.  On a CPU
    each trajectory runs start to end in cache (:func:`cotbook._kernels.cot_errors`); on a
    GPU, the torch form :func:`step` advances ``chunk`` tasks at a time.
    """
    t_max = _checks.nonneg_int("t_max", t_max)
    tasks = _checks.positive_int("tasks", tasks)
    chunk = _checks.positive_int("chunk", chunk)
    for m in masks:
        if m not in MASKS:
            raise ValueError(f"masks must be drawn from {MASKS}, got {m!r}")
    dev = device() if dev is None else dev
    p = {k: v.to(dev, torch.float64) for k, v in params.items()}
    Z, w, est0 = test_set(config, tasks) if test is None else test
    if Z.shape[0] != tasks:
        raise ValueError(f"test must hold {tasks} tasks, got {Z.shape[0]}")
    pool = Z.transpose(1, 2) @ Z if config.model == "linear" else Z
    if dev.type == "cpu":
        errors = _evaluate_kernel(config, p, pool, w, est0, t_max, masks)
    else:
        errors = _evaluate_torch(config, p, pool, w, est0, t_max, masks, dev, chunk)
    return errors if per_task else {m: e.mean(axis=1) for m, e in errors.items()}


def _evaluate_kernel(config, p, pool, w, est0, t_max, masks):
    D = config.D
    if "W" in p:
        K = p["W"][:, :, D + 1 :]
    else:
        K = p["W_K"].transpose(1, 2) @ p["W_Q"][:, :, D + 1 :]
    V = p["W_V"][:, D + 1 : 2 * D + 1, :]
    args = [x.contiguous().numpy() for x in (pool, K, V, est0, w)]
    return {
        m: _kernels.cot_errors(
            args[0], config.model, m == "history", *args[1:], _logit_scale(D), config.L, t_max
        )
        for m in masks
    }


def _evaluate_torch(config, p, pool, w, est0, t_max, masks, dev, chunk):
    tasks, G = w.shape[0], p["W_V"].shape[0]
    errors = {m: np.empty((G, tasks, t_max + 1)) for m in masks}
    for first in range(0, tasks, chunk):
        sl = slice(first, first + chunk)
        wc = w[sl].to(dev)
        ex = pool[sl].to(dev, torch.float64)
        for m in masks:
            est = est0[sl].to(dev).expand(G, -1, -1)
            B = est.shape[1]
            # Estimate tokens [w_hat_s, 1] of the trajectory so far, written in place.
            history = torch.ones(G, B, t_max, config.D + 1, dtype=est.dtype, device=dev)
            for t in range(t_max + 1):
                errors[m][:, sl, t] = ((est - wc) ** 2).mean(-1).cpu().numpy()
                if t == t_max:
                    break
                visible = history[:, :, :t] if m == "history" else None
                new = step(p, config.model, ex, est, visible, L=config.L)
                history[:, :, t, : config.D] = est
                est = new
    return errors
