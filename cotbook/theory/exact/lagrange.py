"""Result 1 at lambda = 0 as a finite quadratic form (Lagrange-Buermann inversion, derived in
``book/numerics.md``), with a-priori rounding-error bounds.

With a = 1 - h(x) one has x = a / phi(a), phi(a) = (alpha + sigma2 a + a^2)/(alpha + 1 +
sigma2), and Result 1 becomes

    E_t = [a^t b^t]  R(a) phi(a)^t R(b) phi(b)^t * alpha / D(a, b),
    R(a) = (alpha - a^2)/(alpha - a),
    D(a, b) = alpha - gamma a b + beta a b (a + b),   gamma = 1 + beta (alpha + 1).

1/D is a *rational* function whose coefficients Q_{n,m} = [a^m b^n] alpha/D obey a three-term
recurrence, so E_t = w_t^T Q w_t is a finite quadratic form: O(t^2) per depth, O(T^3) for the
whole curve, a single BLAS-3 product.  Three evaluations of it:

- :func:`float_curve` -- every depth 0..T in float64 with a running (a-priori) error bound.
  The vectors w_t carry one binary exponent per entry (their entries span far more than the
  float64 range at depths in the thousands), so no entry is lost to underflow and the bound
  covers every operation actually performed.
- :func:`stream_depth` -- one depth at many points at once, the rows of Q streamed (O(t^2) per
  point, no matrix stored), in float64 or extended precision, with its bound.
- :func:`mp_curve` -- the same sums in mpmath.

Which of them answers, and when a value is certified, is decided by :mod:`.route` and
:mod:`._tier`.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from ..domain import AccuracyError
from . import _recurrences
from .result1 import negative_singular_root

__all__ = ["float_curve", "stream_depth", "mp_curve"]

_U = np.finfo(float).eps / 2  # unit roundoff of float64
# float64 Lagrange (``float_curve``): entries of Q below this are flushed to zero (avoids
# denormal arithmetic in the BLAS product); the bound accounts for them (fq (sum |w|)^2).
_Q_FLUSH = np.finfo(float).tiny * 1e8


def _lagrange_coeffs_rounded(alpha, tau, sigma2, rho):
    """g1, g2, (phi~_0, phi~_1, phi~_2), q = rho/alpha and 1 - alpha for the float64 inputs and
    this float64 rho, each computed at 40 digits and rounded once (relative error <= u), so that
    a coefficient raised to the power k contributes k roundings to the a-priori bound."""
    with mp.workdps(40):
        al, ta, s2, r = mp.mpf(alpha), mp.mpf(tau), mp.mpf(sigma2), mp.mpf(rho)
        K = al + 1 + s2
        beta = (1 + s2) / (al * (ta - 1))
        gam = 1 + beta * (al + 1)
        vals = (gam * r * r / al, beta * r**3 / al, al / (K * r), s2 / K, r / K, r / al, 1 - al)
        g1, g2, p0, p1, p2, q, c1 = (float(x) for x in vals)
    return g1, g2, (p0, p1, p2), q, c1


def _Q_matrix(g1, g2, T, absolute=False):
    """Q[n, m] = [a^m b^n] alpha / D(rho a, rho b) (three-term recurrence)."""
    return _Q_matrices(g1, g2, T, (1.0 if absolute else -1.0,))[0]


def _Q_matrices(g1, g2, T, signs):
    """:func:`_Q_matrix` with ``g2`` multiplied by each sign, in one compiled recurrence:
    (-1,) is Q, (+1,) the matrix of |Q| (every term of Q with its sign dropped)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _recurrences.q_matrices(float(g1), float(g2), int(T), np.array(signs, dtype=float))


def _pow2(d):
    """2.0**d for integer arrays d <= 0 (exact), and 0.0 where d < -960 (bit construction)."""
    b = d + 1023
    b[b < 63] = 0
    return (b << 52).view(np.float64)


