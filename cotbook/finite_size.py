"""Theory against finite-D simulation: the paper's Appendix E study and a finite-size analysis.

Four panels, one per regime of Result 2, compare the ``D -> infinity`` curve of Result 1
(:func:`cotbook.theory.error_curve`, lambda = 0) with simulations of the pretrained model at
several ``D`` (:func:`cotbook.simulate.error_curve`, lambda = 1e-5 as in the paper's caption).

The paper's Appendix E caption gives ``sigma = 0.01``; read as a standard deviation (as the
authors' public code does) that is ``sigma2 = 1e-4``, the default here.  Its Figure 1 caption
gives ``sigma^2 = 0.01`` instead; the chapter shows how much the choice matters.
"""

from __future__ import annotations

import time

import numpy as np

from . import _checks, phases, results, simulate, theory

__all__ = [
    "SIGMA2",
    "LAM",
    "SCALES",
    "MAIN_PANELS",
    "panels",
    "run",
    "relative_deviation",
    "scaling_exponent",
    "trusted_depth",
    "study",
    "result_name",
    "saved_precision_study",
    "noise_reading_table",
    "small_depth_table",
    "deviation_with_sem_table",
    "worst_deviation",
    "scaling_table",
    "tail_table",
    "trusted_depth_table",
]

SIGMA2 = 1e-4
LAM = 1e-5
SCALES = {
    "book": dict(dims=(100, 200, 400, 800), trials=5, test_designs=2, t_max=30),
    "paper": dict(dims=(100, 200, 400, 800, 1600), trials=5, test_designs=2, t_max=30),
    # More trials at small depth, to measure the t <= 5 agreement beyond the noise of 5 trials.
    "precision": dict(dims=(800, 1600), trials=20, test_designs=2, t_max=5),
}


# The panels of the paper's Appendix E figure, one per regime of Result 2.
MAIN_PANELS = ("saturation", "overthinking", "critical", "exponential")


def panels(sigma2=SIGMA2) -> dict:
    """``{name: (alpha, tau)}``: the four :data:`MAIN_PANELS`, one point inside each regime of
    Result 2, and one deeper overthinking point.

    Saturation ``(0.5, 10)``: alpha < 1 and tau above tau_c(0.5); overthinking ``(2, 3)``: tau
    below tau_c(2) ~ 3.5 (the authors' public verification notebook uses alpha = 2, tau = 3);
    critical ``(2, tau_c(2, sigma2))``; exponential ``(4, 4)``; deep overthinking ``(2, 2)``:
    far below tau_c, where finite-D errors are amplified fastest.
    """
    sigma2 = _checks.nonnegative("sigma2", sigma2)
    return {
        "saturation": (0.5, 10.0),
        "overthinking": (2.0, 3.0),
        "critical": (2.0, float(phases.tau_c(2.0, sigma2))),
        "exponential": (4.0, 4.0),
        "deep overthinking": (2.0, 2.0),
    }


def _seed(seed, panel_index, D):
    return int(np.random.SeedSequence([seed, panel_index, D]).generate_state(1)[0])


def run(
    dims,
    *,
    trials,
    test_designs,
    t_max,
    sigma2=SIGMA2,
    lam=LAM,
    seed=0,
    names=None,
    progress=False,
):
    """Theory and simulations for the :func:`panels` (all, or those in ``names``) at each ``D``
    in ``dims``.

    Returns a JSON-ready dict ``{"panels": {regime: {"alpha", "tau", "theory", "sims": {D:
    {"mean", "sem", "per_trial"}}}}, "timings_s": {...}}``.  The simulation of panel ``k`` at
    dimension ``D`` is seeded by ``SeedSequence([seed, k, D])`` (``k``: its position in
    :func:`panels`, whichever ``names`` are run), so any entry can be recomputed on its own.
    """
    dims = [_checks.positive_int("D", D) for D in dims]
    if not dims:
        raise ValueError("dims must list at least one dimension D")
    t_max = _checks.nonneg_int("t_max", t_max)
    seed = _checks.nonneg_int("seed", seed)
    chosen = panels(sigma2)
    names = list(chosen) if names is None else list(names)
    unknown = sorted(set(names) - set(chosen))
    if unknown or not names:
        raise ValueError(f"names must be a non-empty subset of {list(chosen)}, got {names}")
    jobs = [(k, regime, D) for k, regime in enumerate(chosen) if regime in names for D in dims]
    if progress:
        from tqdm import tqdm

        jobs = tqdm(jobs, desc="simulations", unit="run")
    out = {
        regime: {
            "alpha": a,
            "tau": tau,
            "theory": theory.error_curve(a, tau, sigma2, t_max).tolist(),
            "sims": {},
        }
        for regime, (a, tau) in chosen.items()
        if regime in names
    }
    timings = {}
    for k, regime, D in jobs:
        a, tau = out[regime]["alpha"], out[regime]["tau"]
        start = time.perf_counter()
        mean, sem, per_trial = simulate.error_curve(
            a,
            tau,
            sigma2,
            lam,
            D,
            t_max,
            trials=trials,
            test_designs=test_designs,
            seed=_seed(seed, k, D),
        )
        timings[f"{regime}/D={D}"] = time.perf_counter() - start
        out[regime]["sims"][str(D)] = {
            "mean": mean.tolist(),
            "sem": sem.tolist(),
            "per_trial": per_trial.tolist(),
        }
    return {"panels": out, "timings_s": timings}


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


