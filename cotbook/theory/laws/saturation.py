"""The saturation regime and the claims of Figure 1, measured from Result 1 (lambda = 0).

Result 2 (paper, Section 5): for ``0 < alpha < 1`` and ``tau >= tau_c(alpha, sigma2)`` the error
converges to the floor ``E_inf = (1 - alpha)(tau - 1)/(tau - 2 - sigma2)``
(:func:`cotbook.phases.error_floor`), with ``E_t - E_inf ~ K t^-1/2 Lambda^t``, "K a positive
constant" (far above tau_c another law holds, with K < 0: :mod:`cotbook.theory.asymptotics`).
Section 5.3 ("Saturation regime") adds that a larger ``alpha`` "may perform better at small
depths, yet be overtaken at sufficiently large depths by the saturation regime" (Fig. 1C).

The initial estimate is ``w_0 = 0``, so ``E_0 = E|w|^2 / D = 1`` (``error_curve(...)[0]``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq

from ... import _checks
from .. import asymptotics, domain, phases
from ..exact import closed_form
from . import scaling

__all__ = [
    "E0",
    "FIGURE_1",
    "PhaseGrid",
    "figure_1a",
    "floor_excess_interval",
    "floor_excess_alpha",
    "approach",
    "ResidueBand",
    "residue_band",
    "residue_alpha_max",
    "overtake_depth",
    "overtake",
    "log_depths",
    "RegimeStats",
    "regime_summary",
    "tail_trend",
]

E0 = 1.0  # error of the initial estimate w_0 = 0 (Result 1 at t = 0: F(0, 0) = 1)

FIGURE_1 = {"sigma2": 0.01, "t": 80}
"""Figure 1's noise variance and, for panel A, its depth (the paper's caption)."""


class PhaseGrid(NamedTuple):
    """``E[i, j]`` = ``E_t`` at ``(alphas[i], taus[j])``: the grid of :func:`figure_1a`, in
    the order :func:`cotbook.book.plotting.phase_heatmap` takes."""

    alphas: np.ndarray
    taus: np.ndarray
    E: np.ndarray
    sigma2: float
    t: int


def log_depths(t_max, n) -> np.ndarray:
    """The distinct depths ``floor(t)`` of ``n`` log-spaced ``t`` from 1 to ``t_max`` (both
    kept).  A point that is an integer in exact arithmetic (``t_max = 128``, ``n = 50``: 2, 4,
    8, ...) is that integer whatever its last bit: ``np.geomspace`` gives 7.999999999999999 for
    8 here, and a CPU whose vector path rounds up would have sampled 8 where this one sampled 7."""
    t_max, n = _checks.positive_int("t_max", t_max), _checks.positive_int("n", n)
    points = np.geomspace(1, t_max, n)
    return np.unique(np.floor(points * (1 + 1e-12)).astype(int))


def figure_1a(n=200) -> PhaseGrid:
    """The paper's Figure 1A: ``E_80`` (Result 1, lambda = 0, ``sigma2 = 0.01``) over ``n``
    log-spaced ``alpha`` in ``[0.1, 10]`` and ``tau - 1`` in ``[0.01, 100]``
    (:func:`cotbook.theory.exact.closed_form.error_grid`)."""
    n = _checks.positive_int("n", n)
    alphas, taus = np.logspace(-1, 1, n), 1 + np.logspace(-2, 2, n)
    sigma2, t = FIGURE_1["sigma2"], FIGURE_1["t"]
    return PhaseGrid(alphas, taus, closed_form.error_grid(alphas, taus, sigma2, t), sigma2, t)


def _sat_alpha(alpha):
    alpha = domain.alpha(alpha)
    if alpha >= 1.0:
        raise ValueError(f"alpha must be a finite number in (0, 1) (saturation), got {alpha!r}")
    return alpha


def floor_excess_interval(alpha, sigma2):
    """The tau interval ``[tau_c, tau_hi)`` on which Result 2's floor exceeds ``E_0 = 1``.

    For ``0 < alpha < 1`` and ``tau >= tau_c`` (where ``tau - 2 - sigma2 > 0``), ``E_inf > 1`` is
    ``(1 - alpha)(tau - 1) > tau - 2 - sigma2``, i.e. ``alpha (tau - 1) < 1 + sigma2``:
    ``tau < tau_hi = 1 + (1 + sigma2)/alpha`` (``beta > 1`` in the paper's notation).  Returns
    ``(tau_c, tau_hi)``, or ``None`` when ``tau_c >= tau_hi`` (the floor stays below 1).
    ``alpha`` must lie in (0, 1): for ``alpha >= 1`` the floor is 0.
    """
    alpha = _sat_alpha(alpha)
    sigma2 = domain.sigma2(sigma2)
    lo, hi = phases.tau_c(alpha, sigma2), 1.0 + (1.0 + sigma2) / alpha
    return (lo, hi) if lo < hi else None


def floor_excess_alpha(sigma2):
    """``alpha*(sigma2)``: the floor exceeds ``E_0 = 1`` for some tau iff ``alpha < alpha*``.

    The root in (0, 1) of ``tau_c(alpha, sigma2) = 1 + (1 + sigma2)/alpha`` (both sides of
    Result 2's ``E_inf = 1`` at ``tau = tau_c``); the difference is increasing in alpha, so the
    root is unique.  At ``sigma2 = 0``, ``tau_c = 1 + (3 alpha + 1)/(1 - alpha)`` and
    ``alpha* = 1/3`` exactly.
    """
    sigma2 = domain.sigma2(sigma2)

    def f(a):
        return phases.tau_c(a, sigma2) - 1.0 - (1.0 + sigma2) / a

    return float(brentq(f, 1e-9, 1.0 - 1e-12, xtol=1e-15, rtol=4 * np.finfo(float).eps))


def approach(alpha, tau, sigma2, *, resolve=scaling.RESOLVE):
    """How ``E_t`` approaches Result 2's floor ``E_inf`` in the saturation regime.

    ``E_t - E_inf`` is evaluated directly (:func:`cotbook.theory.asymptotics.excess`) at 50
    geometrically spaced depths up to ``t_law`` (those it cannot certify, next to a change of
    sign, left out): the first of :data:`cotbook.theory.laws.scaling.FIT_DEPTHS` at or beyond
    ``resolve * t_scale`` of the law (or the deepest).  Returns a dict:

    ``sign``: sign of ``E_t - E_inf`` at ``t_law`` (+1: from above, -1: from below);
    ``t_flip``: the first sampled depth after the last change of sign (0 if it never changes);
    ``law``: the t -> infinity law (:func:`cotbook.theory.phases.asymptotic_law`), whose sign
    ``sign`` should be; ``t_law``; ``floor``: E_inf.
    """
    alpha = _sat_alpha(alpha)
    tau = domain.tau(tau)
    sigma2 = domain.sigma2(sigma2)
    resolve = _checks.positive("resolve", resolve)
    if phases.regime(alpha, tau, sigma2) != "saturation":
        raise ValueError(
            f"tau must exceed tau_c(alpha, sigma2) = {phases.tau_c(alpha, sigma2):.6g} "
            f"(saturation regime), got {tau!r}"
        )
    law = phases.asymptotic_law(alpha, tau, sigma2)
    t_law = scaling.law_depth(law, resolve)
    sampled = log_depths(t_law, 50)
    e = asymptotics.excess(alpha, tau, sigma2, sampled, drop_uncertified=True, n_max=4096)
    if e.depths.size == 0 or e.depths[-1] != t_law:
        raise ArithmeticError(
            f"E_t - E_inf not certified at t = {t_law} (alpha={alpha!r}, tau={tau!r})"
        )
    depths, sign = e.depths, e.sign
    flips = np.nonzero(sign[1:] != sign[:-1])[0]
    return {
        "sign": int(sign[-1]),
        "t_flip": int(depths[flips[-1] + 1]) if flips.size else 0,
        "law": law,
        "t_law": t_law,
        "floor": phases.error_floor(alpha, tau, sigma2),
    }


def overtake_depth(first, second):
    """First depth ``t`` from which ``first[s] < second[s]`` for every ``s >= t`` in the arrays.

    ``None`` if ``first`` is not below ``second`` at the last depth.  (The last crossing of the
    two curves within the computed range: "overtaken at sufficiently large depths".)
    """
    first = _checks.array("first", first, ndim=1)
    second = _checks.array("second", second, ndim=1)
    if first.shape != second.shape or first.size < 2:
        raise ValueError(
            f"first and second must be curves of equal length >= 2, got {first.size}, {second.size}"
        )
    not_below = np.nonzero(first >= second)[0]
    if not_below.size == 0:
        return 0
    last = int(not_below[-1])
    return None if last == first.size - 1 else last + 1


def overtake(alpha1, alpha2, tau, sigma2, *, t_max=1000, rtol=1e-7):
    """Section 5.3 / Fig. 1C: does the smaller context ratio ``alpha1`` overtake ``alpha2``?

    ``E_t`` of both from :func:`cotbook.theory.error_curve` up to ``t_max`` (``alpha1 <
    alpha2``).  Returns a dict: ``regimes`` (of alpha1, alpha2), ``t_over`` (the depth from which
    ``E_t(alpha1) < E_t(alpha2)`` up to ``t_max``, :func:`overtake_depth`; ``None`` if not
    reached), ``larger_better_at_1`` (``E_1(alpha2) < E_1(alpha1)``), ``E_end`` (both errors at
    ``t_max``), ``floor1`` (E_inf of alpha1).
    """
    alpha1 = domain.alpha(alpha1)
    alpha2 = domain.alpha(alpha2)
    if not alpha1 < alpha2:
        raise ValueError(f"alpha2 must be larger than alpha1 = {alpha1!r}, got {alpha2!r}")
    tau = domain.tau(tau)
    sigma2 = domain.sigma2(sigma2)
    t_max = _checks.positive_int("t_max", t_max)
    c1 = closed_form.ridgeless_curve(alpha1, tau, sigma2, t_max, rtol=rtol)
    c2 = closed_form.ridgeless_curve(alpha2, tau, sigma2, t_max, rtol=rtol)
    return {
        "regimes": (phases.regime(alpha1, tau, sigma2), phases.regime(alpha2, tau, sigma2)),
        "t_over": overtake_depth(c1, c2),
        "larger_better_at_1": bool(c2[1] < c1[1]),
        "E_end": (float(c1[-1]), float(c2[-1])),
        "floor1": phases.error_floor(alpha1, tau, sigma2),
    }


class RegimeStats(NamedTuple):
    """Statistics of ``E_t`` over the grid points of one regime (:func:`regime_summary`)."""

    regime: str
    points: int
    share_above_start: float
    """Share of points with ``E_t > E_0 = 1``."""
    min_E: float
    max_E: float
    max_floor_gap: float
    """``max |E_t/E_inf - 1|`` in the saturation regime, NaN in the others."""


def regime_summary(alphas, taus, grid, sigma2) -> list[RegimeStats]:
    """Figure 1A measured: per regime of Result 2, statistics of the grid of ``E_t``.

    ``grid[i, j]`` is ``E_t`` at ``(alphas[i], taus[j])`` (as :func:`cotbook.theory.error_grid`).
    One :class:`RegimeStats` for each regime that has grid points.
    """
    alphas = _checks.array("alphas", alphas, ndim=1)
    taus = _checks.array("taus", taus, ndim=1)
    sigma2 = domain.sigma2(sigma2)
    grid = np.asarray(grid, dtype=float)
    if grid.shape != (alphas.size, taus.size):
        raise ValueError(f"grid must have shape {(alphas.size, taus.size)}, got {grid.shape}")
    names = np.array([[phases.regime(a, t, sigma2) for t in taus] for a in alphas])
    floors = np.array([[phases.error_floor(a, t, sigma2) for t in taus] for a in alphas])
    rows = []
    for name in phases.REGIMES:
        mask = names == name
        if not mask.any():
            continue
        values = grid[mask]
        dev = float(np.max(np.abs(values / floors[mask] - 1))) if name == "saturation" else math.nan
        rows.append(
            RegimeStats(
                name, int(mask.sum()), float(np.mean(values > E0)), values.min(), values.max(), dev
            )
        )
    return rows


def tail_trend(curve):
    """Figure 1B measured: ``(E_T / E_{T-1}, log2(E_T / E_{T/2}))`` at the end ``T`` of a curve.

    The first is the one-step ratio (-> Lambda for exponential growth or decay, -> 1 for a
    power law); the second the local power between ``T/2`` and ``T`` (even ``T >= 2``).
    """
    curve = _checks.array("curve", curve, ndim=1)
    T = curve.size - 1
    if T < 2 or T % 2 or np.any(curve[[T // 2, T - 1, T]] <= 0):
        raise ValueError(f"curve must have an even last depth T >= 2 and E > 0 there, got T={T}")
    return float(curve[T] / curve[T - 1]), float(math.log2(curve[T] / curve[T // 2]))


class ResidueBand(NamedTuple):
    """The interval ``tau_lo < tau < tau_hi`` where the residue at b = 1/beta leads the law."""

    alpha: float
    sigma2: float
    tau_lo: float
    tau_hi: float


def _residue_leads(alpha, tau, s) -> bool:
    return asymptotics.RESIDUE in asymptotics.asymptotic_law(alpha, tau, s).source


def _edge(alpha, s, inside, outside, rtol):
    """Bisect (in log(tau - 1)) between a tau where the residue leads and one where it does
    not.  An edge where a*(alpha) meets alpha (two poles coincide, and
    :func:`cotbook.theory.asymptotics.asymptotic_law` refuses within 1e-6 of it) is returned to
    that width."""
    while abs(inside - outside) > rtol * inside:
        mid = 1.0 + math.sqrt((inside - 1.0) * (outside - 1.0))
        try:
            leads = _residue_leads(alpha, mid, s)
        except ArithmeticError:
            return mid
        if leads:
            inside = mid
        else:
            outside = mid
    return inside


def residue_band(alpha, sigma2, *, scan=400, rtol=1e-9) -> ResidueBand | None:
    """Where the residue at b = 1/beta (rate psi(1/beta), power 0) leads E_t - E_inf, or
    ``None`` where it leads at no tau of the scan: ``scan`` values of tau - 1, geometric from
    1e-3 to 2 (1 + sigma2) / sqrt(alpha) (1/beta lies inside the contour only below half of
    it), and tau_x (:func:`cotbook.theory.phases.pole_crossover`, where Lambda = psi_max, for
    alpha < 1), around which the band closes as alpha grows.  The band's edges are bisected,
    in log(tau - 1), to ``rtol``.  Raises ``ArithmeticError`` if the residue leads on separate
    intervals or at an end of the scan.

    Examples
    --------
    >>> from cotbook.theory import phases
    >>> band = residue_band(0.05, 0.01)
    >>> [round(tau / phases.tau_c(0.05, 0.01), 4) for tau in band[2:]]
    [1.9999, 2.5445]
    """
    alpha, s = domain.alpha(alpha), domain.sigma2(sigma2)
    scan = _checks.positive_int("scan", scan)
    rtol = _checks.positive("rtol", rtol)
    taus = 1.0 + np.geomspace(1e-3, 2.0 * (1.0 + s) / math.sqrt(alpha), scan)
    if alpha < 1.0:
        taus = np.sort(np.append(taus, phases.pole_crossover(alpha, s)))
    leads = np.array([_residue_leads(alpha, tau, s) for tau in taus])
    if not leads.any():
        return None
    first, last = int(np.argmax(leads)), len(leads) - 1 - int(np.argmax(leads[::-1]))
    if not leads[first : last + 1].all():
        raise ArithmeticError(
            f"the residue at 1/beta leads on separate intervals at (alpha, sigma2) = "
            f"({alpha!r}, {s!r})"
        )
    if first == 0 or last == len(leads) - 1:
        raise ArithmeticError(
            f"the residue at 1/beta leads at an end of the scan (alpha = {alpha!r})"
        )
    lo = _edge(alpha, s, taus[first], taus[first - 1], rtol)
    hi = _edge(alpha, s, taus[last], taus[last + 1], rtol)
    return ResidueBand(alpha, s, lo, hi)


def residue_alpha_max(sigma2, *, rtol=1e-9) -> float | None:
    """The largest alpha in [1e-4, 0.9] at which the residue at 1/beta leads at tau_x (where
    Lambda = psi_max), by bisection, assuming it leads there for every smaller alpha; ``None``
    if it does not lead there at alpha = 1e-4.  At small noise this is where
    :func:`residue_band` closes (the test checks that at sigma2 = 0.01 against bands on a grid
    of alpha); at large noise a band can lie away from tau_x (sigma2 = 0.5, alpha = 0.001)."""
    s = domain.sigma2(sigma2)
    rtol = _checks.positive("rtol", rtol)

    def leads(alpha):
        return _residue_leads(alpha, phases.pole_crossover(alpha, s), s)

    lo, hi = 1e-4, 0.9
    if not leads(lo):
        return None
    if leads(hi):
        raise ArithmeticError(f"the residue at 1/beta leads up to alpha = {hi} (sigma2 = {s!r})")
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if leads(mid) else (lo, mid)
    return lo
