"""Deep depths of Result 1 (lambda = 0) by contour integrals through the saddle points.

In the Lagrange variables of :mod:`cotbook.theory.exact.closed_form` (``x = a / phi(a)``),

    E_t = CT_{a,b} F(a, b) psi(a)^t psi(b)^t,     F = alpha R(a) R(b) / D(a, b),
    psi(z) = (z + sigma2 + alpha/z) / K,           K = alpha + 1 + sigma2,

the constant term of the Laurent expansion on a small torus.  Expanding that finite sum (the
quadratic form of ``closed_form``) cancels terms of size psi(r)^2t against a result of size
|psi(a_-)|^2t: at sigma2 = 0.01 that costs exp(0.014 t) digits.  Here the contours are moved
instead, so that every integrand is no larger than the result:

* ``psi`` has its saddle on the circle |z| = sqrt(alpha), where it is real and at most
  psi_max = (2 sqrt(alpha) + sigma2)/K.  The torus |a| = |b| = r_T (r_T near sqrt(alpha)) lies
  in the component of the complement of the amoeba of ``D`` where the term ``gamma a b``
  dominates, ``gamma r^2 > alpha + 2 beta r^3``: D has no zero on it and, for each b on the
  circle, exactly one zero a*(b) inside |a| < r_T.  Moving the a-circle from the small one out
  to r_T therefore crosses a*(b) and, for alpha < 1, the pole a = alpha of R.
* The residue at a*(b) leaves a 1-D integral over b of ``h(b) = R(b) psi(b)^t R(a*) psi(a*)^t
  / (dD/da(a*, b) a* b)``.  Its saddle points are the symmetric points of the singular variety
  (Appendix "Derivation of Result 2"): a_- < 0 (the paper's Lambda) and a_+ in (0, sqrt(alpha)]
  (the positive-side rate).  Its contour is deformed to the circle through -|a_-| and a_+.
* For alpha < 1 the pole of R gives the 1-D terms S_t (small circle) and S'_t (|b| = r_T), with
  S_t = S'_t minus the residues of ``R(b) psi(b)^t / (D(alpha, b) b)`` at b = alpha (the
  constant that becomes Result 2's floor E_inf), b = 1 and b = 1/beta when inside |b| < r_T.

So ``E_t = alpha (T_t - H_t) + alpha (1 - alpha) (2 S'_t - residues)``.  Each integral is a
trapezoidal sum on a circle (geometric convergence for a periodic analytic integrand); only the
nodes where ``psi^t`` is not negligible are summed (the skipped ones are bounded).  The error
estimate of each sum is its difference to the sum on every second node, plus a rounding term;
both are checked against independent evaluations in the tests (certified Lagrange form to
t = 300 at sigma2 = 0.01, extended precision to t = 10^4 at sigma2 = 1e-4, and two contours
against each other).  Everything is carried as (value, natural-log scale), so no quantity
underflows: psi_max^2t at t = 10^5 is about 1e-5100.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..._threads import on_one_blas_thread

__all__ = ["Geometry", "DeepValue", "geometry", "deep_errors", "floor"]

_U = np.finfo(float).eps / 2
_KEEP = 1e-20  # nodes whose |psi^t R| is below this fraction of the largest are skipped
_N_MAX = 1 << 15  # largest trapezoidal rule tried per circle
_CHECK_DEPTHS = (2, 5)  # depths at which the deformed residue contour is checked
_ROWS = 256  # rows of the torus sum's matrix held at once (256 x 2^15 complex: 134 MB)
_TORUS_WORK = 1 << 28  # torus terms (nodes^2 x depths) of one refinement: about a second


class Geometry(NamedTuple):
    """The point and the places the contours go through (see the module docstring)."""

    alpha: float
    tau: float
    sigma2: float
    K: float
    beta: float
    gamma: float
    s: float
    """``|a_-|``, the negative symmetric singular point."""
    a_plus: float
    """The smallest positive symmetric singular point (``inf`` if none)."""
    r_T: float
    """Radius of the torus of the T term."""
    margin: float
    """``1 - (alpha + 2 beta r_T^3)/(gamma r_T^2)`` (> 0: the torus avoids D = 0)."""


class DeepValue(NamedTuple):
    """``E_t = mantissa * exp(log_scale)`` with absolute error ``error * exp(log_scale)``."""

    mantissa: float
    log_scale: float
    error: float


def _psi(g, z):
    return (z + g.sigma2 + g.alpha / z) / g.K


def _R(g, z):
    if g.alpha == 1.0:  # (1 - z^2)/(1 - z) = 1 + z: no pole on the line alpha = 1
        return 1.0 + z
    return (g.alpha - z * z) / (g.alpha - z)


def _D(g, a, b):
    return g.alpha - g.gamma * a * b + g.beta * a * b * (a + b)


def _margin(alpha, beta, gamma, r):
    return 1.0 - (alpha + 2.0 * beta * r**3) / (gamma * r * r)


def geometry(alpha, tau, sigma2, t):
    """The :class:`Geometry` for depth ``t``, or ``None`` where the contours do not apply.

    ``r_T = sqrt(alpha) e^delta`` with ``|delta|`` small enough that
    ``(psi(r_T)/psi_max)^2t <= 10`` (one digit of conditioning), chosen to maximise the margin.
    ``None`` if no such torus has a positive margin (tau -> 1 with alpha -> 1).
    """
    K = alpha + 1.0 + sigma2
    beta = (1.0 + sigma2) / (alpha * (tau - 1.0))
    gamma = 1.0 + beta * (alpha + 1.0)
    roots = np.roots([2.0 * beta, -gamma, 0.0, alpha])
    real = np.sort(roots[np.abs(roots.imag) <= 1e-12 * np.abs(roots)].real)
    if real.size == 0 or real[0] >= 0:
        return None
    s = float(-real[0])
    positive = real[real > 0]
    a_plus = float(positive[0]) if positive.size else math.inf
    root = math.sqrt(alpha)
    # cosh(delta_max) - 1 = (10^(1/2t) - 1) psi_max K / (2 sqrt(alpha))
    grow = math.expm1(math.log(10.0) / (2 * max(t, 1))) * (2 * root + sigma2) / (2 * root)
    delta_max = min(0.5, math.acosh(1.0 + grow))
    deltas = np.linspace(-delta_max, delta_max, 81)
    radii = root * np.exp(deltas)
    margins = _margin(alpha, beta, gamma, radii)
    best = int(np.argmax(margins))
    if not margins[best] > 1e-6:
        return None
    return Geometry(
        alpha, tau, sigma2, K, beta, gamma, s, a_plus, float(radii[best]), float(margins[best])
    )


def _power(z, t):
    """``z**t`` by binary powering (about 2 log2(t) roundings), for complex arrays."""
    out = np.ones_like(z)
    base = z.copy()
    while t:
        if t & 1:
            out = out * base
        t >>= 1
        if t:
            base = base * base
    return out


def _circle(n):
    return np.exp(2j * np.pi * np.arange(n) / n)


class _Sum(NamedTuple):
    """A trapezoidal sum: value, its sum on every second node, the sum of |terms|, scale."""

    value: complex
    half: complex
    absolute: float
    log_scale: float
    products: int = 0
    """Terms summed in an order BLAS chooses (the torus's matrix products): each adds a
    rounding relative to the sum of |terms| (:func:`_rounding`)."""


def _torus_sums(g, depths, n):
    """T_t = (1/n^2) sum R R psi^t psi^t / D on |a| = |b| = r_T, for every depth at once:
    ``diag(P^T M P)`` with ``P[a, t] = R(a) psi(a)^t`` and ``M = 1/D`` computed once, in row
    blocks, over the nodes that matter at any of the depths (elsewhere ``|P|`` is below
    ``_KEEP`` of its largest value at every depth, and the skipped terms are bounded)."""
    z = g.r_T * _circle(n)
    ps = _psi(g, z)
    ref = float(np.abs(ps).max())
    P = np.column_stack([_power(ps / ref, t) for t in depths]) * _R(g, z)[:, None]
    mag = np.abs(P)
    top = mag.max(axis=0)
    keep = np.nonzero(np.any(mag > _KEEP * top, axis=1))[0]
    Pk, zk, absP = P[keep], z[keep], mag[keep]
    even = keep % 2 == 0
    total = np.zeros(len(depths), dtype=complex)
    half = np.zeros(len(depths), dtype=complex)
    absolute = np.zeros(len(depths))
    for lo in range(0, keep.size, _ROWS):  # row blocks: at most _ROWS x n entries of M at once
        rows = slice(lo, lo + _ROWS)
        M = 1.0 / _D(g, zk[rows, None], zk[None, :])
        total += np.einsum("at,at->t", Pk[rows], M @ Pk)
        e = even[rows]
        half += np.einsum("at,at->t", Pk[rows][e], M[e][:, even] @ Pk[even])
        absolute += np.einsum("at,at->t", absP[rows], np.abs(M) @ absP)
    skipped = (n * n - keep.size**2) * (_KEEP * top) ** 2 / (g.margin * g.gamma * g.r_T**2)
    return [
        _Sum(
            total[k] / n**2,
            half[k] / (n / 2) ** 2,
            (absolute[k] + skipped[k]) / n**2,
            2 * t * math.log(ref),
            2 * keep.size,
        )
        for k, t in enumerate(depths)
    ]


def _roots_a(g, b):
    """The two roots in a of D(a, b) = beta b a^2 + (beta b^2 - gamma b) a + alpha."""
    A = g.beta * b
    B = g.beta * b * b - g.gamma * b
    d = np.sqrt(B * B - 4.0 * A * g.alpha + 0j)
    q = -0.5 * (B + np.where((np.conj(B) * d).real >= 0, d, -d))
    return q / A, g.alpha / q


def _track(r1, r2, start):
    """Follow one root continuously along the contour, from the one nearest ``start``."""
    out = np.empty(r1.shape, dtype=complex)
    cur = start
    for i in range(r1.size):
        cur = r1[i] if abs(r1[i] - cur) <= abs(r2[i] - cur) else r2[i]
        out[i] = cur
    return out


def _residue_nodes(g, n, *, deformed=True):
    """Nodes b, the continued root a*(b) and the measure db/(2 pi i) of the H contour."""
    if deformed:  # the circle through -|a_-| and a_+, from the negative saddle
        c0, rho = (g.a_plus - g.s) / 2, (g.a_plus + g.s) / 2
        w = -_circle(n)
        b = c0 + rho * w
        r1, r2 = _roots_a(g, b)
        a = _track(r1, r2, -g.s)
        if abs(a[-1] - a[0]) > 1e-6 * abs(a[0]) + 4 * abs(b[1] - b[0]):
            return None  # the continued root is not single-valued on the circle
    else:  # the circle |b| = r_T with the unique root inside |a| < r_T
        w = _circle(n)
        b = g.r_T * w
        r1, r2 = _roots_a(g, b)
        in1, in2 = np.abs(r1) < g.r_T, np.abs(r2) < g.r_T
        if not np.all(in1 ^ in2):
            return None
        a = np.where(in1, r1, r2)
        rho = g.r_T
    return b, a, rho * w / n


def _crossed_poles(g):
    """Poles of h between the circle |b| = r_T and the deformed contour: ``[(p, a*(p), sign)]``.

    Candidates are b = alpha (R(b)) and b = 1, 1/beta, where D(alpha, b) = 0, i.e. where the root
    may reach a* = alpha, the pole of R(a*).  A pole inside the circle but outside the deformed
    contour is added (sign +1), one inside the deformed contour only is subtracted (-1).  The
    root is followed along the real axis from the circle, where it is the one inside |a| < r_T.
    ``None`` if two poles coincide (a double pole; the caller escalates).
    """
    out = []
    if g.alpha == 1.0:  # R has no pole: h has none at these points either
        return out
    for p in sorted({g.alpha, 1.0, 1.0 / g.beta}):
        inside_circle, inside_deformed = p < g.r_T, p < g.a_plus
        if inside_circle == inside_deformed:
            continue
        path = np.linspace(g.r_T, p, 400).astype(complex)
        r1, r2 = _roots_a(g, path)
        start = r1[0] if abs(r1[0]) < g.r_T else r2[0]
        a = complex(_track(r1, r2, start)[-1])
        on_r = abs(p - g.alpha) < 1e-9 * g.alpha
        on_a = abs(a - g.alpha) < 1e-6 * g.alpha
        if on_r and on_a:
            return None
        if on_r or on_a:
            out.append((p, a, 1 if inside_circle else -1))
    return out


def _crossed_residues(g, crossed, t, skip=()):
    """``sum sign Res_{b=p} h(b)`` for :func:`_crossed_poles`, as [(value, log_scale, constant)];
    the residue at b = alpha is left out where a*(alpha) is in ``skip`` (:func:`_cancelling`).
    ``constant``: the residue's rate is psi = 1 exactly (psi(1) = psi(alpha) = 1), so it does not
    depend on t (part of E_inf)."""
    out = []
    for p, a, sign in crossed:
        if abs(p - g.alpha) < 1e-9 * g.alpha:  # pole of R(b): residue alpha (alpha - 1)
            if any(abs(a - q) < 1e-6 * q for q in skip):
                continue
            dD = 2.0 * g.beta * p * a + g.beta * p * p - g.gamma * p
            value = g.alpha * (g.alpha - 1.0) * _R(g, a) / (dD * a * p)
            if abs(a - 1.0) < 1e-6:  # a*(alpha) = 1: psi(1)^t = 1
                out.append((sign * value, 0.0, True))
                continue
            lg = t * np.log(_psi(g, a) + 0j)
            out.append((sign * value * np.exp(1j * lg.imag), float(lg.real), False))
        else:  # a*(p) = alpha: R(a*) has residue alpha (1 - alpha) / (-da*/db) there
            dDb = g.alpha * g.beta * (2.0 * p - 1.0 - 1.0 / g.beta)
            value = _R(g, p) * (1.0 - g.alpha) / (dDb * p)
            if p == 1.0:
                out.append((sign * value, 0.0, True))
            else:
                out.append((sign * value, t * math.log(_psi(g, p)), False))
    return out


def _residue_sums(g, depths, n, *, deformed=True):
    """H_t = (1/2 pi i) oint h(b) db for each depth (see the module docstring)."""
    nodes = _residue_nodes(g, n, deformed=deformed)
    if nodes is None:
        return None
    b, a, measure = nodes
    pp = _psi(g, b) * _psi(g, a)
    ref = float(np.abs(pp).max())
    dD = 2.0 * g.beta * b * a + g.beta * b * b - g.gamma * b
    base = _R(g, b) * _R(g, a) / (dD * a * b) * measure
    out = []
    for t in depths:
        h = base * _power(pp / ref, t)
        out.append(_Sum(h.sum(), 2.0 * h[::2].sum(), float(np.abs(h).sum()), t * math.log(ref)))
    return out


def _pole_sums(g, depths, n):
    """S'_t = (1/n) sum R(b) psi(b)^t / D(alpha, b) on |b| = r_T (alpha < 1 terms)."""
    b = g.r_T * _circle(n)
    ps = _psi(g, b)
    ref = float(np.abs(ps).max())
    base = _R(g, b) / _D(g, g.alpha, b) / n
    out = []
    for t in depths:
        f = base * _power(ps / ref, t)
        out.append(_Sum(f.sum(), 2.0 * f[::2].sum(), float(np.abs(f).sum()), t * math.log(ref)))
    return out


def _cancelling(g, crossed):
    """Poles p in {1, 1/beta} whose S residue cancels the crossed residue of h at b = alpha.

    If a*(alpha) = p, the residue of h at b = alpha (through R(b)) is alpha (1 - alpha)
    R(p) psi(p)^t / (dD/da(p, alpha) p), and the S-term residue at p enters with
    -alpha (1 - alpha) R(p) psi(p)^t / (dD/db(alpha, p) p): equal and opposite, since D is
    symmetric.  Both are dropped rather than summed: psi(p)^t can be far larger than E_t.
    """
    if not (g.alpha < g.r_T and g.alpha != 1.0):
        return set()
    out = set()
    for b, a, sign in crossed:
        if sign == 1 and abs(b - g.alpha) < 1e-9 * g.alpha:
            for p in (1.0, 1.0 / g.beta):
                if p < g.r_T and abs(a - p) < 1e-6 * p:
                    out.add(p)
    return out


def _pole_residues(g, t, skip=()):
    """Residues of R(b) psi(b)^t / (D(alpha, b) b) inside |b| < r_T: [(value, log_scale,
    constant)] (``constant`` as in :func:`_crossed_residues`)."""
    alpha, out = g.alpha, []
    if alpha < g.r_T:  # b = alpha: R has residue alpha (alpha - 1) there, psi(alpha) = 1
        out.append(((alpha - 1.0) / _D(g, alpha, alpha), 0.0, True))
    for p in (1.0, 1.0 / g.beta):  # the zeros of D(alpha, b) = alpha beta (b - 1)(b - 1/beta)
        if p < g.r_T and p not in skip:
            dDb = alpha * g.beta * (2.0 * p - 1.0 - 1.0 / g.beta)
            const = p == 1.0
            lg = 0.0 if const else t * math.log(_psi(g, p))  # psi(p) > 0
            out.append((_R(g, p) / (dDb * p), lg, const))
    return out


def _combine(terms):
    """Sum of (value, error, log_scale) triples as a :class:`DeepValue`."""
    top = max(lg for _, _, lg in terms)
    value = sum(v * math.exp(lg - top) for v, _, lg in terms)
    error = sum(e * math.exp(lg - top) for _, e, lg in terms)
    error = float(error) + abs(float(value.imag)) + 64 * _U * abs(float(value.real))
    return DeepValue(float(value.real), top, error)


def _rounding(s: _Sum, t):
    """Rounding error of one sum.  psi (and a*) at a node carry a few roundings, which the
    power t multiplies: 6 t per factor psi^t (two factors), 2 log2 t for the powering and 20
    for the rest of a term (pairwise summation included), plus one per term of a sum in
    BLAS's order (``products``), all relative to the sum of |terms|."""
    return (12 * t + 2 * math.log2(max(t, 2)) + 20 + s.products) * _U * s.absolute


_FAMILIES = ("torus", "residue", "pole")
"""The trapezoidal sums of E_t: the torus term T_t, the residue integral H_t and (alpha < 1)
the pole term S'_t (module docstring).  Each is refined on its own (:func:`deep_errors`)."""


def _families(g):
    """The families of sums at ``g``: the pole term only where alpha < r_T, alpha != 1."""
    return _FAMILIES if g.alpha < g.r_T and g.alpha != 1.0 else _FAMILIES[:2]


def _family_sums(g, family, depths, n):
    """The sums of one family for ``depths`` on ``n`` nodes (``None``: no residue contour)."""
    if family == "torus":
        return _torus_sums(g, depths, n)
    if family == "residue":
        return _residue_sums(g, depths, n)
    return _pole_sums(g, depths, n)


def _weight(g, family):
    """The factor of each family's sum in E_t = alpha (T - H) + 2 alpha (1 - alpha) S' + ..."""
    return {"torus": g.alpha, "residue": -g.alpha, "pole": 2 * g.alpha * (1.0 - g.alpha)}[family]


def _discretisation(g, family, s: _Sum, value: DeepValue):
    """One family's trapezoidal error estimate (its sum minus the sum on every second node)
    on the scale of ``value``."""
    scale = math.exp(s.log_scale - value.log_scale)
    return abs(_weight(g, family)) * abs(s.value - s.half) * scale


def _depths_at(g, depths, sums, *, excess=False):
    """E_t for ``depths`` from the families' sums (``sums[family][k]`` at ``depths[k]``);
    ``None`` if two poles of the residue integrand coincide.  ``excess``: leave out the
    t-independent residues, i.e. return E_t - E_inf (:func:`floor`)."""
    crossed = _crossed_poles(g)
    if crossed is None:
        return None
    skip = _cancelling(g, crossed)
    alpha, c = g.alpha, g.alpha * (1.0 - g.alpha)
    out = []
    for k, t in enumerate(depths):
        terms = []
        for family, family_sums in sums.items():
            s, w = family_sums[k], _weight(g, family)
            error = abs(w) * (abs(s.value - s.half) + _rounding(s, t))
            terms.append((w * s.value, error, s.log_scale))
        for v, lg, const in _crossed_residues(g, crossed, t, skip):  # circle = deformed + these
            if not (excess and const):
                terms.append((-alpha * v, alpha * abs(v) * 8 * _U, lg))
        if "pole" in sums:
            for v, lg, const in _pole_residues(g, t, skip):
                if not (excess and const):
                    terms.append((-c * v, abs(c * v) * 8 * _U, lg))
        out.append(_combine(terms))
    return out


def _contour_is_valid(g, n):
    """The deformed residue contour gives the same H_t as the circle |b| = r_T on which the
    root a*(b) is defined (no pole of h crossed, same branch), at two small depths."""
    a = _residue_sums(g, _CHECK_DEPTHS, n, deformed=True)
    b = _residue_sums(g, _CHECK_DEPTHS, n, deformed=False)
    crossed = _crossed_poles(g)
    if a is None or b is None or crossed is None:
        return False
    for t, x, y in zip(_CHECK_DEPTHS, a, b, strict=True):
        extra = [v * math.exp(lg) for v, lg, _ in _crossed_residues(g, crossed, t)]
        scale = max(x.absolute * math.exp(x.log_scale), y.absolute * math.exp(y.log_scale))
        scale = max([scale] + [abs(v) for v in extra])
        diff = abs(x.value * math.exp(x.log_scale) + sum(extra) - y.value * math.exp(y.log_scale))
        if not diff <= 1e-9 * scale:
            return False
    return True


@on_one_blas_thread  # the torus's matrix products: the same bits on any caller's thread count
def deep_errors(alpha, tau, sigma2, depths, rtol, *, excess=False, n_max=_N_MAX):
    """``{t: DeepValue}`` for the depths the contours certify to ``rtol``; the others are
    missing (the caller escalates).  Parameters are assumed validated (``tau > 1``).

    ``excess=True`` returns ``E_t - E_inf`` instead (the t-independent residues left out, see
    :func:`floor`), which may be negative: the approach to the floor, resolved at depths where
    E_t itself equals E_inf to every digit.  ``n_max``: the largest trapezoidal rule tried for
    the sums (a smaller one gives up sooner on depths it cannot certify)."""
    depths = sorted(set(int(t) for t in depths))
    if not depths:
        return {}
    out = {}
    # one torus per octave of depths: r_T and the node count depend on t
    octaves: dict[int, list[int]] = {}
    for t in depths:
        octaves.setdefault(max(t, 1).bit_length(), []).append(t)
    for group in octaves.values():
        if excess:
            g = _floor_geometry(alpha, tau, sigma2, group[-1])
        else:
            g = geometry(alpha, tau, sigma2, group[-1])
        if g is None or not math.isfinite(g.a_plus):
            continue
        n = 1 << max(8, math.ceil(math.log2(24 * math.sqrt(group[-1]) + 64)))
        # a pole of h near the contour (alpha ~ 1: a_+, 1 and alpha close together) needs
        # finer nodes before the two contours can agree
        if not any(_contour_is_valid(g, m) for m in (max(n, 1024), _N_MAX)):
            continue
        out.update(_refined(g, group, n, rtol, excess=excess, n_max=n_max))
    return out


def _refined(g, depths, n, rtol, *, excess, n_max):
    """``{t: DeepValue}`` for the ``depths`` certified to ``rtol``, each family of sums starting
    on ``n`` nodes and doubled only while its own discretisation error matters: where a pole
    lies near the residue contour (tau near tau_+) H_t needs 2^14 nodes while the torus, whose
    cost is quadratic in its nodes, has converged on 2^8.  A depth is given up once a family it
    needs cannot be refined (at ``n_max``, or the torus beyond ``_TORUS_WORK`` terms: near
    alpha = 1, tau = tau_+ the singular variety touches every torus near sqrt(alpha) and no
    affordable rule converges), or once the family with the largest error has 4096 nodes or
    more and the error did not halve at the last doubling (rounding, which more nodes do not
    reduce)."""
    if n > n_max:
        return {}
    families = _families(g)
    nodes = dict.fromkeys(families, n)
    sums: dict[str, dict[int, _Sum]] = {f: {} for f in families}
    out, last, todo, stale = {}, {}, list(depths), set(families)
    while todo:
        for family in stale:
            got = _family_sums(g, family, todo, nodes[family])
            if got is None:
                return out
            sums[family].update(zip(todo, got, strict=True))
        current = {f: [sums[f][t] for t in todo] for f in families}
        values = _depths_at(g, todo, current, excess=excess)
        if values is None:
            return out
        wanted = {}
        for t, v in zip(todo, values, strict=True):
            relative = v.error / abs(v.mantissa) if v.mantissa != 0 else math.inf
            if relative <= rtol and (excess or v.mantissa > 0):
                out[t] = v
                continue
            errors = {f: _discretisation(g, f, sums[f][t], v) for f in families}
            share = rtol * abs(v.mantissa) / (2 * len(families))
            coarse = {f for f in families if errors[f] > share} or {max(errors, key=errors.get)}
            if any(nodes[f] >= n_max for f in coarse):
                continue
            if "torus" in coarse and 4 * nodes["torus"] ** 2 * len(todo) > _TORUS_WORK:
                continue
            if min(nodes[f] for f in coarse) < 4096 or relative < 0.5 * last.get(t, math.inf):
                wanted[t], last[t] = coarse, relative
        stale = set().union(*wanted.values()) if wanted else set()
        for family in stale:
            nodes[family] *= 2
        todo = list(wanted)
    return out


def _floor_geometry(alpha, tau, sigma2, t):
    """:func:`geometry` for depth ``t`` or deeper, with every circle where |psi| < 1 (r_T
    strictly between alpha and 1), so that the contour integrals tend to 0 and the
    t-independent residues sum to E_inf.  ``None`` if there is none (or alpha = 1, where
    there are no residues)."""
    lo, hi = sorted((alpha, 1.0))
    while t <= 1 << 40:
        g = geometry(alpha, tau, sigma2, t)
        if g is None or not math.isfinite(g.a_plus):
            return None
        if lo < g.r_T < hi or alpha == 1.0:
            return g
        t *= 4
    return None


def floor(alpha, tau, sigma2):
    """E_inf as the sum of the t-independent residues (rate psi = 1: the points b = 1 and
    b = alpha) on contours where |psi| < 1, or ``None`` where the contours do not apply.
    Result 2's floor (1 - alpha)(tau - 1)/(tau - 2 - sigma2) for alpha < 1 above tau_c, 0 for
    alpha > 1; the tests check both."""
    g = _floor_geometry(alpha, tau, sigma2, 1)
    crossed = None if g is None else _crossed_poles(g)
    if crossed is None:
        return None
    skip = _cancelling(g, crossed)
    total = sum(-g.alpha * v for v, _, const in _crossed_residues(g, crossed, 0, skip) if const)
    if g.alpha < g.r_T and g.alpha != 1.0:
        c = g.alpha * (1.0 - g.alpha)
        total += sum(-c * v for v, _, const in _pole_residues(g, 0, skip) if const)
    return float(np.real(total))
