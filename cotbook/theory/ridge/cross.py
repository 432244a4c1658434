"""Deep depths of a ``lam > 0`` curve where a pole of ``B(x, .)`` crosses the y-loop of
:mod:`cotbook.theory.ridge.loop` on part of the x-circle: per node the loop that serves, the
pole's residue on the arc where it lies between, and that share along a path through the
saddle of ``x y_p``.

The setting is :mod:`cotbook.theory.ridge.loop`'s (``E_t = [x^t y^t] B``, ``x`` on a circle
``|x| = r0`` inside 1, ``y`` on a loop round the sectors' cut).  There, a pole ``y_p(x)`` near the
cut's far end lies between the loop and the small circle ``|y| = 1/2`` near ``x = -r0`` (where
``|x y_p| < 1`` it makes ``E_t`` grow) and runs into the cut elsewhere, so it crosses the loop
twice, where the loop's quadrature fails; no wider loop keeps ``|y| > 1`` at the points this
module serves.  What serves, measured at three such points (the issue's closing note):

- **Two loops, chosen per node.**  Each loop's check (:func:`cotbook.theory.ridge._loop_pole.fit`)
  fails only on an arc where the pole crosses it, which halves as the loop doubles; the
  standard loop's and a narrower one's (``xi = 0.03``) are disjoint at 4096 nodes.  Per node of
  the x-circle the standard loop serves, or the narrower one where the standard one fails or
  both hold the pole between and the narrower reads it better (a node near a loop's own
  crossing reads ``d`` to ``1e-2`` only).  The loops' sums are column FFTs over their nodes'
  rows (:func:`cotbook.theory.ridge._loop_sums.sums` with ``rows_in``), and the pole's residue
  ``d_0 (x y_p)^-t`` is added on the nodes where it lies between the chosen loop and the small
  circle: an arc ``|arg x| >= phi_e``, required to be one.
- **Their sum is analytic, its parts jump.**  The x-rule's bound is the whole total's
  difference to every second node of the circle (each part alone would see the jumps).
  This *arc* share is exact but, at depth, sums terms ``(x y_p)^-t`` that peak at ``x = -r0``
  while ``E_t`` grows only as the saddle's value: at ``(0.9653, 6.774, 0.01703, 0.002079)``
  ``sum |terms| / |E_t|`` reaches 3.8e11 at ``t = 10^4``.
- **The share along a path through the saddle.**  The residue is analytic in ``x`` where the
  pole is simple, so its integral over the arc equals one along a radial segment from the arc's
  end to the saddle's radius ``r_s`` (:func:`_saddle`), the circle ``|x| = r_s`` through
  ``arg x = pi`` and back (Gauss-Legendre, :data:`_PATH` nodes on each piece, the difference
  between the two rules its bound), with ``y_p`` and ``d_0`` read there off a loop the pole lies
  between (:data:`_XI_READ`; every node must read it).  That integral differs from the sum on
  the arc's nodes by an end term, bounded by the whole weight's term at the arc's end,
  ``|d_0(x_e)| |x_e y_p(x_e)|^-t`` (measured: the two differed by at most 3.8e-7 of it); the
  end term falls as ``|x_e y_p| ~ 1.02 .. 1.06`` there grows.
- **Each depth from the version that certifies it; where both do, they must agree within
  both bounds** (else no curve).

Measured: ``(0.9653, 6.774, 0.01703, lam = 0.002079)``, refused by the loop at ``t = 1246``:
every depth to ``10^4`` (``E = 1.88e98``), the arc's share certified to ``t = 3763``; at
``(0.6674, 9.5, 0, 2.951e-7)``, refused at 896: to ``10^4``, a curve that grows by 1.00382 per
step (the saddle's ``1/|x_s y_p|``: 1.00387).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..derivation import Point
from . import _cut, _loop_sums, _nodes, loop
from ._loop_sums import CHECK
from .loop import LoopCurve

_U = np.finfo(float).eps / 2
_XI_NARROW = 0.03  # the second loop, served where the standard one meets the pole
_XI_READ = 0.02  # the loop the pole is read off on the saddle's path
_NY = (4096, 8192)  # nodes on both loops, in turn, until every node is served and certifies
_RULE = 40  # nodes on the x-circle: n >= _RULE / (1 - r0) (every second node's rule resolves
# the pole at x = 1 to e^-20 of it; 2^18 served where loop's 80 asks 2^19)
_PATH = (256, 512)  # Gauss-Legendre nodes per piece of the saddle's path (two rules)
_SADDLE = np.linspace(0.95, 1.02, 36)  # radii / r0 scanned for the saddle (|x| <= _X_MAX)
_X_MAX = 0.9995


def deep_curve(p: Point, t_max, rtol, atol) -> LoopCurve | None:
    """``E_0 .. E_t_max`` with error bounds off the two loops, the arc's share and the saddle's
    path (module docstring), or ``None`` where the route does not apply or a check fails."""
    try:
        return _curve(p, t_max, rtol, atol)
    except (ArithmeticError, np.linalg.LinAlgError):
        return None


def _curve(p: Point, t_max, rtol, atol):
    s = loop.setup(p, t_max)
    if s is None:
        return None
    on = _x_circle(p, s)
    if on is None:
        return None
    r0, x, circle = on
    with np.errstate(over="ignore"):
        grow = r0 ** (-1.0 * s.t)
    for ny in _NY:
        loops = _loops(p, s, ny, x, circle)
        chosen = _choose(*loops)
        if chosen is None:
            continue
        arc = _arc(x, loops, chosen)
        if arc is None:
            return None
        found = _certified(p, s, loops, chosen, arc, x, circle.rows, grow, rtol, atol)
        if found is not None:
            E, err, r_s = found
            return LoopCurve(E, err, r0, 1 / (1 - s.q_b), r_s)
    return None


def _x_circle(p: Point, s: loop.Setup):
    """``(r0, x, circle)``: the x-circle inside the standard loop (:data:`_RULE` nodes per
    ``1 - r0`` at least) and what its nodes carry (:func:`cotbook.theory.ridge._loop_sums.circle`),
    or ``None`` where it would need more than :data:`cotbook.theory.ridge.loop.N_MAX` nodes."""
    r0 = 1 / _cut.least_modulus(s.q_b, s.q_a, s.xi)
    n = _loop_sums.node_count(4 * (len(s.t) - 1) + 32, r0, _RULE)
    if n > loop.N_MAX:
        return None
    x = _nodes.circle(r0, n)
    return r0, x, _loop_sums.circle(p, x, s.one)


def _loops(p: Point, s: loop.Setup, ny, x, circle):
    """The standard loop's and the narrow one's checks at ``ny`` nodes (:class:`_Loop`)."""
    return [_Loop(p, s, xi, ny, x, circle) for xi in (s.xi, _XI_NARROW)]


def _check(p: Point, x, circle, y, w) -> _loop_sums.Read:
    """The check off the loop nodes ``y`` (weights ``w``) at the nodes ``x`` (``circle``: what
    they carry): the fit, the differences and their errors."""
    return _loop_sums.read(circle, *_loop_sums.halves(p, x, circle.rows, y, w))


class _Loop:
    """One y-loop's check at every node of the x-circle: the fit (pole between, ``y_p``, miss),
    the differences ``d`` and their errors ``dd`` (:func:`cotbook.theory.ridge._loop_sums.read`)."""

    def __init__(self, p, s, xi, ny, x, circle):
        self.xi, self.ny = xi, ny
        self.y, self.w = _cut.loop(s.q_b, s.q_a, xi, ny)
        self.fit, self.d, self.dd = _check(p, x, circle, self.y, self.w)
        self.ok = self.fit.miss <= CHECK

    def quality(self):
        """``y_p``'s relative error where the pole lies between (``inf`` elsewhere)."""
        with np.errstate(all="ignore"):
            e = self.dd[:, 0] / np.abs(self.d[:, 0]) + self.dd[:, 1] / np.abs(self.d[:, 1])
        return np.where(self.fit.pole & self.ok, e, np.inf)


