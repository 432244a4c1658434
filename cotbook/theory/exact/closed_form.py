"""The lambda = 0 engine: E_t of Result 1, certified to ``rtol``, at every depth asked.

(lambda > 0 is the closed system of Appendix C.9, :mod:`cotbook.theory.ridge`; the face
:func:`cotbook.theory.error_curve` dispatches between the two.)

Every evaluation here is exact in exact arithmetic (the closed forms of :mod:`.result1`, the
quadratic form of :mod:`.lagrange`, the contour integrals of :mod:`.contour`); they differ in
cost and in how rounding errors are controlled.  This module decides which answers, and what
counts as certified: a value whose computed bound is at most ``rtol * max(|E_t|, TINY)``.

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
same tiers without computing a curve unless everything else fails.  Every entry point runs
BLAS on one thread (:func:`cotbook._threads.on_one_blas_thread`).

Astronomically small / large values: results are float64.  ``tiny = 1e-300`` is the absolute
floor of the accuracy criterion, i.e. an E_t below ~1e-290 is guaranteed to an absolute error
of ``rtol * 1e-300`` only (it may be returned as a subnormal number or 0.0 when it underflows).
E_t above the float64 range (deep overthinking, e.g. tau -> 1) is returned as ``+inf``; this is
a correct statement that E_t > 1.8e308, never a NaN.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from ..._checks import nonneg_int, positive_int
from ..._threads import on_one_blas_thread
from .. import domain
from ..domain import AccuracyError
from . import contour, lagrange, result1

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
TINY = 1e-300
_U = np.finfo(float).eps / 2  # unit roundoff of float64
_METHODS = ("auto", "fast", "recursion", "lagrange", "lagrange_mp")
# extended precision tier only if long double really is wider than double on this platform
_HAVE_LONGDOUBLE = np.finfo(np.longdouble).eps < np.finfo(np.float64).eps / 100

MP_T_MAX = 300
"""Deepest ``t_max`` of ``method="lagrange_mp"`` and of the mpmath tier of ``"auto"``."""
CURVE_T_MAX = 5000
"""Deepest ``t_max`` of ``method="auto"``/``"lagrange"``: the float64 quadratic form stores two
``(t_max+1)^2`` matrices (400 MB at 5000)."""
DEPTH_T_MAX = 100_000
"""Deepest single depth of :func:`error_at` and :func:`error_grid`.  The contour tier
(:mod:`cotbook.theory.contour`) takes milliseconds at any depth; the streamed quadratic form,
O(t^2) per point, is tried only up to :data:`STREAM_T_MAX`."""
STREAM_T_MAX = 20_000
"""Deepest depth of the streamed single-depth quadratic form (about 6 s at 20000 in extended
precision)."""
_CONTOUR_FIRST = 200  # from this depth on, single depths try the contours before the forms
_GRID_ENTRIES = 1 << 22  # (t + 3) * points held at once by error_grid (~12 arrays: 400 MB)


def _point(alpha, tau, sigma2):
    return f"(alpha={alpha:g}, tau={tau:g}, sigma2={sigma2:g})"


def _certified(E, bound, rtol):
    """Where ``E`` is vouched for: finite value and bound, ``bound <= rtol max(|E|, TINY)``."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.isfinite(E) & np.isfinite(bound) & (bound <= rtol * np.maximum(np.abs(E), TINY))


