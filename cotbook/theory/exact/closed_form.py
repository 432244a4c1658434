"""The lambda = 0 engine: E_t of Result 1, certified to ``rtol``, at every depth asked.

(lambda > 0 is the closed system of Appendix C.9, :mod:`cotbook.theory.ridge`; the face
:func:`cotbook.theory.error_curve` dispatches between the two.)

Every evaluation here is exact in exact arithmetic (the closed forms of :mod:`.result1`, the
quadratic form of :mod:`.lagrange`, the contour integrals of :mod:`.contour`); they differ in
cost and in how rounding errors are controlled.  This module holds the entry points, their
arguments and limits; each asks :func:`.route.walk` for its depths, and the route's ordered list
of tiers (one module each, ``tier_*``) decides which answers.  A value counts as certified when
its computed bound is at most ``rtol * max(|E_t|, TINY)`` (:func:`._tier.certified`).

:func:`ridgeless_curve`, ``method=``:

``"recursion"``
    The paper's own algorithm in mpmath (:func:`.result1.recursion_curve`), O(T^4): the
    reference.
``"lagrange"`` / ``"lagrange_mp"``
    The quadratic form in float64 without a bound, or in mpmath.
``"auto"`` (default)
    The quadratic form in float64 with its a-priori bound; every depth whose bound exceeds
    ``rtol * max(|E_t|, tiny)`` (or whose float64 evaluation overflowed) goes on to the next
    tier, cheapest first: the single-depth streamed form in x87 extended precision (long
    double, where available) for depths below 200, the contour integrals through the saddle
    points (well conditioned at any depth), extended precision for the deeper depths, and
    last ``lagrange_mp`` at a precision chosen from the bound, confirmed by a second run at 15
    more digits.  If the two disagree by more than ``rtol`` an :class:`AccuracyError` is
    raised.  Nothing is returned that has not been vouched for to ``rtol`` (default 1e-10).
``"fast"``
    ``"auto"`` without its mpmath tier, whose Python arithmetic can take minutes on a curve
    of a few hundred depths: an :class:`AccuracyError` names the first depth only mpmath would
    certify.  What :func:`cotbook.theory.summary` searches Result 3's optimal depth with.

:func:`error_at`, :func:`errors_at` and :func:`error_grid` answer single depths through the
same tiers, in the route's order for single depths, without computing a curve.  Every entry
point runs BLAS on one thread (:func:`cotbook._threads.on_one_blas_thread`).

Astronomically small / large values: results are float64.  ``tiny = 1e-300`` is the absolute
floor of the accuracy criterion, i.e. an E_t below ~1e-290 is guaranteed to an absolute error
of ``rtol * 1e-300`` only (it may be returned as a subnormal number or 0.0 when it underflows).
E_t above the float64 range (deep overthinking, e.g. tau -> 1) is returned as ``+inf``; this is
a correct statement that E_t > 1.8e308, never a NaN.
"""

from __future__ import annotations

import numpy as np

from ..._checks import nonneg_int, positive_int
from ..._threads import on_one_blas_thread
from .. import domain
from ..domain import AccuracyError
from . import _tier, lagrange, result1, route
from ._tier import MP_T_MAX, STREAM_T_MAX

__all__ = [
    "AccuracyError",
    "ridgeless_curve",
    "error_grid",
    "error_at",
    "errors_at",
    "RTOL_DEFAULT",
    "TINY",
    "MP_T_MAX",
    "CURVE_T_MAX",
    "DEPTH_T_MAX",
    "STREAM_T_MAX",
]

#: Relative accuracy the ``lambda = 0`` evaluators certify unless told otherwise.
RTOL_DEFAULT = 1e-10
#: Absolute floor of the accuracy rule, ``bound <= rtol * max(|E_t|, TINY)``.
TINY = _tier.TINY
_METHODS = ("auto", "fast", "recursion", "lagrange", "lagrange_mp")