def _choose(standard: _Loop, narrow: _Loop):
    """Per node: whether the narrow loop serves it (else the standard one), or ``None`` where
    some node is served by neither."""
    q_standard, q_narrow = standard.quality(), narrow.quality()
    better = np.isfinite(q_standard) & (q_narrow < q_standard)  # both hold the pole between
    use_narrow = narrow.ok & (~standard.ok | better)
    if not (standard.ok | use_narrow).all():
        return None
    return use_narrow


def _arc(x, loops, use_narrow):
    """Where the pole lies between the chosen loop and the small circle, if that is one arc
    ``|arg x| >= phi_e`` round ``x = -r0`` (not all of the circle, not none): ``(mask,
    phi_e)`` with ``phi_e`` half a node below the arc's first node, or ``None``."""
    standard, narrow = loops
    between = np.where(use_narrow, narrow.fit.pole, standard.fit.pole)
    if between.all() or not between.any():
        return None
    angle = np.abs(np.angle(x))
    phi_e = float(angle[between].min())
    if not np.array_equal(between, angle >= phi_e):
        return None
    return between, phi_e - np.pi / len(x)


class _Share(NamedTuple):
    """A share of ``E_t`` and its bounds: ``P``, the sum of its terms' moduli, the data's error
    (``d_0`` and ``y_p`` known to ``e_0``, ``e_y`` relative: each term to
    ``(1 + e_0)(1 - e_y)^-t - 1``) and ``P`` by the rule on every second node (arc only)."""

    P: np.ndarray
    moduli: np.ndarray
    data: np.ndarray
    rule: np.ndarray | None


