"""What trained softmax attention learns, against linear attention, and the protocol variants
that the Figure 2 chapter left untried (issue 18, item 5).

For each trained layer the study measures

- its one-step loss ``||w_hat_1 - w||^2 / D`` on its own training set and on the test tasks;
- the drift at the truth, ``||f(w) - w||^2 / D``: one step started *at* the task vector (no
  earlier estimates), zero when ``w`` is a fixed point of the learned CoT map;
- along the CoT trajectory of ``probe_tasks`` test tasks (paper's history mask): the spectral
  radius of the Jacobian of ``w_hat_{t+1}`` with respect to ``w_hat_t`` (:func:`jacobian`;
  the earlier estimate tokens held fixed), the error ratio ``|e_{t+1}| / |e_t|``, the share of
  the attention weight on the earlier estimate tokens and the effective number of sources
  ``(sum_s |a_s|)^2 / sum_s a_s^2`` (:func:`attention_weights`; for softmax ``1 / sum a_s^2``);
- its test error curves, mean and median over test tasks, under both masks, and their regimes
  (:func:`cotbook.attention.regimes.softmax_summary`, the book's rule; read there, so that this
  module imports no theory and its record stales only when the study changes).

A :class:`Variant` changes the protocol: any :class:`~cotbook.attention.layer.Config` setting
(initialisation scale, steps, learning rate, ``D``, ...) and the number of CoT steps the
objective is unrolled through (:func:`train_unrolled`).  A variant with another ``D`` than the
study's keeps ``alpha = L/D`` and ``tau = M/D`` of each point.  The spec
(:class:`SoftmaxSpec`) runs unit by unit like :mod:`.grid` (one unit: a variant, a model and a
point, its trials trained side by side), so the command line checkpoints each unit.

Multi-step training runs on the reduced-form torch layer :func:`cotbook.attention.layer.step`
(the path :func:`cotbook.attention.layer.train` takes on a GPU), here on the CPU too: the
fused CPU kernel differentiates one step only.  It lives in this module rather than in
:mod:`.layer` so that the saved Figure 2 records, whose provenance hashes :mod:`.layer`'s code,
stay current.
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, field, replace

import numpy as np
import torch

from .. import _checks
from .._threads import one_thread_unit
from . import layer
from .grid import _settings, _split

__all__ = [
    "UNROLL_LOSSES",
    "Variant",
    "SoftmaxSpec",
    "VARIANTS",
    "SCALES",
    "train_unrolled",
    "unrolled_objective",
    "attention_weights",
    "jacobian",
    "one_step_loss",
    "drift_at_truth",
    "probe",
    "run_unit",
    "assemble",
    "run",
]

UNROLL_LOSSES = ("mean", "last")
"""Objectives of :func:`train_unrolled` over ``k`` CoT steps: the mean of the errors after
steps ``1..k``, or the error after step ``k`` alone."""


@dataclass(frozen=True)
class Variant:
    """One training protocol: ``settings`` (keys of :data:`cotbook.attention.grid.SETTINGS`)
    changed from the study's, the objective unrolled through ``unroll`` CoT steps under the
    paper's history mask (``1``: the paper's one-step objective) with ``unroll_loss`` in
    :data:`UNROLL_LOSSES`, trained for each of ``models`` at the study's points ``points``
    (indices; ``None``: every point)."""

    settings: dict = field(default_factory=dict)
    unroll: int = 1
    unroll_loss: str = "mean"
    models: tuple = ("softmax",)
    points: tuple | None = None

    def __post_init__(self):
        settings = dict(self.settings)
        _settings(settings)  # validates the keys
        object.__setattr__(self, "settings", settings)
        object.__setattr__(self, "unroll", _checks.positive_int("unroll", self.unroll))
        if self.unroll_loss not in UNROLL_LOSSES:
            raise ValueError(
                f"unroll_loss must be one of {UNROLL_LOSSES}, got {self.unroll_loss!r}"
            )
        models = tuple(self.models)
        if not models or any(m not in layer.MODELS for m in models):
            raise ValueError(
                f"models must be a non-empty list drawn from {layer.MODELS}, got {models}"
            )
        object.__setattr__(self, "models", models)
        if self.points is not None:
            points = tuple(_checks.nonneg_int("points", k) for k in self.points)
            if not points:
                raise ValueError("points must be None or a non-empty list of point indices")
            object.__setattr__(self, "points", points)

    def to_dict(self) -> dict:
        return {
            "settings": self.settings,
            "unroll": self.unroll,
            "unroll_loss": self.unroll_loss,
            "models": list(self.models),
            "points": None if self.points is None else list(self.points),
        }

    @classmethod
    def from_dict(cls, d) -> Variant:
        """The variant of :meth:`to_dict`'s layout."""
        try:
            return cls(**d)
        except TypeError as err:
            raise ValueError(f"a variant must have the fields of Variant: {err}") from None


