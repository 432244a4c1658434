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

from .. import _checks
from ..theory import closed_form, finite_d, phases
from . import corrections, finite_size

__all__ = [
    "with_theory",
    "run",
    "noise_reading_table",
    "DEPTHS",
    "TAIL_PULL",
    "SE_GOAL",
    "P_MIN",
    "NEXT_ORDER",
    "fit",
    "derived_test",
    "corrections_table",
    "derived_summary",
    "first_order_at",
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
#: A unit is tail-dominated when its largest pretraining set pulls the mean more than this many
#: times as far as the largest of ``n`` light-tailed draws would (``sqrt(2 ln n / n)`` standard
#: errors of the mean): its standard error no longer says how uncertain the mean is.
TAIL_PULL = 5.0
#: The precision goal: a measured ``c_t`` whose error (standard error and systematic, in
#: quadrature) exceeds this share of ``|c_t|`` is reported as not resolved.
SE_GOAL = 0.1
#: The fitted next order ``|d_t| / D^2`` above this share of ``|c_t| / D``: the first-order
#: correction is no description of that ``D`` (:func:`first_order_at`).
NEXT_ORDER = 0.5
#: A fit whose chi-square has a p-value below this is rejected: ``c + d/D`` does not hold its
#: points (:func:`fit`).
P_MIN = 0.01


def _wls(dims, y, sem, order):
    """Weighted least squares of ``y`` on ``1, 1/D, ..., 1/D^order``: ``(coef, cov, chi2)``."""
    design = np.vander(1.0 / dims, order + 1, increasing=True)
    weights = 1.0 / sem
    coef, *_ = np.linalg.lstsq(design * weights[:, None], y * weights, rcond=None)
    cov = np.linalg.inv((design * weights[:, None] ** 2).T @ design)
    return coef, cov, float(np.sum(((design @ coef - y) * weights) ** 2))


def fit(dims, y, sem) -> dict:
    """Richardson extrapolation of ``y_D = D (E_t(D) - E_t) = c + d / D`` by weighted least
    squares (weights ``1/sem^2``): ``{"c", "sem", "d", "chi2", "dof", "p", "systematic"}``.

    * ``sem``: the fit's standard error of ``c``, scaled by ``sqrt(chi2/dof)`` where that is
      above 1 (the points scatter more than their error bars say);
    * ``p``: the chi-square test of the ``c + d/D`` form (``dof = len(dims) - 2``; ``nan``
      without degrees of freedom);
    * ``systematic``: how much ``c`` leans on the form, the larger change of ``c`` when (i) a
      ``e/D^2`` term is added (>= 4 dims) or (ii) the smallest ``D`` is dropped (>= 3 dims),
      each less the change its noise alone would make (both fits are unbiased under the form
      and the bigger one is efficient, so their difference has variance ``sem_small^2 -
      sem^2``): zero when the form holds.

    Examples
    --------
    >>> dims = [100, 200, 400]
    >>> r = fit(dims, [1.5 + 20 / D for D in dims], [0.1] * 3)
    >>> round(r["c"], 12), round(r["d"], 9), r["dof"], r["systematic"]
    (1.5, 20.0, 1, 0.0)
    """
    from scipy import stats

    dims = _checks.array("dims", dims, ndim=1)
    y = _checks.array("y", y, ndim=1)
    sem = _checks.array("sem", sem, ndim=1)
    if not (dims.size == y.size == sem.size >= 2) or np.any(dims <= 0) or np.any(sem <= 0):
        raise ValueError("dims, y and sem must be >= 2 values each, dims and sem positive")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(sem))):
        raise ValueError("y and sem must be finite (a mean beyond float64 cannot be fitted)")
    coef, cov, chi2 = _wls(dims, y, sem, 1)
    dof = dims.size - 2
    excess = []
    alternatives = []
    if dims.size >= 4:
        alternatives.append(_wls(dims, y, sem, 2))
    if dims.size >= 3:
        keep = dims > dims.min()
        alternatives.append(_wls(dims[keep], y[keep], sem[keep], 1))
    for other, other_cov, _ in alternatives:
        noise = math.sqrt(max(0.0, other_cov[0, 0] - cov[0, 0]))
        excess.append(max(0.0, abs(other[0] - coef[0]) - noise))
    scale = math.sqrt(max(1.0, chi2 / dof)) if dof else 1.0
    return {
        "c": float(coef[0]),
        "sem": float(scale * math.sqrt(cov[0, 0])),
        "d": float(coef[1]),
        "chi2": chi2,
        "dof": int(dof),
        "p": float(stats.chi2.sf(chi2, dof)) if dof else math.nan,
        "systematic": float(max(excess, default=0.0)),
    }


