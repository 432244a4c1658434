"""Stopping early inside the saturation regime: the best finite depth, the depth at which E_t
crosses its floor for good, and how both scale far above the boundary (lambda = 0).

Beyond ``tau_x`` (:func:`cotbook.theory.phases.pole_crossover`) the term that leads
``E_t - E_inf`` at long depth, the alpha < 1 pole term ``K_p t^-3/2 psi_max^t``, has ``K_p < 0``
(:mod:`cotbook.theory.asymptotics`): E_t dips below Result 2's floor and returns to it from
below, so a finite depth beats infinite depth although the dynamics are stable.
:func:`saturation_optimum` finds the best depth and the gain, exactly: every depth is evaluated
up to one beyond which :func:`excess_bound` keeps ``|E_t - E_inf|`` below the gain.
:func:`t_flip_law` and :func:`last_flip` give the final crossing of the floor just above
``tau_x``, and :func:`large_tau_heuristic` how the best depth and the gain scale as
``tau -> infinity`` (a heuristic, measured by :func:`large_tau_check`).
"""

from __future__ import annotations

import math
from itertools import pairwise
from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq

from ... import _checks
from .. import asymptotics, domain, phases
from ..exact import closed_form, contour
from .saturation import E0, _sat_alpha, log_depths

__all__ = [
    "SaturationOptimum",
    "saturation_optimum",
    "excess_bound",
    "optimum_map",
    "t_flip_law",
    "last_flip",
    "LargeTauHeuristic",
    "large_tau_heuristic",
    "LargeTauCheck",
    "large_tau_check",
]


class SaturationOptimum(NamedTuple):
    """The best finite depths in the saturation regime (:func:`saturation_optimum`)."""

    t_best: int | None
    """The depth of the smallest ``E_t`` over all ``t >= 0``: 0 where ``E_0 = 1`` lies below
    every later value, ``None`` where no depth up to ``t_stop`` is below ``E_inf``."""
    gain_best: float
    """``E_inf - E_{t_best} > 0`` (0 where ``t_best`` is ``None``)."""
    t_min: int | None
    """The depth ``t >= 1`` of the smallest ``E_t``: what a reader who reasons at all can
    gain (``None`` where no depth from 1 to ``t_stop`` is below ``E_inf``)."""
    E_min: float
    """``E_{t_min}`` (``E_inf`` where ``t_min`` is ``None``)."""
    gain: float
    """``E_inf - E_min >= 0``, computed as ``-(E_t - E_inf)`` from its direct evaluation."""
    E_inf: float
    """Result 2's floor."""
    t_flip: int | None
    """The first depth ``t >= 1`` at which ``E_t < E_inf`` is certified (``None``: none up to
    ``t_stop``); each depth before it is certified not below ``E_inf``, or too close to it for
    either method to resolve its sign."""
    t_stop: int
    """Every depth up to ``t_stop`` is evaluated; where a best depth is returned,
    ``|E_t - E_inf|`` beyond ``t_stop`` is certified below its gain (:func:`excess_bound`),
    so no deeper depth is lower."""


_SEARCH_T = 100000  # the deepest depth excess certifies
_FIRST_T = 64  # the depths evaluated first; the range doubles until the bound closes it
_RTOL = 1e-6  # relative accuracy of E_t - E_inf asked of the contours where it matters
_REFINE_N = 4096  # the most nodes per circle a refinement of many depths tries


def _modulus_sums(g, t, n) -> float:
    """``sum |coefficient| * integral |integrand|`` of the contour integrals of
    ``E_t - E_inf`` on ``n`` nodes per circle (``inf`` where ``|psi| > 1`` on a contour)."""
    H = contour._residue_sums(g, [t], n)
    if H is None:  # the residue contour fails
        return math.inf
    sums = [(g.alpha, contour._torus_sums(g, [t], n)[0]), (g.alpha, H[0])]
    if g.alpha < g.r_T:
        sums.append((2.0 * g.alpha * (1.0 - g.alpha), contour._pole_sums(g, [t], n)[0]))
    if any(s.log_scale > 0.0 for _, s in sums):  # the largest |psi|^t on a contour
        return math.inf
    return sum(c * s.absolute * math.exp(s.log_scale) for c, s in sums)