def _variant(v) -> Variant:
    if isinstance(v, Variant):
        return v
    if isinstance(v, dict):
        return Variant.from_dict(v)
    raise ValueError(f"a variant must be a Variant or its dict, got {v!r}")


@dataclass(frozen=True)
class SoftmaxSpec:
    """The study: each variant of ``variants`` (name -> :class:`Variant`) at its points of
    ``points`` (``(L, M)`` at the study's ``D``), ``trials`` times; test curves on ``tasks``
    test tasks for ``t = 0..t_max``; the trajectory probe (:func:`probe`) on the first
    ``probe_tasks`` of them, with Jacobians at ``jacobian_depths``.

    Examples
    --------
    >>> spec = SCALES["tiny"]
    >>> spec.units()[0], SoftmaxSpec.from_dict(spec.to_dict()) == spec
    ('paper/linear/0', True)
    """

    points: tuple
    trials: int
    variants: dict
    t_max: int = 40
    tasks: int = 4096
    probe_tasks: int = 256
    jacobian_depths: tuple = (0, 1, 2, 5, 10, 20)
    settings: dict = field(default_factory=dict)

    def __post_init__(self):
        points = tuple(tuple(_checks.positive_int("points", v) for v in p) for p in self.points)
        if not points or any(len(p) != 2 for p in points):
            raise ValueError(f"points must be a non-empty list of (L, M) pairs, got {self.points}")
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "trials", _checks.positive_int("trials", self.trials))
        t_max = _checks.positive_int("t_max", self.t_max)
        if t_max < 2:
            raise ValueError(f"t_max must be an integer >= 2, got {t_max}")
        object.__setattr__(self, "t_max", t_max)
        object.__setattr__(self, "tasks", _checks.positive_int("tasks", self.tasks))
        probe = _checks.positive_int("probe_tasks", self.probe_tasks)
        if probe > self.tasks:
            raise ValueError(f"probe_tasks must be in [1, tasks = {self.tasks}], got {probe}")
        object.__setattr__(self, "probe_tasks", probe)
        depths = tuple(_checks.nonneg_int("jacobian_depths", t) for t in self.jacobian_depths)
        if not depths or max(depths) >= t_max:
            raise ValueError(
                f"jacobian_depths must be a non-empty list of depths in [0, {t_max - 1}], "
                f"got {self.jacobian_depths}"
            )
        object.__setattr__(self, "jacobian_depths", depths)
        object.__setattr__(self, "settings", _settings(self.settings))
        variants = {str(k): _variant(v) for k, v in dict(self.variants).items()}
        if not variants:
            raise ValueError("variants must name at least one variant")
        for name, v in variants.items():
            if v.points is not None and max(v.points) >= len(points):
                raise ValueError(
                    f"variant {name!r}: points must be indices in [0, {len(points) - 1}], "
                    f"got {list(v.points)}"
                )
        object.__setattr__(self, "variants", variants)
        for unit in self.units():
            self.unit_configs(unit)  # validates every setting

    def point(self, name, k) -> tuple:
        """``(L, M, D)`` of point ``k`` under variant ``name``: the study's point, scaled by
        ``D_variant / D`` (rounded) when the variant changes ``D``."""
        D0 = self.settings["D"]
        D = self.variants[name].settings.get("D", D0)
        L, M = self.points[k]
        return max(1, round(L * D / D0)), max(1, round(M * D / D0)), D

    def units(self) -> list:
        """``"<variant>/<model>/<point index>"``: one unit trains its trials side by side."""
        return [
            f"{name}/{model}/{k}"
            for name, v in self.variants.items()
            for model in v.models
            for k in (range(len(self.points)) if v.points is None else v.points)
        ]

    def _parse(self, unit):
        if unit not in self.units():
            raise ValueError(f"unit must be one of {self.units()}, got {unit!r}")
        name, model, k = unit.rsplit("/", 2)
        return name, model, int(k)

    def unit_configs(self, unit) -> list:
        """The unit's :class:`~cotbook.attention.layer.Config` of each trial."""
        name, model, k = self._parse(unit)
        L, M, _ = self.point(name, k)
        settings = {**self.settings, **self.variants[name].settings}
        return [
            layer.Config(model=model, L=L, M=M, trial=r, **settings) for r in range(self.trials)
        ]

    def to_dict(self) -> dict:
        return {
            "points": [list(p) for p in self.points],
            "trials": self.trials,
            "variants": {k: v.to_dict() for k, v in self.variants.items()},
            "t_max": self.t_max,
            "tasks": self.tasks,
            "probe_tasks": self.probe_tasks,
            "jacobian_depths": list(self.jacobian_depths),
            **self.settings,
        }

    @classmethod
    def from_dict(cls, d) -> SoftmaxSpec:
        """The spec of :meth:`to_dict`'s layout (the saved record's configuration): the study's
        own keys, the rest settings."""
        own = ("points", "trials", "variants", "t_max", "tasks", "probe_tasks", "jacobian_depths")
        return cls(**_split(d, own, "softmax-study"))


