"""The finite-D correction measured: ``E_t(D)`` simulated at ``lam = 0`` over many pretraining
sets at several ``D``, for the Richardson extrapolation ``D (E_t(D) - E_t) = c_t + d_t / D``
(:func:`cotbook.simulation.against_theory.fit`; :mod:`cotbook.theory.finite_d` derives ``c_1``,
this measures every ``c_t`` it does not).

Each pretraining set gives its pretrained matrix ``A = W^T V (V^T V)^-1`` (exact sizes ``L =
alpha D``, ``M = tau D``) and two estimates of its error curve:

* ``exact`` (``t <= wick.T_MAX``): averaged exactly over the test prompt
  (:func:`cotbook.wick.averaged_errors`), so the spread left is the pretraining sets' own;
* ``sampled`` (``t <= t_max``): averaged over ``test_designs`` random test designs
  (:func:`cotbook.simulation.simulate.design_errors`), for the depths beyond.

Both are unbiased for ``E_t(D)``; where both exist they check each other.  A unit is one point
at one ``D``; it keeps per depth the mean, the standard error, the number of sets and the
largest set's share of the sum (a mean carried by a few rare sets is no mean to extrapolate).

This module simulates only (no theory): Result 1, the Richardson fit and the derived ``c_1``
are put beside the record when it is read
(:func:`cotbook.simulation.against_theory.corrections_table`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .. import _checks, wick
from .._threads import one_thread_unit
from . import pretrain, simulate

__all__ = ["POINTS", "CorrectionsSpec", "SCALES", "set_errors", "run_unit", "assemble"]

#: ``{name: (alpha, tau, sigma2)}``: the points measured.  One per regime of Result 2's
#: decaying side and the two the chapter derives ``c_1`` at; chosen before any ``c_t`` was
#: measured, for their place in the phase diagram, not for their corrections.
POINTS = {
    "exponential": (4.0, 4.0, 1e-4),
    "noisy": (3.0, 5.0, 0.1),
    "slow decay": (2.0, 8.0, 0.01),
    "few tasks": (4.0, 2.0, 0.0),
    "saturation": (0.5, 10.0, 1e-4),
    "chapter (4, 1.5)": (4.0, 1.5, 0.0),
    "chapter (2, 3)": (2.0, 3.0, 0.01),
}


@dataclass(frozen=True)
class CorrectionsSpec:
    """Every point of :data:`POINTS` at every ``D`` of ``dims``, ``sets[i]`` pretraining sets at
    ``dims[i]``, test designs ``test_designs`` per set for the sampled estimate to ``t_max``.

    Examples
    --------
    >>> spec = SCALES["tiny"]
    >>> spec.units()[:2]
    ['exponential/D=20', 'exponential/D=40']
    >>> CorrectionsSpec.from_dict(spec.to_dict()) == spec
    True
    """

    dims: tuple
    sets: tuple
    test_designs: int
    t_max: int
    seed: int = 0

    def __post_init__(self):
        dims = tuple(_checks.positive_int("D", D) for D in self.dims)
        if len(dims) < 2 or len(set(dims)) != len(dims):
            raise ValueError(f"dims must list >= 2 distinct dimensions D >= 1, got {self.dims}")
        sets = tuple(_checks.positive_int("sets", n) for n in self.sets)
        if len(sets) != len(dims) or min(sets) < 2:
            raise ValueError(f"sets must give >= 2 sets for each of the {len(dims)} dims")
        for name, (alpha, tau, _) in POINTS.items():
            for D in dims:
                if not (float(alpha * D).is_integer() and float(tau * D).is_integer()):
                    raise ValueError(f"dims must make L and M integers at {name!r}, not D={D}")
        object.__setattr__(self, "dims", dims)
        object.__setattr__(self, "sets", sets)
        object.__setattr__(
            self, "test_designs", _checks.positive_int("test_designs", self.test_designs)
        )
        t_max = _checks.nonneg_int("t_max", self.t_max)
        if t_max < wick.T_MAX:
            raise ValueError(f"t_max must be >= {wick.T_MAX} (the exact estimate's depth)")
        object.__setattr__(self, "t_max", t_max)
        object.__setattr__(self, "seed", _checks.nonneg_int("seed", self.seed))

    def units(self) -> list:
        """``"<point>/D=<D>"`` for every point and dimension."""
        return [f"{name}/D={D}" for name in POINTS for D in self.dims]

    def to_dict(self) -> dict:
        """The configuration a saved record keeps."""
        return {
            "dims": list(self.dims),
            "sets": list(self.sets),
            "test_designs": self.test_designs,
            "t_max": self.t_max,
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, d) -> CorrectionsSpec:
        """The spec of :meth:`to_dict`'s layout."""
        fields = ("dims", "sets", "test_designs", "t_max", "seed")
        unknown = sorted(set(d) - set(fields))
        if unknown:
            raise ValueError(f"a corrections configuration has only {list(fields)}, got {unknown}")
        return cls(**d)


