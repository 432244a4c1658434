"""Phase structure of test-time CoT (Results 2, 3 and Theorem 1), lambda = 0.

Notation as in :mod:`cotbook.theory` (``sigma2`` is the noise variance sigma^2).

Branch choice for the decay rate (Result 2).  The symmetric singular points of the generating
function are a^2 [1 + beta (alpha + 1 - 2a)] = alpha with x(a) = (alpha+1+sigma2) a /
(alpha + sigma2 a + a^2) (Appendix "Derivation of Result 2").  For a < 0 this cubic has exactly
one root a_- (the left side a^2 (gamma + 2 beta |a|) is increasing in |a|), it depends
continuously (indeed analytically) on tau, and at tau = tau_c it equals the paper's
a_c = -(alpha + 1 + 2 sigma2 - sqrt(Delta))/2, where x(a_c) = -1.  This is "the branch connected
to the large-tau regime that crosses xi = -1"; ``decay_rate`` returns Lambda = |x(a_-)|^-2.

Caveat found while reproducing (see ``rates``): the cubic also has a positive root a_+ in
(0, sqrt(alpha)], a pole of B on the positive axis, and h(x) has its square-root branch point at
x_b = (alpha+1+sigma2)/(2 sqrt(alpha)+sigma2).  As tau -> infinity, Lambda_- ->
((2 sqrt(alpha) - sigma2)/(alpha+1+sigma2))^2 whereas Theorem 1's rate is
((2 sqrt(alpha) + sigma2)/(alpha+1+sigma2))^2 = 1/x_b^2 (the positive side).  For sigma2 > 0 and
large tau the observed ratio E_{t+1}/E_t therefore tends to Lambda_+ (the positive-side rate), not
to the paper's Lambda; near and below tau_c the negative branch dominates and the paper's Lambda
is the observed rate.

Where E_t stays bounded (found while reproducing; ``tau_plus``, ``tau_stable``).  The positive
saddle's rate is above 1 exactly when ``a_+ < min(1, alpha)`` (psi(a) = 1 at a = 1 and a = alpha),
that is for ``tau < tau_+``, with ``tau_+ = 2 + sigma2`` (alpha <= 1) or ``1 + (1 + sigma2)/alpha``
(alpha >= 1).  Every other candidate rate of the law (:mod:`.asymptotics`) is at most 1.  So E_t
grows without bound exactly for ``tau < tau_stable = max(tau_c, tau_+)``.  Below the noise level
``noise_threshold(alpha)`` (0.25 at alpha = 1; about alpha for small alpha, 1 for large)
``tau_+ < tau_c`` and Result 2's boundary is the right one; above it the band
``tau_c < tau < tau_+`` overthinks although the paper's Lambda is below 1, and Result 2's floor
formula is negative or infinite there.  On the boundary itself the leading rate is 1 and the
power decides: -1/2 at ``tau_c`` and, for alpha >= 1, at ``tau_+`` (E_t approaches its limit
as a power of t), but +1 at ``tau_+`` for alpha < 1, where a double pole makes E_t grow
linearly (:data:`cotbook.theory.asymptotics.DOUBLE_POLE`).  :func:`regime` decides by this,
the leading term of :func:`asymptotic_law`, at any noise.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate

from .._checks import nonneg_int, positive
from . import domain
from .asymptotics import CRITICAL_RTOL as _BOUNDARY_RTOL
from .asymptotics import AsymptoticLaw, asymptotic_law, on_double_pole
from .exact import closed_form, result1

__all__ = [
    "tau_c",
    "tau_plus",
    "tau_stable",
    "noise_threshold",
    "error_floor",
    "decay_rate",
    "rates",
    "regime",
    "optimal_depth",
    "population_error",
    "mp_density",
    "mp_mass",
    "CRITICAL_RTOL",
    "AsymptoticLaw",
    "asymptotic_law",
    "pole_crossover",
    "MinimumNotReached",
]

#: Relative distance to ``tau_stable`` that :func:`regime` still calls the boundary (that of
#: :func:`cotbook.theory.asymptotics.on_double_pole` too).
CRITICAL_RTOL = _BOUNDARY_RTOL
REGIMES = ("overthinking", "critical", "exponential", "saturation")


class MinimumNotReached(ValueError):
    """:func:`optimal_depth` found no certified global minimum up to its ``t_max``;
    ``at_least`` is that depth where E_t was still falling there (so t* >= it), else ``None``."""

    def __init__(self, message, at_least=None):
        super().__init__(message)
        self.at_least = at_least


def _ps(alpha, sigma2):
    return domain.alpha(alpha), domain.sigma2(sigma2)


def tau_c(alpha, sigma2):
    """Critical task diversity tau_c(alpha, sigma2) of Result 2 (closed form).

    tau_c = 1 + (1+s)(alpha+1+2s-sqrt(Delta))(2alpha+2+2s-sqrt(Delta)) / (2 alpha sqrt(Delta)),
    Delta = (alpha+1+2s)^2 - 4 alpha, s = sigma2.  Delta = 0 only at alpha = 1, sigma2 = 0, where
    tau_c = +inf (returned as ``math.inf``: every tau is in the overthinking regime).
    The numerically stable form alpha + 1 + 2s - sqrt(Delta) = 4 alpha / (alpha + 1 + 2s +
    sqrt(Delta)) is used to avoid cancellation.

    Parameters
    ----------
    alpha : float
        ``L/D > 0``.
    sigma2 : float
        Noise variance ``>= 0``.

    Returns
    -------
    float
        ``tau_c``, or ``math.inf`` at ``alpha = 1``, ``sigma2 = 0``.

    Examples
    --------
    >>> round(tau_c(2.0, 0.01), 6)
    3.321557
    """
    alpha, s = _ps(alpha, sigma2)
    A = alpha + 1.0 + 2.0 * s
    # Delta = (A - 2 sqrt(alpha))(A + 2 sqrt(alpha)) with A - 2 sqrt(alpha) = (sqrt(alpha)-1)^2 + 2s
    delta = ((math.sqrt(alpha) - 1.0) ** 2 + 2.0 * s) * (A + 2.0 * math.sqrt(alpha))
    if delta == 0.0:
        return math.inf
    sd = math.sqrt(delta)
    first = 4.0 * alpha / (A + sd)  # = A - sqrt(Delta)
    return 1.0 + (1.0 + s) * first * (2.0 * alpha + 2.0 + 2.0 * s - sd) / (2.0 * alpha * sd)


def tau_plus(alpha, sigma2):
    """``tau_+``: below it the positive saddle's rate ``Lambda_+`` exceeds 1 (module docstring).

    ``tau_+ = 2 + sigma2`` for ``alpha <= 1`` and ``1 + (1 + sigma2)/alpha`` for ``alpha >= 1``
    (the two agree at ``alpha = 1``): the ``tau`` at which the positive symmetric singular
    point ``a_+`` reaches ``min(1, alpha)``, where ``psi(a_+) = 1``.

    Examples
    --------
    >>> tau_plus(0.5, 1.0), tau_plus(2.0, 1.0)
    (3.0, 2.0)
    """
    alpha, s = _ps(alpha, sigma2)
    return 2.0 + s if alpha <= 1.0 else 1.0 + (1.0 + s) / alpha


def tau_stable(alpha, sigma2):
    """The task diversity below which E_t grows without bound: ``max(tau_c, tau_+)``.

    Result 2 puts the boundary at ``tau_c``; that holds below :func:`noise_threshold`.  Above
    it the positive saddle's rate ``Lambda_+`` (:func:`rates`) is still above 1 on
    ``tau_c < tau < tau_+`` (:func:`tau_plus`), so the boundary is ``tau_+``.  ``math.inf`` at
    ``alpha = 1, sigma2 = 0``.

    Examples
    --------
    >>> round(tau_stable(2.0, 0.01), 6), tau_stable(2.0, 1.0)   # tau_c, then tau_+
    (3.321557, 2.0)
    """
    alpha, s = _ps(alpha, sigma2)
    return max(tau_c(alpha, s), tau_plus(alpha, s))


def noise_threshold(alpha):
    """The noise variance ``sigma2*`` above which ``tau_+ > tau_c``: Result 2's ``tau_c`` is the
    boundary of divergence only for ``sigma2 <= sigma2*`` (:func:`tau_stable`).

    The root of ``tau_c(alpha, s) = tau_+(alpha, s)`` in ``s`` (Brent's method to round-off);
    ``tau_c - tau_+`` is positive at ``s = 0`` and negative for large ``s``.

    Examples
    --------
    >>> round(noise_threshold(1.0), 12), round(noise_threshold(2.0), 6)
    (0.25, 0.427051)
    """
    from scipy.optimize import brentq

    alpha = domain.alpha(alpha)
    gap = lambda s: tau_c(alpha, s) - tau_plus(alpha, s)  # noqa: E731
    lo, hi = 0.0, 1.0
    while gap(hi) >= 0.0:
        lo, hi = hi, 2.0 * hi
    if math.isinf(gap(lo)):  # alpha = 1, s = 0: tau_c = inf
        lo = 1e-300
    return float(brentq(gap, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500))


def error_floor(alpha, tau, sigma2):
    """E_infinity of Result 2: (1-alpha)(tau-1)/(tau-2-sigma2) for 0 < alpha < 1 and
    tau >= tau_c(alpha, sigma2), else 0.

    Where Result 2's ``tau_c`` is not the boundary (``tau_c <= tau <= tau_+``, above
    :func:`noise_threshold`) E_t grows without bound although the paper's Lambda is below 1, and
    the formula is negative or infinite: ``ValueError`` there.  Below ``tau_c`` (overthinking)
    Result 2 writes ``E_t - E_inf ~ K t^-1/2 Lambda^t`` with ``E_inf = 0`` and Lambda > 1, i.e.
    E_t itself diverges; the returned 0 is the paper's constant of that decomposition, not
    lim E_t (:func:`cotbook.theory.summary` reports no floor there).  Above ``tau_stable``
    the floor is positive (``tau > tau_+ >= 2 + sigma2``).

    Examples
    --------
    >>> round(error_floor(0.5, 10.0, 0.01), 6), error_floor(2.0, 5.0, 0.01)
    (0.563204, 0.0)
    """
    alpha, s = _ps(alpha, sigma2)
    tau = domain.tau(tau)
    tc, tp = tau_c(alpha, s), tau_plus(alpha, s)
    if tc <= tau <= tp * (1.0 + CRITICAL_RTOL):
        raise ValueError(
            f"tau={tau!r} lies in [tau_c, tau_+] = [{tc:.8g}, {tp:.8g}] at (alpha, sigma2) = "
            f"({alpha!r}, {s!r}): there E_t grows without bound (the positive saddle's rate "
            "exceeds 1) and Result 2's floor does not apply; it applies for tau > tau_+ "
            "(phases.tau_stable)"
        )
    # within rtol below tau_c (and tau_c the boundary) :func:`regime` says "critical": the
    # limit is the floor there too
    if alpha < 1.0 and (tau >= tc or (tp < tau and tau >= tc * (1.0 - CRITICAL_RTOL))):
        return (1.0 - alpha) * (tau - 1.0) / (tau - 2.0 - s)
    return 0.0


def _xi(a, alpha, s):
    return (alpha + 1.0 + s) * a / (alpha + s * a + a * a)


def _lam(a, alpha, s):
    # |x(a)|^-2 written without division by x (x may be infinite when alpha + s a + a^2 = 0)
    return ((alpha + s * a + a * a) / ((alpha + 1.0 + s) * a)) ** 2


def _positive_root(alpha, tau, s):
    beta = (1.0 + s) / (alpha * (tau - 1.0))
    gam = 1.0 + beta * (alpha + 1.0)
    # smallest positive root of f(a) = a^2 (gam - 2 beta a) - alpha on (0, sqrt(alpha)]
    lo, hi = 0.0, math.sqrt(alpha)
    f = lambda a: a * a * (gam - 2.0 * beta * a) - alpha  # noqa: E731
    if f(hi) <= 0.0:  # f(sqrt(alpha)) = alpha beta (sqrt(alpha) - 1)^2 = 0 only at alpha = 1,
        # where f = (a - 1)(1 + a - 2 beta a^2): its other positive root is below 1 when beta > 1
        return min(hi, (1.0 + math.sqrt(1.0 + 8.0 * beta)) / (4.0 * beta))
    from scipy.optimize import brentq

    return brentq(f, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)


def decay_rate(alpha, tau, sigma2):
    """``Lambda(alpha, tau, sigma2) = |xi|^-2`` of Result 2 on the negative branch ``a_-`` (see
    module docstring): ``Lambda = ((alpha + sigma2 a_- + a_-^2) / ((alpha+1+sigma2) a_-))^2``.

    Lambda > 1 for tau < tau_c, = 1 at tau_c, < 1 above, continuous and decreasing in tau.
    This is the paper's rate, the negative saddle's; it leads ``E_t - E_inf`` near ``tau_c``
    but not everywhere: far above ``tau_c`` a slower decay leads, and above
    :func:`noise_threshold` the positive saddle's rate exceeds 1 on ``tau_c < tau < tau_+``,
    where E_t grows although Lambda < 1.  The rate that leads is
    :func:`asymptotic_law`'s; :func:`regime` decides by it.
    """
    alpha, s = _ps(alpha, sigma2)
    tau = domain.tau(tau)
    a = -result1.negative_singular_root(alpha, tau, s)
    return _lam(a, alpha, s)


def rates(alpha, tau, sigma2):
    """All candidate exponential rates of E_t (dict of floats).

    ``negative``: the paper's Lambda (``decay_rate``); ``positive``: ``|x(a_+)|^-2`` from the
    positive root ``a_+`` in ``(0, sqrt(alpha)]``; ``branch_point``: 1/x_b^2 = ((2 sqrt(alpha) +
    sigma2)/(alpha+1+sigma2))^2 (Theorem 1's rate); ``unit``: 1.0 for the pole at x = 1 that
    carries E_inf (alpha < 1 only, else 0); ``a_minus``, ``a_plus``, ``xi_minus``, ``xi_plus``.
    """
    alpha, s = _ps(alpha, sigma2)
    tau = domain.tau(tau)
    am = -result1.negative_singular_root(alpha, tau, s)
    ap = _positive_root(alpha, tau, s)
    K = alpha + 1.0 + s
    return {
        "negative": _lam(am, alpha, s),
        "positive": _lam(ap, alpha, s),
        "branch_point": ((2.0 * math.sqrt(alpha) + s) / K) ** 2,
        "unit": 1.0 if alpha < 1.0 else 0.0,
        "a_minus": am,
        "a_plus": ap,
        "xi_minus": _xi(am, alpha, s) if alpha + s * am + am * am != 0 else math.inf,
        "xi_plus": _xi(ap, alpha, s),
    }


def regime(alpha, tau, sigma2, *, rtol=CRITICAL_RTOL):
    """Regime of Result 2 / Fig. 1A: "overthinking", "critical", "exponential" or "saturation",
    decided by the term that leads E_t - E_inf as t -> infinity (:func:`asymptotic_law`), at
    any noise:

    * leading rate above 1, or rate 1 with a positive power: "overthinking" (E_t grows
      without bound);
    * rate 1 with a negative power: "critical" (E_t approaches its limit as a power of t);
    * rate below 1: "saturation" for alpha < 1 (E_inf > 0), "exponential" for alpha > 1.

    The leading rate exceeds 1 exactly for ``tau < tau_stable`` (:func:`tau_stable`: every
    candidate but the two saddles has rate at most 1), so the comparison with 1 is made there
    in closed form, and ``|tau - tau_stable| <= rtol * tau_stable`` (default rtol = 1e-9: tau
    is a float, so an exact equality test would almost never fire) counts as the boundary,
    rate 1.  There the power is -1/2 (a saddle at rate 1) except at ``tau_+`` for alpha < 1,
    where the double pole gives +1 (:func:`on_double_pole`: E_t ~ (1 - alpha)^2 t /
    (alpha + 1 + sigma2)), so that point is "overthinking".  ``tau_stable = tau_c`` below
    :func:`noise_threshold`, as Result 2 states; above it the band ``tau_c < tau < tau_+`` is
    overthinking although the paper's Lambda is below 1.  alpha < 1 at ``tau_stable = tau_c``
    returns "critical" (the paper's polynomial regime (II) is stated for alpha > 1 only).
    alpha = 1, sigma2 = 0: tau_c = inf, so every tau is "overthinking".

    On the line alpha = 1 (``|alpha - 1| <= rtol``) every tau above tau_stable is "critical":
    the positive-side rate Lambda_+ = ((2 sqrt(alpha) + sigma2)/(alpha + 1 + sigma2))^2 equals
    1 exactly there, so E_t decays only polynomially however large tau is (measured in the
    book's Result 2 chapter: fitted rate 1, power -1/2), although the paper's Lambda is below 1.

    Parameters
    ----------
    alpha, tau, sigma2 : float
        ``alpha > 0``, ``tau > 1``, ``sigma2 >= 0``.
    rtol : float
        Relative distance to ``tau_stable`` still called the boundary.

    Returns
    -------
    str
        One of :data:`REGIMES`.

    Examples
    --------
    >>> [regime(*p, 0.01) for p in [(2.0, 3.0), (0.5, 10.0), (4.0, 4.0)]]
    ['overthinking', 'saturation', 'exponential']
    >>> regime(2.0, 1.83594, 1.0)   # tau > tau_c = 1.41, but tau < tau_+ = 2
    'overthinking'
    >>> regime(0.5, 3.0, 1.0), regime(2.0, 2.0, 1.0)  # on tau_+
    ('overthinking', 'critical')
    """
    alpha, s = _ps(alpha, sigma2)
    tau = domain.tau(tau)
    rtol = positive("rtol", rtol)
    ts = tau_stable(alpha, s)
    if math.isinf(ts) or tau < ts * (1.0 - rtol):
        return "overthinking"
    if tau <= ts * (1.0 + rtol):
        return "overthinking" if _boundary_power(alpha, tau, s) > 0 else "critical"
    if abs(alpha - 1.0) <= rtol:
        return "critical"
    return "saturation" if alpha < 1.0 else "exponential"


def _boundary_power(alpha, tau, s):
    """The power of the law on the boundary ``tau = tau_stable`` (rate 1): +1 on the double
    pole (alpha < 1 at tau_+), else -1/2 (a saddle at rate 1)."""
    return 1.0 if on_double_pole(alpha, tau, s) else -0.5


def _growth_law(alpha, tau, s):
    """``(rate, power)`` of the term by which E_t grows in the overthinking regime: the larger
    saddle rate with power -1/2 where it exceeds 1 (every other candidate rate of
    :func:`asymptotic_law` is at most 1), else rate 1 with power +1 on the double pole
    (alpha < 1 at tau_+); ``None`` where neither holds (numerically on tau_stable)."""
    r = rates(alpha, tau, s)
    lam = max(r["negative"], r["positive"])
    if lam > 1.0:
        return lam, -0.5
    return (1.0, 1.0) if on_double_pole(alpha, tau, s) else None


def optimal_depth(alpha, tau, sigma2, *, t_max=4000, rtol=1e-8, method="auto"):
    """(t*, E_{t*}) with t* = argmin_{t >= 0} E_t (Result 3), certified global.

    Only defined in the overthinking regime (elsewhere E_t decreases to its infimum E_inf as
    t -> inf, or the minimum cannot be certified: ValueError).  Strategy: evaluate E_0..E_T
    (:func:`cotbook.theory.exact.closed_form.ridgeless_curve` with ``method``, certified to
    ``rtol``, default 1e-8: ample to order the values, and certifiable by float64 to larger
    depths than 1e-10) with T doubling from 64 up to ``t_max``; accept the argmin t* once
    T >= 2 t_r + 32, E_t strictly increasing on [t_r, T] (t_r >= t*: the curve may dip and
    rise before its final rise) and T > 2 t_mono, with the last ratio E_T/E_{T-1} within
    1e-3 max(1, T log Lambda) (relative) of the growth law's (Lambda, or T/(T - 1) for linear
    growth): loose (once T log Lambda > 1 any rising curve passes it), so the certificate
    rests on the final rise and on T > 2 t_mono, past which the law's term only grows.  The
    growth law is E_t ~ K t^-1/2 Lambda^t with Lambda > 1 the larger saddle rate (the paper's
    Lambda, or Lambda_+ above :func:`noise_threshold`), monotone for t > t_mono =
    1/(2 log Lambda), or E_t ~ K t on the double pole (alpha < 1 at tau_+, :func:`regime`).
    Not a proof: where the law leads only from a depth beyond T (its ``t_scale``), a later
    dip is not ruled out (none found against brute force to t = 5000 at 150 points).

    ``method="fast"`` leaves out the mpmath tier of the curve (seconds instead of minutes
    where float64 fails early: large noise near tau_+, alpha near 1); ``"auto"`` (default)
    keeps it.  Raises ValueError if not found within ``t_max``, or if E_t leaves the float64
    range first (:class:`MinimumNotReached`, a ValueError, for the first), and
    :class:`~cotbook.theory.AccuracyError` (naming the depth) where the curve cannot be
    certified.
    """
    alpha, s = _ps(alpha, sigma2)
    tau = domain.tau(tau)
    t_max = nonneg_int("t_max", t_max)
    if method not in ("auto", "fast"):
        raise ValueError(f"method must be 'auto' or 'fast', got {method!r}")
    if regime(alpha, tau, s) != "overthinking":
        raise ValueError(
            "optimal_depth needs the overthinking regime (tau < tau_stable = "
            f"{tau_stable(alpha, s):.6g}); got tau={tau!r}: there E_t does not attain a "
            "certified finite-depth minimum"
        )
    law = _growth_law(alpha, tau, s)
    if law is None:
        raise ValueError(f"tau={tau!r} is numerically too close to tau_stable (growth rate 1)")
    lam, power = law
    # K t^power Lambda^t increases for t > t_mono
    t_mono = -power / math.log(lam) if power < 0 else 0.0
    T = 64
    while True:
        T = min(T, t_max)
        E = closed_form.ridgeless_curve(alpha, tau, s, T, rtol=rtol, method=method)
        beyond = not np.isfinite(E[-1])  # E_t > 1.8e308 (returned as +inf) from some depth on
        if beyond:
            E = E[: int(np.argmax(~np.isfinite(E)))]
        ts = int(np.argmin(E))
        last = E.size - 1
        falls = np.nonzero(np.diff(E) <= 0)[0]
        rise = int(falls[-1]) + 1 if falls.size else 0  # E_t strictly increases on [rise, T]
        # the ratio of the law at T: Lambda (its t^-1/2 is within the tolerance where the test
        # passes), or (T / (T - 1)) for the linear growth on the double pole
        expected = (last / (last - 1)) ** power if power > 0 and last > 1 else lam
        if (
            last >= 2 * rise + 32
            and last > 2 * t_mono
            and abs(E[-1] / E[-2] / expected - 1.0) < 1e-3 * max(1.0, math.log(lam) * last)
        ):
            return ts, float(E[ts])
        if beyond:
            raise ValueError(
                f"E_t exceeds the float64 range from t = {last + 1} on, before the global "
                f"minimum of E_t at (alpha={alpha:g}, tau={tau:g}, sigma2={s:g}) can be "
                "certified"
            )
        if T >= t_max:
            if last < 2 * rise + 32:
                why = f"E_t falls until t = {rise}, too late to be sure it then only rises"
            elif last <= 2 * t_mono:
                why = (
                    f"E_t rises from t = {rise} to {last}, but the growth law rules out a "
                    f"later minimum only from t ~ {2 * t_mono:.2g} on"
                )
            else:
                why = f"E_{last} / E_{last - 1} is not yet the growth law's ratio"
            raise MinimumNotReached(
                f"the smallest E_t for t <= {last} is E_{ts} = {float(E[ts]):.10g}, not "
                f"certified to be the global minimum ({why}); increase t_max",
                at_least=last if ts == last else None,
            )
        T *= 2


def mp_density(s, alpha):
    """Marchenko-Pastur density of the nonzero eigenvalues, normalised as used here.

    ``rho(s) = sqrt((s_+ - s)(s - s_-)) / (2 pi s)`` on ``[s_-, s_+]``,
    ``s_pm = (1 pm sqrt(alpha))^2``.
    Its mass is min(alpha, 1) (alpha < 1: plus an atom 1 - alpha at s = 0).  The paper's
    Theorem 1 appendix writes the denominator as 2 pi alpha s, whose mass is 1/alpha for
    alpha > 1 (so it is not a probability density unless alpha = 1); the tests check the mass
    numerically and check population_error against E_t at tau -> inf.
    """
    alpha = domain.alpha(alpha)
    s = np.asarray(s, dtype=float)
    sm, sp = (1 - math.sqrt(alpha)) ** 2, (1 + math.sqrt(alpha)) ** 2
    inside = (s > sm) & (s < sp)
    out = np.zeros_like(s)
    with np.errstate(invalid="ignore", divide="ignore"):
        out[inside] = np.sqrt((sp - s[inside]) * (s[inside] - sm)) / (2 * math.pi * s[inside])
    return out


def mp_mass(alpha):
    """Total mass of :func:`mp_density` on its support, by quadrature: ``min(alpha, 1)``.

    Dividing it by ``alpha`` gives the mass of the density as the Theorem 1 appendix writes it
    (denominator ``2 pi alpha s``), which is 1 only for ``alpha <= 1``.
    """
    alpha = domain.alpha(alpha)
    sm, sp = (1 - math.sqrt(alpha)) ** 2, (1 + math.sqrt(alpha)) ** 2
    return float(integrate.quad(lambda s: mp_density(s, alpha), sm, sp, epsabs=0, epsrel=1e-12)[0])


def population_error(alpha, sigma2, t, *, log=False):
    """Theorem 1 (tau -> inf): E_t = int (1 - s/(alpha c))^(2t) mu_alpha(ds), c = 1+(1+s2)/alpha.

    mu_alpha = MP law of ``mp_density`` plus the atom (1 - alpha) delta_0 for alpha < 1 (which
    contributes 1 - alpha = lim_{tau->inf} E_inf).  Substitution ``s = s_- + (s_+ - s_-)(1 -
    cos theta)/2`` removes both square-root edges (the integrand becomes smooth in theta); the
    factor max|1 - s/(alpha c)|^(2t) is taken out analytically so nothing underflows before the
    end; the theta range is split at the edge layers of width ~ 1/sqrt(t) (the mass
    concentrates at ``s_-``, and also at ``s_+`` when sigma2 = 0).  Accurate to ~1e-13 relative
    for t up to at least 5000 (tested against mpmath quadrature).  Valid for all alpha > 0.

    ``log=True`` returns ``log E_t`` instead, which stays finite where ``E_t`` underflows
    (t of many thousands).
    """
    alpha, s2 = _ps(alpha, sigma2)
    t = nonneg_int("t", t)
    ac = alpha + 1.0 + s2
    sm, sp = (1 - math.sqrt(alpha)) ** 2, (1 + math.sqrt(alpha)) ** 2
    width = sp - sm
    r_lo = 1.0 - sm / ac  # value at s_-
    r_hi = abs(1.0 - sp / ac)
    rmax = max(abs(r_lo), r_hi)
    lr = math.log(rmax) if rmax > 0 else -math.inf

    def f(th):
        sh = math.sin(th / 2.0)
        s = sm + width * sh * sh
        if s == 0.0:  # alpha = 1, theta = 0: sin^2(theta)/s -> 4/width
            return (
                (width / (2.0 * math.pi))
                if t == 0
                else (width / (2.0 * math.pi))
                * math.exp(2 * t * (math.log(abs(1.0 - s / ac)) - lr))
            )
        base = abs(1.0 - s / ac)
        if base == 0.0:
            pw = 0.0 if t > 0 else 1.0
        else:
            pw = math.exp(2 * t * (math.log(base) - lr)) if t > 0 else 1.0
        # density * ds/dtheta = (width^2/4) sin^2(theta) / (2 pi s)
        return pw * (width * width / 4.0) * math.sin(th) ** 2 / (2.0 * math.pi * s)

    # breakpoints: edge layers of width ~ few / sqrt(t)
    pts = [0.0, math.pi]
    if t > 0:
        for k in (2.0, 8.0, 30.0):
            d = k / math.sqrt(2.0 * t)
            if d < math.pi / 2:
                pts += [d, math.pi - d]
    pts = sorted(set(pts))
    total = 0.0
    for a, b in zip(pts[:-1], pts[1:], strict=True):
        val, _ = integrate.quad(f, a, b, epsabs=0.0, epsrel=1e-13, limit=200)
        total += val
    log_cont = 2 * t * lr + math.log(total) if total > 0 else -math.inf
    atom = (1.0 - alpha) if alpha < 1.0 else 0.0
    if log:
        return float(np.logaddexp(math.log(atom) if atom > 0 else -math.inf, log_cont))
    return atom + (math.exp(log_cont) if total > 0 else 0.0)


def pole_crossover(alpha, sigma2):
    """For ``0 < alpha < 1``: the ``tau_x > tau_c`` at which the paper's Lambda falls to the
    pole term's rate psi_max = (2 sqrt(alpha) + sigma2) / (alpha + 1 + sigma2).  For
    ``tau_c < tau < tau_x`` the negative saddle (Result 2 as stated) can lead; beyond it the
    pole term leads unless a residue at 1/beta is faster.  Lambda decreases in tau and tends to
    ((2 sqrt(alpha) - sigma2)/(alpha + 1 + sigma2))^2 < psi_max, so the root is unique."""
    from scipy.optimize import brentq

    alpha, s = domain.alpha(alpha), domain.sigma2(sigma2)
    if alpha >= 1.0:
        raise ValueError(f"alpha must be in (0, 1) (the pole term needs alpha < 1), got {alpha!r}")
    psi_max = (2.0 * math.sqrt(alpha) + s) / (alpha + 1.0 + s)
    lo = tau_c(alpha, s)
    hi = 2.0 * lo
    while decay_rate(alpha, hi, s) > psi_max:
        hi *= 2.0
    return float(brentq(lambda tau: decay_rate(alpha, tau, s) - psi_max, lo, hi, xtol=1e-12))