VARIANTS = {
    "paper": Variant(models=("linear", "softmax")),
    "init 0.001": Variant(dict(init_scale=1e-3)),
    "init 0.1": Variant(dict(init_scale=0.1)),
    "init 1": Variant(dict(init_scale=1.0), points=(1,)),
    "lr 3e-4": Variant(dict(lr=3e-4)),
    "lr 3e-3": Variant(dict(lr=3e-3)),
    "steps 20000": Variant(dict(steps=20000), points=(1,)),
    "unroll 2": Variant(unroll=2),
    "unroll 4": Variant(unroll=4, models=("linear", "softmax")),
    "unroll 8": Variant(unroll=8, points=(1,)),
    "unroll 8, lr 3e-3": Variant(dict(lr=3e-3), unroll=8, points=(1,)),
    "D = 100": Variant(dict(D=100), models=("linear", "softmax"), points=(1,)),
}
"""The paper-scale protocols (softmax unless said): the paper's, for both models; the
initialisation scale (the public code's is 0.01); the learning rate; longer training; the
objective unrolled through 2, 4 or 8 CoT steps (4 for linear too, as a control); 8 steps with
the larger learning rate; and ``D = 100`` at the same ``alpha`` and ``tau``, both models.  The
costly ones run at the decay point only."""

SCALES = {
    # Seconds: for trying the command line and for the tests.
    "tiny": SoftmaxSpec(
        points=((5, 40), (20, 40)),
        trials=1,
        variants={
            "paper": Variant(models=("linear", "softmax")),
            "unroll 2": Variant(unroll=2),
            "D = 16": Variant(dict(D=16), points=(1,)),
        },
        t_max=4,
        tasks=64,
        probe_tasks=16,
        jacobian_depths=(0, 2),
        settings=dict(D=8, steps=20),
    ),
    # Within a chapter's budget: the decay point, the paper's protocol and 2-step training.
    "book": SoftmaxSpec(
        points=((160, 3200),),
        trials=1,
        variants={"paper": VARIANTS["paper"], "unroll 2": VARIANTS["unroll 2"]},
        tasks=1024,
        probe_tasks=64,
        settings=dict(steps=1000),
    ),
    # The sensitivity study's saturation point and decay point; one trial each (trial 0 of the
    # paper's protocol is the Figure 2 grid's trial 0: the same seeds).
    "paper": SoftmaxSpec(points=((25, 3200), (160, 3200)), trials=1, variants=VARIANTS),
}