def _terms(weights, d, dd, psi, t, rule_weights=None) -> _Share | None:
    """``sum_k weights_k d_0k psi_k^-t`` at every depth (blocks of depths), with its bounds and,
    where ``rule_weights`` are given, the same sum with them; ``None`` where ``y_p`` is known
    to worse than 1 % somewhere."""
    e0 = dd[:, 0] / np.abs(d[:, 0])
    ey = e0 + dd[:, 1] / np.abs(d[:, 1])
    if not ey.max() < 0.01:
        return None
    P, moduli, data = np.empty(len(t), complex), np.empty(len(t)), np.empty(len(t))
    rule = None if rule_weights is None else np.empty(len(t), complex)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        log_w, log_psi = np.log(weights * d[:, 0]), np.log(psi)
        log_r = None if rule is None else np.log(rule_weights * d[:, 0] + 0j)  # 0: -inf
        for b in _nodes.blocks(len(t), len(psi)):
            parts = np.exp(log_w[None, :] - t[b, None] * log_psi[None, :])
            P[b] = parts.sum(1)
            size = np.abs(parts)
            moduli[b] = size.sum(1)
            grow = np.expm1(np.log1p(e0)[None, :] - t[b, None] * np.log1p(-ey)[None, :])
            data[b] = (size * grow).sum(1)
            if rule is not None:
                rule[b] = np.exp(log_r[None, :] - t[b, None] * log_psi[None, :]).sum(1)
    return _Share(P, moduli, data, rule)


def _arc_share(x, loops, use_narrow, between, t):
    """The residue's share summed on the arc's nodes, and on every second one of them."""
    standard, narrow = loops
    d = np.where(use_narrow[:, None], narrow.d, standard.d)[between]
    dd = np.where(use_narrow[:, None], narrow.dd, standard.dd)[between]
    n, k = len(x), np.flatnonzero(between)
    psi = x[k] * d[:, 0] / d[:, 1]
    even = np.where(k % 2 == 0, 2.0 / n, 0.0)
    return _terms(np.full(len(k), 1.0 / n), d, dd, psi, t, even)


def _saddle(p, s, ny, r0):
    """The radius of the saddle of ``x y_p`` on the negative axis: where ``|x y_p|`` is largest
    at ``x = -r`` (``r / r0`` in :data:`_SADDLE`, ``r <= _X_MAX``) among the radii where the
    pole is read off the loop :data:`_XI_READ`; ``None`` where it is read at none."""
    radii = r0 * _SADDLE
    radii = radii[radii <= _X_MAX]
    xs = -radii + 0j
    y, w = _cut.loop(s.q_b, s.q_a, _XI_READ, ny)
    fit, d, _ = _check(p, xs, _loop_sums.circle(p, xs, s.one), y, w)
    read = fit.pole & (fit.miss <= CHECK)
    if not read.any():
        return None
    size = np.where(read, np.abs(xs * fit.y), -np.inf)
    return float(radii[int(np.argmax(size))])


