"""Deep depths of a growing ``lam > 0`` curve: the mixed sector's pole, through the saddle.

Where E_t grows, ``B(x, y) = m13(u(x), v(y)) / ((1-x)(1-y))`` is singular inside the unit
polydisc, and a torus (:func:`cotbook.theory.ridge.ridge_curve`) certifies only about ``n/5``
depths.  Its nearest singularity is the pole of the mixed sector (the 2x2 system of App.
C.9) on a curve ``y = y_k(x)``; ``E_t`` grows like ``psi0^-t``, ``psi0 = x0 y_k(x0)`` at the
saddle ``x0 < 0`` where ``x y_k(x)`` is largest on the negative axis.  As the ``lam = 0``
engine does in its Lagrange variables (:mod:`cotbook.theory.contour`), the y-integral is
moved past the pole:

* B's poles at ``x = 1`` and ``y = 1`` are taken out exactly, as on a torus beyond |x| = 1:
  ``B = K/((1-x)(1-y)) + G(x)/(1-y) + H(y)/(1-x) + Bh``, so
  ``E_t = K + g_t + h_t + [x^t y^t] Bh`` (``K = F(1, 1)``, ``F(x, 1)`` and ``F(1, y)`` by
  Cauchy's formula on 64 nodes of ``|x - 1| = (R - 1)/2``; ``R = R_ABOVE``).
* ``y`` runs on ``|y| = R``; ``x`` on the circle through ``x0`` and ``R``
  (centre ``(R + x0)/2``): the contour crosses the negative axis at the saddle, so no term of
  the sum below is larger than the result (their ratio is printed by the tests, about 1.005).
* For each node ``x`` whose y-circle shows a pole (the Laurent coefficient of ``y^-1``), the
  pole ``y_k`` and its residue ``c`` are read off a small circle around it (moments, exact for
  one simple pole), and ``P = c / (y - y_k)`` is subtracted:
  ``[x^t y^t] Bh = -(1/2 pi i) sum c y_k^(-t-1) x^(-t-1) dx + rest``, whether the pole lies
  inside ``|y| = R`` or just outside it, with
  ``|rest| <= (1/2 pi) sum max_y |Bh - P| R^-t |x|^(-t-1) |dx|``.  The contour keeps
  ``|x| R >= |x0| R > psi0``, so the rest is exponentially smaller than E_t.

Checks (a failure returns ``None``, and the caller keeps its refusal): each row ``Bh - P`` has
no negative powers of y on ``|y| = R`` (so the pole is the only singularity crossed), ``Bh`` has
no singularity inside the x-contour for y on ``|y| = 1/2`` (contour moments), the two small
circles give the same pole and residue, and ``E_0 = 1`` is not asked of this path (it serves
depths the torus cannot reach; the caller checks it against the torus where both certify).
Each sum's error is its difference to the sum on every second node plus a rounding term; the
pole data's error enters through ``(t + 1) |dy_k / y_k|``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import _nodes
from .derivation import Point

_U = np.finfo(float).eps / 2
_R = 1.03  # the y-circle's radius (ridge.R_ABOVE: the poles at 1 are taken out beyond it)
_POLE_NODES = 64  # nodes of the circle around 1 (as ridge._beyond_curve)
_NY = 4096  # nodes of the y-circle
_SMALL = (0.02, 1e-3)  # radii of the two small circles around each pole
_SMALL_NODES = 32
_TOL = 1e-11  # negative powers of Bh - P, relative to max |Bh|, that pass the check
_BEYOND = 0.01  # the pole is followed until it lies this far (relative) beyond |y| = R
_SADDLE_GRID = np.linspace(0.7, 1.02, 65)  # |x| scanned for the saddle on the negative axis


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
    """The y-circle, the circle around 1 and the constants of the pole removal at 1."""

    def __init__(self, p: Point):
        self.p = p
        self.y = _R * np.exp(2j * np.pi * (np.arange(_NY) + 0.5) / _NY)
        near = 1 + (_R - 1) / 2 * np.exp(2j * np.pi * (np.arange(_POLE_NODES) + 0.5) / _POLE_NODES)
        self.ring, self.one = _nodes.sectors(p, self.y), _nodes.sectors(p, near)
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
        ``F(1, y)``, if known), with the means ``F(x_i, 1)`` and their largest error."""
        p = self.p
        Fx1 = _nodes.m13(p, at, self.one)
        fx1 = Fx1.mean(1)
        if f1y is None:
            f1y = _nodes.m13(p, self.one, cols).mean(0)
        F = _nodes.m13(p, at, cols)
        Bh = (F - fx1[:, None] - f1y[None, :] + self.K) / ((1 - x)[:, None] * (1 - y)[None, :])
        return Bh, fx1, float(np.abs(Fx1[:, ::2].mean(1) - fx1).max())

    def rows(self, x) -> tuple[_Rows, float]:
        """``Bh(x_i, y_j)`` on the y-circle and ``G(x_i)``, with the largest error of the means
        ``F(x_i, 1)``."""
        at = _nodes.sectors(self.p, x, v=False)
        Bh, fx1, dx1 = self.bh(x, at, self.y, self.ring, self.f1y)
        return _Rows(Bh, (fx1 - self.K) / (1 - x)), dx1

    def pole(self, x, guess):
        """``(y_k, c, dy, dc)``: the pole of ``Bh(x, .)`` near ``guess`` and its residue, from
        two small circles (``dy``, ``dc``: their differences), or ``None`` if the two do not
        show the same simple pole."""
        xs = np.array([x])
        at = _nodes.sectors(self.p, xs, v=False)
        found = []
        centre = guess
        for rho in _SMALL:
            w = rho * np.exp(2j * np.pi * (np.arange(_SMALL_NODES) + 0.5) / _SMALL_NODES)
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


