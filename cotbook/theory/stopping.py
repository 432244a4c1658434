"""Stopping early inside the saturation regime: the best finite depth, the depth at which E_t
crosses its floor for good, and how both scale far above the boundary (lambda = 0).

Beyond ``tau_x`` (:func:`cotbook.theory.phases.pole_crossover`) the term that leads
``E_t - E_inf`` at long depth, the alpha < 1 pole term ``K_p t^-3/2 psi_max^t``, has ``K_p < 0``
(:mod:`cotbook.theory.asymptotics`): E_t dips below Result 2's floor and returns to it from
below, so a finite depth beats infinite depth although the dynamics are stable.
:func:`saturation_optimum` finds that depth and the gain, :func:`t_flip_law` and
:func:`last_flip` the final crossing of the floor just above ``tau_x``, and
:func:`large_tau_law` how the best depth and the gain scale as ``tau -> infinity``.
"""

from __future__ import annotations

import math
from itertools import pairwise
from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq

from .. import _checks
from . import asymptotics, closed_form, domain, phases
from .saturation import E0, _sat_alpha, log_depths

__all__ = [
    "SaturationOptimum",
    "saturation_optimum",
    "optimum_map",
    "t_flip_law",
    "last_flip",
    "LargeTauLaw",
    "large_tau_law",
    "LargeTauCheck",
    "large_tau_check",
]


class SaturationOptimum(NamedTuple):
    """The best finite depth in the saturation regime (:func:`saturation_optimum`)."""

    t_flip: int | None
    """The first depth at which ``E_t < E_inf`` is certified (``None``: never, on the range
    searched)."""
    t_min: int | None
    """The depth of the smallest ``E_t`` (``None``: no finite depth beats ``E_inf``)."""
    E_min: float
    """``min_t E_t`` (``E_inf`` where no finite depth beats it)."""
    E_inf: float
    """Result 2's floor."""
    gain: float
    """``E_inf - E_min >= 0``, computed as ``-(E_t - E_inf)`` from its direct evaluation."""
    t_search: int
    """The deepest depth searched."""


_SEARCH = 48  # geometrically spaced depths of the first pass
_SEARCH_T = 100000  # the deepest depth excess certifies


def _excess_at(alpha, tau, sigma2, depths, floor) -> dict:
    """``{t: E_t - E_inf}`` at the depths certified (t = 0: ``1 - E_inf``)."""
    out = {0: E0 - floor} if 0 in depths else {}
    deep = sorted({int(t) for t in depths if t > 0})
    if deep:
        e = asymptotics.excess(alpha, tau, sigma2, deep, drop_uncertified=True)
        out.update(
            {
                int(t): float(sg) * math.exp(la)
                for t, la, sg in zip(e.depths, e.log_abs, e.sign, strict=True)
            }
        )
    return out


def _bounded(alpha, tau, sigma2, depths, floor) -> dict:
    """``{t: (E_t - E_inf, bound)}`` from E_t certified to ``RTOL_DEFAULT`` relative
    (:func:`cotbook.theory.closed_form.errors_at`) minus the floor: a second method for the
    depths the contours of ``E_t - E_inf`` leave out, whose sign is known where the difference
    exceeds its bound."""
    E = closed_form.errors_at(alpha, tau, sigma2, depths)
    eps = np.finfo(float).eps
    return {
        int(t): (float(e) - floor, closed_form.RTOL_DEFAULT * abs(float(e)) + 4 * eps * abs(floor))
        for t, e in zip(depths, E, strict=True)
    }


def _check_certified(searched, known, point, floor) -> None:
    """Raise where depths the contours leave out could hide the minimum.

    Each sampled depth without a certified ``E_t - E_inf`` is evaluated a second way
    (:func:`_bounded`). Where that value is resolved (larger than its bound), it must not
    possibly lie below the smallest certified value; the unresolved depths must be lone
    depths between samples of opposite signs (where ``E_t - E_inf`` passes through zero, no
    relative bound can hold) or a last stretch after negative samples that rise back to the
    floor. Anything else raises: far above ``tau_x`` the dip becomes smaller than either
    method resolves."""
    hidden = [t for t in searched if t not in known]
    if not hidden:
        return
    second = _bounded(*point, hidden, floor)
    best = min([v for v in known.values() if v < 0], default=0.0)
    lower = [t for t, (v, b) in second.items() if abs(v) > b and v - b < best]
    signs = dict(known)
    signs.update({t: v for t, (v, b) in second.items() if abs(v) > b})
    run = []
    for k, t in enumerate(searched):
        if t in signs:
            if run:
                before = signs.get(searched[run[0] - 1]) if run[0] > 0 else None
                lone = len(run) == 1 and before is not None and before * signs[t] < 0
                if not lone:
                    break
            run = []
        else:
            run.append(k)
    else:
        # a tail too close to the floor to resolve is harmless where the values before it
        # are negative and already rising back to the floor
        last = [signs[t] for t in searched[: run[0]] if t in signs][-2:] if run else []
        if not lower and (not run or (len(last) == 2 and last[0] < last[1] < 0)):
            return
    depths = [searched[k] for k in run] or lower
    raise ArithmeticError(
        f"E_t - E_inf is not certified at depths {depths[0]}..{depths[-1]} of (alpha, tau, "
        f"sigma2) = {point}: the minimum could lie there (the gain is too small to certify)"
    )


