"""The lottery of the late-depth mean: one trained model, several independent test sets.

Every cell of the authors' released heatmaps (and of the book's Figure 2 grid) is a mean over
one set of test tasks.  At late depth that mean can be carried by a few tasks whose CoT map
expands, so which tasks a set happens to draw decides its value, while the median stays put.
This module measures that on one model trained with the authors' linear heatmap protocol
(:data:`cotbook.attention.protocol.RELEASED_SETTINGS`): :func:`train_one`, evaluated on
:func:`fresh_test_sets` (:func:`per_task_errors`), summarised per set (:func:`carriers`,
:func:`summarise`, :func:`from_record`).

It is a study like :mod:`cotbook.attention.grid` (:class:`LotterySpec`, :func:`run_unit`,
:func:`assemble`), run by ``python -m cotbook experiments --scale book --only lottery`` into
the record ``authors_lottery`` that the chapter on the authors' runs reads.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import torch

from .. import _checks
from .._threads import one_thread_unit
from . import grid, layer, protocol, softmax_study

__all__ = [
    "LotterySpec",
    "SCALES",
    "train_one",
    "fresh_test_sets",
    "per_task_errors",
    "carriers",
    "SetSummary",
    "summarise",
    "from_record",
    "run_unit",
    "assemble",
    "run",
]


@dataclass(frozen=True)
class LotterySpec:
    """One linear model at ``(L, M)``, trained with ``settings`` (keys of
    :data:`cotbook.attention.grid.SETTINGS`; the authors' released heatmap settings by
    default) and evaluated under the examples-only mask on ``sets`` independent test sets of
    ``tasks`` tasks each, ``t = 0..t_max``.

    Examples
    --------
    >>> spec = LotterySpec(L=121, M=400, sets=8)
    >>> spec.units(), spec.config().lam, spec.config().steps
    (['linear/L=121/M=400'], 0.001, 5000)
    >>> LotterySpec.from_dict(spec.to_dict()) == spec
    True
    """

    L: int
    M: int
    sets: int
    tasks: int = 4096
    t_max: int = 28
    settings: dict = field(default_factory=lambda: dict(protocol.RELEASED_SETTINGS))

    def __post_init__(self):
        for name in ("L", "M", "sets", "tasks"):
            object.__setattr__(self, name, _checks.positive_int(name, getattr(self, name)))
        if self.sets < 2:
            raise ValueError(f"sets must be an integer >= 2 (a spread needs two), got {self.sets}")
        object.__setattr__(self, "t_max", _checks.positive_int("t_max", self.t_max))
        object.__setattr__(self, "settings", grid._settings(self.settings))
        self.config()  # validates every setting

    def config(self) -> layer.Config:
        """The one trained configuration."""
        return layer.Config(model="linear", L=self.L, M=self.M, **self.settings)

    def units(self) -> list:
        return [f"linear/L={self.L}/M={self.M}"]

    def to_dict(self) -> dict:
        """JSON-ready, settings inline: the configuration a saved record keeps."""
        return {"L": self.L, "M": self.M, "sets": self.sets, "tasks": self.tasks,
                "t_max": self.t_max, **self.settings}  # fmt: skip

    @classmethod
    def from_dict(cls, d) -> LotterySpec:
        return cls(**grid._split(d, ("L", "M", "sets", "tasks", "t_max"), "lottery"))


SCALES = {
    "tiny": LotterySpec(
        L=6,
        M=12,
        sets=3,
        tasks=64,
        t_max=4,
        settings=dict(protocol.RELEASED_SETTINGS, D=4, steps=20),
    ),
    "book": LotterySpec(L=121, M=400, sets=8),
}
"""``tiny`` for tests; ``book``: the authors' cell ``(L, M) = (121, 400)`` (``alpha = 2.42``,
``tau = 8``), eight test sets of 4096 tasks (their test-set size), ``t`` to 28."""


def train_one(config):
    """Train one configuration (:func:`cotbook.attention.layer.train`) on one torch thread
    (the results are the same; on a busy machine two threads wait on each other).  Returns
    its parameters, stacking axis of 1."""
    with softmax_study._one_torch_thread():
        params, _ = layer.train([config])
    return params


def fresh_test_sets(config, count, *, tasks=4096, seed=0) -> list:
    """``count`` independent test sets for ``config``, each ``tasks`` fresh tasks with random
    first estimates, drawn as :func:`cotbook.attention.layer.test_set` draws its one set but
    from the seeds of ``SeedSequence([seed, k])``, ``k = 0..count-1``.

    Returns
    -------
    list of tuple
        ``(Z, w, est0)`` per set, as :func:`cotbook.attention.layer.evaluate_stack` takes
        them (``test=``).

    Examples
    --------
    >>> config = layer.Config(model="linear", L=5, M=8, D=4)
    >>> sets = fresh_test_sets(config, 2, tasks=3)
    >>> len(sets), tuple(sets[0][0].shape), bool((sets[0][1] != sets[1][1]).all())
    (2, (3, 5, 5), True)
    """
    count = _checks.positive_int("count", count)
    tasks = _checks.positive_int("tasks", tasks)
    seed = _checks.nonneg_int("seed", seed)
    out = []
    for k in range(count):
        rows, first = np.random.SeedSequence([seed, k]).generate_state(2)
        Z, w = layer.example_rows(tasks, config.D, config.L, config.sigma2, int(rows))
        gen = torch.Generator().manual_seed(int(first))
        est0 = torch.randn(tasks, config.D, generator=gen, dtype=torch.float64)
        out.append((Z, w.double(), est0))
    return out


def per_task_errors(config, params, sets, t_max, mask="examples") -> np.ndarray:
    """Each test task's error ``||w - w_hat_t||^2 / D`` on each test set
    (:func:`fresh_test_sets`), ``t = 0..t_max``, under ``mask``: an array ``(sets, tasks,
    t_max + 1)``."""
    if mask not in layer.MASKS:
        raise ValueError(f"mask must be one of {layer.MASKS}, got {mask!r}")
    if not sets:
        raise ValueError("sets must hold at least one test set")
    t_max = _checks.nonneg_int("t_max", t_max)
    return np.stack(
        [
            layer.evaluate_stack(
                config, params, t_max, tasks=s[0].shape[0], masks=(mask,), test=s, per_task=True
            )[mask][0]
            for s in sets
        ]
    )


def carriers(errors, share=0.5) -> int:
    """The fewest tasks whose errors sum to at least ``share`` of the total: how many tasks
    carry that share of the mean.

    Examples
    --------
    >>> carriers([100.0, 1.0, 1.0, 1.0]), carriers(np.ones(10))
    (1, 5)
    """
    errors = _checks.array("errors", errors, ndim=1)
    if errors.size == 0 or np.any(errors < 0):
        raise ValueError("errors must be a non-empty array of errors >= 0")
    share = _checks.real("share", share, "a number in (0, 1]")
    if not 0 < share <= 1:
        raise ValueError(f"share must be a number in (0, 1], got {share!r}")
    total = np.cumsum(np.sort(errors)[::-1])
    return int(np.searchsorted(total, share * total[-1] * (1 - 1e-12)) + 1)


class SetSummary(NamedTuple):
    """Per test set (:func:`from_record`), at the chosen depths."""

    mean: np.ndarray
    """``mean[k, i]``: the mean over set ``k``'s tasks at ``depths[i]`` (the paper's MSE)."""
    median: np.ndarray
    """``median[k, i]``: the median over them (the typical task)."""
    carriers: np.ndarray
    """``carriers[k]``: :func:`carriers` of set ``k`` at ``carry_depth``."""


def summarise(errors) -> dict:
    """Per test set and depth, from :func:`per_task_errors` ``(sets, tasks, t)``: the mean and
    median over the set's tasks and :func:`carriers` of half the mean, ``{"mean", "median",
    "carriers"}`` each ``[set][t]`` (the record's data, :func:`assemble`)."""
    errors = np.asarray(errors, dtype=float)
    if errors.ndim != 3 or np.isnan(errors).any():
        raise ValueError(f"errors must be (sets, tasks, t) with no NaN, got shape {errors.shape}")
    return {
        "mean": errors.mean(axis=1).tolist(),
        "median": np.median(errors, axis=1).tolist(),
        "carriers": [[carriers(e[:, t]) for t in range(errors.shape[2])] for e in errors],
    }


def from_record(data, depths, carry_depth) -> SetSummary:
    """:class:`SetSummary` at ``depths``, carriers at ``carry_depth``, from a saved record's
    data (:func:`assemble`, :func:`summarise`)."""
    mean, median = (np.asarray(data[k], dtype=float) for k in ("mean", "median"))
    last = mean.shape[1] - 1
    picked = [_checks.nonneg_int("depths", t) for t in depths]
    carry = _checks.nonneg_int("carry_depth", carry_depth)
    if max(picked + [carry]) > last:
        raise ValueError(f"depths and carry_depth must be in [0, {last}], got {picked + [carry]}")
    return SetSummary(
        mean[:, picked], median[:, picked], np.asarray(data["carriers"], dtype=int)[:, carry]
    )


@one_thread_unit
def run_unit(spec, unit) -> dict:
    """Train the spec's model and evaluate it on every test set: per set and depth ``t =
    0..t_max``, the mean and median over the set's tasks and :func:`carriers` of half the
    mean (an error beyond float64 kept as :data:`cotbook.attention.protocol.OVERFLOW`)."""
    if not isinstance(spec, LotterySpec):
        raise ValueError(f"spec must be a LotterySpec, got {type(spec).__name__}")
    if unit not in spec.units():
        raise ValueError(f"unit must be one of {spec.units()}, got {unit!r}")
    start = time.perf_counter()
    config = spec.config()
    params = train_one(config)
    sets = fresh_test_sets(config, spec.sets, tasks=spec.tasks, seed=config.seed)
    errors = per_task_errors(config, params, sets, spec.t_max)
    out = dict(summarise(errors), seconds=time.perf_counter() - start)
    return protocol._mark_overflow(out, unit)


def assemble(spec, results) -> tuple[dict, dict]:
    """``(data, timings_s)`` from ``{unit: run_unit(spec, unit)}``: ``data = {"mean":
    [set][t], "median": [set][t], "carriers": [set][t]}``."""
    (unit,) = spec.units()
    if unit not in results:
        raise ValueError(f"results must hold the unit {unit!r}")
    done = results[unit]
    return {k: done[k] for k in ("mean", "median", "carriers")}, {unit: done["seconds"]}


def run(spec) -> tuple[dict, dict]:
    """The whole study in this process: :func:`assemble` of :func:`run_unit`."""
    return assemble(spec, {u: run_unit(spec, u) for u in spec.units()})