def _track(frame: _Frame, x):
    """The pole ``y_k(x_j)`` and its residue along the contour, followed from the saddle
    (node 0) both ways, each node's small circles centred where the last two nodes point,
    until ``|y_k| > R (1 + _BEYOND)``: ``(nodes, y_k, c, dy, dc)``, or ``None`` if a node on
    the way shows no single simple pole (or the pole never leaves the circle)."""
    n = len(x)
    got = {0: frame.pole(x[0], frame.saddle_pole)}
    if got[0] is None:
        return None
    for step in (1, -1):
        trail = [got[0][0]]
        for i in range(1, n // 2):
            j = (step * i) % n
            guess = trail[-1] if len(trail) == 1 else 2 * trail[-1] - trail[-2]
            found = frame.pole(x[j], guess)
            if found is None:
                return None
            got[j] = found
            trail.append(found[0])
            if abs(found[0]) > _R * (1 + _BEYOND):
                break
        else:
            return None
    nodes = np.array(sorted(got))
    yk, ck, dy, dc = (np.array([got[j][k] for j in nodes]) for k in range(4))
    return nodes, yk.astype(complex), ck.astype(complex), dy.astype(float), dc.astype(float)


def _saddle(frame: _Frame):
    """``(x0, psi0)``: the point of the negative axis where ``x y_k(x)`` is largest, from a
    grid of ``|x|`` and a parabola through its best three points; ``None`` where no row of
    the grid shows a pole inside ``|y| = R``."""
    a = _SADDLE_GRID
    rows, _ = frame.rows(-a + 0j)
    mu = _pole_moments(rows.Bh, frame.y)
    scale = float(np.abs(rows.Bh).max())
    with np.errstate(all="ignore"):
        yk = mu[1] / mu[0]
        ok = (np.abs(mu[0]) > 1e-8 * scale) & (np.abs(yk) < _R * (1 - 64 / _NY))
        ok &= np.abs(mu[2] / mu[1] - yk) <= 1e-8 * np.abs(yk)
        psi = np.where(ok, np.real(-a * yk), -np.inf)
    k = int(np.argmax(psi))
    if not np.isfinite(psi[k]) or k in (0, len(a) - 1) or not ok[k - 1] or not ok[k + 1]:
        return None
    # vertex of the parabola through (a[k-1..k+1], psi[k-1..k+1])
    h = a[1] - a[0]
    d1, d2 = (psi[k + 1] - psi[k - 1]) / (2 * h), (psi[k + 1] - 2 * psi[k] + psi[k - 1]) / h**2
    if not d2 < 0:
        return None
    ak = a[k] - d1 / d2
    frame.saddle_pole = complex(yk[k])  # where the pole is followed from
    return -float(ak), float(psi[k] - d1 * d1 / (2 * d2))


def _contour(x0, n):
    """``n`` nodes of the circle through ``x0 < 0`` and ``R``, half a step off the real axis
    (the radial continuation of a node at ``x = R`` would pass through ``x = 1``), node 0 next
    to the saddle, with the trapezoidal weights ``dx``."""
    centre, radius = (_R + x0) / 2, (_R - x0) / 2
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


def deep_curve(p: Point, t_from: int, t_max: int, n: int = 1024):
    """``E_t`` at ``t_from .. t_max`` with error bounds (:class:`PoleCurve`), or ``None`` where
    the path does not apply or a check fails (see the module docstring); ``n`` nodes on the
    x-contour.  Values beyond the float range are ``inf`` (their bound too)."""
    try:
        frame = _Frame(p)
        saddle = _saddle(frame)
        if saddle is None:
            return None
        x0, psi0 = saddle
        x, dx = _contour(x0, n)
        rows, dx1 = frame.rows(x)
    except (ArithmeticError, np.linalg.LinAlgError):
        return None
    y, Bh = frame.y, rows.Bh
    scale = float(np.abs(Bh).max())
    try:
        tracked = _track(frame, x)
    except (ArithmeticError, np.linalg.LinAlgError):
        return None
    if tracked is None:
        return None
    poles, yk, ck, dyk, dck = tracked
    rest = Bh.copy()
    rest[poles] -= ck[:, None] / (y[None, :] - yk[:, None])
    # the y-check: no negative powers left in any row
    coef = np.fft.fft(rest, axis=1) / _NY
    if float(np.abs(coef[:, _NY // 2 :]).max()) > _TOL * scale:
        return None
    if not _x_analytic(frame, x, dx):
        return None
    t = np.arange(t_from, t_max + 1, dtype=float)
    # the residue sum S_t = sum w psi^-t, w = -c dx / (2 pi i x y_k): every term of every
    # other sum below is scaled by exp(-top_t), top_t the log of S_t's largest term
    w = -ck * dx[poles] / (2j * np.pi * x[poles] * yk)
    log_terms = np.log(w)[None, :] - t[:, None] * np.log(x[poles] * yk)[None, :]
    top = log_terms.real.max(1)
    with np.errstate(over="ignore"):
        parts = np.exp(log_terms - top[:, None])
    S = parts.sum(1)
    moduli = np.abs(parts)
    err_S = (
        np.abs(S - 2 * parts[:, poles % 2 == 0].sum(1))
        + (12 * t + 60) * _U * moduli.sum(1)
        + (moduli * (dck / np.abs(ck) + (t[:, None] + 1) * dyk / np.abs(yk))).sum(1)
    )
    # the rest, g_t (contour sums of G) and h_t (mean over the y-circle), each a sum of
    # weights times powers: summed where it may matter, bounded (see _powers) elsewhere
    on_x = np.abs(dx) / (2 * np.pi * np.abs(x))
    rest_value, rest_error = _rest(coef, x, dx, on_x, t, top, scale)
    g, err_g = _powers(rows.G * dx / (2j * np.pi * x), x, t, top)
    floor_g = (dx1 + frame.dK + 2 * _U * frame.maxF) / np.abs(1 - x)
    _, g_floor = _powers(floor_g * on_x, x, t, top, signed=False)
    h, err_h = _powers(frame.H / _NY, y, t, top)
    h_floor = (frame.d1y + frame.dK) / float(np.abs(1 - y).min())
    K, err_K = frame.K, frame.dK + 8 * _U * frame.maxF
    scale_t = np.exp(-top)
    total = K * scale_t + g + h + S + rest_value
    error = (
        err_S
        + rest_error
        + err_g
        + g_floor
        + err_h
        + np.abs(total.imag)
        + (h_floor * _R ** (-t) + err_K) * scale_t
    )
    with np.errstate(over="ignore"):
        E, err = total.real * np.exp(top), error * np.exp(top)
    return PoleCurve(E, err, x0, psi0)


def _rest(coef, x, dx, on_x, t, top, scale):
    """The rest ``(1/(2 pi i)^2) sum sum (Bh - P) x^(-t-1) y^(-t-1)`` (scaled by ``exp(-top)``)
    and its error.  Row ``j``'s FFT bin ``t < NY/2`` holds the Laurent coefficient
    ``a_t(x_j) R^t`` (times the phase of the half-step nodes), up to the aliasing that the
    check's bins ``>= NY/2`` bound (``nu_j``); the x-sum is a trapezoidal sum on the contour.
    Deeper, only the bound ``max_y |Bh - P| (R |x|)^-t`` is used."""
    ny = coef.shape[1]
    nu = np.abs(coef[:, ny // 2 :]).max(1) + 8 * _U * scale
    M = np.abs(coef).sum(1) + 8 * _U * scale  # >= max_y |Bh - P| (the sum of all bins)
    value = np.zeros(len(t), complex)
    _, error = _powers(M * on_x, _R * np.abs(x), t, top, signed=False)
    held = (t < ny // 2 - 4) & (error >= 1e-17)  # (below 1e-17 the bound serves)
    if held.any():
        k = t[held].astype(int)
        phase = np.exp(-1j * np.pi * k / ny)
        weights = dx / (2j * np.pi * x)
        terms = (
            coef[:, k].T
            * phase[:, None]
            * weights[None, :]
            * np.exp(-t[held, None] * np.log(_R * x)[None, :] - top[held, None])
        )
        value[held] = terms.sum(1)
        _, alias = _powers(nu * on_x, _R * np.abs(x), t[held], top[held], signed=False)
        error[held] = (
            np.abs(value[held] - 2 * terms[:, ::2].sum(1))
            + (4 * t[held] + 20) * _U * np.abs(terms).sum(1)
            + 2 * alias
        )
    return value, error


def _powers(weights, base, t, top, *, signed=True):
    """``sum_j weights_j base_j^-t exp(-top_t)`` at every depth ``t`` and its error: the
    trapezoidal difference to every second node plus rounding (``signed``), or, with
    ``signed=False``, the sum of moduli as a bound (value ``None``).  Where the bound
    ``sum |weights| min|base|^-t exp(-top)`` is below 1e-17 the sum is not formed: the bound
    is its error (the depths where these terms matter are few, and the full matrix of
    depths times nodes is large)."""
    log_w = np.log(np.abs(weights))
    coarse = np.exp(_log_sum(log_w[None, :])[0] - t * np.log(np.abs(base)).min() - top)
    value = np.zeros(len(t), complex)
    error = coarse.copy()
    small = coarse < 1e-17
    if small.all():
        return (value if signed else None), error
    ts = t[~small, None]
    if signed:
        terms = weights[None, :] * np.exp(-ts * np.log(base)[None, :] - top[~small, None])
        value[~small] = terms.sum(1)
        error[~small] = np.abs(value[~small] - 2 * terms[:, ::2].sum(1)) + (
            (4 * ts[:, 0] + 20) * _U * np.abs(terms).sum(1)
        )
        return value, error
    logs = log_w[None, :] - ts * np.log(np.abs(base))[None, :] - top[~small, None]
    error[~small] = np.exp(_log_sum(logs))
    return None, error


def _x_analytic(frame: _Frame, x, dx) -> bool:
    """No singularity of ``Bh(., y)`` inside the x-contour for y on ``|y| = 1/2``: its contour
    moments ``(1/2 pi i) sum Bh x^m dx`` (m = 0, 1, 2) vanish to 1e-11 of their terms."""
    p = frame.p
    ys = 0.5 * np.exp(2j * np.pi * (np.arange(32) + 0.5) / 32)
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
