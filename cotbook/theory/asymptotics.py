"""How E_t approaches E_inf as t -> infinity (Result 2 and its corrections), lambda = 0.

The law is read off the singularities of the contour representation of Result 1
(:mod:`cotbook.theory.exact.contour`),

    E_t = alpha (T_t - H_t) + alpha (1 - alpha) (2 S'_t - residues),

whose integrands all carry powers psi(z)^t, psi(z) = (z + sigma2 + alpha/z) / K,
K = alpha + 1 + sigma2.  Each candidate below contributes ``K_j t^p_j rate_j^t``; the law is
the one with the largest rate (then the largest power):

* **negative saddle** -- the symmetric point a_- < 0 of the singular variety, a saddle of the
  residue integrand h(b) of H_t: rate Lambda = psi(a_-)^2 (the paper's Lambda), power -1/2.
  The paper's Result 2 is this term.
* **positive saddle** -- the symmetric point a_+ in (0, sqrt(alpha)]: rate
  Lambda_+ = psi(a_+)^2, power -1/2.  As tau -> infinity, a_+ -> sqrt(alpha), where R(a_+) -> 0
  and the constant vanishes like (sqrt(alpha) - a_+)^2; the law holds only for
  t >> 1/(f'' (sqrt(alpha) - a_+)^2) (``t_scale``), and before that the term looks like
  t^-3/2 psi_max^2t.
* A symmetric point is a term only where f'' > 0 there (:func:`_saddle`): the contour crosses
  it vertically, downhill.  Where f'' <= 0 (just above tau = 1, at small alpha or large noise)
  the descent runs along the real axis, the contour passes it by, and it gives no term
  (measured: the law without it matches fits on certified deep curves, e.g. at (alpha, tau,
  sigma2) = (0.5, 1.05, 0.01) and (0.3, 1.1, 0.5), and at 419 random points of the domain).
  A pole of the integrand near a saddle (R's at alpha, D's at 1 and 1/beta, b = 0) delays
  the Gaussian law to t >> 1/(f'' distance^2), which ``t_scale`` includes.
* **alpha < 1 pole term** -- the one-dimensional integral S'_t of R(b) psi(b)^t / D(alpha, b)
  left by the pole a = alpha of R, with its saddle at b = sqrt(alpha), where |psi| is largest on
  the circle: rate psi_max = (2 sqrt(alpha) + sigma2) / K -- *not squared*, so it is slower
  than every squared rate near it -- and power -3/2, because R(sqrt(alpha)) = 0.  For
  sigma2 = 0 the point b = -sqrt(alpha) has |psi| = psi_max too and adds (-1)^t times its own
  constant.
* **residue at 1/beta** -- where D(alpha, b) = alpha beta (b - 1)(b - 1/beta) vanishes at
  b = 1/beta inside the contour (alpha < 1, tau < 1 + (1 + sigma2)/sqrt(alpha)), or where the
  continued root a*(alpha) = 1/beta: rate psi(1/beta) in (psi_max, 1) -- power 0.
* the torus term T_t has rate psi_max^2 <= Lambda_+ (psi is smallest on the positive axis at
  sqrt(alpha)) and power -3 (-1 at alpha = 1): it never leads.
* **double pole at tau = tau_+** (alpha < 1, tau = 2 + sigma2, so beta = 1/alpha): the zero
  b = 1/beta of D(alpha, b) = alpha beta (b - 1)(b - 1/beta) meets the pole b = alpha of R, and
  R(b) / D(alpha, b) = -(alpha - b^2) / ((b - alpha)^2 (b - 1)) has a double pole where
  psi(alpha) = 1.  Its residue in the alpha < 1 term, -alpha (1 - alpha) d/db[-(alpha - b^2)
  psi(b)^t / ((b - 1) b)] at b = alpha, grows like t psi'(alpha) = -t (1 - alpha) /
  (alpha K): E_t ~ (1 - alpha)^2 t / K, power +1, rate 1 -- E_t grows linearly and has no
  limit (Result 2's floor (1 - alpha)(tau - 1)/(tau - 2 - sigma2) is infinite there).  The
  positive saddle a_+ = alpha sits on that pole; measured with the ball enclosure at
  (alpha, sigma2) = (0.5, 1), (0.3, 0.5), (0.8, 10) up to t = 3200, E_t - K t ~ -c t^1/2 with
  (c/K)^2 = 2.3, 0.7 and 120, below 1/K (10, 3.7 and 295), the ``t_scale`` given.

The t-independent residues (at b = 1 and b = alpha, where psi = 1) sum to E_inf
(:func:`cotbook.theory.exact.contour.floor`).  :func:`excess` evaluates E_t - E_inf directly, so the
approach to the floor is resolved at depths where E_t equals E_inf to every digit, and
:func:`local_law` fits the law's three parameters to it; the tests compare both.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._checks import nonneg_int, positive, positive_int
from . import domain
from .exact import contour

__all__ = [
    "AsymptoticLaw",
    "Candidate",
    "Excess",
    "FittedLaw",
    "asymptotic_law",
    "candidates",
    "excess",
    "local_law",
    "RESIDUE",
    "POLE",
    "DOUBLE_POLE",
    "CRITICAL_RTOL",
    "on_double_pole",
]

_TIE = 1e-12  # rates closer than this (relative) are one rate
CRITICAL_RTOL = 1e-9
"""Relative distance in tau below which a point counts as on a boundary (tau_c, tau_+): tau is
a float, so an exact equality test would almost never fire."""
DOUBLE_POLE = "double pole at b = alpha = 1/beta (tau = tau_+)"
"""The ``source`` of the law at tau = tau_+ for alpha < 1 (module docstring)."""
RESIDUE = "residue at b = 1/beta"
"""The ``source`` of the law where the residue at b = 1/beta leads
(:func:`cotbook.theory.laws.saturation.residue_band` finds where)."""
POLE = "alpha < 1 pole term, saddle at sqrt(alpha)"
"""The ``source`` of the alpha < 1 pole term."""


class AsymptoticLaw(NamedTuple):
    """``E_t - E_inf ~ (K + (-1)^t K_alt) t^power rate^t`` as t -> infinity."""

    rate: float
    power: float
    sign: int
    """Sign of ``E_t - E_inf`` at large t (+1 or -1), or 0 where it alternates with t's parity."""
    K: float
    K_alt: float
    """Constant of the (-1)^t part (sigma2 = 0 only; else 0)."""
    source: str
    """The singularity that gives the law (see the module docstring)."""
    t_scale: float
    """Depth beyond which the law leads, ``1/log(rate/next rate)``, and for a saddle near a
    zero of its integrand's constant, the depth at which the two separate.  Fits at t >> t_scale
    resolve the law; fits at t <~ t_scale do not."""