SCALES = {
    "tiny": CorrectionsSpec(dims=(20, 40), sets=(6, 4), test_designs=1, t_max=4),
    # about an hour on one core: the sets per D fall as the cost per set grows like D^3
    "paper": CorrectionsSpec(
        dims=(100, 200, 400, 800), sets=(4000, 2000, 500, 100), test_designs=4, t_max=10
    ),
}


def set_errors(alpha, tau, sigma2, D, t_max, test_designs, rng) -> tuple:
    """One pretraining set at ``lam = 0``: ``(exact, sampled)``, its error curve averaged
    exactly over the test prompt for ``t <= wick.T_MAX`` and over ``test_designs`` random
    designs for ``t <= t_max`` (the module docstring)."""
    L, M = round(alpha * D), round(tau * D)
    A = pretrain.sampled_solution(D, L, M, sigma2, 0.0, rng)
    exact = wick.averaged_errors(A, L, min(wick.T_MAX, t_max))
    X = rng.standard_normal((test_designs, D, L)) / np.sqrt(D)
    return exact, simulate.design_errors(A, X, t_max).mean(axis=0)


def _summary(values) -> dict:
    n = len(values)
    with np.errstate(invalid="ignore", over="ignore"):
        total = np.abs(values).sum(axis=0)
        return {
            "mean": values.mean(axis=0).tolist(),
            "sem": (values.std(axis=0, ddof=1) / np.sqrt(n)).tolist(),
            "top_share": np.where(total > 0, np.abs(values).max(axis=0) / total, 0.0).tolist(),
        }


@one_thread_unit
def run_unit(spec: CorrectionsSpec, unit) -> dict:
    """One point at one ``D`` (``unit = "<point>/D=<D>"``), seeded by ``SeedSequence([seed,
    point index, D])`` and one spawned stream per set.  Returns ``{"sets", "exact",
    "sampled", "seconds"}``, each estimate's :func:`_summary` per depth."""
    if unit not in spec.units():
        raise ValueError(f"unit must be one of {spec.units()}, got {unit!r}")
    name, D = unit.rsplit("/D=", 1)
    k, D = list(POINTS).index(name), int(D)
    n = spec.sets[spec.dims.index(D)]
    start = time.perf_counter()
    exact, sampled = [], []
    for stream in np.random.SeedSequence([spec.seed, k, D]).spawn(n):
        one = set_errors(
            *POINTS[name], D, spec.t_max, spec.test_designs, np.random.default_rng(stream)
        )
        exact.append(one[0])
        sampled.append(one[1])
    return {
        "sets": n,
        "exact": _summary(np.array(exact)),
        "sampled": _summary(np.array(sampled)),
        "seconds": time.perf_counter() - start,
    }


def assemble(spec: CorrectionsSpec, results) -> tuple[dict, dict]:
    """``(points, timings_s)``: ``points = {name: {"alpha", "tau", "sigma2", "dims": {D:
    unit result less its seconds}}}``."""
    missing = [u for u in spec.units() if u not in results]
    if missing:
        raise ValueError(f"results must hold every unit of the study; missing {missing}")
    out = {
        name: {"alpha": a, "tau": tau, "sigma2": s2, "dims": {}}
        for name, (a, tau, s2) in POINTS.items()
    }
    timings = {}
    for unit in spec.units():
        name, D = unit.rsplit("/D=", 1)
        out[name]["dims"][D] = {k: v for k, v in results[unit].items() if k != "seconds"}
        timings[unit] = results[unit]["seconds"]
    return out, timings
