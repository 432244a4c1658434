"""The book's training computation fed the authors' random draws: which part of a run decides
its floor, the code or the draws?

The authors' script (:mod:`cotbook.book.authors.rerun`) and the book's trainer
(:mod:`cotbook.attention.layer`) compute the same model and objective in different ways: their
script builds every token and lets autograd differentiate the full matrices, in float32, with
torch's default Adam; the book trains on the second moments ``S`` of the examples with a fused
float32 numba gradient and torch's fused Adam, and evaluates in float64.  They also draw their
random numbers differently.  This module separates the two: :func:`draws` replays the draws
their script makes after ``torch.manual_seed(seed)`` -- the order of its calls to torch's
generator, read from ``linear_heatmap.py`` at ``1ed6569`` (a fact about their script, not its
code): the training set (``x`` of shape ``(M, D, N)``, then ``w``), ``V`` then ``W`` at ``0.01
N(0, 1)``, per step a minibatch (``randint``) then first estimates (``randn``), and after
training the test tasks and their first estimates -- and :func:`train` runs the book's
computation on them: the same kernel, objective and optimizer as :func:`layer.train`'s CPU
path.  If a run fed their draws lands where their script lands, the code is not what decides.

The training loop is the book's (``layer._train``'s CPU path) written out for one run on given
draws; ``layer`` itself is not changed, because every attention record's code hash covers it.

A study is a :class:`DrawsSpec`, run unit by unit (``python -m cotbook experiments --scale paper
--only their_draws``, record ``authors_draws``): one unit trains one ``(L, M, seed)``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from .. import _checks
from .._threads import one_thread_unit
from . import _kernels, layer, side_by_side

__all__ = ["EVAL_TASKS", "T_MAX", "draws", "train", "DrawsSpec", "SCALES", "run_unit", "assemble"]

EVAL_TASKS = 4096
"""Their test tasks."""
T_MAX = 31
"""Their deepest step."""


def _seeded(seed):
    return torch.Generator().manual_seed(_checks.nonneg_int("seed", seed))


def _tasks(gen, n, D, L):
    """Tasks as their script draws them: ``x`` of shape ``(n, D, L)``, then ``w``; returned as
    example rows ``Z = [x_l, y_l]`` of shape ``(n, L, D+1)`` and ``w``."""
    x = torch.randn(n, D, L, generator=gen)
    w = torch.randn(n, D, generator=gen)
    y = torch.einsum("bd,bdn->bn", w, x)
    return torch.cat([x.transpose(1, 2), y[..., None]], dim=-1), w


def draws(config: layer.Config, seed):
    """Their draws for ``config``'s cell after ``torch.manual_seed(seed)``, as a generator
    object positioned after the initial parameters: ``(gen, Z, w, params)`` with the training
    set's example rows and task vectors and the initial ``{"W", "W_V"}`` (stacking axis 1).
    The per-step draws and the test tasks follow from ``gen`` in their order
    (:func:`train`)."""
    gen = _seeded(seed)
    Z, w = _tasks(gen, config.M, config.D, config.L)
    d = 2 * config.D + 2
    V = config.init_scale * torch.randn(d, d, generator=gen)
    W = config.init_scale * torch.randn(d, d, generator=gen)
    return gen, Z, w, {"W": W[None].clone(), "W_V": V[None].clone()}


def train(config: layer.Config, seed) -> np.ndarray:
    """``E_t`` (``t = 0..31``) of ``config`` trained by the book's
    computation on their draws at ``seed`` and evaluated (float64, the examples-only mask) on
    their test tasks.  ``config`` must be linear, merged, noiseless (their script's model)."""
    if config.model != "linear" or not config.merged or config.sigma2 != 0:
        raise ValueError("config must be their model: linear, merged, sigma2 = 0")
    gen, Z, w_pool, params = draws(config, seed)
    pool = (Z.transpose(1, 2) @ Z).numpy()
    params = {k: v.requires_grad_() for k, v in params.items()}
    opt = layer._adam(params.values(), config.lr)
    D = config.D
    with layer._flush_denormals():
        for _ in range(config.steps):
            idx = torch.randint(0, config.M, (config.batch,), generator=gen)
            est = torch.randn(config.batch, D, generator=gen)[None]
            u = layer._score_vector(params, est, D + 1)
            V = params["W_V"][:, D + 1 : 2 * D + 1, : D + 1]
            fit = _kernels.train_fit(
                pool, idx.numpy(), "linear", u, V, est, w_pool[idx][None], 1.0, config.L
            )
            loss = layer._objective(params, fit, config.lam)
            opt.zero_grad(set_to_none=True)
            loss.sum().backward()
            opt.step()
    Z_test, w_test = _tasks(gen, EVAL_TASKS, D, config.L)
    est0 = torch.randn(EVAL_TASKS, D, generator=gen)
    test = (Z_test, w_test.double(), est0.double())
    trained = {k: v.detach() for k, v in params.items()}
    E = layer.evaluate_stack(
        config, trained, T_MAX, tasks=EVAL_TASKS, masks=("examples",), test=test
    )
    return E["examples"][0]


@dataclass(frozen=True)
class DrawsSpec:
    """Runs of the book's computation on their draws: every cell of ``cells`` at every seed of
    ``seeds`` (their script's seeds), with ``settings`` (:class:`layer.Config` fields)."""

    cells: tuple
    seeds: tuple
    settings: dict

    def __post_init__(self):
        cells = tuple((int(L), int(M)) for L, M in self.cells)
        seeds = tuple(_checks.nonneg_int("seed", s) for s in self.seeds)
        if not cells or len(set(cells)) != len(cells) or not seeds or len(set(seeds)) != len(seeds):
            raise ValueError("cells and seeds must be non-empty lists without repeats")
        object.__setattr__(self, "cells", cells)
        object.__setattr__(self, "seeds", seeds)
        object.__setattr__(self, "settings", dict(self.settings))
        for L, M in cells:
            self.config(L, M)  # validates every setting

    def config(self, L, M) -> layer.Config:
        return layer.Config(model="linear", L=L, M=M, **self.settings)

    def units(self) -> list:
        return [f"L={L}/M={M}/seed={s}" for L, M in self.cells for s in self.seeds]

    def to_dict(self) -> dict:
        return {"cells": [list(c) for c in self.cells], "seeds": list(self.seeds), **self.settings}

    @classmethod
    def from_dict(cls, d) -> DrawsSpec:
        rest = {k: v for k, v in d.items() if k not in ("cells", "seeds")}
        return cls(tuple(map(tuple, d["cells"])), tuple(d["seeds"]), rest)


_SETTINGS = {"lam": 1e-3, "steps": 5000, "batch": 300, "merged": True, "init_scale": 0.01}

SCALES = {
    "tiny": DrawsSpec(((6, 5), (7, 4)), (3,), dict(_SETTINGS, D=4, steps=10, batch=8)),
    "paper": DrawsSpec(side_by_side.CELLS, side_by_side.SCRIPT_SEEDS, _SETTINGS),
}
"""``tiny`` for tests; ``paper`` (the committed record): every preregistered cell at every
seed of the authors' script's runs."""


@one_thread_unit
def run_unit(spec, unit) -> dict:
    """One run: ``{"E": [E_0 .. E_31], "seconds": ...}``."""
    if not isinstance(spec, DrawsSpec) or unit not in spec.units():
        raise ValueError(f"unit must be one of the DrawsSpec's units, got {unit!r}")
    L, M, seed = (int(part.split("=")[1]) for part in unit.split("/"))
    start = time.perf_counter()
    E = train(spec.config(L, M), seed)
    return {"E": E.tolist(), "seconds": time.perf_counter() - start}


def assemble(spec, results) -> tuple[dict, dict]:
    """``(data, timings_s)``: ``data = {"runs": {unit: E_t}}``."""
    missing = [u for u in spec.units() if u not in results]
    if missing:
        raise ValueError(f"results must hold every unit of the study; missing {missing}")
    runs = {u: results[u]["E"] for u in spec.units()}
    return {"runs": runs}, {u: results[u]["seconds"] for u in spec.units()}