def _path_share(p, s, ny, r0, r_s, phi_e, t, m):
    """The residue's share along the radial segment at ``phi_e`` from ``r0`` to ``r_s``, the
    circle ``|x| = r_s`` from ``phi_e`` through ``pi`` to ``2 pi - phi_e`` and the segment back
    (``m`` Gauss-Legendre nodes each; ``(1/2 pi i) int d_0 (x y_p)^-t dx / x``), or ``None``
    where the pole is not read at every node."""
    g, gw = np.polynomial.legendre.leggauss(m)
    r = r0 + (r_s - r0) * (g + 1) / 2
    wr = (r_s - r0) / 2 * gw / r / (2j * np.pi)
    theta = phi_e + (np.pi - phi_e) * (g + 1)
    wt = (np.pi - phi_e) * gw / (2 * np.pi)
    xs = np.concatenate(
        [r * np.exp(1j * phi_e), r_s * np.exp(1j * theta), r[::-1] * np.exp(-1j * phi_e)]
    )
    weights = np.concatenate([wr, wt, -wr[::-1]])
    y, w = _cut.loop(s.q_b, s.q_a, _XI_READ, ny)
    fit, d, dd = _check(p, xs, _loop_sums.circle(p, xs, s.one), y, w)
    if not (fit.pole.all() and (fit.miss <= CHECK).all()):
        return None
    return _terms(weights, d, dd, xs * d[:, 0] / d[:, 1], t)


def _certified(p, s, loops, use_narrow, arc, x, rows, grow, rtol, atol):
    """``(E, error, r_s)`` with every depth certified by the arc's share or the path's (both
    within their bounds where both certify), or ``None``."""
    between, phi_e = arc
    t, (standard, narrow) = s.t, loops
    S = S_y = S_x = 0  # the loops' sums; off every second loop node; every second x-node
    moduli = 0
    for each, mask in ((standard, ~use_narrow), (narrow, use_narrow)):
        half, full = _loop_sums.halves(p, x, rows, each.y, each.w, t, grow, rows_in=mask)
        S, S_y, S_x = S + full.S, S_y + half.S, S_x + full.S_half
        moduli = moduli + full.moduli
    on_arc = _arc_share(x, loops, use_narrow, between, t)
    if on_arc is None:
        return None
    base = s.K + s.g.value + S
    # the errors both versions share: the loops' rounding and their difference to every second
    # loop node, g_t's error
    shared = (4 * t + 20) * _U * moduli + s.g.error + np.abs(S - S_y)
    total = base + on_arc.P
    err = (np.abs(total - (s.K + s.g.value + S_x + on_arc.rule)) + shared
           + (4 * t + 20) * _U * on_arc.moduli + on_arc.data)  # fmt: skip
    E, err = total.real, err + np.abs(total.imag)
    ok = err <= rtol * np.abs(E) + atol
    r_s = None
    if not ok.all():
        r_s = _saddle(p, s, standard.ny, float(np.abs(x[0])))
        if r_s is None:
            return None
        shares = [
            _path_share(p, s, standard.ny, float(np.abs(x[0])), r_s, phi_e, t, m) for m in _PATH
        ]
        if None in shares:
            return None
        coarse, fine = shares
        # the arc's end: the whole weight's term there bounds the path's difference to the arc's
        # sum; every second node of the circle bounds the loops' aliasing and their jumps
        end = _end_term(x, loops, use_narrow, between, t)
        path_total = base + fine.P
        path_err = (np.abs(S - S_x) + end + shared + (4 * t + 20) * _U * fine.moduli
                    + fine.data + np.abs(fine.P - coarse.P) + np.abs(path_total.imag))  # fmt: skip
        E_path = path_total.real
        ok_path = path_err <= rtol * np.abs(E_path) + atol
        both = ok & ok_path
        if not np.all(np.abs(E - E_path)[both] <= (err + path_err)[both]):
            return None
        if not (ok | ok_path).all():
            return None
        E = np.where(ok, E, E_path)
        err = np.where(ok, err, path_err)
    if not (np.all(np.isfinite(E)) and abs(E[0] - 1) <= err[0]):
        return None
    return E, err, r_s


def _end_term(x, loops, use_narrow, between, t):
    """``|d_0(x_e)| |x_e y_p(x_e)|^-t`` at the arc's end node ``x_e`` (its node nearest the
    positive axis), off the check of the loop chosen there."""
    k = np.flatnonzero(between)
    e = k[np.argmin(np.abs(np.angle(x[k])))]
    d = loops[1 if use_narrow[e] else 0].d[e]
    with np.errstate(under="ignore", over="ignore"):
        return np.abs(d[0]) * np.exp(-t * np.log(np.abs(x[e] * d[0] / d[1])))