def _ext_powers(q, n):
    """q^0..q^{n-1} as (mantissa, exponent) arrays, relative error <= k u at index k."""
    m = np.empty(n)
    e = np.empty(n, dtype=np.int64)
    mk, ek = 0.5, 1
    for k in range(n):
        m[k], e[k] = mk, ek
        mk, de = math.frexp(mk * q)
        ek += de
    return m, e


class _RPhi:
    """v_t = R~ phi~^t (coefficients 0..T), as P + (1 - alpha) N with
    P = [1, q] * phi~^t and N = [0, 0, q^2, q^3, ...] * phi~^t; both have nonnegative terms only.

    Two representations, both exact up to the usual few roundings per operation *relative to
    each entry itself* (no entry is ever lost to underflow or flushing):

    * fast: one array per row scaled by a power of two, used while every structurally nonzero
      entry is >= 2^-800 of its row's maximum (then no product or sum in a step can underflow:
      the phi~ coefficients are checked to lie in [2^-100, 2^100]);
    * per-entry: a mantissa in [0.5, 1) and an integer exponent for each entry, once the entries
      span more than that (q = rho/alpha > 1 and T in the thousands: the entries that depth t
      reads are then 10^-140 .. 10^-500 of the largest, which only later depths read).
    """

    SENT = -(1 << 40)  # exponent of a zero entry (per-entry representation)
    FAST_MIN = 2.0**-800
    DROP = 2.0**-960  # window entries below this (relative to the window scale) are dropped

    def __init__(self, q, ph, n):
        self.n = n
        self.ph = ph
        self.pm = [math.frexp(p) for p in ph]  # ph_i = pm_i[0] * 2**pm_i[1]; ph0, ph2 > 0
        M = np.zeros((2, n))
        X = np.full((2, n), self.SENT, dtype=np.int64)
        M[0, 0], X[0, 0] = 0.5, 1
        if n >= 2:
            M[0, 1], X[0, 1] = math.frexp(q)
        if n >= 3:
            mq, xq = _ext_powers(q, n)
            M[1, 2:], X[1, 2:] = mq[2:], xq[2:]
        self.M, self.X = M, X
        self.steps = 0
        nz = [p for p in ph if p != 0.0]
        self.fast = min(nz) >= 2.0**-100 and max(nz) <= 2.0**100 and self._to_fast()

    def _to_fast(self):
        V = np.zeros((2, self.n))
        sc = np.zeros(2, dtype=np.int64)
        for r in (0, 1):
            nz = self.M[r] != 0.0
            if not nz.any():
                continue
            xr = self.X[r][nz]
            top = int(xr.max())
            if int(xr.min()) < top - 799:
                return False
            V[r] = self.M[r] * _pow2(self.X[r] - top)
            sc[r] = top
        self.V, self.sc = V, sc
        return True

    def _to_ext(self):
        M, de = np.frexp(self.V)
        X = de.astype(np.int64) + self.sc[:, None]
        X[M == 0.0] = self.SENT
        self.M, self.X = M, X
        self.fast = False

    def step(self):
        """v <- phi~ v (coefficients 0..T)."""
        ph, pm = self.ph, self.pm
        self.steps += 1
        if self.fast:
            V = self.V
            S = ph[0] * V
            if ph[1] != 0.0:
                S[:, 1:] += ph[1] * V[:, :-1]
            S[:, 2:] += ph[2] * V[:, :-2]
            mx = S.max(axis=1)
            for r in (0, 1):
                if mx[r] > 0.0:
                    e = math.frexp(mx[r])[1]
                    S[r] *= math.ldexp(1.0, -e)
                    self.sc[r] += e
            self.V = S
            kp = min(self.n, 2 * self.steps + 2)  # P_k > 0 exactly for k <= 2 steps + 1
            if S[0, :kp].min() < self.FAST_MIN or (self.n > 2 and S[1, 2:].min() < self.FAST_MIN):
                self._to_ext()
            return
        X, M = self.X, self.M
        te0 = X + pm[0][1]
        emax = te0.copy()
        if ph[1] != 0.0:
            te1 = X[:, :-1] + pm[1][1]
            np.maximum(emax[:, 1:], te1, out=emax[:, 1:])
        te2 = X[:, :-2] + pm[2][1]
        np.maximum(emax[:, 2:], te2, out=emax[:, 2:])
        S = (pm[0][0] * M) * _pow2(te0 - emax)
        if ph[1] != 0.0:
            S[:, 1:] += (pm[1][0] * M[:, :-1]) * _pow2(te1 - emax[:, 1:])
        S[:, 2:] += (pm[2][0] * M[:, :-2]) * _pow2(te2 - emax[:, 2:])
        M, de = np.frexp(S)
        X = emax + de
        X[M == 0.0] = self.SENT
        self.M, self.X = M, X

    def window(self, t):
        """(p, nn, ew): P_{t-m}, N_{t-m} (m = 0..t) times 2^-ew, ew an integer such that the
        window's largest entry is in [0.5, 1); entries below DROP are set to 0."""
        if self.fast:
            segs = [self.V[r, t::-1] for r in (0, 1)]
            tops = [s.max() for s in segs]
            ex = [int(self.sc[r]) + math.frexp(tops[r])[1] for r in (0, 1) if tops[r] > 0.0]
            ew = max(ex)
            out = []
            for r in (0, 1):
                if tops[r] > 0.0 and int(self.sc[r]) - ew >= -2000:
                    x = segs[r] * math.ldexp(1.0, int(self.sc[r]) - ew)
                    x[x < self.DROP] = 0.0
                else:
                    x = np.zeros(t + 1)
                out.append(x)
            return out[0], out[1], ew
        ew = int(self.X[:, : t + 1].max())
        p = self.M[0, t::-1] * _pow2(self.X[0, t::-1] - ew)
        nn = self.M[1, t::-1] * _pow2(self.X[1, t::-1] - ew)
        return p, nn, ew


