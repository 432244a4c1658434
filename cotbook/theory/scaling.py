"""Asymptotic constants of the scaling laws, measured from Result 1 (lambda = 0).

Result 3 (paper, Appendix "Derivation of Result 3"): in the overthinking regime, as
``delta = tau_c - tau -> 0``, ``t* delta -> C_t = 1 / (2 kappa)`` with
``kappa = d log Lambda / d(tau_c - tau)`` at ``tau_c``, and ``E_{t*} sqrt(t*) -> C_E = K_c e^{1/2}``
with ``K_c = lim_t E_t sqrt(t)`` on the critical line (alpha > 1, where E_inf = 0).  This module
computes ``kappa`` and ``K_c`` independently of the optimal-depth search, so the chapter can
compare the two.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import _checks
from . import closed_form, domain, phases

__all__ = [
    "kappa",
    "prefactor_limit",
    "critical_prefactor",
    "OptimalDepth",
    "optimal_depth_rows",
    "theorem1_rate",
    "local_exponent",
    "edge_factors",
    "fit_asymptotics",
    "Result2Fit",
    "result2_rows",
]


def kappa(alpha, sigma2, *, h=1e-5) -> float:
    """``d log Lambda / d(tau_c - tau)`` at ``tau = tau_c`` (central difference, step ``h``)."""
    alpha = domain.alpha(alpha)
    sigma2 = domain.sigma2(sigma2)
    h = _checks.positive("h", h)
    tc = phases.tau_c(alpha, sigma2)
    if not math.isfinite(tc) or tc - h <= 1:
        raise ValueError(f"kappa needs a finite tau_c > 1 + h; got tau_c = {tc} for alpha={alpha}")
    up = math.log(phases.decay_rate(alpha, tc - h, sigma2))
    down = math.log(phases.decay_rate(alpha, tc + h, sigma2))
    return (up - down) / (2 * h)


def prefactor_limit(depths, values) -> float:
    """Limit ``K`` of ``values_t = K (1 + b / t)`` fitted by least squares at ``depths``."""
    depths = _checks.array("depths", depths, ndim=1)
    values = _checks.array("values", values, ndim=1)
    if depths.size != values.size or depths.size < 2 or np.any(depths <= 0):
        raise ValueError("depths must be >= 2 positive depths, one per value")
    design = np.stack([np.ones_like(depths), 1.0 / depths], axis=1)
    return float(np.linalg.lstsq(design, values, rcond=None)[0][0])


def critical_prefactor(alpha, sigma2, *, depths=(1000, 2000, 4000)) -> float:
    """``K_c = lim E_t sqrt(t)`` at ``tau = tau_c`` (alpha > 1), extrapolated in ``1/t``."""
    alpha = _checks.greater_than("alpha", alpha, 1.0)
    depths = [_checks.positive_int("depth", t) for t in depths]
    tc = phases.tau_c(alpha, sigma2)
    values = [closed_form.error_at(alpha, tc, sigma2, t, rtol=1e-8) for t in depths]
    ts = np.array(depths, dtype=float)
    return prefactor_limit(ts, np.array(values) * np.sqrt(ts))


class OptimalDepth(NamedTuple):
    """Result 3 measured at ``tau = tau_c - delta``."""

    delta: float
    t_star: int
    t_star_delta: float
    """``t* delta``, which tends to ``C_t = 1/(2 kappa)``."""
    E_star: float
    E_star_root: float
    """``E_{t*} sqrt(t*)``, which tends to ``C_E = K_c e^{1/2}``."""


def optimal_depth_rows(alpha, sigma2, deltas) -> list[OptimalDepth]:
    """One :class:`OptimalDepth` per ``delta``, at ``tau = tau_c - delta`` (Result 3)."""
    tc = phases.tau_c(alpha, sigma2)
    rows = []
    for delta in deltas:
        delta = _checks.positive("delta", delta)
        t_star, e_star = phases.optimal_depth(alpha, tc - delta, sigma2, t_max=16000)
        rows.append(OptimalDepth(delta, t_star, t_star * delta, e_star, e_star * math.sqrt(t_star)))
    return rows


def theorem1_rate(alpha, sigma2) -> float:
    """``r_alpha = (2 sqrt(alpha) + sigma2) / (alpha + 1 + sigma2)`` of Theorem 1."""
    alpha = domain.alpha(alpha)
    sigma2 = domain.sigma2(sigma2)
    return (2 * math.sqrt(alpha) + sigma2) / (alpha + 1 + sigma2)


def local_exponent(alpha, sigma2, depths) -> np.ndarray:
    """Local power of ``E_t / r_alpha^(2t)`` between ``t`` and ``2t``, for ``t`` in ``depths``.

    ``log2(E_{2t} r^{-4t} / (E_t r^{-2t}))`` from the exact tau -> infinity error (the
    Marchenko-Pastur integral, :func:`cotbook.phases.population_error`); Theorem 1 says it tends
    to -3/2.
    """
    alpha = _checks.greater_than("alpha", alpha, 1.0)
    log_r = math.log(theorem1_rate(alpha, sigma2))
    out = []
    for t in depths:
        t = _checks.positive_int("depth", t)
        lo = phases.population_error(alpha, sigma2, t, log=True) - 2 * t * log_r
        hi = phases.population_error(alpha, sigma2, 2 * t, log=True) - 4 * t * log_r
        out.append((hi - lo) / math.log(2))
    return np.array(out)


def edge_factors(alpha, sigma2):
    """``(1 - s_-/(alpha c), 1 - s_+/(alpha c))``: the CoT factor at both edges of the MP support.

    Theorem 1's proof states ``0 < 1 - s/(alpha c) < 1`` on the whole support; the second value
    is negative whenever ``sigma2 < 2 sqrt(alpha)``.
    """
    alpha = domain.alpha(alpha)
    sigma2 = domain.sigma2(sigma2)
    ac = alpha + 1 + sigma2
    return 1 - (1 - math.sqrt(alpha)) ** 2 / ac, 1 - (1 + math.sqrt(alpha)) ** 2 / ac


def fit_asymptotics(curve, floor, t_lo, t_hi):
    """Fit ``E_t - floor = K t^gamma Lambda^t`` on ``t_lo <= t <= t_hi`` (Result 2's form).

    Least squares on ``log|E_t - floor| = log|K| + gamma log t + t log Lambda``; the sign of
    ``E_t - floor`` must not change in the window.  Returns ``(Lambda, gamma, K)``.
    """
    curve = _checks.array("curve", curve, ndim=1)
    floor = _checks.real("floor", floor)
    t_lo = _checks.positive_int("t_lo", t_lo)
    t_hi = _checks.positive_int("t_hi", t_hi)
    if not t_lo + 2 <= t_hi < curve.size:
        raise ValueError(f"need t_lo + 2 <= t_hi < len(curve) = {curve.size}, got {t_lo}, {t_hi}")
    t = np.arange(t_lo, t_hi + 1, dtype=float)
    return _fit(t, curve[t_lo : t_hi + 1], floor)


def _fit(t, values, floor):
    """:func:`fit_asymptotics` on the depths ``t`` (any increasing sample of the window)."""
    diff = values - floor
    if not (np.all(diff > 0) or np.all(diff < 0)):
        raise ValueError("E_t - floor changes sign (or vanishes) in the fit window")
    design = np.stack([np.ones_like(t), np.log(t), t], axis=1)
    log_k, gamma, log_lam = np.linalg.lstsq(design, np.log(np.abs(diff)), rcond=None)[0]
    return float(np.exp(log_lam)), float(gamma), float(np.sign(diff[0]) * np.exp(log_k))


class Result2Fit(NamedTuple):
    """Result 2 measured at one ``tau`` (:func:`result2_rows`)."""

    factor: float
    """``tau / tau_c``."""
    tau: float
    regime: str
    rate_fit: float
    """Fitted ``Lambda`` of ``E_t - E_inf ~ K t^gamma Lambda^t``."""
    rate_paper: float
    """The paper's ``Lambda`` (negative branch)."""
    rate_plus: float
    """The positive-branch rate ``Lambda_+``."""
    power_fit: float
    """Fitted ``gamma`` (Result 2: -1/2)."""
    sign_K: int
    t_lo: int
    t_hi: int


_DENSE_T = 1000  # result2_rows: every depth up to here, then a sample


def result2_rows(
    alpha, sigma2, factors, *, t_max=1000, rtol=1e-7, resolution=1e-4, step=5
) -> list[Result2Fit]:
    """Result 2 measured at ``tau = factor * tau_c(alpha, sigma2)`` for each factor.

    ``E_t`` is certified to ``rtol``, at every depth up to 1000 (the curve) and at every
    ``step``-th depth beyond (single depths, :func:`~cotbook.theory.closed_form.errors_at`:
    the contours make t_max = 5000 cheap at sigma2 = 0.01).  The fit window ends at ``t_max``
    or where ``|E_t - E_inf|`` falls below ``resolution * max(E_inf, E_t)`` (so the difference
    keeps at least three certified digits) or ``E_t`` below 1e-290 (the float64 floor), and
    starts at a quarter of its end or after the last change of sign of ``E_t - E_inf``,
    whichever is later.

    One :class:`Result2Fit` per factor.
    """
    step = _checks.positive_int("step", step)
    dense = min(t_max, _DENSE_T)
    depths = np.concatenate([np.arange(dense + 1), np.arange(dense + step, t_max + 1, step)])
    rows = []
    for factor in factors:
        tau = _checks.positive("factor", factor) * phases.tau_c(alpha, sigma2)
        curve = closed_form.ridgeless_curve(alpha, tau, sigma2, dense, rtol=rtol)
        if t_max > dense:
            deep = closed_form.errors_at(alpha, tau, sigma2, depths[dense + 1 :], rtol=rtol)
            curve = np.concatenate([curve, deep])
        floor = phases.error_floor(alpha, tau, sigma2)
        diff = curve - floor
        big = (np.abs(diff) > resolution * np.maximum(floor, curve)) & (curve > 1e-290)
        hi = int(np.nonzero(big)[0][-1])
        t_hi = int(depths[hi])
        changes = np.nonzero(np.diff(np.sign(diff[: hi + 1])))[0]
        t_lo = max(t_hi // 4, int(depths[changes[-1]]) + 2 if changes.size else 1)
        if t_hi - t_lo < 10:
            raise ValueError(
                f"no fit window at factor={factor}: |E_t - E_inf| resolvable only up to t={t_hi}"
            )
        window = (depths >= t_lo) & (depths <= t_hi)
        lam_fit, gamma, k = _fit(depths[window].astype(float), curve[window], floor)
        r = phases.rates(alpha, tau, sigma2)
        rows.append(
            Result2Fit(
                factor,
                tau,
                phases.regime(alpha, tau, sigma2),
                lam_fit,
                r["negative"],
                r["positive"],
                gamma,
                int(np.sign(k)),
                t_lo,
                t_hi,
            )
        )
    return rows