def derived_test(dims, y, sem, c) -> float:
    """The p-value of a derived ``c`` against the measured ``y_D``: the likelihood-ratio test of
    ``y_D = c + d/D`` with ``c`` fixed against the free fit (:func:`fit`), one degree of
    freedom, the statistic divided by the free fit's ``chi2/dof`` where that is above 1 (as its
    standard error is scaled): it asks whether ``c`` is wrong, not whether the form holds."""
    from scipy import stats

    dims, y, sem = (np.asarray(v, dtype=float) for v in (dims, y, sem))
    x, w = 1.0 / dims, 1.0 / sem**2
    d = float(np.sum(w * x * (y - c)) / np.sum(w * x * x))
    fixed = float(np.sum(w * (y - c - d * x) ** 2))
    free = fit(dims, y, sem)
    scale = max(1.0, free["chi2"] / free["dof"]) if free["dof"] else 1.0
    return float(stats.chi2.sf(max(0.0, fixed - free["chi2"]) / scale, 1))


def _estimate(unit, t):
    """``(mean, sem, pull)`` of a unit at depth ``t`` (the exact test-prompt average where it
    exists, the sampled one beyond): ``pull`` is how far the largest set moves the mean, in
    units of how far the largest of ``n`` light-tailed draws would (:data:`TAIL_PULL`)."""
    kind = "exact" if t < len(unit["exact"]["mean"]) else "sampled"
    mean, sem, top = (unit[kind][k][t] for k in ("mean", "sem", "top_share"))
    n = unit["sets"]
    if not sem > 0:
        return mean, sem, math.inf
    moved = (top * n - 1) * abs(mean) / ((n - 1) * sem)  # dropping the largest set, in sems
    return mean, sem, moved / math.sqrt(2 * math.log(n) / n)