def _reached(E, bound):
    """The relative accuracy a (value, bound) pair reached, for error messages."""
    if not (math.isfinite(E) and math.isfinite(bound)):
        return "none (a quantity left the floating-point range)"
    return f"{bound / max(abs(E), TINY):.3g}"


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
        :data:`~cotbook.theory.result1.RECURSION_T_MAX` (``"recursion"``),
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
        return np.array([_to_float(d[t]) for t in range(t_max + 1)])
    if method == "lagrange":
        E, _ = lagrange.float_curve(alpha, tau, sigma2, t_max, want_bound=False)
        E[0] = 1.0  # E_0 = F(0, 0) = 1 exactly
        with np.errstate(invalid="ignore"):
            if np.any(np.isnan(E)):
                raise AccuracyError(
                    "float64 Lagrange overflowed (inf - inf); use method='auto' or 'lagrange_mp'"
                )
        return E
    # ---- auto
    E, bound = lagrange.float_curve(alpha, tau, sigma2, t_max)
    E[0], bound[0] = 1.0, 0.0  # E_0 = F(0, 0) = 1 exactly
    bad = [int(t) for t in np.nonzero(~_certified(E, bound, rtol))[0]]
    best = {t: (E[t], bound[t]) for t in bad}  # best (value, bound) of any tier, to report

    def extended(depths):
        """The depths the streamed form in extended precision certifies are set in E; the
        others are returned."""
        still = []
        for t in depths:
            el, bl = lagrange.stream_depth(
                np.array([alpha]), np.array([tau]), sigma2, t, dtype=np.longdouble
            )
            if _certified(el, bl, rtol)[0]:
                E[t] = float(el[0])
            else:
                still.append(t)
                if np.isfinite(el[0]) and bl[0] < best[t][1]:  # the better tier, to report
                    best[t] = (float(el[0]), float(bl[0]))
        return still

    if bad and _HAVE_LONGDOUBLE:  # shallow depths: extended precision costs milliseconds
        bad = extended([t for t in bad if t < _CONTOUR_FIRST]) + [
            t for t in bad if t >= _CONTOUR_FIRST
        ]
    if bad:  # the contours through the saddle points, all failing depths at once
        got = _contour_tier(np.array([alpha]), np.array([tau]), sigma2, bad, rtol)
        for t in bad:
            if (0, t) in got:
                E[t] = got[0, t]
        bad = [t for t in bad if (0, t) not in got]
    deep = [t for t in bad if t >= _CONTOUR_FIRST]
    if deep and _HAVE_LONGDOUBLE and sum(t * t for t in deep) <= 4_000_000:
        bad = [t for t in bad if t < _CONTOUR_FIRST] + extended(deep)
    if bad:
        where = f"E_{bad[0]} at {_point(alpha, tau, sigma2)}"
        reached = _reached(*best[bad[0]])
        if t_max > MP_T_MAX or method == "fast":
            why = (
                "method='fast' leaves out the mpmath tier"
                if method == "fast"
                else f"the mpmath tier stops at t_max = {MP_T_MAX}"
            )
            raise AccuracyError(
                f"{where}: float64, the contours and extended precision reach {reached}"
                f", not rtol={rtol:g} ({len(bad)} depths fail), and {why} (the Lagrange "
                "quadratic form is ill-conditioned here)"
            )
        E = E.copy()
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            cond = bound[bad] / np.maximum(np.abs(E[bad]), TINY) / _U
        d0 = domain.dps(dps, 0) if dps is not None else 0
        for t, value in _mp_tier(alpha, tau, sigma2, bad, cond, rtol, d0).items():
            E[t] = value
    return E


def _mp_tier(alpha, tau, sigma2, depths, cond, rtol, dps=0):
    """``{t: E_t}`` at ``depths`` by the quadratic form in mpmath (the last tier): at the
    digits the float64 condition asks for (``cond``: bound / |E_t| / unit roundoff at each
    depth, inf where unknown), plus those of ``rtol`` and a margin, at least ``dps``, confirmed
    by a second run at 15 more digits (:class:`AccuracyError` where the two differ by more
    than ``rtol``).  Each run costs O(t^2) operations per depth asked, in Python."""
    finite = cond[np.isfinite(cond)]
    extra = 40 if finite.size < len(depths) else int(np.log10(max(finite.max(), 1.0)))
    d1 = max(dps, 20 + extra + int(-math.log10(rtol)))
    top = max(depths)  # entries of the form above the deepest depth asked do not reach it
    v1 = lagrange.mp_curve(alpha, tau, sigma2, top, d1, depths=depths)
    v2 = lagrange.mp_curve(alpha, tau, sigma2, top, d1 + 15, depths=depths)
    out = {}
    for t in depths:
        a, b = v1[t], v2[t]
        with mp.workdps(d1 + 15):
            scale = max(abs(b), mp.mpf(TINY))
            if abs(a - b) > 0.1 * rtol * scale:
                raise AccuracyError(
                    f"E_{t} at {_point(alpha, tau, sigma2)}: mpmath at {d1} and {d1 + 15} "
                    f"digits differ by {float(abs(a - b) / scale):.2g}, more than rtol={rtol:g}"
                )
        out[t] = _to_float(b)
    return out


def _to_float(x):
    f = float(x)
    if math.isnan(f):
        raise AccuracyError("internal error: NaN produced")
    return f