_LEAN_N = 512  # curves up to this many depths try _lean_windows first


def _lean_windows(q, ph, c1, n):
    """The windows of all depths ``0 .. n-1`` at once, as :class:`_RPhi` makes them one by one.

    Column ``t`` of ``W`` is ``w_m = v_t[t - m]`` (``m <= t``), ``v_t = P_t + (1 - alpha) N_t``,
    scaled by ``2^-L[t]`` so that the window's largest entry of ``P_t`` or ``N_t`` is in
    [0.5, 1); ``Wa`` the same with ``|1 - alpha|``.  The rows ``P_t``, ``N_t`` are run without
    rescaling, so this is used only when every structurally positive entry stays within
    ``[2^-900, 2^900]``: then each entry carries the same few roundings relative to itself as in
    ``_RPhi`` and the a-priori bound is unchanged.  ``None`` otherwise (and for ``n > 512``).
    """
    if n > _LEAN_N:
        return None
    first = np.zeros((2, n))  # P_0 = [1, q], N_0 = [0, 0, q^2, q^3, ...]
    first[0, 0] = 1.0
    if n >= 2:
        first[0, 1] = q
    if n >= 3:
        first[1, 2:] = np.power(q, np.arange(2, n, dtype=float))
    with np.errstate(all="ignore"):
        PN = _recurrences.rphi_rows(first, *ph)  # PN[t, 0] = P_t, PN[t, 1] = N_t
    P, N = PN[:, 0], PN[:, 1]
    k = np.arange(n)
    support = k[None, :] <= 2 * k[:, None] + 1  # P_t[k] > 0 exactly there
    pos = np.concatenate([P[support], N[:, 2:].ravel()])
    if pos.size and not (
        np.all(np.isfinite(pos)) and pos.min() >= 2.0**-900 and pos.max() <= 2.0**900
    ):
        return None
    lag = k[None, :] - k[:, None]  # t - m, for row m and column t
    inside = lag >= 0
    cols = np.broadcast_to(k[None, :], (n, n))
    idx = np.where(inside, lag, 0)
    Pw = np.where(inside, P[cols, idx], 0.0)
    Nw = np.where(inside, N[cols, idx], 0.0)
    top = np.maximum(Pw.max(axis=0), Nw.max(axis=0))
    L = np.frexp(top)[1].astype(np.int64)
    scale = np.ldexp(1.0, -L)
    Pw *= scale
    Nw *= scale
    return Pw + c1 * Nw, Pw + abs(c1) * Nw, L


