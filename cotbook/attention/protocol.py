"""The authors' released protocol, run by the book's trainer with several trials per cell.

The heatmaps the authors released (``taka255/cot_asymptotics`` at ``1ed6569``; the record
``authors_released``, :mod:`cotbook.book.authors.runs`) were trained with settings that differ from
those the paper states for Figure 2: ``lambda = 1e-3`` (paper: 1e-5), 5000 Adam steps (paper:
3000), batch 300, one merged ``W = W_K^T W_Q``, parameters from ``0.01 N(0, 1)``, the query
attending to the ``L`` examples only (paper: the examples and every earlier estimate), ``E_t``
for ``t = 0..31`` on 4096 test tasks, and one seed per cell (paper: 5 trials).

:class:`ProtocolSpec` runs those settings (:data:`RELEASED_SETTINGS`) with
:mod:`cotbook.attention.layer` on the authors' ``(L, M)`` cells, ``trials`` times each, so that
each of their single-seed values can be set against a trial-to-trial spread.  Every cell is
evaluated under both masks: ``"examples"`` is their protocol, ``"history"`` the paper's mask at
inference (training is the same under both: a training prompt holds one estimate token).
Their runs made before 2026-04-17 put the marker value 1 on every token, examples included;
this layer marks estimate tokens only, so those runs are not expressible and are not run.

A study is run unit by unit like :mod:`cotbook.attention.grid` (``spec.units()``,
:func:`run_unit`, :func:`assemble`), by ``python -m cotbook experiments --scale paper --only
protocol``: a unit is one ``(model, L, trial)``, its cells trained side by side.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import _checks
from .._threads import one_thread_unit
from . import grid, layer

__all__ = [
    "RELEASED_SETTINGS",
    "LINEAR_SIZES",
    "PAPER_MS",
    "SOFTMAX_LS",
    "SOFTMAX_MS",
    "ProtocolSpec",
    "SCALES",
    "OVERFLOW",
    "UNDEFINED",
    "run_unit",
    "assemble",
]

RELEASED_SETTINGS = {"lam": 1e-3, "steps": 5000, "batch": 300, "merged": True, "init_scale": 0.01}
"""The settings of the authors' released heatmaps (their ``config.txt``), as
:class:`cotbook.attention.layer.Config` fields; the rest (``D = 50``, Adam ``1e-3``, no label
noise) are the layer's defaults."""

LINEAR_SIZES = (10, 38, 66, 94, 121, 149, 177, 205, 233, 261, 289, 316, 344, 372, 400)
"""``M`` and ``L`` (their ``N``) of the authors' linear heatmap, ``latest_linear_heatmap``."""

PAPER_MS = (10, 38, 66, 94, 121, 233, 316, 400)
"""The linear ``M`` the paper scale trains at every ``L`` of :data:`LINEAR_SIZES`: all of the
authors' ``M`` up to 121, where their heatmap's columns change with ``M``, and three above,
where a column only scatters between floors (the chapter measures how far the left-out rows
of their heatmap lie from the kept ones); the book's ``M`` (38, 121, 233, 400) among them, so
that the book-scale cells recur in the paper-scale record with the same seeds."""

SOFTMAX_LS = (27, 100, 268, 518, 1000)
"""Context lengths of the authors' softmax heatmaps the book runs (of their 15 from 10 to 1000:
the panel C run's own ``L`` values where its curves change kind, at ``alpha`` up to 20)."""

SOFTMAX_MS = (100, 139, 193, 268, 373, 518, 720, 1000, 1389, 1931, 2683, 3728, 5179, 7197, 10000)
"""``M`` of the authors' softmax heatmap ``softmax_heatmap_20260417_195912`` (panel C)."""


def _cells(model, cells) -> tuple:
    if model not in layer.MODELS:
        raise ValueError(f"cells must be keyed by a model of {layer.MODELS}, got {model!r}")
    out = tuple(
        (int(_checks.positive_int("L", L)), int(_checks.positive_int("M", M))) for L, M in cells
    )
    if not out or len(set(out)) != len(out):
        raise ValueError(f"cells of {model} must be a non-empty list of distinct (L, M) pairs")
    return out