class _Term(NamedTuple):
    rate: float
    power: float
    K: float
    K_alt: float
    source: str
    t_scale: float


def _derivatives(g, b):
    """psi'/psi and (log psi)'' at b."""
    psi = contour._psi(g, b)
    d1 = (1.0 - g.alpha / (b * b)) / g.K
    d2 = 2.0 * g.alpha / (b**3 * g.K)
    return d1 / psi, d2 / psi - (d1 / psi) ** 2


def _saddle(g, b0, orientation, source):
    """The symmetric point b0 of h(b) = R(b) R(a*) psi(b)^t psi(a*)^t / (D_a(a*, b) a* b):
    a*(b0) = b0, a*'(b0) = -1, so f = log psi(b) + log psi(a*) has f'(b0) = 0 and
    f'' = 2 (log psi)'' + (log psi)' a*''.  The contour crosses b0 vertically (downwards at
    a_-, upwards at a_+: ``orientation``), which gives -alpha h / sqrt(2 pi t f'') times the
    orientation's sign, as a Gaussian integral.  ``None`` where f'' <= 0: there b0 is a
    minimum of |psi^t| along the vertical line (the descent runs along the real axis), so the
    steepest-descent contour does not pass through it and it gives no term."""
    alpha, beta, gamma = g.alpha, g.beta, g.gamma
    D_a = -gamma * b0 + 3.0 * beta * b0 * b0
    D_aa = D_bb = 2.0 * beta * b0
    D_ab = -gamma + 4.0 * beta * b0
    a2 = -(D_aa - 2.0 * D_ab + D_bb) / D_a
    lp, lpp = _derivatives(g, b0)
    f2 = 2.0 * lpp + lp * a2
    if not math.isfinite(f2):
        raise ArithmeticError(f"{source}: f'' = {f2!r} is not finite")
    if f2 <= 0.0:
        return None  # not a saddle the contour crosses downhill (module docstring)
    psi = contour._psi(g, b0)
    h0 = contour._R(g, b0) ** 2 / (D_a * b0 * b0)
    K = orientation * alpha * h0 / math.sqrt(2.0 * math.pi * f2)
    return psi * psi, f2, K