# --------------------------------------------------------------------------------------------
# multi-step training
# --------------------------------------------------------------------------------------------
@contextlib.contextmanager
def _one_torch_thread():
    """Torch ops on one intra-op thread, restored after: on the busy 2-core machine torch's two
    threads wait on each other, and an unrolled training step measured 10-30 times slower."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _tokens(estimates):
    """Estimate tokens as the layer sees them: estimate block and marker, ``[w_hat_s, 1]``."""
    return torch.cat([estimates, torch.ones_like(estimates[..., :1])], dim=-1)


def unrolled_objective(params, model, examples, est0, w, *, L, unroll, unroll_loss="mean"):
    """The data term of the ``unroll``-step objective: the CoT trajectory from ``est0`` under
    the paper's history mask (:func:`cotbook.attention.layer.step`, stacked configurations),
    and per configuration the batch mean of ``||w_hat_s - w||^2`` averaged over ``s = 1..unroll``
    (``"mean"``) or at ``s = unroll`` (``"last"``).  Shape ``(G,)``; ``unroll = 1`` is the
    paper's one-step objective."""
    unroll = _checks.positive_int("unroll", unroll)
    if unroll_loss not in UNROLL_LOSSES:
        raise ValueError(f"unroll_loss must be one of {UNROLL_LOSSES}, got {unroll_loss!r}")
    est, earlier, fits = est0, [], []
    for _ in range(unroll):
        history = _tokens(torch.stack(earlier, dim=2)) if earlier else None
        nxt = layer.step(params, model, examples, est, history, L=L)
        fits.append(((nxt - w) ** 2).sum(-1).mean(-1))
        earlier.append(est)
        est = nxt
    return fits[-1] if unroll_loss == "last" else torch.stack(fits).mean(0)


def _batches(configs):
    """Per training step: ``(idx, est0)``, the drawn tasks (rows of the concatenated training
    sets) and first estimates, from each trial's stream in the order
    :func:`cotbook.attention.layer.train` draws them (a one-step run here sees its batches)."""
    c0 = configs[0]
    trials = sorted({c.trial for c in configs})
    streams = [
        torch.Generator().manual_seed(layer.config_seeds(replace(c0, trial=r))["stream"])
        for r in trials
    ]
    row = torch.tensor([trials.index(c.trial) for c in configs])
    sizes = torch.tensor([c.M for c in configs])[:, None]
    offsets = torch.cumsum(torch.cat([torch.zeros(1, dtype=torch.long), sizes[:-1, 0]]), 0)
    for _ in range(c0.steps):
        uniform, normal = zip(
            *[
                (torch.rand(c0.batch, generator=g), torch.randn(c0.batch, c0.D, generator=g))
                for g in streams
            ],
            strict=True,
        )
        pick = (torch.stack(uniform)[row] * sizes).long().clamp_max(sizes - 1)
        yield offsets[:, None] + pick, torch.stack(normal)[row]


def train_unrolled(configs, unroll, unroll_loss="mean", *, dev=None):
    """Train ``configs`` (one :meth:`~cotbook.attention.layer.Config.group_key`) side by side
    on the ``unroll``-step objective (:func:`unrolled_objective`) plus the penalty, with the
    data, initialisation, batches, first estimates and optimizer of
    :func:`cotbook.attention.layer.train`.  ``unroll = 1`` is that function's training (it is
    called).  Returns ``(params, losses)`` like it.
    """
    unroll = _checks.positive_int("unroll", unroll)
    if unroll_loss not in UNROLL_LOSSES:
        raise ValueError(f"unroll_loss must be one of {UNROLL_LOSSES}, got {unroll_loss!r}")
    configs = layer._check_group(configs)
    if unroll == 1:
        return layer.train(configs, dev=dev)
    dev = layer.device() if dev is None else dev
    with layer._flush_denormals(), _one_torch_thread():
        return _train_unrolled(configs, unroll, unroll_loss, dev)


def _train_unrolled(configs, unroll, unroll_loss, dev):
    c0 = configs[0]
    pool, w_pool, _ = layer._training_sets(configs)
    pool, w_pool = pool.to(dev), w_pool.to(dev)
    init = [layer.init_params(c) for c in configs]
    params = {k: torch.cat([p[k] for p in init]).to(dev).requires_grad_() for k in init[0]}
    opt = layer._adam(params.values(), c0.lr)
    losses = torch.empty(c0.steps, len(configs))
    for i, (idx, est0) in enumerate(_batches(configs)):
        idx = idx.to(dev)
        fit = unrolled_objective(
            params,
            c0.model,
            pool[idx],
            est0.to(dev),
            w_pool[idx],
            L=c0.L,
            unroll=unroll,
            unroll_loss=unroll_loss,
        )
        loss = layer._objective(params, fit, c0.lam)
        opt.zero_grad(set_to_none=True)
        loss.sum().backward()
        opt.step()
        losses[i] = loss.detach().cpu()
    return {k: v.detach().cpu() for k, v in params.items()}, losses


