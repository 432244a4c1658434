"""Result 1 beside the finite-D simulations: the Appendix E study
(:mod:`cotbook.simulation.finite_size`, :func:`with_theory`) and the measured finite-D
corrections (:mod:`cotbook.simulation.corrections`, :func:`corrections_table`).

The simulation records hold simulations only, so that a change of the theory engine does not
stale hours of them; the ``D -> infinity`` curve of Result 1 (lambda = 0,
:func:`cotbook.theory.exact.closed_form.ridgeless_curve`) is added when a study is read
(:func:`with_theory`), by the theory of the checkout that reads it.
"""

from __future__ import annotations

import math

import numpy as np

from ..theory import closed_form, finite_d, phases
from . import corrections, finite_size

__all__ = [
    "with_theory",
    "run",
    "noise_reading_table",
    "DEPTHS",
    "LEVERAGE_MAX",
    "SE_GOAL",
    "corrections_table",
]


def with_theory(spec: finite_size.SimulationSpec, panels) -> dict:
    """``panels`` (:func:`finite_size.assemble`'s) with each panel's Result 1 curve at
    ``spec.sigma2`` for ``t <= spec.t_max`` as ``"theory"`` (a new dict; ``panels`` is left
    as it is)."""
    return {
        regime: {
            **panel,
            "theory": closed_form.ridgeless_curve(
                panel["alpha"], panel["tau"], spec.sigma2, spec.t_max
            ).tolist(),
        }
        for regime, panel in panels.items()
    }


def run(spec: finite_size.SimulationSpec, *, progress=False) -> tuple[dict, dict]:
    """:func:`finite_size.run` with Result 1's curves (:func:`with_theory`)."""
    panels, timings = finite_size.run(spec, progress=progress)
    return with_theory(spec, panels), timings


def noise_reading_table(t_max, sigma2_a=finite_size.SIGMA2, sigma2_b=1e-2):
    """How the panels change between two readings of the noise level (sigma2_a vs sigma2_b):
    the largest relative change of the theory curve over ``t <= t_max`` and the regime under
    each reading."""
    rows = []
    for regime, (alpha, tau) in finite_size.panels(sigma2_a).items():
        a = closed_form.ridgeless_curve(alpha, tau, sigma2_a, t_max)
        b = closed_form.ridgeless_curve(alpha, tau, sigma2_b, t_max)
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


#: The depths at which the corrections are measured (the issue's t in {1, 2, 3, 5, 10}).
DEPTHS = (1, 2, 3, 5, 10)
#: A unit is tail-dominated when its largest pretraining set alone moves the mean by more than
#: this many standard errors of the mean (dropping it shifts the mean by ``(max - mean)/(n -
#: 1)``): the standard error no longer says how uncertain the mean is.  The reference scale: for
#: a light-tailed spread the largest of ``n`` sets moves it by about ``sqrt(2 ln n / n)`` standard
#: errors, 0.06 at ``n = 4000`` and 0.3 at ``n = 100``.
LEVERAGE_MAX = 1.0
#: The precision goal: a measured ``c_t`` whose error (standard error and systematic, in
#: quadrature) exceeds this share of ``|c_t|`` is reported as not resolved.
SE_GOAL = 0.1


def _estimate(unit, t):
    """``(mean, sem, leverage)`` of a unit at depth ``t`` (the exact test-prompt average where
    it exists, the sampled one beyond): ``leverage`` is how many standard errors the largest set
    moves the mean (:data:`LEVERAGE_MAX`), from the largest set's share of the sum."""
    kind = "exact" if t < len(unit["exact"]["mean"]) else "sampled"
    mean, sem, top = (unit[kind][k][t] for k in ("mean", "sem", "top_share"))
    n = unit["sets"]
    return mean, sem, (top * n - 1) * abs(mean) / ((n - 1) * sem) if sem > 0 else math.inf


def corrections_table(
    spec: corrections.CorrectionsSpec, points, depths=DEPTHS, *, leverage_max=LEVERAGE_MAX
) -> list:
    """One row per point and depth of a :mod:`~cotbook.simulation.corrections` record
    (``points``: its data): Result 1's ``E_t``, the measured ``D (E_t(D) - E_t)`` and its standard
    error at each ``D`` (``shift_per_D``, ``sem_per_D``), their Richardson fit
    (:func:`corrections.fit`), the derived ``c_t`` where there is one
    (:func:`cotbook.theory.finite_d.finite_d_correction`), and the checks:

    * ``held_out_z``: the fit on every ``D`` but the largest, its prediction at the largest
      against the simulation there, in standard errors (a fitted value tested on data it did
      not see; ``None`` with fewer than three ``D``);
    * ``derived_z``: per ``D``, ``(simulated - E_t - c_t/D)`` in standard errors of the
      simulated mean, with the derived ``c_t``; ``closer``: whether ``E_t + c_t/D`` is closer to
      the simulated mean than ``E_t`` at every ``D``;
    * ``tail``: the largest set of some unit moves its mean by more than ``leverage_max``
      standard errors (by default :data:`LEVERAGE_MAX`): no fit;
    * ``resolved``: the fit's error within :data:`SE_GOAL` of ``|c_t|``.
    """
    dims = np.array(spec.dims, dtype=float)
    rows = []
    for name, point in points.items():
        alpha, tau, sigma2 = point["alpha"], point["tau"], point["sigma2"]
        curve = closed_form.ridgeless_curve(alpha, tau, sigma2, max(depths))
        derived = finite_d.finite_d_correction(alpha, tau, sigma2, finite_d.DERIVED_T_MAX)
        for t in depths:
            est = np.array([_estimate(point["dims"][str(D)], t) for D in spec.dims])
            mean, sem, leverage = est.T
            row = {
                "point": name,
                "alpha": alpha,
                "tau": tau,
                "sigma2": sigma2,
                "t": t,
                "E": float(curve[t]),
                "leverage": float(leverage.max()),
                "tail": bool(leverage.max() > leverage_max),
                "derived": float(derived[t]) if t < len(derived) else None,
            }
            y, dy = dims * (mean - curve[t]), dims * sem
            row.update(shift_per_D=y.tolist(), sem_per_D=dy.tolist())
            if row["tail"] or not np.all(np.isfinite(y)):
                rows.append({**row, "fit": None, "held_out_z": None, "resolved": False})
                continue
            result = corrections.fit(dims, y, dy)
            error = math.hypot(result["sem"], result["systematic"])
            row.update(fit=result, resolved=bool(error <= SE_GOAL * abs(result["c"])))
            row["held_out_z"] = None
            if dims.size >= 3:
                inner = corrections.fit(dims[:-1], y[:-1], dy[:-1])
                predicted = inner["c"] + inner["d"] / dims[-1]
                spread = math.hypot(dy[-1], _prediction_sem(dims[:-1], dy[:-1], dims[-1]))
                row["held_out_z"] = float((y[-1] - predicted) / spread)
            if row["derived"] is not None:
                shifted = curve[t] + row["derived"] / dims
                row["derived_z"] = ((mean - shifted) / sem).tolist()
                row["closer"] = bool(np.all(np.abs(mean - shifted) < np.abs(mean - curve[t])))
            rows.append(row)
    return rows


def _prediction_sem(dims, sem, at) -> float:
    """Standard error of a weighted ``c + d/D`` fit's value at ``D = at``."""
    design = np.stack([np.ones_like(dims), 1.0 / dims], axis=1)
    cov = np.linalg.inv((design / sem[:, None] ** 2).T @ design)
    x = np.array([1.0, 1.0 / at])
    return float(np.sqrt(x @ cov @ x))