def _pole_term(g):
    """alpha < 1: 2 alpha (1 - alpha) S'_t near its saddles b = +-sqrt(alpha) (see the module
    docstring).  With b = sqrt(alpha) e^(i theta), psi^t ~ psi_max^t e^(-t kappa theta^2),
    kappa = sqrt(alpha) / (2 sqrt(alpha) + sigma2), and G(theta) = R(b) / D(alpha, b) vanishes
    at theta = 0, so the Gaussian integral of G''(0) theta^2 / 2 gives t^-3/2."""
    alpha, beta, s = g.alpha, g.beta, g.sigma2
    root = math.sqrt(alpha)
    kappa = root / (2.0 * root + s)
    c = alpha * (1.0 - alpha)

    def constant(b):  # 2 c (1/2 pi) (G''/2) sqrt(pi) / (2 kappa^3/2)
        R1 = 1.0 - (alpha * alpha - alpha) / (b - alpha) ** 2
        R2 = 2.0 * (alpha * alpha - alpha) / (b - alpha) ** 3
        Dv = alpha * beta * b * b - alpha * (1.0 + beta) * b + alpha
        D1 = 2.0 * alpha * beta * b - alpha * (1.0 + beta)
        F1 = R1 / Dv
        F2 = R2 / Dv - 2.0 * R1 * D1 / Dv**2
        G2 = -b * b * F2 - b * F1
        return 2.0 * c * G2 / (8.0 * math.sqrt(math.pi) * kappa**1.5)

    K_alt = constant(-root) if s == 0.0 else 0.0
    # a pole of G (b = 1/beta, 1 or alpha) near the saddle: the law needs t kappa dtheta^2 >> 1
    near = min(abs(p - root) for p in (1.0 / beta, 1.0, alpha)) / root
    return _Term(
        (2.0 * root + s) / g.K,
        -1.5,
        constant(root),
        K_alt,
        POLE,
        1.0 / (kappa * near * near),
    )


def _residue_terms(g):
    """The residues whose rate is not 1 (``contour``'s crossed poles of h and poles of the
    alpha < 1 term), each a term of power 0."""
    crossed = contour._crossed_poles(g)
    if crossed is None:
        raise ArithmeticError("two poles of the residue integrand coincide")
    skip = contour._cancelling(g, crossed)
    out = []
    name = RESIDUE  # a rate other than 1 is psi(1/beta): a*(alpha) = 1/beta
    for v, lg, const in contour._crossed_residues(g, crossed, 1, skip):
        if not const:
            out.append(_Term(math.exp(lg), 0.0, float(np.real(-g.alpha * v)), 0.0, name, 0))
    if g.alpha < g.r_T and g.alpha != 1.0:
        c = g.alpha * (1.0 - g.alpha)
        for v, lg, const in contour._pole_residues(g, 1, skip):
            if not const:
                out.append(_Term(math.exp(lg), 0.0, float(-c * v), 0.0, name, 0))
    return out


class Candidate(NamedTuple):
    """One term ``K t^power rate^t`` of E_t - E_inf (:func:`candidates`)."""

    source: str
    rate: float
    power: float
    K: float
    K_alt: float = 0.0
    """Constant of the (-1)^t part (the pole term at sigma2 = 0; else 0)."""


def _geometry(alpha, tau, s):
    g = contour._floor_geometry(alpha, tau, s, 1 << 20)
    if g is None or not math.isfinite(g.a_plus):
        raise ValueError(
            f"(alpha, tau) = ({alpha!r}, {tau!r}) is too close to alpha = 1, tau = 1 for the "
            "contours: no torus avoids the singular variety"
        )
    return g


def on_double_pole(alpha, tau, sigma2) -> bool:
    """Whether ``(alpha, tau, sigma2)`` is on the double pole of the module docstring:
    ``alpha < 1`` and ``tau`` within :data:`CRITICAL_RTOL` (relative) of ``tau_+ = 2 +
    sigma2``, where E_t grows linearly (the inputs are assumed validated)."""
    tau_plus = 2.0 + sigma2
    return alpha < 1.0 and abs(tau - tau_plus) <= CRITICAL_RTOL * tau_plus