def float_curve(alpha, tau, sigma2, t_max, rho=None, want_bound=True):
    """float64 E_0..E_T and an a-priori rounding-error bound for each depth.

    Lagrange-Buermann form of Result 1 (Appendix "Numerical evaluation of the theoretical
    prediction" evaluates the same E_t by its b_{m,n} recursion; derivation in
    ``book/numerics.md``).  Scaling a -> rho a (exact for any rho > 0) with rho = |a_-| keeps Q
    bounded.  The vectors v_t = R~ phi~^t (truncated to degree T) are carried by :class:`_RPhi`
    as P + (1 - alpha) N, two recurrences with nonnegative terms, so every entry is known to a
    few roundings per step relative to itself, however small it is compared with the other
    entries (the entries that depth t reads, indices <= t, can be 10^-500 of the largest when
    q = rho/alpha > 1: a vector normalised by one common scale loses them to underflow or
    flushing, and that lost mass returns at later depths).  Depth t normalises its window
    (entries 0..t) by an exact power of two, so the scale of E_t carries no rounding either
    (a running natural log of the scale, ~1300 at T = 2000, would cost ~T ulps of it).
    """
    T = t_max
    rho = negative_singular_root(alpha, tau, sigma2) if rho is None else rho
    g1, g2, ph, q, c1 = _lagrange_coeffs_rounded(alpha, tau, sigma2, rho)
    if want_bound:
        Q, Qa = _Q_matrices(g1, g2, T, (-1.0, 1.0))
    else:
        Q, Qa = _Q_matrix(g1, g2, T), None
    with np.errstate(over="ignore", invalid="ignore"):
        if not (np.all(np.isfinite(Q)) and (Qa is None or np.all(np.isfinite(Qa)))):
            raise AccuracyError("float64 Lagrange: coefficients of 1/D overflow")
    fq = _Q_FLUSH
    Q[np.abs(Q) < fq] = 0.0
    if Qa is not None:
        Qa[Qa < fq] = 0.0
    n = T + 1
    lean = _lean_windows(q, ph, c1, n)
    vec = _RPhi(q, ph, n) if lean is None else None
    F = (1.0 + abs(c1)) * _RPhi.DROP  # |dropped window entry| < F (window units)
    E = np.empty(n)
    EA = np.empty(n)  # sum |w| |Q| |w|
    EV = np.empty(n)  # sum wa |Q| |w|, wa = P + |1 - alpha| N >= |w|
    EVs = np.empty(n)  # sum wa |Q w|
    NA = np.empty(n)  # sum wa^2
    S1 = np.zeros(n)  # sum_{n, m <= t} Qa_nm |w_m|
    S2 = np.zeros(n)  # sum_{n, m <= t} Qa_nm
    SW = np.zeros(n)  # (sum_m |w_m|)^2
    UF = np.zeros(n)  # underflowing products
    block = 512
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if Qa is not None:  # S2[t] = sum of Qa over the square [0, t]^2 (Qa is symmetric)
            S2[:] = np.cumsum(2.0 * np.tril(Qa, -1).sum(axis=1) + np.diagonal(Qa))
        for t0 in range(0, n, block):
            t1 = min(n, t0 + block)
            if lean is not None:
                W, Wa = lean[0][:t1, t0:t1], lean[1][:t1, t0:t1]
                L = lean[2][t0:t1]
            else:
                W = np.zeros((t1, t1 - t0))
                Wa = np.zeros((t1, t1 - t0)) if want_bound else None
                L = np.empty(t1 - t0, dtype=np.int64)
                for j, t in enumerate(range(t0, t1)):
                    p, nn, ew = vec.window(t)
                    W[: t + 1, j] = p + c1 * nn
                    if want_bound:
                        Wa[: t + 1, j] = p + abs(c1) * nn
                    L[j] = ew
                    if t < T:
                        vec.step()
            QW = Q[:t1, :t1] @ W
            e = np.einsum("ij,ij->j", W, QW)
            E[t0:t1] = np.ldexp(e, 2 * L)
            if want_bound:
                Wb = np.abs(W)
                QWa = Qa[:t1, :t1] @ Wb
                EA[t0:t1] = np.ldexp(np.einsum("ij,ij->j", Wb, QWa), 2 * L)
                EV[t0:t1] = np.ldexp(np.einsum("ij,ij->j", Wa, QWa), 2 * L)
                EVs[t0:t1] = np.ldexp(np.einsum("ij,ij->j", Wa, np.abs(QW)), 2 * L)
                NA[t0:t1] = np.ldexp(np.einsum("ij,ij->j", Wa, Wa), 2 * L)
                cs = np.cumsum(QWa, axis=0)
                cw = np.cumsum(Wb, axis=0)
                idx = np.arange(t0, t1)
                S1[t0:t1] = np.ldexp(cs[idx, idx - t0], 2 * L)
                SW[t0:t1] = np.ldexp(cw[idx, idx - t0] ** 2, 2 * L)
                S2[t0:t1] = np.ldexp(S2[t0:t1], 2 * L)
                UF[t0:t1] = np.ldexp((idx + 1.0) ** 2 * 2.0**-1000, 2 * L)
    if not want_bound:
        return E, None
    t = np.arange(n)
    # A-priori bound.  The coefficients g1, g2, phi~_i, q, 1 - alpha are rounded once (u each).
    # (i) Q and the form: every term of sum |w| |Q| |w| suffers at most 4t roundings in Q (rows
    # n <= t: <= n recurrence steps of 3 roundings and one coefficient factor each) + 2t + 2 in
    # the matmul / einsum (<= t + 1 nonzero terms) + 2 products: kq = 6t + 4 (+ 4 spare).
    # (ii) The window: each w_m = P_m + (1 - alpha) N_m is known to kv u relative to
    # wa_m = P_m + |1 - alpha| N_m (not to |w_m|: P and N may cancel when alpha > 1), with
    # kv = 4t (phi~ steps: 3 roundings and one coefficient) + 2t (q^k) + 3 (+ 3 spare); w enters
    # E_t twice: |dE| <= 2 kv u sum wa |Q w| to first order, the second-order terms being
    # 2 kv kq u^2 sum wa |Q| |w| + (kv u)^2 (1 + kq u) |wa|^2 max_n sum_m |Q_nm| (Q symmetric).
    # (iii) Window entries below F (relative to the window's power-of-two scale) were dropped:
    # |dE| <= 2 F sum |Q||w| + F^2 sum |Q|; entries of Q below fq were flushed: |dE| <=
    # fq (sum |w|)^2; products that underflow add < (t+1)^2 2^-1000 per unit scale.
    kq = 6.0 * t + 8
    kv = 6.0 * t + 6
    rows = np.maximum.accumulate(Qa.sum(axis=1))
    with np.errstate(over="ignore", invalid="ignore"):
        first = (kq * _U * EA + 2 * kv * _U * EVs) / (1 - (kq + 2 * kv) * _U)
        second = 2 * kv * kq * _U * _U * EV + (kv * _U) ** 2 * (1 + kq * _U) * NA * rows
        bound = first + second + 2.0 * F * S1 + F * F * S2 + fq * SW + UF
    return E, bound


