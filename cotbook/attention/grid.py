"""The paper's Figure 2 runs: trained linear and softmax attention over an (L, M) grid, and the
sensitivity study of the protocol.

Every configuration of :mod:`cotbook.attention.layer` with the paper's settings (D = 50, no
label noise, lambda = 1e-5, Adam 1e-3, batch 300, 3000 steps) is trained once; its test error is
evaluated for ``t = 0..t_max`` under both masks.  All ``M`` values and trials of one ``(model,
L)`` are trained side by side (:func:`cotbook.attention.layer.train`): that group is the unit
of work.  A study is described by a frozen spec (:class:`GridSpec`, :class:`SensitivitySpec`)
and run unit by unit -- ``spec.units()``, ``run_unit(spec, unit)``, ``assemble(spec,
results)`` -- so that a driver can checkpoint each finished unit and resume an interrupted
run; :func:`run` does all units in order.  Every unit is seeded by its configurations alone,
so the assembled result does not depend on the order or grouping of the units run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields

import numpy as np

from .. import _checks
from .._threads import one_thread_unit
from . import layer

__all__ = [
    "SETTINGS",
    "GridSpec",
    "SensitivitySpec",
    "GRID_SCALES",
    "SENSITIVITY_SCALES",
    "VARIANTS",
    "train_and_evaluate",
    "run_unit",
    "assemble",
    "run",
]

SETTINGS = tuple(f.name for f in fields(layer.Config) if f.name not in ("model", "L", "M", "trial"))
"""The per-run settings a study fixes for all its configurations (a :class:`Config` less its
position in the study: model, L, M, trial)."""

_DEFAULTS = {f.name: f.default for f in fields(layer.Config) if f.name in SETTINGS}


def _settings(settings) -> dict:
    settings = dict(settings)
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise ValueError(f"settings must be among {list(SETTINGS)}, got {unknown}")
    return {**_DEFAULTS, **settings}


def _split(d, own, what) -> dict:
    """Constructor arguments from a flat configuration: the ``own`` keys, the rest as settings."""
    settings = dict(d)
    try:
        args = {k: settings.pop(k) for k in own}
    except KeyError as missing:
        raise ValueError(f"a {what} configuration needs {missing}") from None
    return {**args, "settings": settings}


def _sizes(name, values) -> tuple:
    values = tuple(_checks.positive_int(name, v) for v in values)
    if not values or len(set(values)) != len(values):
        raise ValueError(f"{name} must be a non-empty list of distinct integers >= 1")
    return values


@dataclass(frozen=True)
class GridSpec:
    """The Figure 2 grid: every model, ``L`` in ``Ls``, ``M`` in ``Ms`` and trial, each run with
    ``settings`` (keys of :data:`SETTINGS`; the rest take :class:`layer.Config`'s defaults),
    evaluated for ``t = 0..t_max``.

    Examples
    --------
    >>> spec = GridSpec(Ls=(10, 50), Ms=(25,), trials=2,
    ...                 settings={"steps": 1000})
    >>> len(spec.configs()), spec.settings["D"], spec.units()[0]
    (8, 50, 'linear/L=10/trial=0')
    >>> GridSpec.from_dict(spec.to_dict()) == spec
    True
    """

    Ls: tuple
    Ms: tuple
    trials: int
    t_max: int = 40
    settings: dict = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "Ls", _sizes("Ls", self.Ls))
        object.__setattr__(self, "Ms", _sizes("Ms", self.Ms))
        object.__setattr__(self, "trials", _checks.positive_int("trials", self.trials))
        t_max = _checks.positive_int("t_max", self.t_max)
        if t_max < 2:
            raise ValueError(f"t_max must be an integer >= 2, got {t_max}")
        object.__setattr__(self, "t_max", t_max)
        object.__setattr__(self, "settings", _settings(self.settings))
        self.configs()  # validates every setting

    def configs(self) -> list:
        """Every :class:`layer.Config` of the grid: both models, every ``L``, ``M``, trial."""
        return [
            layer.Config(model=model, L=L, M=M, trial=r, **self.settings)
            for model in layer.MODELS
            for L in self.Ls
            for M in self.Ms
            for r in range(self.trials)
        ]

    def units(self) -> list:
        """The units of work, ``"<model>/L=<L>/trial=<r>"``: one row of the grid, its ``M``
        trained side by side (a unit trains the same numbers as the whole column of trials
        trained at once: each trial has its own stream)."""
        return [
            f"{model}/L={L}/trial={r}"
            for model in layer.MODELS
            for L in self.Ls
            for r in range(self.trials)
        ]

    def unit_configs(self, unit) -> list:
        if unit not in self.units():
            raise ValueError(f"unit must be one of {self.units()}, got {unit!r}")
        return [c for c in self.configs() if f"{c.model}/L={c.L}/trial={c.trial}" == unit]

    def to_dict(self) -> dict:
        """The spec as a flat JSON-ready dict (its settings inline): the configuration a saved
        record keeps."""
        return {
            "Ls": list(self.Ls),
            "Ms": list(self.Ms),
            "trials": self.trials,
            "t_max": self.t_max,
            **self.settings,
        }

    @classmethod
    def from_dict(cls, d) -> GridSpec:
        """The spec of :meth:`to_dict`'s layout (the saved record's configuration)."""
        return cls(**_split(d, ("Ls", "Ms", "trials", "t_max"), "grid"))


VARIANTS = {
    "paper": {},
    "steps = 1000": dict(steps=1000),
    "steps = 10000": dict(steps=10000),
    "lambda = 1e-3": dict(lam=1e-3),
    "merged W": dict(merged=True),
}
"""Each variant changes one setting of the paper's protocol (the "paper" row is the baseline)."""