def corrections_table(
    spec: corrections.CorrectionsSpec, points, depths=DEPTHS, *, tail_pull=TAIL_PULL
) -> list:
    """One row per point and depth of a :mod:`~cotbook.simulation.corrections` record
    (``points``: its data): Result 1's ``E_t``, the measured ``D (E_t(D) - E_t)`` and its standard
    error at each ``D`` (``shift_per_D``, ``sem_per_D``), their Richardson fit (:func:`fit`),
    the derived ``c_t`` where there is one
    (:func:`cotbook.theory.finite_d.finite_d_correction`), and the checks:

    * ``tail``: the largest set of some unit pulls its mean more than ``tail_pull`` times as far
      as a light tail would (by default :data:`TAIL_PULL`): no fit;
    * ``resolved``: the fit passes its chi-square test (``p >=`` :data:`P_MIN`) and its error
      (standard error and systematic in quadrature) is within :data:`SE_GOAL` of ``|c_t|``;
    * ``held_out_z``: the fit on every ``D`` but the largest, its prediction at the largest
      against the simulation there, in standard errors (weak: the largest ``D`` has the fewest
      sets; ``None`` with fewer than three ``D``);
    * with a derived ``c_t``: ``derived_p``, its likelihood-ratio test against the free fit
      (:func:`derived_test`); ``derived_fit_z``, the fitted minus the derived ``c_t`` in the
      fit's standard errors; ``derived_z``, per ``D``, ``(simulated - E_t - c_t/D)``
      in standard errors of the simulated mean; ``closer``, whether ``E_t + c_t/D`` is closer
      to the simulated mean than ``E_t`` at every ``D`` (a weak check, the issue's).

    The rows share pretraining sets across depths (the same sets give every ``t`` of a unit),
    so their verdicts are not independent.
    """
    dims = np.array(spec.dims, dtype=float)
    rows = []
    for name, point in points.items():
        alpha, tau, sigma2 = point["alpha"], point["tau"], point["sigma2"]
        curve = closed_form.ridgeless_curve(alpha, tau, sigma2, max(depths))
        derived = finite_d.finite_d_correction(alpha, tau, sigma2, finite_d.DERIVED_T_MAX)
        for t in depths:
            est = np.array([_estimate(point["dims"][str(D)], t) for D in spec.dims])
            mean, sem, pull = est.T
            row = {
                "point": name,
                "alpha": alpha,
                "tau": tau,
                "sigma2": sigma2,
                "t": t,
                "E": float(curve[t]),
                "pull": float(pull.max()),
                "tail": bool(pull.max() > tail_pull),
                "derived": float(derived[t]) if t < len(derived) else None,
            }
            y, dy = dims * (mean - curve[t]), dims * sem
            row.update(shift_per_D=y.tolist(), sem_per_D=dy.tolist())
            if row["derived"] is not None:
                shifted = curve[t] + row["derived"] / dims
                row["derived_p"] = derived_test(dims, y, dy, row["derived"])
                row["derived_z"] = ((mean - shifted) / sem).tolist()
                row["closer"] = bool(np.all(np.abs(mean - shifted) < np.abs(mean - curve[t])))
            if row["tail"] or not np.all(np.isfinite(y)):
                rows.append({**row, "fit": None, "held_out_z": None, "resolved": False})
                continue
            result = fit(dims, y, dy)
            error = math.hypot(result["sem"], result["systematic"])
            good = not result["p"] < P_MIN
            row.update(fit=result, resolved=bool(good and error <= SE_GOAL * abs(result["c"])))
            if row["derived"] is not None:
                row["derived_fit_z"] = (result["c"] - row["derived"]) / result["sem"]
            row["held_out_z"] = None
            if dims.size >= 3:
                inner = fit(dims[:-1], y[:-1], dy[:-1])
                predicted = inner["c"] + inner["d"] / dims[-1]
                spread = math.hypot(dy[-1], _prediction_sem(dims[:-1], dy[:-1], dims[-1]))
                row["held_out_z"] = float((y[-1] - predicted) / spread)
            rows.append(row)
    return rows


def _prediction_sem(dims, sem, at) -> float:
    """Standard error of a weighted ``c + d/D`` fit's value at ``D = at``."""
    _, cov, _ = _wls(dims, np.zeros_like(dims), sem, 1)
    x = np.array([1.0, 1.0 / at])
    return float(np.sqrt(x @ cov @ x))


def derived_summary(rows) -> dict:
    """Every derived value of :func:`corrections_table`'s ``rows`` tested at once:
    ``{"tests", "smallest_p", "fisher_p"}``, the smallest p-value and Fisher's combination of
    all of them (the points are independent simulations)."""
    from scipy import stats

    ps = [r["derived_p"] for r in rows if r.get("derived_p") is not None]
    if not ps:
        raise ValueError("rows must hold at least one derived value (a row with derived_p)")
    combined = stats.combine_pvalues(ps, method="fisher").pvalue
    return {"tests": len(ps), "smallest_p": min(ps), "fisher_p": float(combined)}


def first_order_at(row, D, next_order=NEXT_ORDER):
    """How far dimension ``D`` lies from Result 1 at first order, for one fitted row of
    :func:`corrections_table`: ``(c_t / (D E_t), fails)``, ``fails`` where the fitted next
    order ``|d_t| / D^2`` exceeds ``next_order`` times ``|c_t| / D`` (the first-order correction
    does not describe ``D``); ``None`` for a row without a fit."""
    D = _checks.positive("D", D)
    if row["fit"] is None:
        return None
    c, d = row["fit"]["c"], row["fit"]["d"]
    return c / (D * row["E"]), bool(abs(d) > next_order * D * abs(c))