def mp_curve(alpha, tau, sigma2, t_max, dps, depths=None):
    """Same quadratic form in mpmath at ``dps`` digits; returns dict t -> mpf."""
    T = t_max
    depths = list(range(T + 1)) if depths is None else sorted(depths)
    with mp.workdps(dps):
        al, ta, s2 = mp.mpf(alpha), mp.mpf(tau), mp.mpf(sigma2)
        K = al + 1 + s2
        beta = (1 + s2) / (al * (ta - 1))
        gam = 1 + beta * (al + 1)
        rho = al if alpha < 1 else mp.sqrt(al)
        g1 = gam * rho**2 / al
        g2 = beta * rho**3 / al
        ph0, ph1, ph2 = al / (K * rho), s2 / K, rho / K
        Q = [[mp.mpf(0)] * (T + 1) for _ in range(T + 1)]
        Q[0][0] = mp.mpf(1)
        zero = mp.mpf(0)
        for n in range(1, T + 1):
            a1, a2 = Q[n - 1], Q[n - 2] if n >= 2 else None
            row = Q[n]
            for m in range(1, T + 1):
                x = g1 * a1[m - 1]
                y = a1[m - 2] if m >= 2 else zero
                if a2 is not None:
                    y += a2[m - 1]
                row[m] = x - g2 * y
        ratio = rho / al
        R = [mp.mpf(1), ratio] + [(1 - al) * ratio**k for k in range(2, T + 1)]
        v = R[: T + 1]
        out = {}
        want = set(depths)
        for t in range(max(depths) + 1):
            if t in want:
                w = v[t::-1]
                out[t] = mp.fsum(w[n] * mp.fdot(Q[n][: t + 1], w) for n in range(t + 1))
            v = [
                ph0 * v[k] + (ph1 * v[k - 1] if k >= 1 else 0) + (ph2 * v[k - 2] if k >= 2 else 0)
                for k in range(T + 1)
            ]
        return out