def excess_bound(alpha, tau, sigma2, t) -> float:
    """A bound on ``|E_s - E_inf|`` for every depth ``s >= t`` (lambda = 0), from the contour
    representation of Result 1's closed form (:mod:`cotbook.theory.exact.contour`).

    ``E_s - E_inf`` is a torus integral ``alpha T_s``, a residue integral ``-alpha H_s``, for
    ``alpha < 1`` a circle integral ``2 alpha (1 - alpha) S'_s``, and the residues whose rate
    is not 1, on one fixed set of contours (those of :func:`cotbook.theory.asymptotics.excess`
    at depth ``t``).  Each integrand carries ``psi^s`` (``psi(b) psi(a*)`` in ``H_s``) and each
    residue ``psi(p)^s``, with ``|psi| <= 1`` on the circles (radius ``r_T`` between ``alpha``
    and 1) and, checked, on the residue contour and at each pole: every integral is at most the
    integral of its modulus at depth ``t``, every residue at most its modulus at ``t``, at any
    ``s >= t``.  The integrals of the moduli are trapezoidal sums on ``n`` and ``2n`` nodes
    (``n`` doubled from 256 until the two agree within a tenth); twice the larger is returned,
    ``inf`` where they never agree, a modulus exceeds 1, or the contours do not apply (the
    residue contour checked as :func:`cotbook.theory.exact.contour.deep_errors` checks it).

    Parameters
    ----------
    alpha : float
        ``0 < alpha < 1``.
    tau, sigma2 : float
        ``tau > 1``, ``sigma2 >= 0``.
    t : int
        The depth, ``1 <= t <= 100000``.

    Examples
    --------
    >>> f"{excess_bound(0.5, 10.0, 0.01, 160):.3e}"
    '5.216e-05'
    """
    alpha = _sat_alpha(alpha)
    tau, sigma2 = domain.tau(tau), domain.sigma2(sigma2)
    t = _checks.positive_int("t", t)
    if t > _SEARCH_T:
        raise ValueError(f"t must be in [1, {_SEARCH_T}], got {t}")
    g = contour._floor_geometry(alpha, tau, sigma2, t)
    crossed = None if g is None else contour._crossed_poles(g)
    valid = crossed is not None and any(
        contour._contour_is_valid(g, n) for n in (1024, contour._N_MAX)
    )
    if not valid:
        return math.inf
    skip = contour._cancelling(g, crossed)
    residues = [(alpha, r) for r in contour._crossed_residues(g, crossed, t, skip)]
    if g.alpha < g.r_T:
        c = alpha * (1.0 - alpha)
        residues += [(c, r) for r in contour._pole_residues(g, t, skip)]
    residues = [(abs(k * v), lg) for k, (v, lg, const) in residues if not const]
    if any(lg > 0.0 for _, lg in residues):
        return math.inf
    left = sum(v * math.exp(lg) for v, lg in residues)
    n, coarse = 256, _modulus_sums(g, t, 256)
    while n < contour._N_MAX:
        n *= 2
        fine = _modulus_sums(g, t, n)
        if abs(fine - coarse) <= 0.1 * fine:
            return 2.0 * (max(fine, coarse) + left)
        coarse = fine
    return math.inf


def _closed_form_values(point, depths, floor) -> dict:
    """``{t: (E_t - E_inf, bound)}`` from ``E_t`` certified to ``RTOL_DEFAULT`` relative
    (:func:`cotbook.theory.exact.closed_form.errors_at`) minus the floor."""
    E = closed_form.errors_at(*point, depths)
    eps = np.finfo(float).eps
    return {
        t: (float(x) - floor, closed_form.RTOL_DEFAULT * float(x) + 4 * eps * floor)
        for t, x in zip(depths, E, strict=True)
    }


def _contour_values(point, depths, rtol, n_max) -> dict:
    """``{t: (E_t - E_inf, bound)}`` directly, by the contours
    (:func:`cotbook.theory.exact.contour.deep_errors`) with the nodes doubled (up to
    ``n_max``) until the bound is ``rtol`` of the value; ``rtol = inf`` keeps the nodes each
    depth starts from and the bound they certify, however large: next to a change of sign no
    relative bound holds, yet the absolute one can still order the depths.  The bound is never
    below the smallest float: a value that underflows is not taken for an exact 0."""
    got = contour.deep_errors(*point, depths, rtol, excess=True, n_max=n_max)
    tiny = math.ulp(0.0)
    return {
        t: (v.mantissa * math.exp(v.log_scale), max(v.error * math.exp(v.log_scale), tiny))
        for t, v in got.items()
    }