@dataclass(frozen=True)
class SensitivitySpec:
    """Both models at each ``(L, M)`` of ``points`` under each of ``variants`` (name -> changed
    settings), ``trials`` times, evaluated for ``t = 0..t_max``."""

    points: tuple
    trials: int
    t_max: int = 40
    variants: dict = field(default_factory=lambda: dict(VARIANTS))
    settings: dict = field(default_factory=dict)

    def __post_init__(self):
        points = tuple(tuple(_sizes("points", p)) for p in self.points)
        if not points or any(len(p) != 2 for p in points):
            raise ValueError(f"points must be a non-empty list of (L, M) pairs, got {self.points}")
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "trials", _checks.positive_int("trials", self.trials))
        object.__setattr__(self, "t_max", _checks.positive_int("t_max", self.t_max))
        object.__setattr__(self, "settings", _settings(self.settings))
        variants = {str(k): dict(v) for k, v in dict(self.variants).items()}
        if not variants:
            raise ValueError("variants must name at least one variant")
        for change in variants.values():
            _settings(change)
        object.__setattr__(self, "variants", variants)
        self.configs()

    def configs(self) -> dict:
        """``{(variant, model, point index, trial): Config}``."""
        return {
            (name, model, k, r): layer.Config(
                model=model, L=L, M=M, trial=r, **{**self.settings, **change}
            )
            for name, change in self.variants.items()
            for model in layer.MODELS
            for k, (L, M) in enumerate(self.points)
            for r in range(self.trials)
        }

    def units(self) -> list:
        """``"<variant>/<model>/L=<L>"``: the configurations trained side by side."""
        seen = dict.fromkeys(
            f"{name}/{model}/L={self.points[k][0]}" for (name, model, k, _) in self.configs()
        )
        return list(seen)

    def unit_configs(self, unit) -> list:
        if unit not in self.units():
            raise ValueError(f"unit must be one of {self.units()}, got {unit!r}")
        return [
            c
            for (name, model, k, _), c in self.configs().items()
            if f"{name}/{model}/L={self.points[k][0]}" == unit
        ]

    def to_dict(self) -> dict:
        return {
            "points": [list(p) for p in self.points],
            "trials": self.trials,
            "t_max": self.t_max,
            "variants": self.variants,
            **self.settings,
        }

    @classmethod
    def from_dict(cls, d) -> SensitivitySpec:
        """The spec of :meth:`to_dict`'s layout (the saved record's configuration)."""
        return cls(**_split(d, ("points", "trials", "t_max", "variants"), "sensitivity"))


GRID_SCALES = {
    # A few seconds: for trying the command line and for the tests.
    "tiny": GridSpec(Ls=(5, 20), Ms=(10, 40), trials=2, t_max=4, settings=dict(D=8, steps=20)),
    # L and M geometric, from well below D = 50 to well above it.  Book scale trains for 1000
    # steps instead of the paper's 3000 to fit a chapter's time budget.
    "book": GridSpec(Ls=(10, 50, 160), Ms=(25, 400, 3200), trials=2, settings=dict(steps=1000)),
    "paper": GridSpec(
        Ls=(10, 15, 25, 35, 50, 75, 110, 160),
        Ms=(25, 50, 100, 200, 400, 800, 1600, 3200),
        trials=5,
    ),
}
SENSITIVITY_SCALES = {
    "tiny": SensitivitySpec(
        points=((5, 40),),
        trials=1,
        t_max=4,
        variants={"paper": {}, "merged W": dict(merged=True)},
        settings=dict(D=8, steps=20),
    ),
    "book": SensitivitySpec(points=((25, 3200), (50, 100), (160, 3200)), trials=1),
    "paper": SensitivitySpec(points=((25, 3200), (50, 100), (160, 3200)), trials=2),
}


