"""Where the error curve turns up within a horizon: the overthinking boundary at any ridge.

Result 2 places the overthinking boundary at ``tau_c`` for ``lam = 0`` (``E_t`` grows without
bound below it); for ``lam > 0`` the paper has no boundary.  This module measures one from the
certified curves alone: at horizon ``T``, ``E_t`` *turns up* when its minimum over ``t <= T``
lies before ``T`` and ``E_T`` exceeds it by more than both error bounds (Result 3's
overthinking, seen within the horizon).  :func:`boundary` brackets the largest ``tau`` at which
the curve turns up by bisection in ``log tau``.

What the horizon resolves: close below ``tau_c`` the optimal depth diverges (Result 3), so the
boundary at horizon ``T`` lies below the long-depth one and moves up to it as ``T`` grows; at
``lam = 0`` the two are compared directly (the ridge chapter), which calibrates the horizon's
bias.  The bisection assumes one crossing in the bracket (turning up below it, not above).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._checks import positive_int
from . import closed_form, derivation, domain

__all__ = ["Boundary", "turns_up", "boundary"]

RIDGELESS_RTOL = 1e-10
"""Accuracy of the ``lam = 0`` curve (:func:`cotbook.theory.closed_form.ridgeless_curve`)."""


def _curve(alpha, tau, sigma2, horizon, lam):
    """``E_0 .. E_horizon`` and a bound on each value's error."""
    if lam == 0:
        E = closed_form.ridgeless_curve(alpha, tau, sigma2, horizon, rtol=RIDGELESS_RTOL)
        return E, RIDGELESS_RTOL * np.abs(E)
    curve = derivation.ridge_curve(alpha, tau, sigma2, horizon, lam=lam)
    return curve.E, curve.error


def turns_up(alpha, tau, sigma2, horizon, *, lam=0.0) -> bool:
    """Whether ``E_t`` turns up before ``horizon``: its first minimum over ``t <= horizon``
    lies before it and ``E_horizon - err > E_min + err`` (both values' certified bounds).

    ``lam = 0`` reads the ridgeless curve (Result 1, certified to 1e-10 relative), ``lam > 0``
    the closed system of App. C.9 (:func:`~cotbook.theory.derivation.ridge_curve`); a curve
    that cannot be certified to ``horizon`` raises its
    :class:`~cotbook.theory.closed_form.AccuracyError`.

    Parameters
    ----------
    alpha, tau, sigma2 : float
        The point (``tau > 1`` when ``lam = 0``, ``tau > 0`` otherwise).
    horizon : int
        Deepest depth looked at, ``1 <= horizon <=`` :data:`~cotbook.theory.derivation.RIDGE_T_MAX`.
    lam : float
        Ridge ``lambda >= 0``.
    """
    lam = domain.lam(lam)
    alpha, sigma2 = domain.alpha(alpha), domain.sigma2(sigma2)
    tau = domain.tau(tau, ridge=lam > 0)
    horizon = _horizon(horizon)
    E, err = _curve(alpha, tau, sigma2, horizon, lam)
    t_min = int(np.argmin(E))
    return bool(t_min < horizon and E[horizon] - err[horizon] > E[t_min] + err[t_min])


def _horizon(value) -> int:
    horizon = positive_int("horizon", value)
    if horizon > derivation.RIDGE_T_MAX:
        raise ValueError(f"horizon must be <= {derivation.RIDGE_T_MAX}, got {horizon}")
    return horizon


class Boundary(NamedTuple):
    """The bracket :func:`boundary` returns."""

    tau_up: float
    """The largest ``tau`` tried at which ``E_t`` turns up before the horizon."""
    tau_flat: float
    """The smallest ``tau`` tried at which it does not (``tau_flat / tau_up - 1 <= xtol``)."""
    steps: int
    """Curves computed (the bracket's two ends included)."""


def boundary(alpha, sigma2, horizon, *, lam=0.0, tau_lo, tau_hi, xtol=1e-3) -> Boundary:
    """Bracket the overthinking boundary at ``horizon``: the ``tau`` where :func:`turns_up`
    changes from true (below) to false (above), by bisection in ``log tau``.

    ``tau_lo`` must turn up and ``tau_hi`` must not (``ValueError`` otherwise: the boundary is
    not in the bracket); the bisection stops when ``tau_flat / tau_up - 1 <= xtol``
    (``1e-9 <= xtol <= 1``).  At ``lam = 0`` compare with Result 2's
    :func:`~cotbook.theory.phases.tau_c`, which the boundary approaches from below as the
    horizon grows.
    """
    lam = domain.lam(lam)
    alpha, sigma2 = domain.alpha(alpha), domain.sigma2(sigma2)
    lo, hi = (domain.tau(v, ridge=lam > 0) for v in (tau_lo, tau_hi))
    if not lo < hi:
        raise ValueError(f"tau_lo must be < tau_hi, got {tau_lo!r} and {tau_hi!r}")
    if not 1e-9 <= xtol <= 1:
        raise ValueError(f"xtol must be in [1e-9, 1], got {xtol!r}")
    horizon = _horizon(horizon)
    if not turns_up(alpha, lo, sigma2, horizon, lam=lam):
        raise ValueError(f"tau_lo = {lo:g}: E_t does not turn up before t = {horizon}")
    if turns_up(alpha, hi, sigma2, horizon, lam=lam):
        raise ValueError(f"tau_hi = {hi:g}: E_t turns up before t = {horizon}")
    steps = 2
    while hi / lo - 1 > xtol:
        mid = math.sqrt(lo * hi)
        steps += 1
        if turns_up(alpha, mid, sigma2, horizon, lam=lam):
            lo = mid
        else:
            hi = mid
    return Boundary(lo, hi, steps)