def _precise(value, bound) -> bool:
    """The bound is :data:`_RTOL` of the value (up to the rounding of both)."""
    return bound <= _RTOL * abs(value) * (1.0 + 1e-9)


def _refine(point, values, depths, floor, enough, n_max=_REFINE_N) -> None:
    """Tighten the bounds of ``values`` (``{t: (E_t - E_inf, bound)}``) at those ``depths``
    where ``enough(value, bound)`` fails: first by the closed form (cheap at shallow depths,
    and where the contours do not apply), then by the contours with more nodes (up to
    ``n_max``, until the bound is :data:`_RTOL` of the value); a new value is kept where its
    bound is smaller."""
    for tighter in (
        lambda todo: _closed_form_values(point, todo, floor),
        lambda todo: _contour_values(point, todo, _RTOL, n_max),
    ):
        todo = [t for t in depths if not enough(*values[t])]
        if not todo:
            return
        values.update({t: vb for t, vb in tighter(todo).items() if vb[1] < values[t][1]})


def _lowest(point, values, floor, closed, first=0) -> int | None:
    """The depth ``t >= first`` of the smallest value of ``values`` (``{t: (E_t - E_inf,
    bound)}``), certified below 0 and below every other; ``None`` where none is certified
    below 0.  The depths whose values could lie below it (below 0 where there is none, once
    the search is ``closed``) are refined once (:func:`_refine`); any left raise
    ``ArithmeticError`` naming them."""
    for final in (False, True):
        pool = {t: vb for t, vb in values.items() if t >= first}
        t = min(pool, key=lambda k: pool[k][0])
        if pool[t][0] + pool[t][1] >= 0.0:
            t = None
        rivals = [k for k, (v, b) in pool.items() if k != t and v - b < _top(values, t)]
        if not rivals or (t is None and not closed):
            return t
        if final:
            raise ArithmeticError(
                f"E_t - E_inf at (alpha, tau, sigma2) = {point} is not resolved at depths "
                f"{min(rivals)}..{max(rivals)} ({len(rivals)}): one could lie below "
                + ("E_inf" if t is None else f"depth {t}'s")
                + " (the gain is too small to certify there)"
            )
        if t:
            _refine(point, values, [t], floor, _precise)
        top = _top(values, t)
        _refine(point, values, rivals, floor, lambda v, b, top=top: v - b >= top)


def _top(values, t) -> float:
    """The largest value depth ``t`` of ``values`` can have (0 for ``None``: ``E_inf``)."""
    return 0.0 if t is None else values[t][0] + values[t][1]


