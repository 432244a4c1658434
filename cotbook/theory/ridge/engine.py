"""E_t in the limit for any ridge ``lam >= 0``: the closed system of App. C.9 read off a torus.

``E_t = [x^t y^t] B(x, y)`` with ``B = m13(u(x), v(y)) / ((1-x)(1-y))`` and
``u(x) = -x / (alpha (1 - x))`` (App. C.2, Eq. generalization_from_F, with the change of
variables of App. D): :func:`ridge_curve` reads the diagonal Taylor coefficients off a 2-D FFT
of B on a torus ``|x| = |y| = r``, chooses the torus by an analyticity check, and certifies
every depth it returns.  ``m13`` comes from the closed system solved in
:mod:`cotbook.theory.derivation` (its u- and v-sectors, continued to the torus' nodes) and the
compiled mixed sector of :mod:`cotbook.theory._torus` (both through
:mod:`cotbook.theory.ridge._nodes`), one torus at a time (:mod:`cotbook.theory.ridge.torus`).
Where E_t grows faster than a torus can follow, the depths beyond it come from the mixed
sector's pole (:mod:`cotbook.theory.ridge.pole`); where it settles but the sectors' cut starts
too near ``|y| = 1`` for a torus beyond it, from a circle and a loop round the cut
(:mod:`cotbook.theory.ridge.loop`).  This module is the search: the ladder of radii, the
bisection in ``r``, the doubling of the points per circle, and when each path past a torus is
tried; the curve it returns and the rule every depth meets are :mod:`._certify`'s, the paths
past a torus's refusal :mod:`.beyond`'s.
:func:`depth_map` is the ridge chapter's study of the best depth over ``tau`` and ``lam``.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _checks
from ..._threads import on_one_blas_thread
from ..derivation import Point
from . import torus
from ._certify import (
    RIDGE_ATOL,
    RIDGE_RTOL,
    RidgeAccuracyError,
    RidgeCurve,
    _agree,
    _certified,
    _reach,
)
from .beyond import _deeper_inside, _PastThePole, _round_the_cut, _TwoTori

__all__ = ["RIDGE_T_MAX", "RIDGE_N_MAX", "R_ABOVE", "ridge_curve", "depth_map"]

RIDGE_T_MAX = 10_000
"""Deepest ``t_max`` of :func:`ridge_curve`.  A torus inside ``|x| = 1`` holds the depths
``t <= (n - 8) / 2`` of its ``n`` points per circle (4092 at :data:`RIDGE_N_MAX`); deeper ones
come only from a torus beyond it, where B's tail is bounded at every depth."""

RIDGE_N_MAX = 8192
"""Most points per circle :func:`ridge_curve` uses: ``n = 8192`` holds ``n^2`` complex values
(1.1 GB; about 3.3 GB at the peak of one torus) and takes about 11 s per radius on one core
(``n = 4096``: 2-3 s)."""

_RADII = tuple(0.95 * 0.9**k for k in range(45))  # 0.95 .. 0.0093: the radius ladder
_R_BELOW = 0.999  # the bisection's band below |x| = 1 ends here
R_ABOVE = 1.03
"""The lowest torus radius of the first band beyond ``|x| = 1`` that :func:`ridge_curve`
searches (``[R_ABOVE, 2]``); where that torus fails, a singularity of B lies between it and
1, and a second band ``[1.005, R_ABOVE]`` is searched (``_R_NEAR``: nearer 1, removing the
poles at 1 costs digits like ``1/(r - 1)^2``)."""
_R_NEAR = 1.005
_R_CAP = 2.0  # the largest radius the bisection above the ladder tries
_DEEP_N = 2048  # where a search for more depths than a torus of this size holds starts
_REFINE_RTOL = 1e-3  # the bisection stops when its passing and failing radii are this close