def train_and_evaluate(configs, t_max) -> dict:
    """Train ``configs`` -- configurations that can share a tensor program (equal
    :meth:`Config.group_key`) -- together, and evaluate each under both masks.

    Returns ``{config: {"E": {mask: mean error over the test tasks, t = 0..t_max},
    "E_median": {mask: median over the test tasks}, "unstable": {mask: share of test tasks
    whose error at t_max exceeds their error at t = 0}, "final_loss": mean training objective
    over the last 100 steps}}``.
    """
    if len({c.group_key() for c in configs}) != 1:
        raise ValueError("configs must share one group_key (one training program)")
    params, losses = layer.train(configs)
    runs = {}
    # Test tasks depend on (L, trial) only: the configurations of one trial are evaluated
    # together on them.
    for trial in sorted({c.trial for c in configs}):
        rows = [g for g, c in enumerate(configs) if c.trial == trial]
        stack = {k: v[rows] for k, v in params.items()}
        errors = layer.evaluate_stack(configs[rows[0]], stack, t_max, per_task=True)
        for i, g in enumerate(rows):
            runs[configs[g]] = {
                "E": {k: v[i].mean(0).tolist() for k, v in errors.items()},
                "E_median": {k: np.median(v[i], 0).tolist() for k, v in errors.items()},
                "unstable": {
                    k: float(np.mean(v[i, :, -1] > v[i, :, 0])) for k, v in errors.items()
                },
                "final_loss": float(losses[-100:, g].mean()),
            }
    return runs


@one_thread_unit
def run_unit(spec, unit) -> dict:
    """Train and evaluate one unit of ``spec`` (a :class:`GridSpec` or
    :class:`SensitivitySpec`).  Returns a JSON-ready ``{"runs": [[config dict, run], ...],
    "seconds": wall-clock seconds}`` (run as in :func:`train_and_evaluate`)."""
    start = time.perf_counter()
    runs = train_and_evaluate(spec.unit_configs(unit), spec.t_max)
    return {
        "runs": [[c.as_dict(), run] for c, run in runs.items()],
        "seconds": time.perf_counter() - start,
    }


def _runs(results) -> dict:
    return {layer.Config(**c): run for out in results.values() for c, run in out["runs"]}


def assemble(spec, results) -> tuple[dict, dict]:
    """``(data, timings_s)`` of a whole study from ``{unit: run_unit(spec, unit)}``.

    Grid: ``data = {"E": {model: {mask: [L][M][trial][t]}}, "E_median": (same, median over
    test tasks), "unstable": {model: {mask: [L][M][trial]}}, "final_loss": {model:
    [L][M][trial]}}``.  Sensitivity: ``{"E": {variant: {model: {mask: [point][trial][t]}}},
    "E_median": (same)}``.  Timings are seconds per unit.
    """
    missing = [u for u in spec.units() if u not in results]
    if missing:
        raise ValueError(f"results must hold every unit of the study; missing {missing}")
    runs = _runs(results)
    timings = {u: results[u]["seconds"] for u in spec.units()}
    if isinstance(spec, SensitivitySpec):
        return _assemble_sensitivity(spec, runs), timings
    shape = (len(spec.Ls), len(spec.Ms), spec.trials)
    out = {
        key: {m: {k: np.zeros(shape + tail) for k in layer.MASKS} for m in layer.MODELS}
        for key, tail in (
            ("E", (spec.t_max + 1,)),
            ("E_median", (spec.t_max + 1,)),
            ("unstable", ()),
        )
    }
    loss = {m: np.zeros(shape) for m in layer.MODELS}
    for c in spec.configs():
        run = runs[c]
        index = (spec.Ls.index(c.L), spec.Ms.index(c.M), c.trial)
        for key in out:
            for mask, value in run[key].items():
                out[key][c.model][mask][index] = value
        loss[c.model][index] = run["final_loss"]
    data = {
        key: {m: {k: v.tolist() for k, v in by.items()} for m, by in d.items()}
        for key, d in out.items()
    }
    data["final_loss"] = {m: v.tolist() for m, v in loss.items()}
    return data, timings


def _assemble_sensitivity(spec, runs) -> dict:
    out = {
        key: {
            name: {
                m: {mask: [[None] * spec.trials for _ in spec.points] for mask in layer.MASKS}
                for m in layer.MODELS
            }
            for name in spec.variants
        }
        for key in ("E", "E_median")
    }
    for (name, model, k, r), c in spec.configs().items():
        for key in out:
            for mask, curve in runs[c][key].items():
                out[key][name][model][mask][k][r] = curve
    return out


def run(spec, *, progress=False) -> tuple[dict, dict]:
    """Every unit of ``spec`` in order, assembled: ``(data, timings_s)`` (:func:`assemble`)."""
    units = spec.units()
    if progress:
        from tqdm import tqdm

        units = tqdm(units, desc="units", unit="unit")
    return assemble(spec, {u: run_unit(spec, u) for u in units})