def _ternary_min(f, lo, hi):
    """The integer in ``[lo, hi]`` where ``f`` (smooth, unimodal there) is smallest."""
    while hi - lo > 3:
        a = lo + (hi - lo) // 3
        b = hi - (hi - lo) // 3
        if f(a) <= f(b):
            hi = b
        else:
            lo = a
    return min(range(lo, hi + 1), key=f)


def saturation_optimum(alpha, tau, sigma2, *, t_search=None) -> SaturationOptimum:
    """The best finite depth inside the saturation regime, where stopping early can beat
    infinite depth: ``min_t E_t`` against Result 2's floor ``E_inf`` (lambda = 0).

    Where the law of :func:`cotbook.theory.asymptotics.asymptotic_law` has ``K < 0`` (beyond
    ``tau_x``, the alpha < 1 pole term leads), ``E_t`` falls below ``E_inf`` and returns to it
    from below, so a finite depth is best; the search also finds dips below ``E_inf`` that close
    again (measured below ``tau_x``) and ``t = 0`` where ``E_inf > E_0 = 1`` (Section 5.3).

    ``E_t - E_inf`` is evaluated directly, never as a difference of two rounded numbers
    (:func:`cotbook.theory.asymptotics.excess`, certified to 1e-6 relative), at
    :data:`_SEARCH` geometrically spaced depths up to ``t_search`` (default ``8 t_scale`` of
    the law, at least 64); the smallest is refined over the integers between its neighbours by
    a ternary search, and ``t_flip`` by bisection on the certified sign. The default
    ``t_search`` also reaches ``3 depth_per_efold log(tau / tau_x)`` (:func:`large_tau_law`:
    far above ``tau_x`` the dip moves deeper). A sampled depth the contours cannot certify is
    evaluated a second way (certified ``E_t`` minus the floor); where neither resolves a
    stretch of depths that could hold the minimum, the optimum is refused.

    Parameters
    ----------
    alpha, tau, sigma2 : float
        A point of the saturation regime (:func:`cotbook.theory.phases.regime`), else
        ``ValueError``.
    t_search : int, optional
        The deepest depth searched, ``2 <= t_search <= 100000``.

    Returns
    -------
    SaturationOptimum

    Raises
    ------
    ArithmeticError
        Where depths that could hold the minimum are resolved by neither method (far above
        ``tau_x`` the gain falls below what either certifies), naming them.

    Examples
    --------
    >>> best = saturation_optimum(0.5, 10.0, 0.01)
    >>> best.t_flip, best.t_min, round(best.E_min, 6), round(best.E_inf, 6)
    (18, 24, 0.562645, 0.563204)
    >>> f"{best.gain:.3e}"
    '5.593e-04'
    """
    alpha = _sat_alpha(alpha)
    tau = domain.tau(tau)
    sigma2 = domain.sigma2(sigma2)
    kind = phases.regime(alpha, tau, sigma2)
    if kind != "saturation":
        raise ValueError(
            f"tau must put (alpha, sigma2) = ({alpha!r}, {sigma2!r}) in the saturation regime "
            f"(tau > tau_stable = {phases.tau_stable(alpha, sigma2):.6g}), got {tau!r} ({kind})"
        )
    law = asymptotics.asymptotic_law(alpha, tau, sigma2)
    if t_search is None:  # far above tau_x the dip moves deeper, as large_tau_law says
        far = large_tau_law(alpha, sigma2)
        deep = 3 * far.depth_per_efold * math.log(max(tau / far.tau_x, 1.0))
        t_search = int(min(_SEARCH_T, max(64, math.ceil(8 * law.t_scale), math.ceil(deep))))
    t_search = _checks.positive_int("t_search", t_search)
    if not 2 <= t_search <= _SEARCH_T:
        raise ValueError(f"t_search must be in [2, {_SEARCH_T}], got {t_search}")
    floor = phases.error_floor(alpha, tau, sigma2)
    searched = [0, *log_depths(t_search, _SEARCH).tolist()]
    known = _excess_at(alpha, tau, sigma2, searched, floor)

    def f(t):  # E_t - E_inf, +inf where not certified (next to a change of sign: near 0)
        if t not in known:
            known.update(_excess_at(alpha, tau, sigma2, [t], floor))
        return known.get(t, math.inf)

    _check_certified(searched, known, (alpha, tau, sigma2), floor)
    grid = sorted(known)
    below = [t for t in grid if known[t] < 0]
    if not below:
        return SaturationOptimum(None, None, floor, floor, 0.0, t_search)
    k = grid.index(min(below, key=known.get))
    lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
    _ternary_min(f, lo, hi)  # fills `known` around the smallest sample
    # the smallest certified value (an uncertified depth counts as +inf in the search, so the
    # search's own answer could be one)
    t_min = min((t for t in known if known[t] < 0), key=known.get)
    # t_flip: the first certified negative depth, between the last non-negative sampled depth
    # before the first negative one and that depth
    first = below[0]
    before = [t for t in grid if t < first and known[t] >= 0]
    a, b = (before[-1], first) if before else (first, first)
    while b - a > 1:
        m = (a + b) // 2
        if f(m) < 0:
            b = m
        else:
            a = m  # not certified (near zero) or positive
    return SaturationOptimum(b, t_min, floor + known[t_min], floor, -known[t_min], t_search)