# --------------------------------------------------------------------------------------------
# what a trained layer does
# --------------------------------------------------------------------------------------------
def _one(params):
    """One configuration's parameters in float64 with a stacking axis of 1."""
    params = {k: (v if v.ndim == 3 else v[None]).double() for k, v in params.items()}
    if next(iter(params.values())).shape[0] != 1:
        raise ValueError("params must hold one configuration (a stacking axis of length 1)")
    return params


def _examples(model, Z):
    return Z.transpose(1, 2) @ Z if model == "linear" else Z


def _check_batch(Z, est, history):
    if Z.ndim != 3 or est.ndim != 2 or Z.shape[0] != est.shape[0] or Z.shape[2] != est.shape[1] + 1:
        raise ValueError(
            f"Z must have shape (B, L, D+1) and est (B, D), got {tuple(Z.shape)} and "
            f"{tuple(est.shape)}"
        )
    if history is not None and (history.ndim != 3 or history.shape[::2] != est.shape):
        raise ValueError(
            f"history must be None or of shape (B, k, D) = ({est.shape[0]}, k, {est.shape[1]}), "
            f"got {tuple(history.shape)}"
        )


def attention_weights(params, model, Z, est, history=None):
    """The query's attention weights over its visible sources under the paper's history mask:
    ``(B, L + k)``, the ``L`` examples then the ``k`` earlier estimates ``history`` (``(B, k,
    D)``, or ``None``).  Softmax: probabilities (they sum to 1); linear: the scores divided by
    ``L``.  In both, the step's update is ``W_V sum_s a_s z_s`` (tested)."""
    p = _one(params)
    Z, est = Z.double(), est.double()
    _check_batch(Z, est, history)
    L, D = Z.shape[1], est.shape[1]
    u = layer._score_vector(p, est[None])[0]
    scores = torch.einsum("blj,bj->bl", Z, u[:, : D + 1])
    if history is not None:
        h = torch.einsum("bkj,bj->bk", _tokens(history.double()), u[:, D + 1 :])
        scores = torch.cat([scores, h], dim=1)
    if model == "linear":
        return scores / L
    if model != "softmax":
        raise ValueError(f"model must be one of {layer.MODELS}, got {model!r}")
    return torch.softmax(scores * layer._logit_scale(D), dim=1)


def jacobian(params, model, Z, est, history=None):
    """``d w_hat_{t+1} / d w_hat_t`` per task, ``(B, D, D)``, float64: one step of the layer
    (:func:`cotbook.attention.layer.step`) from the query estimates ``est`` (``(B, D)``) with
    examples ``Z`` (``(B, L, D+1)``) and the earlier estimate tokens ``history`` (``(B, k, D)``
    or ``None``) held fixed.

    In closed form: with ``u = K [w_hat; 1]`` the score vector (:func:`attention_weights`),
    ``c = sum_s a_s z_s`` and ``V`` the rows of ``W_V`` that write the estimate block,
    ``J = I + V (dc/du) K_w``, where ``dc/du = sum_s z_s z_s^T / L`` (linear) or ``beta
    (sum_s a_s z_s z_s^T - c c^T)`` (softmax, ``beta = 1 / sqrt(2D+2)``), over the visible
    tokens; ``K_w`` are the columns of ``K`` that act on ``w_hat``.  Tested against finite
    differences and automatic differentiation.
    """
    p = _one(params)
    a = attention_weights(p, model, Z, est, history)  # validates the arguments
    Z, est = Z.double(), est.double()
    B, L, D1 = Z.shape
    D = D1 - 1
    if "W" in p:
        K = p["W"][0, :, D + 1 : 2 * D + 1]
    else:
        K = p["W_K"][0].T @ p["W_Q"][0, :, D + 1 : 2 * D + 1]  # (2D+2, D): d u / d w_hat
    V = p["W_V"][0, D + 1 : 2 * D + 1]  # (D, 2D+2)
    blocks = [(Z, a[:, :L], slice(0, D + 1))]
    if history is not None:
        blocks.append((_tokens(history.double()), a[:, L:], slice(D + 1, 2 * D + 2)))
    weight = layer._logit_scale(D) if model == "softmax" else 1.0  # linear: a_s = z_s.u / L
    J = torch.eye(D, dtype=torch.float64).expand(B, D, D).clone()
    mean_g = torch.zeros(B, D, dtype=torch.float64)
    c = torch.zeros(B, 2 * D + 2, dtype=torch.float64)
    for tokens, a_s, cols in blocks:
        g = tokens @ K[cols]  # (B, n, D): z_s . (d u / d w_hat)
        w_s = weight * a_s if model == "softmax" else torch.full_like(a_s, 1.0 / L)
        J += V[:, cols] @ (tokens.transpose(1, 2) @ (w_s[..., None] * g))
        if model == "softmax":
            mean_g += torch.einsum("bn,bnd->bd", a_s, g)
            c[:, cols] = torch.einsum("bn,bnj->bj", a_s, tokens)
    if model == "softmax":
        J -= weight * (c @ V.T)[:, :, None] * mean_g[:, None, :]
    return J