@dataclass(frozen=True)
class ProtocolSpec:
    """The ``(L, M)`` cells of each model (``cells``: model -> pairs), each trained ``trials``
    times with ``settings`` (:data:`RELEASED_SETTINGS` by default; keys of
    :data:`cotbook.attention.grid.SETTINGS`) and evaluated for ``t = 0..t_max`` (31: the
    authors' depths).

    Examples
    --------
    >>> spec = ProtocolSpec({"linear": [(10, 20), (10, 40), (30, 20)]}, trials=2)
    >>> spec.units()
    ['linear/L=10/trial=0', 'linear/L=10/trial=1', 'linear/L=30/trial=0', 'linear/L=30/trial=1']
    >>> [(c.M, c.lam, c.steps, c.merged) for c in spec.unit_configs("linear/L=10/trial=1")]
    [(20, 0.001, 5000, True), (40, 0.001, 5000, True)]
    >>> ProtocolSpec.from_dict(spec.to_dict()) == spec
    True
    """

    cells: dict
    trials: int
    t_max: int = 31
    settings: dict = field(default_factory=lambda: dict(RELEASED_SETTINGS))

    def __post_init__(self):
        if not isinstance(self.cells, dict) or not self.cells:
            raise ValueError(
                f"cells must be a non-empty dict model -> (L, M) pairs, got {self.cells!r}"
            )
        cells = {m: _cells(m, self.cells[m]) for m in layer.MODELS if m in self.cells}
        if len(cells) != len(self.cells):
            _cells(next(m for m in self.cells if m not in cells), ())  # names the bad model
        object.__setattr__(self, "cells", cells)
        object.__setattr__(self, "trials", _checks.positive_int("trials", self.trials))
        t_max = _checks.positive_int("t_max", self.t_max)
        if t_max < 2:
            raise ValueError(f"t_max must be an integer >= 2, got {t_max}")
        object.__setattr__(self, "t_max", t_max)
        object.__setattr__(self, "settings", grid._settings(self.settings))
        self.configs()  # validates every setting

    def configs(self) -> list:
        """Every :class:`~cotbook.attention.layer.Config`: model, cell, trial."""
        return [
            layer.Config(model=model, L=L, M=M, trial=r, **self.settings)
            for model, cells in self.cells.items()
            for L, M in cells
            for r in range(self.trials)
        ]

    def units(self) -> list:
        """``"<model>/L=<L>/trial=<r>"``: the cells of one ``L`` trained side by side."""
        return [
            f"{model}/L={L}/trial={r}"
            for model, cells in self.cells.items()
            for L in dict.fromkeys(L for L, _ in cells)
            for r in range(self.trials)
        ]

    # the same lookup as the Figure 2 grid's: a unit's configurations, the unit checked
    unit_configs = grid.GridSpec.unit_configs

    def to_dict(self) -> dict:
        """JSON-ready, settings inline: the configuration a saved record keeps."""
        return {
            "cells": {m: [list(c) for c in cells] for m, cells in self.cells.items()},
            "trials": self.trials,
            "t_max": self.t_max,
            **self.settings,
        }

    @classmethod
    def from_dict(cls, d) -> ProtocolSpec:
        return cls(**grid._split(d, ("cells", "trials", "t_max"), "protocol"))


SCALES = {
    "tiny": ProtocolSpec(
        {"linear": [(10, 20), (10, 40)], "softmax": [(10, 20)]},
        trials=2,
        t_max=4,
        settings=dict(RELEASED_SETTINGS, D=8, steps=20),
    ),
    "book": ProtocolSpec(
        {
            "linear": [(L, M) for L in (38, 121, 233, 400) for M in (38, 121, 233, 400)],
            "softmax": [(L, M) for L in SOFTMAX_LS[:3] for M in (100, 1000, 10000)],
        },
        trials=3,
    ),
    "paper": ProtocolSpec(
        {
            "linear": [(L, M) for L in LINEAR_SIZES for M in PAPER_MS],
            "softmax": [(L, M) for L in SOFTMAX_LS for M in (100, 1000, 10000)],
        },
        trials=3,
    ),
}
"""``tiny`` for tests; ``book`` (the committed record, about 25 minutes on one core): 16 of
the authors' linear cells (every third ``L`` and ``M`` from 38 to 400) and their softmax
protocol at ``L = 27, 100, 268`` and one ``M`` per decade, three trials per cell; ``paper``:
every ``L`` of the authors' 15 x 15 linear heatmap at the eight ``M`` of :data:`PAPER_MS`
(the whole grid, 675 trained models, measured at about 3 h on two loaded cores, is over the
2 h budget), three trials per cell, and their softmax protocol at :data:`SOFTMAX_LS` at three
of their ``M`` (one per decade)."""


OVERFLOW = "inf"
"""How a unit and a record store an error beyond the float64 range: JSON has no infinity, and
under these settings some models diverge that fast (measured: a unit at ``L = 38`` whose
mean ``E_t`` overflowed float64 within 31 steps; ``numpy.asarray(values, dtype=float)``
reads it back as ``inf``)."""

UNDEFINED = None
"""How a unit and a record store a value float64 could not compute (JSON ``null``): once one
test task's estimate has overflowed, the next step computes ``inf - inf`` for it, so the mean
over tasks (``E``) is beyond float64 from there on and kept as :data:`OVERFLOW`, while the
median (``E_median``) and the share of unstable tasks (``unstable``) of that curve are unknown
(measured: the paper's history mask at ``L = 10, 38`` under the released protocol).
``numpy.asarray(values, dtype=float)`` reads it back as ``nan``."""


