"""Deep depths of a growing ``lam > 0`` curve: the mixed sector's pole, through the saddle.

Where E_t grows, ``B(x, y) = m13(u(x), v(y)) / ((1-x)(1-y))`` is singular inside the unit
polydisc, and a torus (:func:`cotbook.theory.ridge.ridge_curve`) certifies only about ``n/5``
depths.  Its nearest singularity is the pole of the mixed sector (the 2x2 system of App.
C.9) on a curve ``y = y_k(x)``; ``E_t`` grows like ``psi0^-t``, ``psi0 = x0 y_k(x0)`` at a
saddle ``x0`` where ``x y_k(x)`` is largest on the real axis: on the negative axis, or
(measured at ``tau <= 1`` with a large ridge, e.g. ``(2, 1, 0.01, lam = 1)``) on the positive
axis, where the pole curve crosses ``x = 1`` inside the unit circle.  As the ``lam = 0``
engine does in its Lagrange variables (:mod:`cotbook.theory.exact.contour`), the y-integral is
moved past the pole, on one of two frames:

* **Beyond the poles at 1** (a saddle on the negative axis near ``|x| = 1``).  B's poles at
  ``x = 1`` and ``y = 1`` are taken out exactly, as on a torus beyond |x| = 1:
  ``B = K/((1-x)(1-y)) + G(x)/(1-y) + H(y)/(1-x) + Bh``, so
  ``E_t = K + g_t + h_t + [x^t y^t] Bh`` (``K = F(1, 1)``, ``F(x, 1)`` and ``F(1, y)`` by
  Cauchy's formula on 64 nodes of ``|x - 1| = (R - 1)/2``; ``R = R_ABOVE``, or 1.01, tried
  after every other frame, where F is singular between the two: at ``(1.533, 3.986, 0,
  lam = 3.179e-4)`` the rows on ``|y| = 1.03`` show more than one pole, on ``|y| = 1.01``
  one, with the saddle ``x0 = -0.969``, ``psi0 = 0.9396``).  ``y`` runs on ``|y| = R``,
  ``x`` on the circle through ``x0`` and ``R`` (centre ``(R + x0)/2``).
* **Inside the poles at 1** (a saddle on either axis, ``|x0| < 1``; where the pole curve
  crosses ``x = 1``, ``F(1, y)`` is itself singular and nothing can be taken out):
  ``Bh = B``, ``y`` runs on ``|y| = R`` halfway between ``|y_k(x0)|`` and 1, ``x`` on
  ``|x| = |x0|``; both poles at 1 lie outside, and every branch of poles the contour meets is
  followed (:func:`_track`).
* Either contour crosses the real axis at the saddle, so no term of the sum below is larger
  than the result (their ratio is printed by the tests, about 1.005).
* For each node ``x`` whose y-circle shows a pole (the Laurent coefficient of ``y^-1``), the
  pole ``y_k`` and its residue ``c`` are read off a small circle around it (moments, exact for
  one simple pole), and ``P = c / (y - y_k)`` is subtracted:
  ``[x^t y^t] Bh = -(1/2 pi i) sum c y_k^(-t-1) x^(-t-1) dx + rest``, whether the pole lies
  inside ``|y| = R`` or just outside it, with
  ``|rest| <= (1/2 pi) sum max_y |Bh - P| R^-t |x|^(-t-1) |dx|``.  The contour keeps
  ``|x| R >= |x0| R > psi0``, so the rest is exponentially smaller than E_t.

Checks (a failure returns ``None``, and the caller keeps its refusal): each row ``Bh - P`` has
no negative powers of y on ``|y| = R`` (so the pole is the only singularity crossed), ``Bh`` has
no singularity inside the x-contour for y on ``|y| = 1/10`` (contour moments), the two small
circles give the same pole and residue, and ``E_0 = 1`` is not asked of this path (it serves
depths the torus cannot reach; the caller checks it against the torus where both certify).
Each sum's error is its difference to the sum on every second node plus a rounding term; the
pole data's error enters through ``(t + 1) |dy_k / y_k|``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..derivation import Point
from . import _nodes
from ._residues import residue_sum
from .torus import near_one

_U = np.finfo(float).eps / 2
_R = 1.03  # the y-circle's radius (ridge.R_ABOVE: the poles at 1 are taken out beyond it)
_R_BEYOND = (_R, 1.01)  # the beyond frame's y-circles: first, and last of all the frames
_NY = 4096  # nodes of the y-circle
_SMALL = (0.02, 1e-3)  # radii of the two small circles around each pole (the first at most a
# third of the way to y = 1: 0.02 saw B's pole at 1 from y_k = 0.971)
_SMALL_NODES = 32
_BRANCHES = 4  # most branches of poles followed along one contour
_TOL = 1e-11  # negative powers of Bh - P, relative to max |Bh|, that pass the check
_BEYOND = 0.01  # the pole is followed until it lies this far (relative) beyond |y| = R
_BEYOND_GRID = -np.linspace(0.7, 1.02, 65)  # x scanned for a saddle, the poles at 1 taken out
_INSIDE_GRID = np.linspace(0.05, 0.995, 96)  # |x| scanned on either axis, inside the poles
_SCAN_R = (0.98, 0.995)  # the y-circles of the scan inside the poles at 1, in turn (F can be
# singular between them, e.g. at y = 0.9949 at (5.245, 1.0789, 0.000188, lam = 2.75e-5))


class PoleCurve(NamedTuple):
    """``E_t`` and its error bound at ``t_from .. t_max`` (:func:`deep_curve`), and the saddle
    ``x0`` and ``psi0 = x0 y_k(x0)`` (``E_t`` grows like ``psi0^-t``)."""

    E: np.ndarray
    error: np.ndarray
    x0: float
    psi0: float


def _pole_moments(rows_B, y):
    """The Laurent coefficients of ``y^-1``, ``y^-2``, ``y^-3`` of each row of values on the
    circle ``y`` (means of ``B y^(m+1)``)."""
    return [(rows_B * y[None, :] ** (m + 1)).mean(1) for m in range(3)]


class _Rows(NamedTuple):
    """Everything a set of x-nodes needs: ``Bh`` on the y-circle and ``G(x)``."""

    Bh: np.ndarray
    G: np.ndarray


class _Frame:
    """The y-circle ``|y| = R`` and the rows of B there.  With ``remove`` (``R`` one of
    :data:`_R_BEYOND`) the circle lies beyond ``y = 1`` and B's poles at ``x = 1`` and
    ``y = 1`` are taken out (the constants of that removal are kept here); without it the
    circle lies inside them, ``R < 1``, and the rows are B itself."""

    def __init__(self, p: Point, R=_R, remove=True):
        self.p, self.R, self.remove = p, R, remove
        self.y = _nodes.circle(R, _NY)
        self.ring = _nodes.sectors(p, self.y)
        self.K = self.dK = self.maxF = self.d1y = 0.0
        self.f1y = self.H = None
        if not remove:
            return
        self.one = near_one(p, R)
        F11 = _nodes.m13(p, self.one, self.one)
        F1y = _nodes.m13(p, self.one, self.ring)
        self.K = F11.mean()
        self.f1y = F1y.mean(0)
        self.dK = abs(F11[::2, ::2].mean() - self.K)
        self.d1y = float(np.abs(F1y[::2].mean(0) - self.f1y).max())
        self.maxF = float(np.abs(F11).max())
        self.H = (self.f1y - self.K) / (1 - self.y)

    def bh(self, x, at, y, cols, f1y=None):
        """``Bh(x_i, y_j) = (F - F(x, 1) - F(1, y) + K) / ((1 - x)(1 - y))`` for row nodes
        ``x`` (u-sectors ``at``) and column nodes ``y`` (v-sectors ``cols``; ``f1y``, their
        ``F(1, y)``, if known), with the means ``F(x_i, 1)`` and their largest error; without
        the removal, ``B`` itself (and zeros)."""
        p = self.p
        F = _nodes.m13(p, at, cols)
        if not self.remove:
            return _nodes.over_poles(F, x, y), np.zeros(len(x), complex), 0.0
        Fx1 = _nodes.m13(p, at, self.one)
        fx1 = Fx1.mean(1)
        if f1y is None:
            f1y = _nodes.m13(p, self.one, cols).mean(0)
        Bh = _nodes.without_poles(F, fx1, f1y, self.K, x, y)
        return Bh, fx1, float(np.abs(Fx1[:, ::2].mean(1) - fx1).max())

    def rows(self, x) -> tuple[_Rows, float]:
        """``Bh(x_i, y_j)`` on the y-circle and ``G(x_i)``, with the largest error of the means
        ``F(x_i, 1)``."""
        z, U, _ = _nodes.sectors(self.p, x, v=False)
        Bh, G, dx1 = np.empty((len(x), _NY), complex), np.empty(len(x), complex), 0.0
        for s in _nodes.blocks(len(x), _NY):
            at = (z[s], [u[s] for u in U], None)
            Bh[s], fx1, d = self.bh(x[s], at, self.y, self.ring, self.f1y)
            G[s], dx1 = (fx1 - self.K) / (1 - x[s]), max(dx1, d)
        return _Rows(Bh, G), dx1

    def pole(self, x, guess):
        """``(y_k, c, dy, dc)``: the pole of ``Bh(x, .)`` near ``guess`` and its residue, from
        two small circles (``dy``, ``dc``: their differences), or ``None`` if the two do not
        show the same simple pole."""
        xs = np.array([x])
        at = _nodes.sectors(self.p, xs, v=False)
        found = []
        centre = guess
        for rho in (min(_SMALL[0], abs(1 - guess) / 3), _SMALL[1]):  # (B's pole at y = 1 out)
            w = _nodes.circle(rho, _SMALL_NODES)
            ys = centre + w
            Bh = self.bh(xs, at, ys, _nodes.sectors(self.p, ys, u=False))[0][0]
            mu0, mu1 = np.mean(Bh * w), np.mean(Bh * w * w)
            if not abs(mu0) > 0:
                return None
            centre = centre + mu1 / mu0
            found.append((centre, mu0))
        (y1, c1), (y2, c2) = found
        if not (abs(y1 - y2) <= 1e-9 * abs(y2) and abs(c1 - c2) <= 1e-9 * abs(c2)):
            return None
        return y2, c2, abs(y1 - y2), abs(c1 - c2)


def _branch(frame: _Frame, x, j0, guess, known):
    """One branch of poles along the contour: ``{node: (y_k, c, dy, dc)}``, followed from node
    ``j0`` (its pole near ``guess``) both ways, each node's small circles centred where the
    last two nodes point, until ``|y_k| > R (1 + _BEYOND)``, round the whole contour, or onto
    a pole another branch holds (``known``: node -> poles); ``None`` if a node on the way
    shows no single simple pole."""
    n = len(x)
    first = frame.pole(x[j0], guess)
    if first is None:
        return None
    got = {j0: first}
    for step in (1, -1):
        trail = [first[0]]
        for i in range(1, n // 2 + 1):
            j = (j0 + step * i) % n
            if j in got:  # met the other way's trail: the pole is inside all round
                break
            guess = trail[-1] if len(trail) == 1 else 2 * trail[-1] - trail[-2]
            found = frame.pole(x[j], guess)
            if found is None:
                return None
            if any(abs(yk - found[0]) <= 1e-6 * abs(yk) for yk in known.get(j, ())):
                break
            got[j] = found
            trail.append(found[0])
            if abs(found[0]) > frame.R * (1 + _BEYOND):
                break
    return got


def _track(frame: _Frame, x, Bh, start):
    """Every branch of poles inside the y-circle along the contour: the saddle's (node 0, the
    pole near ``start``) first; then, while a row of ``Bh`` less the poles found still shows
    negative powers of y, a branch followed from the worst such row (its pole guessed from
    the row's moments), at most :data:`_BRANCHES` in all (where the pole curve has a branch on
    either axis, ``|x| = |x0|`` meets both).  The poles are subtracted from ``Bh`` in place.
    Returns ``(nodes, y_k, c, dy, dc, spectrum)``, one entry per node and pole, with the
    :class:`_Spectrum` of the rows less their poles, or ``None`` if a branch fails or the rows
    still show negative powers."""
    y = frame.y
    scale = float(np.abs(Bh).max())
    rest, entries, known = Bh, [], {}
    seed = (0, start)
    for _ in range(_BRANCHES):
        got = _branch(frame, x, *seed, known)
        if got is None:
            return None
        for j, (yk, c, dy, dc) in got.items():
            rest[j] -= c / (y - yk)
            entries.append((j, yk, c, dy, dc))
            known.setdefault(j, []).append(yk)
        spectrum = _spectrum(rest)
        j = int(np.argmax(spectrum.nu))
        if spectrum.nu[j] <= _TOL * scale:
            nodes, yk, ck, dy, dc = (np.array(column) for column in zip(*entries, strict=True))
            return nodes, yk.astype(complex), ck.astype(complex), dy, dc, spectrum
        with np.errstate(all="ignore"):
            mu = _pole_moments(rest[j : j + 1], y)
            seed = (j, complex(mu[1][0] / mu[0][0]))
        if not np.isfinite(seed[1]):
            return None
    return None


class _Spectrum(NamedTuple):
    """Each row's FFT on the y-circle (divided by :data:`_NY`): its bins ``< NY/2`` (``low``),
    the largest modulus among the others (``nu``: the negative powers, and the aliasing they
    bound), and the sum of all moduli (``M >= max_y`` of the row)."""

    low: np.ndarray
    nu: np.ndarray
    M: np.ndarray


def _spectrum(rows) -> _Spectrum:
    """The :class:`_Spectrum` of ``rows``, a block of rows at a time."""
    n, half = len(rows), _NY // 2
    out = _Spectrum(np.empty((n, half), complex), np.empty(n), np.empty(n))
    for s in _nodes.blocks(n, _NY):
        coef = np.fft.fft(rows[s], axis=1) / _NY
        moduli = np.abs(coef)
        out.low[s], out.nu[s], out.M[s] = coef[:, :half], moduli[:, half:].max(1), moduli.sum(1)
    return out


def _saddle(frame: _Frame, grid):
    """``(x0, psi0, start)``: the point of the real nodes ``grid`` where ``x y_k(x)`` is
    largest (a parabola through the grid's best three points) and the grid's pole nearest it
    (where :func:`_track` starts); ``None`` where no row of the grid shows a pole inside
    ``|y| = R`` or the largest is at the grid's end."""
    rows, _ = frame.rows(grid + 0j)
    mu = _pole_moments(rows.Bh, frame.y)
    scale = float(np.abs(rows.Bh).max())
    with np.errstate(all="ignore"):
        yk = mu[1] / mu[0]
        ok = (np.abs(mu[0]) > 1e-8 * scale) & (np.abs(yk) < frame.R * (1 - 64 / _NY))
        ok &= np.abs(mu[2] / mu[1] - yk) <= 1e-8 * np.abs(yk)
        psi = np.where(ok, np.real(grid * yk), -np.inf)
    k = int(np.argmax(psi))
    if not np.isfinite(psi[k]) or k in (0, len(grid) - 1) or not ok[k - 1] or not ok[k + 1]:
        return None
    # vertex of the parabola through (grid[k-1..k+1], psi[k-1..k+1])
    h = grid[1] - grid[0]
    d1, d2 = (psi[k + 1] - psi[k - 1]) / (2 * h), (psi[k + 1] - 2 * psi[k] + psi[k - 1]) / h**2
    if not d2 < 0:
        return None
    return float(grid[k] - d1 / d2), float(psi[k] - d1 * d1 / (2 * d2)), complex(yk[k])


def _contour(x0, n, inside, R):
    """``n`` nodes of the x-contour through the saddle ``x0``, half a step off the real axis,
    node 0 next to the saddle, with the trapezoidal weights ``dx``: the circle ``|x| = |x0|``
    (``inside``), or for ``x0 < 0`` the circle through ``x0`` and ``R`` (the radial
    continuation of a node at ``x = R`` would pass through ``x = 1``)."""
    centre, radius = (0.0, -x0) if inside else ((R + x0) / 2, (R - x0) / 2)
    theta = math.pi + 2 * np.pi * (np.arange(n) + 0.5) / n
    e = np.exp(1j * theta)
    return centre + radius * e, 1j * radius * e * (2 * np.pi / n)


def _log_sum(logs):
    """``log sum exp(logs)`` along the last axis (``-inf`` for an empty sum)."""
    if logs.shape[-1] == 0:
        return np.full(logs.shape[:-1], -np.inf)
    top = logs.max(-1)
    with np.errstate(invalid="ignore"):
        return top + np.log(np.exp(logs - top[..., None]).sum(-1))


def _beyond(p: Point, R):
    """The frame beyond the poles at 1 on ``|y| = R`` and its saddle on the negative axis
    (scanned on :data:`_BEYOND_GRID`), or ``None``."""
    try:
        frame = _Frame(p, R)
        saddle = _saddle(frame, _BEYOND_GRID)
    except (ArithmeticError, np.linalg.LinAlgError):
        return None
    return None if saddle is None else (frame, saddle)


def _geometries(p: Point):
    """The frames and saddles ``(x0, psi0, start)`` to try, in turn: the saddle on the
    negative axis with the poles at 1 taken out (:func:`_beyond` on ``|y| = R_ABOVE``); then,
    inside those poles, the saddles of either axis (scanned on :data:`_INSIDE_GRID`, on the
    first circle of :data:`_SCAN_R` that shows one), the faster-growing first, each with the
    y-circle halfway between its pole ``|y_k(x0)|`` and 1 and nothing taken out; last, beyond
    the poles at 1 again on the nearer circle of :data:`_R_BEYOND` (F can be singular between
    the two, which hides the pole from the first).  Inside serves where the pole curve crosses
    ``x = 1`` (``F(1, y)`` is singular, and the poles at 1 cannot be taken out), or ``F`` is
    singular just beyond ``|y| = 1``, or the saddle lies nearer 0."""
    far, near = _R_BEYOND
    beyond = _beyond(p, far)
    if beyond is not None:
        yield beyond
    found = {}  # axis -> saddle, from the first scan circle that shows one
    for radius in _SCAN_R:
        missing = [axis for axis in (-1, 1) if axis not in found]
        if not missing:
            break
        try:
            scan = _Frame(p, radius, remove=False)
            for axis in missing:
                saddle = _saddle(scan, axis * _INSIDE_GRID)
                if saddle is not None:
                    found[axis] = saddle
        except (ArithmeticError, np.linalg.LinAlgError):
            continue
    for x0, psi0, start in sorted(found.values(), key=lambda saddle: saddle[1]):
        try:
            frame = _Frame(p, (1 + psi0 / abs(x0)) / 2, remove=False)
        except (ArithmeticError, np.linalg.LinAlgError):
            continue
        yield frame, (x0, psi0, start)
    beyond = _beyond(p, near)
    if beyond is not None:
        yield beyond


def deep_curve(p: Point, t_from: int, t_max: int, n: int = 1024):
    """``E_t`` at ``t_from .. t_max`` with error bounds (:class:`PoleCurve`), or ``None`` where
    the path does not apply or a check fails (see the module docstring); ``n`` nodes on the
    x-contour.  Values beyond the float range are ``inf`` (their bound too)."""
    for frame, saddle in _geometries(p):
        curve = _through(frame, saddle, t_from, t_max, n)
        if curve is not None:
            return curve
    return None


def _through(frame: _Frame, saddle, t_from, t_max, n):
    """:func:`deep_curve` on one frame, through the saddle ``(x0, psi0, start)``."""
    x0, psi0, start = saddle
    try:
        x, dx = _contour(x0, n, not frame.remove, frame.R)
        rows, dx1 = frame.rows(x)
        scale = float(np.abs(rows.Bh).max())
        tracked = _track(frame, x, rows.Bh, start)  # (rows.Bh less the poles from here on)
    except (ArithmeticError, np.linalg.LinAlgError):
        return None
    if tracked is None:  # (the y-check: no negative powers left in any row)
        return None
    y, R = frame.y, frame.R
    poles, yk, ck, dyk, dck, spectrum = tracked
    if not _x_analytic(frame, x, dx):
        return None
    t = np.arange(t_from, t_max + 1, dtype=float)
    # the residue sum S_t = sum w psi^-t, w = -c dx / (2 pi i x y_k): every term of every
    # other sum below is scaled by exp(-top_t), top_t the log of S_t's largest term
    w = -ck * dx[poles] / (2j * np.pi * x[poles] * yk)
    rel_c, rel_y = dck / np.abs(ck), dyk / np.abs(yk)  # w to (1 + rel_c)/(1 - rel_y) - 1
    top, S, err_S = residue_sum(
        w, x[poles] * yk, poles % 2 == 0, (rel_c + rel_y) / (1 - rel_y), rel_y, t
    )
    # the rest, and where the poles at 1 were taken out g_t (contour sums of G) and h_t (mean
    # over the y-circle), each a sum of weights times powers: summed where it may matter,
    # bounded (see _powers) elsewhere
    on_x = np.abs(dx) / (2 * np.pi * np.abs(x))
    total, error = _rest(spectrum, x, dx, on_x, t, top, scale, R)
    total = total + S
    error = error + err_S
    if frame.remove:
        g, err_g = _powers(rows.G * dx / (2j * np.pi * x), x, t, top)
        floor_g = (dx1 + frame.dK + 2 * _U * frame.maxF) / np.abs(1 - x)
        _, g_floor = _powers(floor_g * on_x, x, t, top, signed=False)
        h, err_h = _powers(frame.H / _NY, y, t, top)
        h_floor = (frame.d1y + frame.dK) / float(np.abs(1 - y).min())
        err_K = frame.dK + 8 * _U * frame.maxF
        scale_t = np.exp(-top)
        total = total + frame.K * scale_t + g + h
        error = error + err_g + g_floor + err_h + (h_floor * R ** (-t) + err_K) * scale_t
    error = error + np.abs(total.imag)
    with np.errstate(over="ignore"):
        E, err = total.real * np.exp(top), error * np.exp(top)
    return PoleCurve(E, err, x0, psi0)


def _rest(spectrum: _Spectrum, x, dx, on_x, t, top, scale, R):
    """The rest ``(1/(2 pi i)^2) sum sum (Bh - P) x^(-t-1) y^(-t-1)`` (scaled by ``exp(-top)``)
    and its error.  Row ``j``'s FFT bin ``t < NY/2`` holds the Laurent coefficient
    ``a_t(x_j) R^t`` (times the phase of the half-step nodes), up to the aliasing that the
    check's bins ``>= NY/2`` bound (``nu_j``); the x-sum is a trapezoidal sum on the contour.
    Deeper, only the bound ``max_y |Bh - P| (R |x|)^-t`` is used."""
    ny = _NY
    nu = spectrum.nu + 8 * _U * scale
    M = spectrum.M + 8 * _U * scale  # >= max_y |Bh - P| (the sum of all bins)
    value = np.zeros(len(t), complex)
    _, error = _powers(M * on_x, R * np.abs(x), t, top, signed=False)
    held = np.flatnonzero((t < ny // 2 - 4) & (error >= 1e-17))  # (below 1e-17 the bound serves)
    weights, log_Rx = dx / (2j * np.pi * x), np.log(R * x)
    for s in _nodes.blocks(len(held), len(x)):
        at = held[s]
        k = t[at].astype(int)
        terms = (
            spectrum.low[:, k].T
            * np.exp(-1j * np.pi * k / ny)[:, None]
            * weights[None, :]
            * np.exp(-t[at, None] * log_Rx[None, :] - top[at, None])
        )
        value[at] = terms.sum(1)
        _, alias = _powers(nu * on_x, R * np.abs(x), t[at], top[at], signed=False)
        error[at] = (
            np.abs(value[at] - 2 * terms[:, ::2].sum(1))
            + (4 * t[at] + 20) * _U * np.abs(terms).sum(1)
            + 2 * alias
        )
    return value, error


def _powers(weights, base, t, top, *, signed=True):
    """``sum_j weights_j base_j^-t exp(-top_t)`` at every depth ``t`` and its error: the
    trapezoidal difference to every second node plus rounding (``signed``), or, with
    ``signed=False``, the sum of moduli as a bound (value ``None``).  Where the bound
    ``sum |weights| min|base|^-t exp(-top)`` is below 1e-17 the sum is not formed: the bound
    is its error (the depths where these terms matter are few, and the full matrix of
    depths times nodes is large); elsewhere a block of depths at a time."""
    log_w, log_base = np.log(np.abs(weights)), np.log(base)
    coarse = np.exp(_log_sum(log_w[None, :])[0] - t * log_base.real.min() - top)
    value = np.zeros(len(t), complex)
    error = coarse.copy()
    formed = np.flatnonzero(coarse >= 1e-17)
    for s in _nodes.blocks(len(formed), len(weights)):
        at = formed[s]
        ts = t[at, None]
        if signed:
            terms = weights[None, :] * np.exp(-ts * log_base[None, :] - top[at, None])
            value[at] = terms.sum(1)
            error[at] = np.abs(value[at] - 2 * terms[:, ::2].sum(1)) + (
                (4 * ts[:, 0] + 20) * _U * np.abs(terms).sum(1)
            )
        else:
            logs = log_w[None, :] - ts * log_base.real[None, :] - top[at, None]
            error[at] = np.exp(_log_sum(logs))
    return (value if signed else None), error


def _x_analytic(frame: _Frame, x, dx) -> bool:
    """No singularity of ``Bh(., y)`` inside the x-contour for y on ``|y| = 1/10``: its contour
    moments ``(1/2 pi i) sum Bh x^m dx`` (m = 0, 1, 2) vanish to 1e-11 of their terms.  So the
    Taylor coefficients of ``Bh`` in y, each a Cauchy integral on that circle, are analytic
    inside the contour, as the x-integral needs.  (On ``|y| = 1/2`` the pole curve itself can
    pass inside a contour near 0: at ``(2.1576, 0.9061, 0.04481, lam = 1.59e-6)``, ``x0 =
    -0.49``, where ``x y_k(x)`` is about 0.24.)"""
    p = frame.p
    ys = _nodes.circle(0.1, 32)
    try:
        at, cols = _nodes.sectors(p, x, v=False), _nodes.sectors(p, ys, u=False)
        Bh = frame.bh(x, at, ys, cols)[0]
    except (ArithmeticError, np.linalg.LinAlgError):
        return False
    for m in range(3):
        terms = Bh * (x**m * dx)[:, None]
        if float(np.abs(terms.sum(0)).max()) > 1e-11 * float(np.abs(terms).sum(0).max()):
            return False
    return True