def _double_pole_term(g):
    """The law at tau = tau_+, alpha < 1 (module docstring): E_t ~ (1 - alpha)^2 t / K."""
    K = (1.0 - g.alpha) ** 2 / g.K
    return _Term(1.0, 1.0, K, 0.0, DOUBLE_POLE, 1.0 / K)


def _terms(g):
    double = on_double_pole(g.alpha, g.tau, g.sigma2)
    saddles = [(-g.s, 1, "negative saddle")]
    if not double:  # on the double pole a_+ = alpha sits on it (module docstring)
        saddles.append((g.a_plus, -1, "positive saddle"))
    terms = []
    for b0, orientation, name in saddles:
        saddle = _saddle(g, b0, orientation, name)
        if saddle is None:
            continue
        rate, f2, K = saddle
        # a pole of h near b0 (R's at alpha, D's at 1 and 1/beta, b = 0): the Gaussian
        # integral holds once t f'' distance^2 >> 1
        poles = (0.0, 1.0 / g.beta) if g.alpha == 1.0 else (0.0, 1.0 / g.beta, 1.0, g.alpha)
        scale = 1.0 / (f2 * min(abs(b0 - p) for p in poles) ** 2)
        if name == "positive saddle" and g.alpha != 1.0:  # R(a_+) -> 0 as a_+ -> sqrt(alpha)
            scale = max(scale, 1.0 / (f2 * (math.sqrt(g.alpha) - g.a_plus) ** 2))
        elif name == "positive saddle":  # alpha = 1: a_+ = 1 is T's saddle and D(1, 1) = 0
            K /= 2.0  # a pole on a saddle: T_t gives back half the residue's Gaussian integral
        terms.append(_Term(rate, -0.5, K, 0.0, name, scale))
    if double:  # the pole term's and the residues' poles meet there: the double pole
        return terms + [_double_pole_term(g)]
    if g.alpha < 1.0:
        terms.append(_pole_term(g))
    return terms + _residue_terms(g)


def candidates(alpha, tau, sigma2) -> list[Candidate]:
    """Every term of E_t - E_inf that :func:`asymptotic_law` compares (module docstring), with
    its rate, power and constant; the torus term (rate psi_max^2) is left out (it never leads).

    Examples
    --------
    >>> [(c.source, round(c.rate, 4)) for c in candidates(2.0, 5.0, 0.01)]
    [('negative saddle', 0.934), ('positive saddle', 0.8894)]
    """
    alpha, tau, s = domain.alpha(alpha), domain.tau(tau), domain.sigma2(sigma2)
    return [
        Candidate(t.source, t.rate, t.power, t.K, t.K_alt) for t in _terms(_geometry(alpha, tau, s))
    ]


def asymptotic_law(alpha, tau, sigma2) -> AsymptoticLaw:
    """The law ``E_t - E_inf ~ sign |K| t^power rate^t`` (lambda = 0; module docstring).

    Parameters
    ----------
    alpha, tau, sigma2 : float
        ``alpha > 0``, ``tau > 1``, ``sigma2 >= 0`` (the domain of :mod:`.domain`).

    Returns
    -------
    AsymptoticLaw
        ``rate``, ``power``, ``sign``, the constants, the singularity it comes from
        (``source``) and the depth ``t_scale`` beyond which it leads.

    Raises
    ------
    ArithmeticError
        Where two poles of the residue integrand coincide (a*(alpha) within 1e-6 of alpha:
        isolated values of tau, such as an edge of
        :func:`cotbook.theory.laws.saturation.residue_band`).

    Examples
    --------
    >>> # saturation, far above tau_c = 5.3
    >>> law = asymptotic_law(0.5, 10.0, 0.01)
    >>> round(law.rate, 6), law.power, law.sign, law.source
    (0.943188, -1.5, -1, 'alpha < 1 pole term, saddle at sqrt(alpha)')
    """
    alpha, tau, s = domain.alpha(alpha), domain.tau(tau), domain.sigma2(sigma2)
    g = _geometry(alpha, tau, s)
    terms = _terms(g)
    top = max(t.rate for t in terms)
    lead = [t for t in terms if t.rate >= top * (1.0 - _TIE)]
    power = max(t.power for t in lead)
    lead = [t for t in lead if t.power == power]
    K = sum(t.K for t in lead)
    K_alt = sum(t.K_alt for t in lead)
    psi_max = (2.0 * math.sqrt(alpha) + s) / g.K  # the torus term's rate psi_max^2 competes too
    others = [r for r in [t.rate for t in terms] + [psi_max**2] if r < top * (1.0 - _TIE)]
    competing = [1.0 / math.log(top / max(others))] if others else []
    t_scale = max([t.t_scale for t in lead] + competing)
    sign = int(np.sign(K)) if abs(K) > abs(K_alt) else 0
    source = " + ".join(sorted({t.source for t in lead}))
    return AsymptoticLaw(top, power, sign, K, K_alt, source, t_scale)