def one_step_loss(config, params, Z, w, est0):
    """``mean ||w_hat_1 - w||^2 / D`` over the tasks ``(Z, w)`` from first estimates ``est0``
    (no earlier estimates): the training objective's data term per coordinate, float64."""
    p = _one(params)
    _check_batch(Z, est0, None)
    nxt = layer.step(
        p, config.model, _examples(config.model, Z.double()), est0.double()[None], L=config.L
    )
    return float(((nxt[0] - w.double()) ** 2).mean())


def drift_at_truth(config, params, Z, w):
    """``mean ||f(w) - w||^2 / D``: one step of the learned layer started at the task vector
    itself (no earlier estimates); zero when every ``w`` is a fixed point of the CoT map."""
    return one_step_loss(config, params, Z, w, w)


def _train_tasks(config):
    """The configuration's training set and one first estimate per task, drawn from
    ``SeedSequence([seed, L, M, trial, 2])``."""
    Z, w = layer.example_rows(
        config.M, config.D, config.L, config.sigma2, layer.config_seeds(config)["data"]
    )
    seed = np.random.SeedSequence([config.seed, config.L, config.M, config.trial, 2])
    gen = torch.Generator().manual_seed(int(seed.generate_state(1)[0]))
    return Z, w, torch.randn(config.M, config.D, generator=gen)


def probe(config, params, *, t_max=40, tasks=256, jacobian_depths=(0, 1, 2, 5, 10, 20), test=None):
    """The CoT trajectory of ``tasks`` test tasks under the paper's history mask, float64:
    per depth ``t = 0..t_max - 1``, the median error ratio ``|e_{t+1}| / |e_t|``, the mean
    share of the attention weight (absolute, for linear) on the earlier estimates and the
    median effective number of sources ``(sum |a_s|)^2 / sum a_s^2``; at ``jacobian_depths``,
    the median and the share above 1 of the spectral radius of :func:`jacobian`.

    ``test``: the tasks ``(Z, w, est0)`` to follow (default: :func:`layer.test_set` of
    ``config`` with ``tasks`` tasks).  Returns a JSON-ready dict of lists: ``ratio``,
    ``estimate_share``, ``sources`` (length ``t_max``), ``radius_median``, ``radius_above_1``
    (one per Jacobian depth) and ``depths``.  A trajectory that overflows counts as an infinite
    ratio and radius; a statistic that is not finite is ``None``.
    """
    t_max = _checks.positive_int("t_max", t_max)
    tasks = _checks.positive_int("tasks", tasks)
    depths = sorted({_checks.nonneg_int("jacobian_depths", t) for t in jacobian_depths})
    if depths and depths[-1] >= t_max:
        raise ValueError(
            f"jacobian_depths must lie in [0, {t_max - 1}], got {list(jacobian_depths)}"
        )
    p = _one(params)
    Z, w, est = layer.test_set(config, tasks) if test is None else test
    if Z.shape[0] != tasks:
        raise ValueError(f"test must hold {tasks} tasks, got {Z.shape[0]}")
    Z, w, est = Z.double(), w.double(), est.double()
    examples = _examples(config.model, Z)
    out = {k: [] for k in ("ratio", "estimate_share", "sources", "radius_median", "radius_above_1")}
    earlier = []
    with torch.no_grad(), _one_torch_thread():
        for t in range(t_max):
            history = torch.stack(earlier, dim=1) if earlier else None
            if t in depths:
                J = jacobian(p, config.model, Z, est, history)
                finite = torch.isfinite(J).all(-1).all(-1)
                radius = torch.full((tasks,), math.inf, dtype=torch.float64)
                radius[finite] = torch.linalg.eigvals(J[finite]).abs().amax(-1)
                out["radius_median"].append(_number(radius.median()))
                out["radius_above_1"].append(float((radius > 1).double().mean()))
            a = attention_weights(p, config.model, Z, est, history).abs()
            a = a[torch.isfinite(a).all(1)]  # trajectories that overflowed have no weights
            share = a[:, config.L :].sum(1) / a.sum(1)
            out["estimate_share"].append(_number(share.mean()) if len(a) else None)
            sources = a.sum(1) ** 2 / (a**2).sum(1)
            out["sources"].append(_number(sources.median()) if len(a) else None)
            tokens = None if history is None else _tokens(history)[None]
            nxt = layer.step(p, config.model, examples, est[None], tokens, L=config.L)[0]
            ratio = (nxt - w).norm(dim=1) / (est - w).norm(dim=1)
            out["ratio"].append(_number(torch.nan_to_num(ratio, nan=math.inf).median()))
            earlier.append(est)
            est = nxt
    out["depths"] = depths
    return out