def _mark_overflow(value, where):
    """``value`` (nested lists and dicts of floats) with ``+inf`` as :data:`OVERFLOW`; a NaN or
    ``-inf`` is an error, named by ``where``."""
    if isinstance(value, dict):
        return {k: _mark_overflow(v, f"{where}/{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [_mark_overflow(v, where) for v in value]
    if isinstance(value, float) and not np.isfinite(value):
        if value == np.inf:
            return OVERFLOW
        raise ValueError(f"{where}: {value!r} is not an error value")
    return value


def _after_overflow(run, where) -> dict:
    """``run`` with the values float64 could not compute marked: per mask, a NaN in ``E`` after
    an earlier ``inf`` is :data:`OVERFLOW`, and ``E_median`` (a NaN there) and ``unstable`` of
    that mask are :data:`UNDEFINED`; a NaN with no overflow before it is an error."""
    run = {**run, "E": dict(run["E"]), "E_median": dict(run["E_median"])}
    run["unstable"] = dict(run["unstable"])
    for mask, curve in run["E"].items():
        curve = np.asarray(curve, dtype=float)
        bad = np.isnan(curve)
        if not bad.any():
            continue
        first = int(np.argmax(bad))
        if not np.isinf(curve[:first]).any():
            raise ValueError(f"{where}/E/{mask}: nan at t = {first} with no overflow before it")
        run["E"][mask] = np.where(bad, np.inf, curve).tolist()
        run["E_median"][mask] = [
            UNDEFINED if np.isnan(x) else x for x in np.asarray(run["E_median"][mask], float)
        ]
        run["unstable"][mask] = UNDEFINED
    return run


@one_thread_unit
def run_unit(spec, unit) -> dict:
    """Train and evaluate one unit (:func:`cotbook.attention.grid.train_and_evaluate`):
    ``{"runs": [[config dict, run], ...], "seconds": ...}``, an error beyond float64 kept as
    :data:`OVERFLOW` and a value float64 could not compute as :data:`UNDEFINED`."""
    if not isinstance(spec, ProtocolSpec):
        raise ValueError(f"spec must be a ProtocolSpec, got {type(spec).__name__}")
    out = grid.run_unit(spec, unit)
    out["runs"] = [[c, _mark_overflow(_after_overflow(run, unit), unit)] for c, run in out["runs"]]
    return out


def _undefined(array) -> list:
    """``array`` as nested lists, its NaNs (read from :data:`UNDEFINED`) back to it."""
    if array.ndim == 0:
        return UNDEFINED if np.isnan(array) else float(array)
    return [_undefined(a) for a in array]


def assemble(spec, results) -> tuple[dict, dict]:
    """``(data, timings_s)`` from ``{unit: run_unit(spec, unit)}``: ``data = {"E": {model:
    {mask: [cell][trial][t]}}, "E_median": (same, median over test tasks), "unstable": {model:
    {mask: [cell][trial]}}, "final_loss": {model: [cell][trial]}}``, cells in ``spec.cells``
    order, an error beyond float64 as :data:`OVERFLOW`, a value float64 could not compute as
    :data:`UNDEFINED`; timings are seconds per unit."""
    missing = [u for u in spec.units() if u not in results]
    if missing:
        raise ValueError(f"results must hold every unit of the study; missing {missing}")
    runs = {layer.Config(**c): run for out in results.values() for c, run in out["runs"]}
    data = {key: {} for key in ("E", "E_median", "unstable", "final_loss")}
    for model, cells in spec.cells.items():
        shape = (len(cells), spec.trials)
        curves = {
            k: {m: np.zeros(shape + (spec.t_max + 1,)) for m in layer.MASKS}
            for k in ("E", "E_median")
        }
        unstable = {m: np.zeros(shape) for m in layer.MASKS}
        loss = np.zeros(shape)
        for c in spec.configs():
            if c.model != model:
                continue
            run, index = runs[c], (cells.index((c.L, c.M)), c.trial)
            for key in curves:
                for mask, value in run[key].items():
                    curves[key][mask][index] = value
            for mask, value in run["unstable"].items():
                unstable[mask][index] = value
            loss[index] = run["final_loss"]
        for key in curves:
            data[key][model] = {m: _undefined(v) for m, v in curves[key].items()}
        data["unstable"][model] = {m: _undefined(v) for m, v in unstable.items()}
        data["final_loss"][model] = loss.tolist()
    return _mark_overflow(data, "data"), {u: results[u]["seconds"] for u in spec.units()}
