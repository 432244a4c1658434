"""Asymptotic constants of the scaling laws, measured from Result 1 (lambda = 0).

Result 3 (paper, Appendix "Derivation of Result 3"): in the overthinking regime, as
``delta = tau_c - tau -> 0``, ``t* delta -> C_t = 1 / (2 kappa)`` with
``kappa = d log Lambda / d(tau_c - tau)`` at ``tau_c``, and ``E_{t*} sqrt(t*) -> C_E = K_c e^{1/2}``
with ``K_c = lim_t E_t sqrt(t)`` on the critical line (alpha > 1, where E_inf = 0).  This module
computes ``kappa`` and ``K_c`` independently of the optimal-depth search, so the chapter can
compare the two.  Result 2's law itself is measured by :func:`result2_rows`, against the law
derived in :mod:`cotbook.theory.asymptotics`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ... import _checks
from .. import asymptotics, domain, phases
from ..asymptotics import AsymptoticLaw, FittedLaw
from ..exact import closed_form

__all__ = [
    "kappa",
    "prefactor_limit",
    "critical_prefactor",
    "OptimalDepth",
    "optimal_depth_rows",
    "theorem1_rate",
    "local_exponent",
    "edge_factors",
    "RESOLVE",
    "FIT_DEPTHS",
    "law_depth",
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


RESOLVE = 50
"""A fit at depth ``t`` measures the law only if ``t >= RESOLVE * t_scale`` (the depth
beyond which :func:`~cotbook.theory.asymptotics.asymptotic_law` says its term leads)."""
FIT_DEPTHS = (1000, 2000, 5000, 10000, 20000)
"""Depths at which :func:`result2_rows` fits the law (the first that resolves it)."""


def law_depth(law: AsymptoticLaw, resolve=RESOLVE) -> int:
    """The first depth of :data:`FIT_DEPTHS` at or beyond ``resolve * law.t_scale`` (where a
    measurement sees the law), or the deepest of them."""
    resolve = _checks.positive("resolve", resolve)
    return next((t for t in FIT_DEPTHS if t >= resolve * law.t_scale), FIT_DEPTHS[-1])


class Result2Fit(NamedTuple):
    """Result 2 measured at one ``tau`` (:func:`result2_rows`)."""

    factor: float
    """``tau / tau_c``."""
    tau: float
    regime: str
    law: AsymptoticLaw
    """The law derived from the singularities (:func:`cotbook.theory.phases.asymptotic_law`)."""
    rate_paper: float
    """The paper's ``Lambda`` (negative saddle)."""
    fit: FittedLaw | None
    """Three-point fit of ``E_t - E_inf`` at ``t_fit`` (``None``: not certified there)."""
    t_fit: int
    resolves: bool
    """``t_fit >= resolve * law.t_scale``: the fit measures the law (else a pre-asymptotic
    stretch of the curve)."""


def result2_rows(alpha, sigma2, factors, *, resolve=RESOLVE, rtol=1e-6) -> list[Result2Fit]:
    """Result 2 measured at ``tau = factor * tau_c(alpha, sigma2)`` for each factor.

    ``E_t - E_inf`` is evaluated directly (:func:`cotbook.theory.asymptotics.excess`,
    certified to ``rtol``) and the law's three parameters are fitted through the depths
    ``t - t/8, t, t + t/8`` (:func:`~cotbook.theory.asymptotics.local_law`) at the first depth
    ``t`` of :data:`FIT_DEPTHS` at or beyond ``resolve * t_scale``, or at the deepest certified
    one, marked as not resolving the law.  One :class:`Result2Fit` per factor.
    """
    resolve = _checks.positive("resolve", resolve)
    rows = []
    for factor in factors:
        tau = _checks.positive("factor", factor) * phases.tau_c(alpha, sigma2)
        law = phases.asymptotic_law(alpha, tau, sigma2)
        wanted = law_depth(law, resolve)
        fit, t_fit = None, wanted
        for t in [wanted, *reversed([t for t in FIT_DEPTHS if t < wanted])]:
            try:
                fit, t_fit = asymptotics.local_law(alpha, tau, sigma2, t, rtol=rtol), t
                break
            except ArithmeticError:
                continue
        rows.append(
            Result2Fit(
                factor,
                tau,
                phases.regime(alpha, tau, sigma2),
                law,
                phases.decay_rate(alpha, tau, sigma2),
                fit,
                t_fit,
                fit is not None and t_fit >= resolve * law.t_scale,
            )
        )
    return rows