RESULT_NAME = "theory_vs_simulation"


def result_name(scale) -> str:
    """The result file a scale is saved under: the precision run has its own."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {sorted(SCALES)}, got {scale!r}")
    return f"{RESULT_NAME}_precision" if scale == "precision" else RESULT_NAME


def _describe(record, name):
    cfg = record["config"]
    return (
        f"{cfg['scale']} scale, read from book/results/{name}.json\n"
        f"  D = {cfg['dims']}, {cfg['trials']} trials, {cfg['test_designs']} test designs "
        f"per trial\n  written by {record['code_version']}"
    )


def saved_precision_study():
    """``(panels, description)`` of the saved precision run, or ``None`` if it was not run."""
    name = result_name("precision")
    record = results.load(name)
    return None if record is None else (record["data"], _describe(record, name))


def study(scale="book"):
    """The study to show: the saved result of ``python -m cotbook simulate`` if present, else
    :func:`run` at ``scale`` now.

    Returns ``(panels, timings_s, description)``; ``description`` says which scale is shown and
    where it came from.
    """
    if scale not in ("book", "paper"):
        raise ValueError(f"scale must be 'book' or 'paper', got {scale!r}")
    record = results.load(RESULT_NAME)
    if record is not None:
        return record["data"], record["timings_s"], _describe(record, RESULT_NAME)
    config = SCALES[scale]
    out = run(**config)
    return (
        out["panels"],
        out["timings_s"],
        f"{scale} scale, computed now\n  D = {list(config['dims'])}, {config['trials']} trials, "
        f"{config['test_designs']} test designs per trial",
    )


# --- Tables for the chapter: each returns (headers, rows) ready for cotbook.report.table. ---


def _dims(panel):
    return sorted(panel["sims"], key=int)


def _deviation(panel, D, key="mean"):
    return relative_deviation(np.asarray(panel["sims"][D][key]), np.asarray(panel["theory"]))


def noise_reading_table(t_max, sigma2_a=SIGMA2, sigma2_b=1e-2):
    """How the panels change between two readings of the noise level (sigma2_a vs sigma2_b):
    the largest relative change of the theory curve over ``t <= t_max`` and the regime under
    each reading."""
    rows = []
    for regime, (alpha, tau) in panels(sigma2_a).items():
        a = theory.error_curve(alpha, tau, sigma2_a, t_max)
        b = theory.error_curve(alpha, tau, sigma2_b, t_max)
        rows.append(
            [
                regime,
                float(np.max(np.abs(b / a - 1))),
                phases.regime(alpha, tau, sigma2_a),
                phases.regime(alpha, tau, sigma2_b),
            ]
        )
    headers = [
        "panel",
        f"max_t<={t_max} |change|",
        f"regime ({sigma2_a:g})",
        f"regime ({sigma2_b:g})",
    ]
    return headers, rows


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


def trusted_depth_table(study_panels, tol):
    """Per panel: :func:`trusted_depth` of the mean deviation at each D."""
    dims = _dims(next(iter(study_panels.values())))
    rows = [
        [regime] + [trusted_depth(_deviation(panel, D), tol) for D in dims]
        for regime, panel in study_panels.items()
    ]
    return ["panel"] + [f"D = {D}" for D in dims], rows