def stream_depth(alpha, tau, sigma2, t, dtype=np.float64):
    """Vectorised single-depth Lagrange form in ``dtype``; returns (E_t, error bound).

    * coefficients c_k = [a^k] phi~(a)^t by J.C.P. Miller's recurrence for powers of the
      quadratic phi~ = p0 + p1 a + p2 a^2 (all terms positive for k <= t: stable);
    * v = R~ * c with R~(a) = R(rho a) = (1 - alpha q^2 a^2)/(1 - q a), q = rho/alpha, whose
      tail (1 - alpha) q^j is summed by a positive first-order recurrence;
    * the rows of Q are streamed, never stored: with z_n^(s) = Q_n . S^s w (S the shift),
      z_0^(s) = w_s and z_n^(s) = g1 z_{n-1}^(s+1) - g2 (z_{n-1}^(s+2) + z_{n-2}^(s+1)),
      E_t = sum_n w_n z_n^(0); level n needs s <= min(t, 2(t - n)) (O(t^2) per point).
    The same recursions with |.| give EA = sum |terms|; every term suffers at most 12 t + 12
    roundings (5 per Miller step, 2 per R~ step, 3 per z step, t + 2 in the final sum, plus the
    rounded coefficients raised to powers <= t), hence the bound (12t+12) u EA / (1-(12t+12)u).

    That rounding analysis holds only in the normal range of ``dtype``.  A point is therefore
    *refused* (bound ``inf``) unless every c_k (> 0 exactly, but for odd k when sigma2 = 0) lies in
    ``[tiny 2^64, max 2^-64]`` and E, EA are finite: a c_k that underflowed to 0 would make
    E = 0 with bound 0 (E_t at alpha = tau = 2, t = 1000 is 1.6e91, not 0).  With the c_k in
    range, an underflowing product in the Miller or R~ recursion costs < 2^-60 u of its (normal)
    result; one in the z recursion is an absolute error <= eta (the smallest subnormal) per
    operation, carried to E by the same positive recursion: its contribution is at most
    eta sum_n wa_n Z_n, Z_n = (|g1| + 2 |g2|) Z_{n-1} + 3, Z_0 = 0, which is added to the bound.
    """
    alpha = np.asarray(alpha, dtype=dtype)
    tau = np.asarray(tau, dtype=dtype)
    s2 = dtype(sigma2)
    one = dtype(1)
    P = alpha.size
    rho = np.minimum(alpha, np.sqrt(alpha))
    K = alpha + one + s2
    beta = (one + s2) / (alpha * (tau - one))
    gam = one + beta * (alpha + one)
    g1 = gam * rho * rho / alpha
    g2 = beta * rho**3 / alpha
    p0, p1, p2 = alpha / (K * rho), s2 / K, rho / K
    q = rho / alpha
    u = np.finfo(dtype).eps / 2
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        c = np.zeros((t + 1, P), dtype=dtype)
        c[0] = p0**t
        for k in range(1, t + 1):
            acc = ((t + 1) - k) * p1 * c[k - 1]
            if k >= 2:
                acc += (2 * (t + 1) - k) * p2 * c[k - 2]
            c[k] = acc / (k * p0)
        # R~_0 = 1, R~_1 = q, R~_j = (1 - alpha) q^j (j >= 2); y_k = sum_{j>=2} q^j c_{k-j}
        # is a positive recurrence, so v = R~ * c and |R~| * c are both obtained stably.
        y = np.zeros((t + 1, P), dtype=dtype)
        for k in range(2, t + 1):
            y[k] = q * y[k - 1] + (q * q) * c[k - 2]
        v = c.copy()
        v[1:] += q * c[:-1]
        va = v + np.abs(one - alpha) * y
        v += (one - alpha) * y
        w = v[::-1]
        wa = va[::-1]
        W = t + 3
        z1 = np.zeros((W, P), dtype=dtype)
        z1[: t + 1] = w
        za1 = np.zeros((W, P), dtype=dtype)
        za1[: t + 1] = wa
        z2 = np.zeros_like(z1)
        za2 = np.zeros_like(z1)
        z = np.zeros_like(z1)
        za = np.zeros_like(z1)
        tmp = np.empty_like(z1)
        E = w[0] * z1[0]
        EA = wa[0] * za1[0]
        for n in range(1, t + 1):
            L = min(t, 2 * (t - n)) + 1
            np.add(z1[2 : L + 2], z2[1 : L + 1], out=tmp[:L])
            tmp[:L] *= g2
            np.multiply(g1, z1[1 : L + 1], out=z[:L])
            z[:L] -= tmp[:L]
            z[L:] = 0
            np.add(za1[2 : L + 2], za2[1 : L + 1], out=tmp[:L])
            tmp[:L] *= g2
            np.multiply(g1, za1[1 : L + 1], out=za[:L])
            za[:L] += tmp[:L]
            za[L:] = 0
            E += w[n] * z[0]
            EA += wa[n] * za[0]
            z2, z1, z = z1, z, z2
            za2, za1, za = za1, za, za2
        kk = 12 * t + 12
        bound = kk * u * EA / (1 - kk * u)
        fin = np.finfo(dtype)
        growth = np.abs(g1) + 2 * np.abs(g2)
        Z = np.zeros(P, dtype=dtype)
        EU = np.zeros(P, dtype=dtype)
        for n in range(1, t + 1):
            Z = growth * Z + 3
            EU += wa[n] * Z
        bound = bound + fin.smallest_subnormal * EU * (1 + kk * u)
        lo, hi = fin.tiny * dtype(2.0**64), fin.max * dtype(2.0**-64)
        # c_k > 0 for every k <= t, except odd k when p1 = 0 (sigma2 = 0: c_k = 0 exactly)
        zero = (p1 == 0) & (np.arange(t + 1) % 2 == 1)[:, None]
        in_range = np.all(((c >= lo) & (c <= hi)) | (zero & (c == 0)), axis=0)
        ok = in_range & np.isfinite(E) & np.isfinite(EA) & np.isfinite(bound)
        bound = np.where(ok, bound, np.inf)
    return E, bound