@on_one_blas_thread
def ridge_curve(
    alpha, tau, sigma2, t_max, *, lam, n=None, radius=None, rtol=RIDGE_RTOL, atol=RIDGE_ATOL
):
    """``E_0 .. E_{t_max}`` in the limit, for any ``lam >= 0``, from the closed system (App. C.9).

    ``E_t = [x^t y^t] B(x, y)`` with ``B = m13(u(x), v(y)) / ((1-x)(1-y))`` and
    ``u(x) = -x / (alpha (1 - x))``: summing ``x^s (I - A S/alpha)^s`` over ``s`` gives
    ``(I - u(x) A S)^{-1} / (1 - x)``, so B generates the mixed moments of the CoT error
    (App. C.2, Eq. generalization_from_F, with the change of variables of App. D).  The diagonal
    coefficients are read off a 2-D FFT of B on the torus ``|x| = |y| = r`` (``n`` points per
    circle, default the larger of 512 and the power of two >= ``2 t_max + 8``; 2048 where
    ``t_max > 1020``, see **Deep depths**).

    **Which torus.**  The coefficients are those of the Taylor series only if B is analytic in
    the polydisc ``|x|, |y| <= r``.  Each torus on the ladder ``r = 0.95 * 0.9^k`` is checked
    (see :func:`cotbook.theory.ridge.torus.curve`): a singularity inside puts negative powers
    into the FFT, and the constant term must be ``E_0 = 1``.  The largest torus that passes is
    used if the next passing torus below it gives the same curve within the two error bounds (a
    second, independent contour); otherwise the search goes on down the ladder.  If that curve
    is not certified, a bisection in ``r`` (see ``_refine``) looks for the torus that certifies
    most depths among those that pass the check and agree with the ladder's curve: the bound
    ``2 max(nu, u max|B|) r^-2t`` grows more slowly with ``t`` on a larger torus.  It searches
    bands apart, from the ladder's radius to 0.999 and, where the ladder's top rung 0.95 passed,
    from 1.03 to 2, and where 1.03 fails (a singularity of B just beyond ``|x| = 1``, as where
    E_t decays slowly) from 1.005 to 1.03: B has poles at ``x = 1`` and ``y = 1`` where
    ``E_inf > 0``, so every torus near ``r = 1`` fails; beyond it they are taken out exactly
    (``torus.beyond``) and the sectors are continued radially in x (``_solve_sector``).
    ``radius`` fixes the torus instead, with the same checks.

    **Certified output.**  ``E_0 = 1`` exactly and ``E_t >= 0``: a value more negative than its
    error bound is an :class:`~cotbook.theory.domain.AccuracyError`, one within it is
    returned as 0.  Every depth must meet ``error_t <= rtol |E_t| + atol``, else
    ``AccuracyError`` names the first depth that does not and the accuracy it reached (a
    :class:`RidgeAccuracyError`, whose ``certified_to`` is the deepest depth certified).

    **Deep depths.**  A torus inside ``|x| = 1`` holds the depths ``t <= n/2 - 4`` of its ``n``
    points per circle (the bins above are the check's), at most 4092.  Deeper ones come from a
    torus beyond ``|x| = 1``, where the poles are out and the bins above ``n/2`` that the check
    reads bound B's Taylor tail: there ``E_t = E_inf`` within the same bound, which falls like
    ``r^-t``.  So the curves whose ``B`` is analytic beyond the unit polydisc but for its poles
    at 1 are certified to :data:`RIDGE_T_MAX` (measured, ``t_max = 10^4``, one core: ``(2, 0.5,
    0.01, lam = 0.1)``, ``(2, 3, 0.01, 0.1)``, ``(2, 10, 0.01, 1e-5)``, ``(4, 10, 0.01, 1e-8)``
    in 1.3-2.6 s, on ``r = 1.03-1.22``).  A search for more depths than 2048 points hold
    (``t_max > 1020``) starts at ``n = 2048``: at 512 points the torus at 1.03 can fail its
    check by aliasing alone, and where no torus beyond 1 serves, ``n`` doubles as needed.
    Where a torus beyond 1 certifies only the deep depths (B singular just beyond it, E_t
    small at the shallow ones), the shallow ones come from a torus inside, and the two are
    joined where they agree (``RidgeCurve.beyond_from``; see ``_TwoTori``: measured at
    ``(1.453, 7.086, 0.0247, lam = 2.979e-8)``, refused at ``t = 926`` without it, certified
    to ``10^4`` in 56 s).  Where the sectors' cut starts so near ``|y| = 1`` that no torus
    beyond 1 passes its check (the cut's end at ``y_e - 1 < 0.005`` needs more points per
    circle than a torus can hold), the deep depths come from a circle inside ``|x| = 1`` and a
    loop round the cut in ``y`` (``RidgeCurve.loop_from``; :mod:`cotbook.theory.ridge.loop`,
    tried once every other path has failed: measured at ``(0.9312, 11, 0.02632, lam =
    0.00127)``, ``y_e - 1 = 6.3e-4``, refused at ``t = 859`` without it, certified to ``10^4``).

    **Growing curves.**  Where E_t grows, B's singularity lies inside the unit polydisc and a
    torus certifies about ``n/5`` depths.  The depths beyond come from the mixed sector's pole
    (:func:`cotbook.theory.ridge.pole.deep_curve`: the y-integral moved past the pole
    ``y_k(x)``, the x-contour through the saddle of ``x y_k(x)``), used where it certifies
    every deeper depth and agrees with the torus, within both bounds, wherever both certify
    (``RidgeCurve.pole_from`` says from which depth; see ``_PastThePole``).  Measured (one core
    of an AMD EPYC): ``(2, 3, 0.01, lam = 1e-5)`` to ``t = 10^4`` in 17 s (``E_10^4 = 7.6e111``,
    to 1.5e-11), where the torus alone refused at ``t = 1557`` after 46 s.  At ``tau <= 1``
    with a large ridge the saddle can lie on the positive axis, where the pole curve crosses
    ``x = 1`` inside the unit circle; the path goes round it on ``|x| = x0`` (measured:
    ``(2, 1, 0.01, lam = 1)`` and ``(0.5, 0.5, 0.01, 1)`` certified until E_t leaves the
    float range, at ``t = 7823`` and ``2155``, in 10 and 6 s, where the torus alone refused at
    ``t = 1598`` and ``1784`` after about a minute).  A curve that settles is offered to the
    path once no torus serves: a pole just beyond ``|x| = 1`` stops every torus there too (see
    :data:`_GROWTH`).  Where the path does not apply (no simple
    pole on the real axis that its checks accept), the refusal names the deepest depth a torus
    certified; a curve that leaves the float range is refused at that depth
    (``RidgeAccuracyError.overflow``), and the search ends there.

    **Points per circle.**  Without ``n`` the search starts at the default; ``n`` doubles while
    no two tori of the ladder agree (unless more points cannot help, see ``_ladder``), then, after
    each bisection, until the curve is certified or :data:`RIDGE_N_MAX` is reached: a larger
    ``n`` moves the radius where aliasing stops a torus, ``(r/R)^(n/2) ~ 1e-12``, closer to B's
    singularity ``R``.  A refusal names the deepest depth certified and the torus (``radius``,
    ``n``) that certified it, which returns it when given.  Measured with ``t_max = 1000`` at
    ``sigma2 = 0.01`` and ``lam`` = 1e-5 and 0.1 (one core of an AMD EPYC): ``(alpha, tau) =
    (2, 3), (2, 10), (4, 10), (0.5, 10)`` and ``(2, 0.5)`` at ``lam = 0.1`` are certified to
    ``t = 1000`` (1.3-2.6 s; 7 s at ``(2, 3, 1e-5)``, whose singularity lies inside ``r = 1``:
    a torus ``r = 0.973``, ``n = 2048`` to ``t = 454``, the pole beyond).  At ``tau < 1``
    (``tau = 0.2, 0.5``, ``alpha = 2``) every ``lam`` from 1e-8 to 1 is certified to
    ``t = 10^4`` in 1.3-3.2 s on ``r = 1.03``.

    Parameters
    ----------
    alpha, tau : float
        ``L/D > 0``, ``M/D > 0`` (``tau > 1`` when ``lam = 0``).
    sigma2 : float
        Noise variance ``>= 0``.
    t_max : int
        Deepest CoT step, ``0 <= t_max <=`` :data:`RIDGE_T_MAX`.
    lam : float
        Ridge ``>= 0`` (the loss carries ``lam/2 |A|^2``).
    n : int, optional
        Points per circle of the torus (fixed: no escalation, and no pole path), a power of two
        from ``2 t_max + 8`` (from 512 where ``t_max`` exceeds what :data:`RIDGE_N_MAX` points
        hold) to :data:`RIDGE_N_MAX`.
    radius : float, optional
        A fixed torus radius in ``(0, 2]`` (not 1) instead of the search.
    rtol, atol : float
        Accuracy required at every depth: ``error_t <= rtol |E_t| + atol``.

    Returns
    -------
    RidgeCurve
        ``E`` (``E_0 .. E_{t_max}``), its ``error`` bound and the ``radius`` used.

    Examples
    --------
    >>> curve = ridge_curve(2.0, 3.0, 0.01, 3, lam=0.1)
    >>> curve.E.round(6).tolist(), curve.radius
    ([1.0, 0.481043, 0.267786, 0.184779], 0.95)
    """
    p = Point.of(alpha, tau, sigma2, lam)
    t_max = _checks.nonneg_int("t_max", t_max)
    if t_max > RIDGE_T_MAX:
        raise ValueError(f"t_max must be <= {RIDGE_T_MAX} (RIDGE_T_MAX) when lam > 0, got {t_max}")
    n_cap = RIDGE_N_MAX
    n_given = n is not None
    # a torus inside |x| = 1 holds depths up to n/2 - 4; deeper ones need a torus beyond it,
    # whose check at 512 points can fail hard by aliasing alone, or the pole path: a search
    # past what 2048 points hold starts there (at 2 t_max + 8 points, 8192 from t_max = 2045,
    # one torus cost 11 s, and (0.5, 0.5, 0.01, lam = 1) took 135 s to t_max = 2300, against
    # 6 s to 10^4)
    deep = t_max > torus.held(_DEEP_N)
    n_low = 512 if deep else 2 * t_max + 8
    if n is None:
        n = 2048 if deep else max(512, 1 << (n_low - 1).bit_length())
    n = _checks.positive_int("n", n)
    if not n_low <= n <= n_cap:
        raise ValueError(f"n must be in [{n_low}, {n_cap}] at t_max = {t_max}, got {n}")
    rtol = _checks.positive("rtol", rtol)
    atol = _checks.positive("atol", atol)
    if radius is not None:
        r = _checks.positive("radius", radius)
        if r > _R_CAP or r == 1:
            raise ValueError(f"radius must be in (0, {_R_CAP:g}] and not 1, got {radius!r}")
        found = torus.curve(p, r, n, t_max)
        if found is None:
            raise RidgeAccuracyError(
                f"ridge_curve: the torus of radius {r:g} fails the analyticity check at "
                f"{p} (a singularity of B inside it, or aliasing)",
                None,
            )
        return _certified(p, *found[:2], r, n, rtol, atol)
    # the ladder: n escalates until two of its tori agree (if the largest failed the check by
    # aliasing, a larger n accepts it); then the bisection above the torus the ladder used, at
    # this n and at each doubling
    refused, base, bands, before = None, None, [], None
    inside = None  # the deepest refusal of a torus inside |x| = 1, for the loop round the cut
    beyond = _PastThePole(p, t_max, rtol, atol, enabled=not n_given)
    tails = _TwoTori(rtol, atol)
    while True:
        if base is None:
            found, before = _ladder(p, n, t_max, before)
            if found is not None:
                E, err, r, aliased = found
                try:
                    return _certified(p, E, err, r, n, rtol, atol)
                except RidgeAccuracyError as refusal:
                    inside = _deeper_inside(inside, refusal)
                    refused = beyond.extend(refusal)
                    if isinstance(refused, RidgeCurve):
                        return refused
                    if beyond.overflowed:  # no torus or node count brings it back
                        raise refused from None
                k = _RADII.index(r)
                base = (E, err)
                # below |x| = 1 and, above the top rung, beyond it: B's poles at x = 1 (where
                # E_inf > 0) make every torus near r = 1 fail, so the two are searched apart
                bands = [[r, _R_BELOW]]  # a rung above that failed by aliasing may pass later
                if not k:
                    bands[:0] = [[R_ABOVE, _R_CAP], [_R_NEAR, R_ABOVE]]
        for band in list(bands):
            found, edge, soft = _refine(p, n, t_max, base, *band, rtol, atol, tails)
            if found is None:
                if not soft:  # every torus tried encloses a singularity: drop the band
                    bands.remove(band)
                continue
            # aliasing stops a torus at n points once (r/R)^(n/2) ~ 1e-12, so the failing radius
            # nearest below the singularity R satisfies R ~ edge exp(55/n): the next n searches
            # up to there (a failure of any other cause only narrows the search)
            E, err, band[0], aliased = found
            band[1] = min(band[1], edge * math.exp(64 / n))
            try:
                return _certified(p, E, err, band[0], n, rtol, atol)
            except RidgeAccuracyError as refusal:
                inside = _deeper_inside(inside, refusal)
                joined = tails.join(p, refusal)
                if joined is not None:
                    return joined
                longer = beyond.extend(refusal)
                if isinstance(longer, RidgeCurve):
                    return longer
                if _reach(longer) > _reach(refused):
                    refused = longer
                if beyond.overflowed:
                    raise refused from None
        if n_given or 2 * n > n_cap or (base is not None and not bands):
            if refused is None:
                raise _no_torus(p)
            joined = tails.join(p, refused)  # a tail found at more points than the refusal's
            if joined is not None:
                return joined
            last = beyond.last_resort()  # a settling curve: the pole path once no torus serves
            if isinstance(last, RidgeCurve):
                return last
            looped = _round_the_cut(p, inside, t_max, rtol, atol)  # or the loop round the cut
            if looped is not None:
                return looped
            if last is not None and _reach(last) > _reach(refused):
                refused = last
            raise refused
        n *= 2