def optimum_map(alphas, factors, sigma2) -> dict:
    """``{(alpha, factor): saturation_optimum(alpha, factor * tau_x, sigma2)}`` over
    ``alphas`` and ``factors`` (``tau`` in units of ``tau_x``,
    :func:`cotbook.theory.phases.pole_crossover`, at each ``alpha``)."""
    out = {}
    for alpha in alphas:
        tau_x = phases.pole_crossover(alpha, sigma2)
        for factor in factors:
            out[alpha, factor] = saturation_optimum(alpha, factor * tau_x, sigma2)
    return out


def t_flip_law(alpha, tau, sigma2) -> float | None:
    """The depth beyond which ``E_t - E_inf`` stays negative, predicted from two terms of the
    long-depth law (:func:`cotbook.theory.asymptotics.candidates`): Result 2's
    ``K_- t^-1/2 Lambda^t`` (``K_- > 0``) and the alpha < 1 pole term's
    ``K_p t^-3/2 psi_max^t`` (``K_p < 0``).  Beyond ``tau_x`` (``psi_max > Lambda``) they cancel
    where ``log t - eps t = log(-K_p / K_-)``, ``eps = log(psi_max / Lambda)``; the larger root
    is returned (``None`` below ``tau_x``, where the two never cross for good, or where the
    pole term exceeds the other at every depth).  As ``tau -> tau_x``, ``eps -> 0`` and the
    root grows like ``log(1/eps) / eps``.  :func:`last_flip` measures it on the exact curve.
    """
    alpha = _sat_alpha(alpha)
    terms = {c.source: c for c in asymptotics.candidates(alpha, tau, sigma2)}
    neg, pole = terms.get("negative saddle"), terms.get(asymptotics.POLE)
    if neg is None or pole is None or not (pole.rate > neg.rate and neg.K > 0 > pole.K):
        return None
    eps = math.log(pole.rate / neg.rate)
    c = math.log(-pole.K / neg.K)

    def g(t):
        return math.log(t) - eps * t - c

    lo = 1.0 / eps
    if g(lo) <= 0.0:
        return None
    hi = 2.0 * lo
    while g(hi) > 0.0:
        hi *= 2.0
    return float(brentq(g, lo, hi, xtol=1e-9))


def last_flip(alpha, tau, sigma2, *, t_max=100000) -> int | None:
    """The depth from which ``E_t - E_inf`` (certified, :func:`cotbook.theory.asymptotics.excess`)
    is negative at every sampled depth up to ``t_max``: found on 80 geometric depths and
    bisected on the certified sign (a depth that cannot be certified, next to the change of
    sign, counts as not negative).  ``None`` where the law approaches from above (its sign is
    not -1) or the curve is not yet negative at ``t_max``; 1 where it is negative from t = 1.
    Compare :func:`t_flip_law`; :func:`saturation_optimum`'s ``t_flip`` is the *first* negative
    depth, which can lie in an earlier dip that closes again.  Next to a deep crossing the sign
    cannot be certified over a few depths, so the result can move by that much between
    floating-point paths (measured: 40915 and 40905 at (0.5, 1.001 tau_x, 0.01))."""
    alpha = _sat_alpha(alpha)
    t_max = _checks.positive_int("t_max", t_max)
    if asymptotics.asymptotic_law(alpha, tau, sigma2).sign != -1:
        return None

    def signs(depths):
        e = asymptotics.excess(alpha, tau, sigma2, depths, drop_uncertified=True)
        return dict(zip(e.depths.tolist(), e.sign.tolist(), strict=True))

    known = signs(log_depths(t_max, 80))
    ahead = [t for t in known if known[t] >= 0]
    if not ahead:
        return 1
    a = max(ahead)
    after = [t for t in known if t > a]
    if not after:
        return None
    b = min(after)
    while b - a > 1:
        m = (a + b) // 2
        if signs([m]).get(m, 0) < 0:
            b = m
        else:
            a = m
    return b