def _number(x):
    """A JSON number: ``float(x)``, or ``None`` where it is not finite (overflow)."""
    x = float(x)
    return x if math.isfinite(x) else None


# --------------------------------------------------------------------------------------------
# the study
# --------------------------------------------------------------------------------------------
def _measure(config, params, losses, spec) -> dict:
    """Everything the study keeps of one trained configuration (JSON-ready)."""
    Z, w, est0 = layer.test_set(config, spec.tasks)
    errors = layer.evaluate_stack(
        config, params, spec.t_max, tasks=spec.tasks, test=(Z, w, est0), per_task=True
    )
    # A trajectory that overflows float64 counts as infinitely far (None in the record).
    errors = {m: np.where(np.isfinite(e[0]), e[0], np.inf) for m, e in errors.items()}
    Zt, wt, et = _train_tasks(config)
    return {
        "E": {m: [_number(x) for x in e.mean(0)] for m, e in errors.items()},
        "E_median": {m: [_number(x) for x in np.median(e, 0)] for m, e in errors.items()},
        "overflowed": {m: float(np.mean(np.isinf(e[:, -1]))) for m, e in errors.items()},
        "loss_train": one_step_loss(config, params, Zt, wt, et),
        "loss_test": one_step_loss(config, params, Z, w, est0),
        "objective": float(losses[-100:].mean()) / config.D,
        "drift_at_truth": drift_at_truth(config, params, Z, w),
        "probe": probe(
            config,
            params,
            t_max=spec.t_max,
            tasks=spec.probe_tasks,
            jacobian_depths=spec.jacobian_depths,
            test=tuple(x[: spec.probe_tasks] for x in (Z, w, est0)),
        ),
    }


@one_thread_unit
def run_unit(spec, unit) -> dict:
    """Train and measure one unit of ``spec`` (:class:`SoftmaxSpec`): JSON-ready ``{"runs":
    [[config dict, measurements], ...], "seconds": wall clock}`` (measurements as listed in
    the module docstring)."""
    start = time.perf_counter()
    name = spec._parse(unit)[0]
    variant = spec.variants[name]
    configs = spec.unit_configs(unit)
    with _one_torch_thread():
        params, losses = train_unrolled(
            configs, variant.unroll, variant.unroll_loss, dev=torch.device("cpu")
        )
        runs = [
            [
                c.as_dict(),
                _measure(c, {k: v[g : g + 1] for k, v in params.items()}, losses[:, g], spec),
            ]
            for g, c in enumerate(configs)
        ]
    return {"runs": runs, "seconds": time.perf_counter() - start}


def assemble(spec, results) -> tuple[dict, dict]:
    """``(data, timings_s)`` from ``{unit: run_unit(spec, unit)}``: ``data = {"units": {unit:
    {"L", "M", "D", "trials": [measurements per trial]}}}``; timings (wall-clock seconds per
    unit) are kept apart, so the data do not depend on how the run was executed."""
    missing = [u for u in spec.units() if u not in results]
    if missing:
        raise ValueError(f"results must hold every unit of the study; missing {missing}")
    units = {}
    for unit in spec.units():
        name, _, k = spec._parse(unit)
        L, M, D = spec.point(name, k)
        units[unit] = {"L": L, "M": M, "D": D, "trials": [m for _, m in results[unit]["runs"]]}
    return {"units": units}, {u: results[u]["seconds"] for u in spec.units()}


def run(spec) -> tuple[dict, dict]:
    """Every unit of ``spec`` in order, assembled (:func:`assemble`)."""
    return assemble(spec, {u: run_unit(spec, u) for u in spec.units()})