def _refine(p: Point, n, t_max, base, lo, hi, rtol, atol, tails=None):
    """``(E, err, r, aliased)`` on the torus in ``(lo, hi)`` that certifies the most leading
    depths (``err_t <= rtol |E_t| + atol``) among those a bisection in ``r`` tries, to relative
    width :data:`_REFINE_RTOL`, at ``n`` points per circle; each must pass the check and agree
    with the ladder's curve ``base = (E, err)`` within both bounds (``None`` if none does); the
    smallest radius the bisection moved down from (``hi`` if none); and whether any torus
    failed the check softly, as aliasing does (see ``torus.soft``).  A band beyond
    ``|x| = 1`` (``lo > 1``) is entered only if its lowest torus passes; each of its tori that
    passes and agrees is offered to ``tails`` (a :class:`_TwoTori`, or ``None``).

    The bisection moves up past a torus whose bound rounding sets and down past one whose bound
    aliasing sets (or that fails): its error ``2 max(nu, u max|B|) r^-2t`` falls with ``r``
    while rounding sets it, but near the singularity ``nu`` grows like ``(r/R)^(n/2)``, faster
    than ``r^-2t`` falls for ``t < n/4``.  Measured at ``(2, 3, 0.01, lam = 1e-5)``,
    ``n = 2048``: ``r = 0.9742`` (aliased) certifies ``t <= 438``, ``r = 0.9773`` only 281."""
    best, best_depth, failures = None, -1, []
    # a band beyond |x| = 1 starts at its lowest torus, and is entered only if that passes
    first = entry = lo if lo > 1 else None
    while hi > lo * (1 + _REFINE_RTOL):
        r, first = (first, None) if first else (math.sqrt(lo * hi), None)
        found = torus.curve(p, r, n, t_max, failures)
        agrees = found is not None and _agree(*found[:2], *base)
        if not agrees:
            if r == entry:  # no torus in this band beyond |x| = 1 at this n
                break
            hi = r
            continue
        E, err, aliased = found
        if r > 1 and tails is not None:
            tails.offer(E, err, r)
        with np.errstate(invalid="ignore"):
            bad = ~(err <= rtol * np.abs(E) + atol)
        depth = int(np.argmax(bad)) if bad.any() else len(E)
        if depth > best_depth:
            best, best_depth = (E, err, r, aliased), depth
        if depth == len(E):  # every depth certified: no larger torus is needed
            break
        if aliased:
            hi = r
        else:
            lo = r
    return best, hi, any(map(torus.soft, failures))


