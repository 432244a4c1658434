"""Theory against finite-D simulation: the paper's Appendix E study and a finite-size analysis.

Four panels, one per regime of Result 2, compare the ``D -> infinity`` curve of Result 1
(:func:`cotbook.theory.error_curve`, lambda = 0) with simulations of the pretrained model at
several ``D`` (:func:`cotbook.simulation.simulated_curve`, lambda = 1e-5 as in the paper's
caption).

The paper's Appendix E caption gives ``sigma = 0.01``; read as a standard deviation (as the
authors' public code does) that is ``sigma2 = 1e-4``, the default here.  Its Figure 1 caption
gives ``sigma^2 = 0.01`` instead; the chapter shows how much the choice matters.

This module simulates only: it imports no theory, so its records stale when the simulation
changes, not when the theory engine does.  Result 1's curve beside each panel is added by
:mod:`cotbook.simulation.against_theory` when a study is read; the critical panel's
``tau_c`` is tabulated (:data:`CRITICAL_TAU`, checked against the theory by the tests).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .. import _checks
from .._threads import one_thread_unit
from . import simulate

__all__ = [
    "SIGMA2",
    "LAM",
    "CRITICAL_TAU",
    "SimulationSpec",
    "SCALES",
    "MAIN_PANELS",
    "panels",
    "run_unit",
    "assemble",
    "run",
    "relative_deviation",
    "scaling_exponent",
    "trusted_depth",
    "small_depth_table",
    "deviation_with_sem_table",
    "worst_deviation",
    "scaling_table",
    "tail_table",
    "trusted_depths",
    "trusted_depth_table",
]

SIGMA2 = 1e-4
LAM = 1e-5
#: ``tau_c(2, sigma2)`` of Result 2 (:func:`cotbook.theory.phases.tau_c`), the critical
#: panel's tau, at the label noises a study may use: the two readings of the paper's noise
#: level (Appendix E's sigma = 0.01 as a standard deviation, and as a variance) and none.
#: Tabulated so that the simulation imports no theory; the tests check every entry exactly.
CRITICAL_TAU = {0.0: 3.4999999999999996, 1e-4: 3.498051818189868, 1e-2: 3.3215571947567883}


# The panels of the paper's Appendix E figure, one per regime of Result 2.
MAIN_PANELS = ("saturation", "overthinking", "critical", "exponential")


def panels(sigma2=SIGMA2) -> dict:
    """``{name: (alpha, tau)}``: the four :data:`MAIN_PANELS`, one point inside each regime of
    Result 2, and one deeper overthinking point.

    Saturation ``(0.5, 10)``: alpha < 1 and tau above tau_c(0.5); overthinking ``(2, 3)``: tau
    below tau_c(2) ~ 3.5 (the authors' public verification notebook uses alpha = 2, tau = 3);
    critical ``(2, tau_c(2, sigma2))``; exponential ``(4, 4)``; deep overthinking ``(2, 2)``:
    far below tau_c, where finite-D errors are amplified fastest.  ``sigma2`` must be one of
    :data:`CRITICAL_TAU`'s.
    """
    sigma2 = _checks.nonnegative("sigma2", sigma2)
    if sigma2 not in CRITICAL_TAU:
        raise ValueError(
            f"sigma2 must be one of {sorted(CRITICAL_TAU)} (where the critical panel's "
            f"tau_c(2, sigma2) is tabulated, finite_size.CRITICAL_TAU), got {sigma2!r}"
        )
    return {
        "saturation": (0.5, 10.0),
        "overthinking": (2.0, 3.0),
        "critical": (2.0, CRITICAL_TAU[sigma2]),
        "exponential": (4.0, 4.0),
        "deep overthinking": (2.0, 2.0),
    }


@dataclass(frozen=True)
class SimulationSpec:
    """The theory-vs-simulation study: each of the :func:`panels` simulated at every ``D`` in
    ``dims`` (``trials`` pretraining sets, ``test_designs`` test designs each, ``t <= t_max``),
    with label noise ``sigma2`` and ridge ``lam``; the unit of work is one panel at one ``D``.

    Examples
    --------
    >>> spec = SCALES["tiny"]
    >>> spec.units()[:2]
    ['saturation/D=20', 'saturation/D=40']
    >>> SimulationSpec.from_dict(spec.to_dict()) == spec
    True
    """

    dims: tuple
    trials: int
    test_designs: int
    t_max: int
    sigma2: float = SIGMA2
    lam: float = LAM
    seed: int = 0

    def __post_init__(self):
        dims = tuple(_checks.positive_int("D", D) for D in self.dims)
        if not dims or len(set(dims)) != len(dims):
            raise ValueError(f"dims must list distinct dimensions D >= 1, got {self.dims}")
        object.__setattr__(self, "dims", dims)
        trials = _checks.positive_int("trials", self.trials)
        if trials < 2:
            raise ValueError(f"trials must be an integer >= 2 (the SEM needs two), got {trials}")
        object.__setattr__(self, "trials", trials)
        object.__setattr__(
            self, "test_designs", _checks.positive_int("test_designs", self.test_designs)
        )
        object.__setattr__(self, "t_max", _checks.nonneg_int("t_max", self.t_max))
        object.__setattr__(self, "sigma2", _checks.nonnegative("sigma2", self.sigma2))
        panels(self.sigma2)  # a noise level whose critical panel is known
        object.__setattr__(self, "lam", _checks.nonnegative("lam", self.lam))
        object.__setattr__(self, "seed", _checks.nonneg_int("seed", self.seed))

    def units(self) -> list:
        """``"<panel>/D=<D>"`` for every panel and dimension."""
        return [f"{name}/D={D}" for name in panels(self.sigma2) for D in self.dims]

    def to_dict(self) -> dict:
        """The spec as a flat JSON-ready dict: the configuration a saved record keeps."""
        return {
            "dims": list(self.dims),
            "trials": self.trials,
            "test_designs": self.test_designs,
            "t_max": self.t_max,
            "sigma2": self.sigma2,
            "lam": self.lam,
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, d) -> SimulationSpec:
        """The spec of :meth:`to_dict`'s layout (the saved record's configuration)."""
        fields = ("dims", "trials", "test_designs", "t_max", "sigma2", "lam", "seed")
        unknown = sorted(set(d) - set(fields))
        if unknown:
            raise ValueError(f"a simulation configuration has only {list(fields)}, got {unknown}")
        return cls(**d)


SCALES = {
    "tiny": SimulationSpec(dims=(20, 40), trials=2, test_designs=1, t_max=5),
    "book": SimulationSpec(dims=(100, 200, 400, 800), trials=5, test_designs=2, t_max=30),
    "paper": SimulationSpec(dims=(100, 200, 400, 800, 1600), trials=5, test_designs=2, t_max=30),
    # More trials at small depth, to measure the t <= 5 agreement beyond the noise of 5 trials.
    "precision": SimulationSpec(dims=(800, 1600), trials=20, test_designs=2, t_max=5),
}


def _seed(seed, panel_index, D):
    return int(np.random.SeedSequence([seed, panel_index, D]).generate_state(1)[0])


@one_thread_unit
def run_unit(spec: SimulationSpec, unit) -> dict:
    """Simulate one panel at one ``D`` (``unit = "<panel>/D=<D>"``).  Returns a JSON-ready
    ``{"mean", "sem", "per_trial", "seconds"}``.  Panel ``k`` (its position in :func:`panels`)
    at dimension ``D`` is seeded by ``SeedSequence([seed, k, D])``, so any unit can be
    recomputed on its own."""
    if unit not in spec.units():
        raise ValueError(f"unit must be one of {spec.units()}, got {unit!r}")
    name, D = unit.rsplit("/D=", 1)
    chosen = panels(spec.sigma2)
    k, (alpha, tau), D = list(chosen).index(name), chosen[name], int(D)
    start = time.perf_counter()
    curve = simulate.simulated_curve(
        alpha,
        tau,
        spec.sigma2,
        spec.t_max,
        D=D,
        lam=spec.lam,
        trials=spec.trials,
        test_designs=spec.test_designs,
        seed=_seed(spec.seed, k, D),
    )
    return {
        "mean": curve.mean.tolist(),
        "sem": curve.sem.tolist(),
        "per_trial": curve.per_trial.tolist(),
        "seconds": time.perf_counter() - start,
    }


def assemble(spec: SimulationSpec, results) -> tuple[dict, dict]:
    """``(panels, timings_s)`` from ``{unit: run_unit(spec, unit)}``: ``panels = {regime:
    {"alpha", "tau", "sims": {D: {"mean", "sem", "per_trial"}}}}``
    (:func:`cotbook.simulation.against_theory.with_theory` adds Result 1's curve)."""
    missing = [u for u in spec.units() if u not in results]
    if missing:
        raise ValueError(f"results must hold every unit of the study; missing {missing}")
    out = {
        regime: {
            "alpha": a,
            "tau": tau,
            "sims": {},
        }
        for regime, (a, tau) in panels(spec.sigma2).items()
    }
    timings = {}
    for unit in spec.units():
        regime, D = unit.rsplit("/D=", 1)
        result = results[unit]
        out[regime]["sims"][D] = {k: result[k] for k in ("mean", "sem", "per_trial")}
        timings[unit] = result["seconds"]
    return out, timings


def run(spec: SimulationSpec, *, progress=False) -> tuple[dict, dict]:
    """Every unit of ``spec`` in order, assembled (:func:`assemble`)."""
    units = spec.units()
    if progress:
        from tqdm import tqdm

        units = tqdm(units, desc="simulations", unit="run")
    return assemble(spec, {u: run_unit(spec, u) for u in units})


def relative_deviation(values, theory_curve):
    """``(values - theory) / theory`` along the last axis (per trial, or for the mean)."""
    values = _checks.array("values", values)
    theory_curve = _checks.array("theory_curve", theory_curve, ndim=1)
    if values.shape[-1] != theory_curve.size or np.any(theory_curve <= 0):
        raise ValueError(
            "theory_curve must be positive and as long as the last axis of values "
            f"({values.shape[-1]}), got length {theory_curve.size}"
        )
    return values / theory_curve - 1.0


def scaling_exponent(dims, deviations) -> float:
    """Least-squares slope of ``log |deviation|`` against ``log D``: deviation ~ D^slope."""
    dims = _checks.array("dims", dims, ndim=1)
    deviations = np.abs(_checks.array("deviations", deviations, ndim=1))
    if dims.size != deviations.size or dims.size < 2 or np.any(dims <= 0):
        raise ValueError("dims must be >= 2 positive sizes, one per deviation")
    if np.any(deviations == 0):
        raise ValueError("deviations must be non-zero to take their logarithm")
    return float(np.polyfit(np.log(dims), np.log(deviations), 1)[0])


def trusted_depth(deviation, tol) -> int:
    """Largest ``t`` with ``|deviation_s| <= tol`` for every ``s <= t``.

    Returns -1 when the deviation exceeds ``tol`` already at ``t = 0``.
    """
    deviation = np.abs(_checks.array("deviation", deviation, ndim=1))
    tol = _checks.positive("tol", tol)
    bad = np.nonzero(deviation > tol)[0]
    return int(bad[0] - 1) if bad.size else int(deviation.size - 1)


# --- Tables for the chapter: each returns (headers, rows) for cotbook.book.report.markdown; ---
# --- their panels carry Result 1's curve as "theory" (against_theory.with_theory).          ---


def _dims(panel):
    return sorted(panel["sims"], key=int)


def _deviation(panel, D, key="mean"):
    return relative_deviation(np.asarray(panel["sims"][D][key]), np.asarray(panel["theory"]))


def small_depth_table(study_panels, t_max=5):
    """Per panel and D: the largest |relative deviation| of the mean and the largest SEM/theory
    over ``1 <= t <= t_max``."""
    rows = []
    for regime, panel in study_panels.items():
        th = np.asarray(panel["theory"])[: t_max + 1]
        for D in _dims(panel):
            sem = np.asarray(panel["sims"][D]["sem"])[: t_max + 1] / th
            dev = _deviation(panel, D)[: t_max + 1]
            rows.append([regime, int(D), float(np.max(np.abs(dev))), float(np.max(sem))])
    return ["panel", "D", f"max_t<={t_max} |deviation|", f"max_t<={t_max} SEM/theory"], rows


def deviation_with_sem_table(study_panels, depths):
    """Per panel and D: ``deviation +- SEM`` (relative to theory, in per cent) at ``depths``."""
    rows = []
    for regime, panel in study_panels.items():
        th = np.asarray(panel["theory"])
        for D in _dims(panel):
            dev, sem = _deviation(panel, D), np.asarray(panel["sims"][D]["sem"]) / th
            rows.append(
                [regime, int(D)] + [f"{100 * dev[t]:+.2f} ± {100 * sem[t]:.2f}" for t in depths]
            )
    return ["panel", "D"] + [f"t = {t} (%)" for t in depths], rows


def worst_deviation(study_panels, t_max) -> dict:
    """``{D: largest |relative deviation| of the mean over panels and 1 <= t <= t_max}``."""
    worst = {}
    for panel in study_panels.values():
        for D in _dims(panel):
            value = float(np.max(np.abs(_deviation(panel, D)[: t_max + 1])))
            worst[int(D)] = max(worst.get(int(D), 0.0), value)
    return worst


def scaling_table(study_panels, depths):
    """Per panel: the fitted exponent of |deviation| ~ D^slope at each depth in ``depths``."""
    rows = []
    for regime, panel in study_panels.items():
        dims = _dims(panel)
        dev = np.array([_deviation(panel, D) for D in dims])
        rows.append(
            [regime] + [scaling_exponent([int(D) for D in dims], dev[:, t]) for t in depths]
        )
    return ["panel"] + [f"t = {t}" for t in depths], rows


def tail_table(study_panels, t):
    """Per panel and D: mean, median, min and max over trials of the relative deviation at t."""
    rows = []
    for regime, panel in study_panels.items():
        for D in _dims(panel):
            per = _deviation(panel, D, "per_trial")[:, t]
            rows.append([regime, int(D), per.mean(), float(np.median(per)), per.min(), per.max()])
    return ["panel", "D", "mean", "median", "min", "max"], rows


def trusted_depths(study_panels, tol) -> dict:
    """``{panel: {D: depth}}``: :func:`trusted_depth` of the mean deviation at each D."""
    return {
        regime: {int(D): trusted_depth(_deviation(panel, D), tol) for D in _dims(panel)}
        for regime, panel in study_panels.items()
    }


def trusted_depth_table(study_panels, tol):
    """:func:`trusted_depths` as a table: one row per panel, one column per D."""
    depths = trusted_depths(study_panels, tol)
    dims = list(next(iter(depths.values())))
    rows = [[regime] + [by_D[D] for D in dims] for regime, by_D in depths.items()]
    return ["panel"] + [f"D = {D}" for D in dims], rows
