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
bias.  The other side comes from :func:`decays`: where the closed system is certified on a
torus of radius ``r > 1``, ``E_t`` converges at every depth, so the long-depth boundary lies
below the smallest such ``tau`` (:func:`decay_boundary`).  The bisections assume one change in
the bracket (below it the curve turns up, or is not certified to converge; above it not).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..._checks import positive_int
from .. import domain, ridge
from ..exact import closed_form

__all__ = ["Bracket", "turns_up", "boundary", "decays", "decay_boundary"]

RIDGELESS_RTOL = 1e-10
"""Accuracy of the ``lam = 0`` curve (:func:`cotbook.theory.exact.closed_form.ridgeless_curve`)."""
DECAY_RADIUS = ridge.R_ABOVE
"""Default torus radius of :func:`decays`: the nearest to ``|x| = 1`` the closed system is
certified on beyond it (nearer, removing the poles at 1 loses too many digits)."""


def _curve(alpha, tau, sigma2, horizon, lam):
    """``E_0 .. E_horizon`` and a bound on each value's error."""
    if lam == 0:
        E = closed_form.ridgeless_curve(alpha, tau, sigma2, horizon, rtol=RIDGELESS_RTOL)
        return E, RIDGELESS_RTOL * np.abs(E)
    curve = ridge.ridge_curve(alpha, tau, sigma2, horizon, lam=lam)
    return curve.E, curve.error


def turns_up(alpha, tau, sigma2, horizon, *, lam=0.0) -> bool:
    """Whether ``E_t`` turns up before ``horizon``: its first minimum over ``t <= horizon``
    lies before it and ``E_horizon - err > E_min + err`` (both values' certified bounds).

    ``lam = 0`` reads the ridgeless curve (Result 1, certified to 1e-10 relative), ``lam > 0``
    the closed system of App. C.9 (:func:`~cotbook.theory.ridge.ridge_curve`); a curve
    that cannot be certified to ``horizon`` raises its
    :class:`~cotbook.theory.domain.AccuracyError`.

    Parameters
    ----------
    alpha, tau, sigma2 : float
        The point (``tau > 1`` when ``lam = 0``, ``tau > 0`` otherwise).
    horizon : int
        Deepest depth looked at, ``1 <= horizon <=`` :data:`~cotbook.theory.ridge.RIDGE_T_MAX`.
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
    if horizon > ridge.RIDGE_T_MAX:
        raise ValueError(f"horizon must be <= {ridge.RIDGE_T_MAX}, got {horizon}")
    return horizon


class Bracket(NamedTuple):
    """Where a property of the curve changes in ``tau`` (:func:`boundary`,
    :func:`decay_boundary`): between ``below`` and ``above``."""

    below: float
    """The largest ``tau`` tried on the lower side (the curve turns up before the horizon; or
    it is not certified to converge)."""
    above: float
    """The smallest ``tau`` tried on the upper side (``above / below - 1 <= xtol``)."""
    steps: int
    """Curves computed (the bracket's two ends included)."""


def _bracket(alpha, sigma2, lam, tau_lo, tau_hi, xtol):
    lam = domain.lam(lam)
    alpha, sigma2 = domain.alpha(alpha), domain.sigma2(sigma2)
    lo, hi = (domain.tau(v, ridge=lam > 0) for v in (tau_lo, tau_hi))
    if not lo < hi:
        raise ValueError(f"tau_lo must be < tau_hi, got {tau_lo!r} and {tau_hi!r}")
    if not 1e-9 <= xtol <= 1:
        raise ValueError(f"xtol must be in [1e-9, 1], got {xtol!r}")
    return alpha, sigma2, lam, lo, hi


def _bisect(lower_side, lo, hi, xtol) -> Bracket:
    steps = 2
    while hi / lo - 1 > xtol:
        mid = math.sqrt(lo * hi)
        steps += 1
        if lower_side(mid):
            lo = mid
        else:
            hi = mid
    return Bracket(lo, hi, steps)


def boundary(alpha, sigma2, horizon, *, lam=0.0, tau_lo, tau_hi, xtol=1e-3) -> Bracket:
    """Bracket the overthinking boundary at ``horizon``: the ``tau`` where :func:`turns_up`
    changes from true (below) to false (above), by bisection in ``log tau``.

    ``tau_lo`` must turn up and ``tau_hi`` must not (``ValueError`` otherwise: the boundary is
    not in the bracket); the bisection stops when ``above / below - 1 <= xtol``
    (``1e-9 <= xtol <= 1``).  At ``lam = 0`` compare with Result 2's
    :func:`~cotbook.theory.phases.tau_c`, which the boundary approaches from below as the
    horizon grows.
    """
    alpha, sigma2, lam, lo, hi = _bracket(alpha, sigma2, lam, tau_lo, tau_hi, xtol)
    horizon = _horizon(horizon)

    def up(tau):
        return turns_up(alpha, tau, sigma2, horizon, lam=lam)

    if not up(lo):
        raise ValueError(f"tau_lo = {lo:g}: E_t does not turn up before t = {horizon}")
    if up(hi):
        raise ValueError(f"tau_hi = {hi:g}: E_t turns up before t = {horizon}")
    return _bisect(up, lo, hi, xtol)


def decays(alpha, tau, sigma2, *, lam=0.0, radius=DECAY_RADIUS, n=2048, t_max=300) -> bool:
    """Whether the closed system of App. C.9 is certified on the torus ``|x| = |y| = radius``
    beyond 1 (:func:`~cotbook.theory.ridge.ridge_curve` with that torus, ``n`` points per
    circle, checked to ``t_max``).

    There ``B`` less its poles at ``x = 1``, ``y = 1`` is analytic inside the torus, so
    ``E_t - E_inf = O(radius^-t)``: the curve converges at every depth, however deep (no
    overthinking).  A torus that fails proves nothing: near ``radius = 1`` the poles' removal
    loses digits.  ``radius`` in ``(1, 2]``.
    """
    lam = domain.lam(lam)
    alpha, sigma2 = domain.alpha(alpha), domain.sigma2(sigma2)
    tau = domain.tau(tau, ridge=lam > 0)
    if not 1 < radius <= 2:
        raise ValueError(f"radius must be in (1, 2], got {radius!r}")
    try:
        ridge.ridge_curve(alpha, tau, sigma2, t_max, lam=lam, radius=radius, n=n)
    except ridge.RidgeAccuracyError:
        return False
    return True


def decay_boundary(
    alpha, sigma2, *, lam=0.0, tau_lo, tau_hi, xtol=1e-3, radius=DECAY_RADIUS
) -> Bracket:
    """Bracket the smallest ``tau`` at which :func:`decays` holds (``above``), by bisection in
    ``log tau``: an upper bound on the long-depth overthinking boundary at this ridge.

    ``tau_hi`` must decay and ``tau_lo`` must not (``ValueError`` otherwise); ``xtol`` as in
    :func:`boundary`.  The bound is not sharp: a torus of radius ``r`` passes only where the
    rate of ``E_t`` is below about ``r^-2`` (at ``lam = 0``, Result 2's ``Lambda``).
    """
    alpha, sigma2, lam, lo, hi = _bracket(alpha, sigma2, lam, tau_lo, tau_hi, xtol)

    def open_(tau):
        return not decays(alpha, tau, sigma2, lam=lam, radius=radius)

    if not open_(lo):
        raise ValueError(f"tau_lo = {lo:g}: already certified to converge")
    if open_(hi):
        raise ValueError(f"tau_hi = {hi:g}: not certified to converge (radius {radius:g})")
    return _bisect(open_, lo, hi, xtol)