def _no_torus(p: Point) -> RidgeAccuracyError:
    return RidgeAccuracyError(
        f"ridge_curve: no two tori of radii in [{_RADII[-1]:.3g}, {_RADII[0]}] passed the "
        f"analyticity check and agreed at {p}",
        None,
    )


def _ladder(p: Point, n, t_max, before=None):
    """``((E, err, r, aliased), None)`` on the largest torus of the ladder that passes the
    check and agrees with the next passing one below it within both bounds
    (:func:`ridge_curve`); ``(None, failures)`` where no two do, with the failure of each
    rung of the coarse descent (see ``torus.soft``) where every one of them failed, for
    the call at twice the points (``before``).

    More points per circle cannot help, and the refusal is raised at once, where every rung of
    the coarse descent fails hard, or where none of their failures fell tenfold since
    ``before``: aliasing falls like ``(r/R)^(n/2)`` when ``n`` doubles, rounding does not
    (measured at ``(2, 0.2, 0.01, lam = 1e-8)`` while the sectors still cancelled terms of size
    ``Tr C^-1/D = 1.6e8``: 1e-11 to 3e-8 on every rung at ``n = 512``, 1024 and 2048)."""
    curves: dict = {}
    failures: dict = {}

    def at(k):  # the curve on rung k of the ladder (None: fails the check), computed once
        if k not in curves:
            failed: list = []
            curves[k] = torus.curve(p, _RADII[k], n, t_max, failed)
            if failed:
                failures[k] = failed[0]
        return curves[k]

    # coarse descent (every 4th rung) to the first passing rung, then up while rungs pass
    k = next((k for k in range(0, len(_RADII), 4) if at(k) is not None), None)
    if k is None:
        if not any(map(torus.soft, failures.values())) or (
            before is not None and all(failures[j] > before[j] / 10 for j in failures)
        ):
            raise _no_torus(p)
        return None, failures
    top = k
    while top > max(0, k - 3) and at(top - 1) is not None:
        top -= 1
    for j in range(top, len(_RADII) - 1):
        if at(j) is None or at(j + 1) is None:
            continue
        (E1, err1, aliased), (E2, err2, _) = at(j), at(j + 1)
        if _agree(E1, err1, E2, err2):
            return (E1, err1, _RADII[j], aliased), None
    return None, None


def depth_map(alpha, sigma2, taus, lams, t_max) -> dict:
    """For each ``lam``: the optimal depth ``t*(tau)`` (capped at ``t_max``) and ``E_{t*}``.

    An interior minimum (``t* < t_max``) means overthinking within the horizon: E_t rises again.
    Returns ``{lam: {"t_star": int array, "E_star": array, "E_end": array}}`` over ``taus``.
    """
    out = {}
    for lam in lams:
        ts, es, ee = [], [], []
        for tau in taus:
            E = ridge_curve(alpha, tau, sigma2, t_max, lam=lam).E
            ts.append(int(np.argmin(E)))  # the first minimum on ties
            es.append(E[ts[-1]])
            ee.append(E[-1])
        out[lam] = {"t_star": np.array(ts), "E_star": np.array(es), "E_end": np.array(ee)}
    return out