def saturation_optimum(alpha, tau, sigma2, *, t_max=None) -> SaturationOptimum:
    """The best finite depths inside the saturation regime, where stopping early can beat
    infinite depth: ``min_t E_t`` of Result 1 against Result 2's floor ``E_inf`` (lambda = 0),
    over every depth, with no shape of the curve assumed.

    Where the law of :func:`cotbook.theory.asymptotics.asymptotic_law` has ``K < 0`` (beyond
    ``tau_x``, the alpha < 1 pole term leads), ``E_t`` falls below ``E_inf`` and returns to it
    from below, so a finite depth is best; dips below ``E_inf`` that close again occur too
    (measured below ``tau_x``), and at ``sigma2 = 0`` ``E_t - E_inf`` alternates between even
    and odd depths.  Where ``E_inf > E_0 = 1`` (Section 5.3) the best depth can be ``t = 0``;
    ``t_min`` is then the best depth ``t >= 1``.

    ``E_t - E_inf`` is evaluated directly at every depth from 1 to ``t_stop``, never as a
    difference of two rounded numbers, each value with a certified absolute bound: the
    contours of :func:`cotbook.theory.asymptotics.excess` on their first nodes; where that
    leaves a sign or an order unresolved, certified ``E_t`` minus the floor
    (:func:`cotbook.theory.exact.closed_form.errors_at`), then the contours with more nodes.  The
    minimum is certified below every other value, and the gains returned to 1e-6 relative.
    ``t_stop`` starts at 64 and doubles until :func:`excess_bound` keeps every deeper
    ``|E_t - E_inf|`` below the gain, which makes the minimum one over all depths.

    Parameters
    ----------
    alpha, tau, sigma2 : float
        A point of the saturation regime (:func:`cotbook.theory.phases.regime`), else
        ``ValueError``.
    t_max : int, optional
        The deepest depth evaluated, ``1 <= t_max <= 100000``.  Default: 100000 where the law
        approaches ``E_inf`` from below or alternates (some depth lies below it), else
        ``max(64, 8 t_scale)`` of the law (the law, from above, leads beyond ``t_scale``; a
        dip deeper than ``t_max`` is not excluded there, as ``t_stop`` says).

    Returns
    -------
    SaturationOptimum

    Raises
    ------
    ArithmeticError
        Where a depth that could hold the minimum is resolved by neither method, naming the
        depths; where a gain is certified only to more than 1e-6 relative (far above
        ``tau_x`` it falls below what the contours resolve), naming the depth; or where the
        bound does not fall below the gain by ``t_max``.

    Examples
    --------
    >>> best = saturation_optimum(0.5, 10.0, 0.01)
    >>> best.t_best, best.t_min, best.t_flip, best.t_stop
    (24, 24, 18, 128)
    >>> round(best.E_min, 6), round(best.E_inf, 6), f"{best.gain:.3e}"
    (0.562645, 0.563204, '5.593e-04')
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
    if t_max is None:
        law = asymptotics.asymptotic_law(alpha, tau, sigma2)
        t_max = _SEARCH_T if law.sign != 1 else max(_FIRST_T, math.ceil(8 * law.t_scale))
        t_max = min(t_max, _SEARCH_T)
    t_max = _checks.positive_int("t_max", t_max)
    if t_max > _SEARCH_T:
        raise ValueError(f"t_max must be in [1, {_SEARCH_T}], got {t_max}")
    point = (alpha, tau, sigma2)
    floor = phases.error_floor(*point)
    values = {0: (E0 - floor, 4 * np.finfo(float).eps * floor)}
    t_stop = 0
    while True:
        fresh = range(t_stop + 1, min(t_max, max(_FIRST_T, 2 * t_stop)) + 1)
        got = _contour_values(point, fresh, math.inf, contour._N_MAX)
        values.update({t: got.get(t, (0.0, math.inf)) for t in fresh})
        _refine(point, values, fresh, floor, lambda v, b: abs(v) > b)  # the signs
        t_stop = fresh[-1]
        # no deeper depth is evaluated, or the newest are all unresolved: the search is closed
        closed = t_stop == t_max or all(abs(values[t][0]) <= values[t][1] for t in fresh)
        t_best = _lowest(point, values, floor, closed)
        t_min = _lowest(point, values, floor, closed, first=1)
        if t_min is None and not closed:
            continue  # the best depth t >= 1 lies deeper
        if t_best is None:  # no depth below E_inf up to t_stop = t_max
            return SaturationOptimum(None, 0.0, None, floor, 0.0, floor, None, t_stop)
        top = _top(values, t_best if t_min is None else t_min)
        bound = excess_bound(alpha, tau, sigma2, t_stop)
        if bound < -top:
            break
        if t_stop == t_max:
            raise ArithmeticError(
                f"at (alpha, tau, sigma2) = {point} the bound on |E_t - E_inf| beyond "
                f"t_max = {t_max}, {bound:.3g}, is not below the gain {-top:.3g}: a deeper "
                f"depth could be lower (t_max may be raised to {_SEARCH_T})"
            )
    shown = [t for t in (t_best, t_min) if t]
    _refine(point, values, shown, floor, _precise, contour._N_MAX)  # the gains
    for t in shown:
        if not _precise(*values[t]):
            v, b = values[t]
            raise ArithmeticError(
                f"E_t - E_inf at (alpha, tau, sigma2) = {point}, depth {t}: certified only to "
                f"{b / abs(v):.1g} relative (the gain is too small to certify there)"
            )
    gain_best = -values[t_best][0]
    if t_min is None:
        return SaturationOptimum(t_best, gain_best, None, floor, 0.0, floor, None, t_stop)
    t_flip = min(t for t, (v, b) in values.items() if t > 0 and v + b < 0.0)
    gain = -values[t_min][0]
    return SaturationOptimum(t_best, gain_best, t_min, floor - gain, gain, floor, t_flip, t_stop)


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


class LargeTauHeuristic(NamedTuple):
    """How the best depth and the gain scale as ``tau -> infinity``, by a heuristic
    (:func:`large_tau_heuristic`)."""

    psi_max: float
    """The pole term's rate ``(2 sqrt(alpha) + sigma2) / (alpha + 1 + sigma2)``, the same at
    every ``tau``."""
    depth_per_efold: float
    """``1 / log(1 / psi_max)``: how much ``t_min`` grows per e-fold of ``tau``."""
    tau_x: float
    """Where the pole term starts to lead (:func:`cotbook.theory.phases.pole_crossover`)."""


def large_tau_heuristic(alpha, sigma2) -> LargeTauHeuristic:
    """A heuristic, not a derivation, for the best finite depth far above the boundary, at fixed
    ``0 < alpha < 1``.

    Two measured facts (the tests check both at ``10^3`` and ``10^4 tau_x``): at a fixed
    depth, ``E_t - E_inf`` stops depending on ``tau`` as ``tau`` grows (it tends to a positive
    curve falling like ``psi_max^2t``, the rate the positive saddle's tends to), while the
    constant ``K_p < 0`` of the pole term ``K_p t^-3/2 psi_max^t``
    (:func:`cotbook.theory.asymptotics.candidates`) falls as ``1/tau``; ``psi_max`` itself does
    not depend on ``tau``.  The dip lies where the two are of one size, ``psi_max^t ~ 1/tau``:
    ``t_min`` grows by ``depth_per_efold`` per e-fold of ``tau`` (up to ``O(log log tau)``),
    and the gain, the pole term there, falls as ``tau^-2 t_min^-3/2``.  Neither the balance
    nor the scalings is derived: :func:`large_tau_check` measures how well it predicts the
    exact optima.

    Parameters
    ----------
    alpha : float
        ``0 < alpha < 1``.
    sigma2 : float
        ``sigma2 >= 0``.

    Examples
    --------
    >>> law = large_tau_heuristic(0.5, 0.01)
    >>> round(law.psi_max, 6), round(law.depth_per_efold, 3)
    (0.943188, 17.097)
    """
    alpha = _sat_alpha(alpha)
    sigma2 = domain.sigma2(sigma2)
    psi_max = (2.0 * math.sqrt(alpha) + sigma2) / (alpha + 1.0 + sigma2)
    return LargeTauHeuristic(
        psi_max, 1.0 / math.log(1.0 / psi_max), phases.pole_crossover(alpha, sigma2)
    )


class LargeTauCheck(NamedTuple):
    """:func:`large_tau_heuristic` against the exact optimum at ``tau = factor * tau_x``
    (:func:`large_tau_check`)."""

    alpha: float
    factor: float
    t_min: int
    """The exact best depth (:func:`saturation_optimum`)."""
    t_law: float
    """The heuristic's, ``t_0 + depth_per_efold * log(factor / factor_0)`` from the exact
    ``t_0`` at the first factor."""
    gain: float
    """The exact gain."""
    gain_law: float
    """The heuristic's, ``gain_0 (factor_0 / factor)^2 (t_law / t_0)^-3/2``."""


def large_tau_check(alpha, sigma2, factors) -> list[LargeTauCheck]:
    """:func:`large_tau_heuristic` against :func:`saturation_optimum` at ``tau = f * tau_x``
    for each ``f`` of ``factors`` (increasing, each > 1): anchored at the exact optimum at the
    first factor, the heuristic's best depth and gain at each later one (one row each), with
    nothing else taken from the exact optima.

    Examples
    --------
    >>> (row,) = large_tau_check(0.3, 0.01, (30, 300))
    >>> row.t_min, round(row.t_law, 1), f"{row.gain:.3e}", f"{row.gain_law:.3e}"
    (32, 33.6, '2.792e-08', '2.315e-08')
    """
    law = large_tau_heuristic(alpha, sigma2)
    factors = [_checks.real("factors", f) for f in factors]
    if len(factors) < 2 or any(not 1 < a < b for a, b in pairwise(factors)):
        raise ValueError(f"factors must be at least two increasing numbers > 1, got {factors}")
    found = optimum_map([alpha], factors, sigma2)
    f0, anchor = factors[0], found[alpha, factors[0]]
    rows = []
    for f in factors[1:]:
        t_law = anchor.t_min + law.depth_per_efold * math.log(f / f0)
        gain_law = anchor.gain * (f0 / f) ** 2 * (t_law / anchor.t_min) ** -1.5
        best = found[alpha, f]
        rows.append(LargeTauCheck(float(alpha), f, best.t_min, t_law, best.gain, gain_law))
    return rows