class LargeTauLaw(NamedTuple):
    """How the best depth and the gain scale as ``tau -> infinity`` (:func:`large_tau_law`)."""

    psi_max: float
    """The pole term's rate, the same at every ``tau`` beyond ``tau_x``."""
    depth_per_efold: float
    """``1 / log(1 / psi_max)``: how much ``t_min`` grows per e-fold of ``tau``."""
    tau_x: float
    """Where the pole term starts to lead (:func:`cotbook.theory.phases.pole_crossover`)."""


def large_tau_law(alpha, sigma2) -> LargeTauLaw:
    """The law of the best finite depth far above the boundary, at fixed ``0 < alpha < 1``.

    As ``tau`` grows, the constants of the long-depth terms
    (:func:`cotbook.theory.asymptotics.candidates`) fall as powers of ``tau``: the pole term's
    ``K_p`` (negative) as ``1/tau``, each saddle term's ``K`` as ``1/tau^2``; their rates
    converge, the pole term's ``psi_max`` does not depend on ``tau`` at all, and the positive
    saddle's rate tends to ``psi_max^2`` (all measured and tested). So the best depth
    balances ``psi_max^t / tau`` against ``psi_max^(2t) / tau^2``: ``psi_max^t_min ~ 1/tau``,
    ``t_min = depth_per_efold * log(tau) + O(log log tau)``, and the gain, the pole term there,
    ``~ |K_p| t_min^-3/2 psi_max^t_min``, falls as ``tau^-2 t_min^-3/2``, a local exponent
    ``-2 - 1.5 depth_per_efold / t_min`` that tends to ``-2`` only logarithmically slowly.

    Examples
    --------
    >>> law = large_tau_law(0.5, 0.01)
    >>> round(law.psi_max, 6), round(law.depth_per_efold, 3)
    (0.943188, 17.097)
    """
    alpha = _sat_alpha(alpha)
    sigma2 = domain.sigma2(sigma2)
    tau_x = phases.pole_crossover(alpha, sigma2)
    terms = {c.source: c for c in asymptotics.candidates(alpha, 10.0 * tau_x, sigma2)}
    pole = terms[asymptotics.POLE]
    return LargeTauLaw(pole.rate, 1.0 / math.log(1.0 / pole.rate), tau_x)


class LargeTauCheck(NamedTuple):
    """:func:`large_tau_law` against exact optima at two ``tau = factor * tau_x``."""

    alpha: float
    factors: tuple[float, float]
    t_min: tuple[int, int]
    """The exact best depths (:func:`saturation_optimum`)."""
    gain: tuple[float, float]
    slope: float
    """Measured ``(t_min[1] - t_min[0]) / log(tau[1] / tau[0])``."""
    slope_law: float
    """``depth_per_efold`` of :func:`large_tau_law`."""
    exponent: float
    """Measured local exponent ``log(gain[1] / gain[0]) / log(tau[1] / tau[0])``."""
    exponent_law: float
    """The law's ``gain ~ tau^-2 t_min^-3/2`` between the two exact best depths."""


def large_tau_check(alpha, sigma2, factors) -> list[LargeTauCheck]:
    """:func:`large_tau_law` checked against :func:`saturation_optimum` at ``tau = f * tau_x``
    for each ``f`` of ``factors`` (increasing, each > 1), one row per consecutive pair."""
    law = large_tau_law(alpha, sigma2)
    factors = [float(f) for f in factors]
    if len(factors) < 2 or any(not 1 < a < b for a, b in pairwise(factors)):
        raise ValueError(f"factors must be at least two increasing numbers > 1, got {factors}")
    found = optimum_map([alpha], factors, sigma2)
    best = [found[alpha, f] for f in factors]
    rows = []
    for (f0, b0), (f1, b1) in pairwise(zip(factors, best, strict=True)):
        span = math.log(f1 / f0)
        rows.append(
            LargeTauCheck(
                float(alpha),
                (f0, f1),
                (b0.t_min, b1.t_min),
                (b0.gain, b1.gain),
                (b1.t_min - b0.t_min) / span,
                law.depth_per_efold,
                math.log(b1.gain / b0.gain) / span,
                -2.0 - 1.5 * math.log(b1.t_min / b0.t_min) / span,
            )
        )
    return rows