CURVE_T_MAX = 5000
"""Deepest ``t_max`` of ``method="auto"``/``"lagrange"``: the float64 quadratic form stores two
``(t_max+1)^2`` matrices (400 MB at 5000)."""
DEPTH_T_MAX = 100_000
"""Deepest single depth of :func:`error_at` and :func:`error_grid`.  The contour tier
(:mod:`cotbook.theory.exact.contour`) takes milliseconds at any depth; the streamed quadratic form,
O(t^2) per point, is tried only up to :data:`STREAM_T_MAX`."""
_GRID_ENTRIES = 1 << 22  # (t + 3) * points held at once by error_grid (~12 arrays: 400 MB)


@on_one_blas_thread
def ridgeless_curve(alpha, tau, sigma2, t_max, *, method="auto", dps=None, rtol=None):
    """E_0, ..., E_{t_max} of Result 1 (lambda = 0) as a float64 array of length t_max + 1.

    The closed form of Result 1, evaluated as described in the module docstring.  Readers call
    it through :func:`cotbook.theory.error_curve` (``lam=0``).

    Parameters
    ----------
    alpha, tau, sigma2 : float
        The point, on the domain of :mod:`cotbook.theory.domain` (``tau > 1``).
    t_max : int
        Deepest depth, ``>= 0`` and at most
        :data:`~cotbook.theory.exact.result1.RECURSION_T_MAX` (``"recursion"``),
        :data:`MP_T_MAX` (``"lagrange_mp"``) or :data:`CURVE_T_MAX` (``"auto"``, ``"lagrange"``),
        checked before any work.
    method : str
        ``"auto"`` | ``"fast"`` | ``"recursion"`` | ``"lagrange"`` | ``"lagrange_mp"`` (module
        docstring).
    dps : int, optional
        Decimal digits for the mpmath methods.  ``recursion`` default max(40, 20 + t_max//2):
        ample for 1e-15 relative at every test point (checked against dps + 30 in the tests);
        ``lagrange_mp`` default 40.  Ignored by ``lagrange``; for ``auto`` it is a minimum.
    rtol : float, optional
        Accuracy that ``auto`` and ``fast`` certify (default 1e-10), relative to
        max(|E_t|, 1e-300).

    Returns
    -------
    numpy.ndarray
        ``E_0 .. E_{t_max}``; ``auto`` and ``fast`` raise :class:`AccuracyError` (naming the
        point, the first depth and the accuracy reached there) rather than return an
        uncertified value.

    ``lagrange`` (plain float64) is accurate to ~1e-13 wherever the quadratic form is well
    conditioned, which includes every point tested for t <= 80; use ``auto`` for a guarantee.
    """
    rtol = RTOL_DEFAULT if rtol is None else rtol
    alpha, tau, sigma2 = domain.point(alpha, tau, sigma2)
    t_max = nonneg_int("t_max", t_max)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    rtol = domain.rtol(rtol)
    caps = {"recursion": result1.RECURSION_T_MAX, "lagrange_mp": MP_T_MAX}
    cap = caps.get(method, CURVE_T_MAX)
    if t_max > cap:
        raise ValueError(f"t_max must be <= {cap} for method={method!r}, got {t_max}")
    if method == "recursion":
        return result1.recursion_curve(alpha, tau, sigma2, t_max, dps=dps)
    if method == "lagrange_mp":
        d = lagrange.mp_curve(alpha, tau, sigma2, t_max, domain.dps(dps, 40))
        return np.array([_tier.to_float(d[t]) for t in range(t_max + 1)])
    if method == "lagrange":
        E, _ = lagrange.float_curve(alpha, tau, sigma2, t_max, want_bound=False)
        E[0] = 1.0  # E_0 = F(0, 0) = 1 exactly
        with np.errstate(invalid="ignore"):
            if np.any(np.isnan(E)):
                raise AccuracyError(
                    "float64 Lagrange overflowed (inf - inf); use method='auto' or 'lagrange_mp'"
                )
        return E
    ask = _tier.Ask(
        alpha=np.array([alpha]),
        tau=np.array([tau]),
        sigma2=sigma2,
        rtol=rtol,
        kind="curve",
        t_max=t_max,
        mp=method == "auto",
        dps=dps,
    )
    got = route.walk(ask, [(0, t) for t in range(t_max + 1)])
    return np.array([got[0, t] for t in range(t_max + 1)])