class Excess(NamedTuple):
    """``E_t - E_inf = sign * exp(log_abs)`` at ``depths`` (arrays)."""

    depths: np.ndarray
    log_abs: np.ndarray
    sign: np.ndarray


def excess(
    alpha, tau, sigma2, depths, *, rtol=1e-6, drop_uncertified=False, n_max=1 << 15
) -> Excess:
    """E_t - E_inf (lambda = 0), certified to ``rtol``, by the contours with the t-independent
    residues left out (:func:`cotbook.theory.exact.contour.deep_errors`); resolved where E_t itself
    equals E_inf to every digit of a float.  (For alpha < 1 below tau_c the constant left out
    is Result 2's floor formula although E_t grows; :func:`cotbook.theory.phases.error_floor`
    returns 0 there.)

    ``depths``: integers in [1, 100000].  A depth the contours cannot certify (near a change of
    sign, E_t - E_inf is smaller than any relative bound) raises ``ArithmeticError`` naming it,
    or with ``drop_uncertified=True`` is left out of the result.  ``n_max`` (a power of two in
    [256, 2^15]) is the largest trapezoidal rule tried: a smaller one gives up sooner.
    """
    alpha, tau, s = domain.alpha(alpha), domain.tau(tau), domain.sigma2(sigma2)
    rtol = positive("rtol", rtol)
    depths = [nonneg_int("depths", t) for t in np.atleast_1d(depths).tolist()]
    if not depths or min(depths) < 1 or max(depths) > 100000:
        raise ValueError(f"depths must be integers in [1, 100000], got {depths!r}")
    if n_max not in [1 << k for k in range(8, 16)]:
        raise ValueError(f"n_max must be a power of two in [256, 32768], got {n_max!r}")
    values = contour.deep_errors(alpha, tau, s, depths, rtol, excess=True, n_max=n_max)
    missing = [t for t in depths if t not in values]
    if missing and not drop_uncertified:
        raise ArithmeticError(
            f"E_t - E_inf not certified to rtol={rtol:g} at (alpha, tau, sigma2) = "
            f"({alpha!r}, {tau!r}, {s!r}), depths {missing}"
        )
    kept = [t for t in depths if t in values]
    v = [values[t] for t in kept]
    return Excess(
        np.array(kept, dtype=int),
        np.array([math.log(abs(x.mantissa)) + x.log_scale for x in v]),
        np.array([int(np.sign(x.mantissa)) for x in v], dtype=int),
    )


class FittedLaw(NamedTuple):
    """``|E_t - E_inf| = exp(logK) t^power rate^t`` through three depths (:func:`local_law`)."""

    rate: float
    power: float
    K: float
    """Signed constant at the middle depth (``sign * exp(logK)``)."""


def local_law(alpha, tau, sigma2, t, *, window=None, rtol=1e-6) -> FittedLaw:
    """Fit ``|E_t - E_inf| = K t^power rate^t`` exactly through the depths ``t - w, t, t + w``
    (``w = window``, default ``t // 8``; even, so a sign alternating with t's parity cancels):
    three equations, three unknowns, no law assumed.  A measurement of the law at depth ``t``,
    to compare with :func:`asymptotic_law`; it resolves the law only where ``t >> t_scale``.
    """
    t = positive_int("t", t)
    w = t // 8 if window is None else positive_int("window", window)
    w += w % 2
    if w >= t:
        raise ValueError(f"window must be below t = {t}, got {w}")
    ts = np.array([t - w, t, t + w])
    e = excess(alpha, tau, sigma2, ts, rtol=rtol)
    # log|e| = logK + p log t + t log r: solve the 3 x 3 system
    A = np.column_stack([np.ones(3), np.log(ts), ts.astype(float)])
    logK, power, log_rate = np.linalg.solve(A, e.log_abs)
    return FittedLaw(math.exp(log_rate), float(power), float(e.sign[1] * math.exp(logK)))