@on_one_blas_thread
def error_at(alpha, tau, sigma2, t, *, rtol=RTOL_DEFAULT):
    """E_t of Result 1 (lambda = 0) at a single depth t, certified to ``rtol``.

    No curve is computed.  Tiers: the streamed single-depth form (O(t^2)) in float64 and in
    extended precision, up to :data:`STREAM_T_MAX`; the contour integrals of
    :mod:`cotbook.theory.contour` (tried first from depth 200 on); and last, for ``t <=``
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
    return float(_single_depths(np.array([alpha]), np.array([tau]), sigma2, t, rtol)[0])


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
    deep = sorted({t for t in ts if t >= _CONTOUR_FIRST})
    got = _contour_tier(np.array([alpha]), np.array([tau]), sigma2, deep, rtol) if deep else {}
    values = {t: got[0, t] for t in deep if (0, t) in got}
    left, cond = [], []
    for t in sorted(set(ts) - set(values)):
        E, c = _fast_tiers(np.array([alpha]), np.array([tau]), sigma2, t, rtol)
        if np.isnan(E[0]):
            left.append(t)
            cond.append(c[0])
        else:
            values[t] = float(E[0])
    if left:  # one mpmath run for them all: a few seconds, not a few seconds each
        values.update(_last_tier(alpha, tau, sigma2, left, np.array(cond), rtol))
    return np.array([values[t] for t in ts])


def _from_contour(value: contour.DeepValue) -> float:
    """A contour value as float64: beyond the range it is inf (a true statement that E_t is
    larger) or 0.0 (below the absolute floor TINY of the accuracy rule)."""
    log_e = math.log(abs(value.mantissa)) + value.log_scale
    if log_e > 709.7:
        return math.inf
    return math.exp(log_e) if log_e > -745.0 else 0.0


def _contour_tier(al, ta, sigma2, depths, rtol):
    """``{(i, t): E}`` for the points ``i`` and depths the contours certify (others missing)."""
    out = {}
    for i in range(al.size):
        for t, v in contour.deep_errors(float(al[i]), float(ta[i]), sigma2, depths, rtol).items():
            out[i, t] = _from_contour(v)
    return out


def _single_depths(al, ta, sigma2, t, rtol):
    """E_t at the points (al[i], ta[i]): :func:`_fast_tiers`, then the quadratic form in
    mpmath at depth ``t`` where they fail (:func:`_last_tier`)."""
    E, cond = _fast_tiers(al, ta, sigma2, t, rtol)
    for i in np.nonzero(np.isnan(E))[0]:
        E[i] = _last_tier(float(al[i]), float(ta[i]), sigma2, [t], cond[i : i + 1], rtol)[t]
    return E


def _fast_tiers(al, ta, sigma2, t, rtol):
    """E_t at the points (al[i], ta[i]) by the streamed form in float64, then in extended
    precision (vectorised, cheap at shallow depths), then the contours; from depth 200 on the
    contours come first, and the streamed forms stop at :data:`STREAM_T_MAX`.  Returns E
    (NaN where none certifies) and the float64 form's condition (bound / |E_t| / unit
    roundoff; inf where unknown), which sets the digits of :func:`_last_tier`."""
    E = np.full(al.size, np.nan)
    cond = np.full(al.size, np.inf)  # the float64 form's condition, for the mpmath tier
    todo = np.arange(al.size)

    def contours():
        nonlocal todo
        got = _contour_tier(al[todo], ta[todo], sigma2, [t], rtol)
        done = np.array([(k, t) in got for k in range(todo.size)], dtype=bool)
        E[todo[done]] = [got[k, t] for k in np.nonzero(done)[0]]
        todo = todo[~done]

    if t >= _CONTOUR_FIRST:
        contours()
    if todo.size and t <= STREAM_T_MAX:
        Ef, Bf = lagrange.stream_depth(al[todo], ta[todo], sigma2, t)
        ok = _certified(Ef, Bf, rtol)
        E[todo[ok]] = Ef[ok]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            cond[todo] = Bf / np.maximum(np.abs(Ef), TINY) / _U
        todo = todo[~ok]
    if todo.size and _HAVE_LONGDOUBLE and t <= STREAM_T_MAX:
        El, Bl = lagrange.stream_depth(al[todo], ta[todo], sigma2, t, dtype=np.longdouble)
        ok = _certified(El, Bl, rtol)
        with np.errstate(over="ignore"):  # beyond float64: +inf, a true statement (module doc)
            E[todo[ok]] = El[ok].astype(float)
        todo = todo[~ok]
    if todo.size and t < _CONTOUR_FIRST:
        contours()
    E[E == 0.0] = 0.0  # no -0.0
    return E, cond


def _last_tier(alpha, tau, sigma2, depths, cond, rtol):
    """``{t: E_t}`` for ``depths`` the other tiers left, by :func:`_mp_tier` (all depths in
    one run, which shares the form's coefficients); a depth beyond :data:`MP_T_MAX` is refused
    by name (a curve would only retry the same tiers at every depth below it)."""
    deep = [t for t in depths if t > MP_T_MAX]
    if deep:
        raise AccuracyError(
            f"E_{deep[0]} at {_point(alpha, tau, sigma2)}: neither the contours nor the streamed "
            f"forms reach rtol={rtol:g}, and the mpmath tier stops at t = {MP_T_MAX}"
        )
    return _mp_tier(alpha, tau, sigma2, depths, cond, rtol)


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
        E[e] = _single_depths(al[e], ta[e], sigma2, t, rtol)
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