@on_one_blas_thread
def error_at(alpha, tau, sigma2, t, *, rtol=RTOL_DEFAULT):
    """E_t of Result 1 (lambda = 0) at a single depth t, certified to ``rtol``.

    No curve is computed.  Tiers: the streamed single-depth form (O(t^2)) in float64 and in
    extended precision, up to :data:`STREAM_T_MAX`; the contour integrals of
    :mod:`cotbook.theory.exact.contour` (tried first from depth 200 on); and last, for ``t <=``
    :data:`MP_T_MAX`, the quadratic form in mpmath at depth ``t`` alone (the last tier of
    :func:`ridgeless_curve`).  A refusal names ``t``.

    Parameters
    ----------
    alpha, tau, sigma2 : float
        The point, on the domain of :mod:`cotbook.theory.domain` (``tau > 1``).
    t : int
        CoT depth, ``0 <= t <=`` :data:`DEPTH_T_MAX` (checked before any work).
    rtol : float
        Relative accuracy certified (:class:`AccuracyError` if it cannot be).

    Returns
    -------
    float
        ``E_t``.

    Examples
    --------
    >>> round(error_at(2.0, 3.0, 0.01, 20), 8)
    0.02080661
    """
    alpha, tau, sigma2 = domain.point(alpha, tau, sigma2)
    t = nonneg_int("t", t)
    rtol = domain.rtol(rtol)
    if t > DEPTH_T_MAX:
        raise ValueError(f"t must be <= {DEPTH_T_MAX} (DEPTH_T_MAX), got {t}")
    ask = _tier.Ask(
        alpha=np.array([alpha]), tau=np.array([tau]), sigma2=sigma2, rtol=rtol, kind="depth"
    )
    return float(route.walk(ask, [(0, t)])[0, t])


@on_one_blas_thread
def errors_at(alpha, tau, sigma2, depths, *, rtol=RTOL_DEFAULT):
    """E_t of Result 1 (lambda = 0) at several single depths, certified like :func:`error_at`.

    The contour tier evaluates all depths together (one torus per octave of depths); the
    depths it cannot certify go through the tiers of :func:`error_at`, those that reach its
    mpmath tier in one run of it.  Cheaper than the curve when the
    depths are few and deep (sampling a curve to t = 5000, say).

    Parameters
    ----------
    alpha, tau, sigma2 : float
        The point, on the domain of :mod:`cotbook.theory.domain` (``tau > 1``).
    depths : sequence of int
        Depths, each ``0 <= t <=`` :data:`DEPTH_T_MAX`.
    rtol : float
        Relative accuracy certified.

    Returns
    -------
    numpy.ndarray
        ``E_t`` for each depth, in the order given.

    Examples
    --------
    >>> [f"{e:.6e}" for e in errors_at(2.0, 3.0, 0.01, [20, 2000])]
    ['2.080661e-02', '1.019152e+20']
    """
    alpha, tau, sigma2 = domain.point(alpha, tau, sigma2)
    rtol = domain.rtol(rtol)
    ts = [nonneg_int("depth", t) for t in np.atleast_1d(np.asarray(depths)).tolist()]
    if not ts:
        raise ValueError("depths must be a non-empty sequence of integers")
    if max(ts) > DEPTH_T_MAX:
        raise ValueError(f"depths must be <= {DEPTH_T_MAX} (DEPTH_T_MAX), got {max(ts)}")
    ask = _tier.Ask(
        alpha=np.array([alpha]), tau=np.array([tau]), sigma2=sigma2, rtol=rtol, kind="depths"
    )
    got = route.walk(ask, [(0, t) for t in sorted(set(ts))])
    return np.array([got[0, t] for t in ts])


@on_one_blas_thread
def error_grid(alphas, taus, sigma2, t, *, rtol=RTOL_DEFAULT, chunk=1024):
    """E_t on the grid alphas x taus (shape (len(alphas), len(taus))), float64.

    Each entry goes through the tiers of :func:`error_at`, all points of a chunk at once: the
    vectorised float64 quadratic form with its a-priori bound
    (:func:`.lagrange.stream_depth`), extended
    precision, the contour integrals (first, from depth 200 on), then
    :func:`ridgeless_curve`.  A point whose bound exceeds ``rtol * max(|E_t|, 1e-300)``, or
    whose intermediate values left the normal float64 range, moves to the next tier, so every
    entry is certified to ``rtol`` (default 1e-10) or the call raises :class:`AccuracyError`.

    Parameters
    ----------
    alphas, taus : array_like
        Grid axes (scalars count as one point), non-empty, on the domain of
        :mod:`cotbook.theory.domain` (``tau > 1``).
    sigma2 : float
        Noise variance.
    t : int
        CoT depth, ``0 <= t <=`` :data:`DEPTH_T_MAX`.
    rtol : float
        Relative accuracy certified for every entry.
    chunk : int
        Points evaluated together, ``1 <= chunk <= 65536`` (lowered so that one block holds at
        most 2^22 values per array).

    Returns
    -------
    numpy.ndarray
        ``E_t`` of shape ``(len(alphas), len(taus))``.

    Examples
    --------
    >>> error_grid([0.5, 2.0], [3.0, 10.0], 0.01, 20).round(6)
    array([[1.48272 , 0.56274 ],
           [0.020807, 0.002827]])
    """
    sigma2 = domain.sigma2(sigma2)
    t = nonneg_int("t", t)
    rtol = domain.rtol(rtol)
    chunk = positive_int("chunk", chunk)
    if chunk > 65536:
        raise ValueError(f"chunk must be an integer in [1, 65536], got {chunk}")
    if t > DEPTH_T_MAX:
        raise ValueError(f"t must be <= {DEPTH_T_MAX} (DEPTH_T_MAX), got {t}")
    A = _axis("alphas", alphas, domain.alpha)
    Tu = _axis("taus", taus, domain.tau)
    chunk = max(1, min(chunk, _GRID_ENTRIES // (t + 3)))
    al, ta = np.meshgrid(A, Tu, indexing="ij")
    al, ta = al.ravel(), ta.ravel()
    E = np.empty(al.size)
    for s in range(0, al.size, chunk):
        e = slice(s, min(al.size, s + chunk))
        ask = _tier.Ask(alpha=al[e], tau=ta[e], sigma2=sigma2, rtol=rtol, kind="depth")
        got = route.walk(ask, [(i, t) for i in range(e.stop - e.start)])
        E[e] = [got[i, t] for i in range(e.stop - e.start)]
    return E.reshape(A.size, Tu.size)


def _axis(name, values, check):
    """A grid axis as a 1-d float array, every entry checked by ``check`` (which names it)."""
    raw = np.asarray(values)
    if raw.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a non-empty array of real numbers, got {values!r}")
    arr = np.atleast_1d(raw.astype(float)).ravel()
    if arr.size == 0:
        raise ValueError(f"{name} must be a non-empty array of numbers, got an empty one")
    bad = [x for x in arr if not _passes(check, x)]
    if bad:
        try:
            check(bad[0])
        except ValueError as err:
            raise ValueError(f"{name}: {err}") from None
    return arr


def _passes(check, x):
    try:
        check(float(x))
    except ValueError:
        return False
    return True
