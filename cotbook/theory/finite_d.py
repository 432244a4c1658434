"""The first finite-D correction to Result 1 at ``lam = 0``: ``E_t(D) = E_t + c_t / D + O(D^-2)``.

What is derived, and checked (``tests/unit/theory/test_finite_d.py``):

* ``c_1``, one CoT step, at every ``alpha > 0``, ``tau > 1``, ``sigma2 >= 0``
  (:func:`first_step_correction`);
* every ``c_t`` in the limit ``tau -> infinity``, where the pretrained matrix is exactly
  ``I / (c + 1/L)`` (:func:`large_tau_correction`).

:func:`finite_d_correction` (on the theory's face, :mod:`cotbook.theory`) returns what is
derived.  Not derived: ``c_t`` for ``t >= 2`` at finite ``tau``, and ``lam > 0``.  The test
prompt's side is exact at every depth (:mod:`cotbook.wick`: ``E_t(D)`` is a polynomial in the
normalised traces of words in ``A`` and ``A^T``), so what ``c_t`` lacks is the ``1/D`` term of
each such trace (:func:`needed_words`: 5 words at ``t = 2``, 9 at ``t = 3``; two are derived
here).  Each is its own derivation, with real-Ginibre terms; the measured ``c_t``
(:mod:`cotbook.simulation.corrections`) stand where they stop.

Notation (the paper's Section 3 and Appendix C): ``L = alpha D`` examples per prompt, ``M = tau
D`` pretraining tasks, ``s = (1 + sigma2)/alpha``, ``c = 1 + s``, ``y = 1/tau``, ``u = alpha + 1 +
sigma2``; ``v_mu = alpha^-1 X_mu y_mu`` and ``w_mu`` the pretraining pairs (``V``, ``W`` their
``M x D`` matrices), ``A = W^T V G`` with ``G = (V^T V)^-1`` the ridgeless pretrained matrix, ``S``
the test prompt's ``X X^T``, a real Wishart matrix independent of ``A``.

The derivation of ``c_1``:

1. Exactly, at every ``D``: ``E_1(D) = 1 - 2 E[tr A]/D + (1 + 1/alpha + 1/L) E[tr A A^T]/D``
   (``E S = alpha I``, ``E S^2 = alpha (alpha + 1 + 1/D) I``; the ``1/L`` is the real
   Wishart's own correction).
2. Exactly: ``E[w v^T] = I`` and ``E[v v^T] = (c + 1/L) I``, so the population coefficient is
   ``a = 1/(c + 1/L)``.  Write ``w_mu = a v_mu + psi_mu v_mu + r_mu`` with ``r_mu`` orthogonal
   to ``v_mu``; by rotation invariance ``r_mu`` has mean zero given the scalars ``n_mu =
   |v_mu|^2/D``, ``psi_mu`` and ``p_mu = |r_mu|^2/D``, whose means and covariances to
   ``O(1/D)`` (:func:`_pair_statistics`) follow from the exact law of ``v_mu`` given ``w_mu``
   (:func:`cotbook.tasks.sample_features`).
3. ``tr A/D = a + T`` and ``tr A A^T/D = a^2 + 2aT + X_psi + X_r`` up to ``O(D^-2)``, where
   ``T``, ``X_psi``, ``X_r`` are sums over ``mu`` of leverage-type quantities ``v^T G v``,
   ``v^T G^2 v``.  Removing row ``mu`` from ``G`` (Sherman-Morrison) leaves ``gamma = D v^T G_mu
   v / |v|^2`` and ``gamma_2 = D^2 v^T G_mu^2 v / |v|^2``, independent of the row's scalars,
   with the inverse Marchenko-Pastur moments as means and sphere fluctuations as variances.
4. Their means to ``O(1/D)`` come from two exact identities, ``sum_mu v^T G v = D`` and
   ``tr(G^2 V^T V) = tr G``; every fluctuation is ``O(D^-1/2)``, so a second-order delta
   method is exact to ``O(1/D)`` (:func:`_second_order`).

:func:`_first_step_expansion` assembles ``E_1(D)`` to ``O(1/D)`` in extended precision and
:func:`first_step_correction` reads off its ``1/D`` coefficient by differencing at ``D = 1e25``,
``1e26`` and ``1e27``, certified when both differences and two precisions agree.  The same
machinery with the pair statistics of a jointly Gaussian ``(w, v)`` reproduces that model's
exact answer, and at ``tau -> infinity`` it meets :func:`large_tau_correction`, an independent
computation (tested).
"""

from __future__ import annotations

import math

from .. import wick
from .._checks import nonneg_int
from . import domain

__all__ = [
    "LARGE_TAU_T_MAX",
    "DERIVED_T_MAX",
    "DERIVED_WORDS",
    "needed_words",
    "finite_d_correction",
    "first_step_correction",
    "gaussian_pairs_correction",
    "large_tau_correction",
]

LARGE_TAU_T_MAX = 200
"""Deepest ``t`` of :func:`large_tau_correction`: its alternating sums need about ``t`` digits
and ``t^2`` terms (t = 200: about 10 s)."""

DERIVED_T_MAX = 1
"""Deepest ``t`` whose ``c_t`` is derived at finite ``tau`` (:func:`finite_d_correction`)."""
DERIVED_WORDS = ("A", "AT")
"""The words in ``A`` and ``A^T`` whose normalised traces are derived to ``O(1/D)`` (steps 2-4
of the module's derivation: ``tr A / D`` and ``tr A A^T / D``)."""

_DPS = 60  # working digits of the c_1 expansion; checked against _DPS + 30
_D_FAR = 25  # E_1(D) is evaluated at D = 10^25 and 10^26: the O(D^-2) part is 1e-25 of c_1
_AGREE = 1e-12  # relative agreement of the two precisions that certifies a value


def _pair_statistics(alpha, sigma2, gaussian=False):
    """Means and covariances (times ``D``) of one pretraining pair's scalars ``n = |v|^2/D``,
    ``psi = (w.v)/|v|^2 - a`` and ``p = |r|^2/D`` (step 2 of the module's derivation): ``psi1
    = D E psi``, ``p0 + p1/D = E p``, and ``D Var`` / ``D Cov`` of ``n``, ``psi``, ``p``.
    ``gaussian``: the jointly Gaussian pair with the same second moments (the reference model
    whose answer is known exactly)."""
    import mpmath as mp

    alpha, sigma2 = mp.mpf(alpha), mp.mpf(sigma2)
    c = 1 + (1 + sigma2) / alpha
    if gaussian:
        rho = 1 - 1 / c
        return dict(psi1=0, p0=rho, p1=-rho + 1 / (alpha * c**2), nn=2 * c**2, np=0,
                    psipsi=rho / c, pp=2 * rho**2)  # fmt: skip
    u = alpha + 1 + sigma2
    return dict(
        psi1=2 * alpha * (2 * alpha + sigma2 + 2) / u**3,
        p0=(1 + sigma2) / u,
        p1=-(alpha**2 * (1 + sigma2) + alpha * (2 * sigma2**2 + sigma2 + 1)
             + sigma2 * (1 + sigma2) ** 2) / u**3,
        nn=2 * (alpha**3 + 2 * alpha**2 * (sigma2 + 3) + alpha * (sigma2**2 + 6 * sigma2 + 6)
                + (1 + sigma2) ** 2) / alpha**3,
        np=2 * (alpha + 1) / u**2,
        psipsi=alpha * (alpha**2 * (sigma2 + 2) + 2 * alpha * (sigma2**2 + sigma2 + 1)
                        + sigma2 * (1 + sigma2) ** 2) / u**4,
        pp=2 * (alpha**2 * (sigma2**2 + 2 * sigma2 + 2)
                + alpha * (2 * sigma2**3 + 7 * sigma2**2 + 8 * sigma2 + 3)
                + (1 + sigma2) ** 4) / u**4,
    )  # fmt: skip


def _second_order(f, mean, cov):
    """``E f(x)`` to second order in the fluctuations of ``x`` about ``mean``: ``f(mean) +
    sum_ij H_ij cov_ij / 2``, with ``cov`` given as ``{(i, j): value}`` for ``i <= j``."""
    import mpmath as mp

    value = f(*mean)
    for (i, j), cij in cov.items():
        if cij:
            order = [0] * len(mean)
            order[i] += 1
            order[j] += 1
            value += (mp.mpf(1) / 2 if i == j else 1) * mp.diff(f, mean, order) * cij
    return value


def _first_step_expansion(alpha, tau, sigma2, D, gaussian=False):
    """``E_1`` at dimension ``D``, right through ``O(1/D)`` (steps 1-4 of the module's
    derivation; its ``O(D^-2)`` content is not meaningful)."""
    import mpmath as mp

    alpha, tau, sigma2, D = (mp.mpf(x) for x in (alpha, tau, sigma2, D))
    pair = _pair_statistics(alpha, sigma2, gaussian)
    L, M = alpha * D, tau * D
    n_mean = 1 + (1 + sigma2) / alpha + 1 / L  # E |v|^2 / D, exactly
    a = 1 / n_mean
    var_n, psi_mean = pair["nn"] / D, pair["psi1"] / D
    p_mean = pair["p0"] + pair["p1"] / D
    y = 1 / tau
    # inverse Marchenko-Pastur moments of D G_mu in the direction of v, and the sphere's
    # fluctuations of gamma = D v.G_mu v/|v|^2 and gamma_2 = D^2 v.G_mu^2 v/|v|^2
    m1 = y / (n_mean * (1 - y))
    m2 = y**2 / (n_mean**2 * (1 - y) ** 3)
    m3 = y**3 * (1 + y) / (n_mean**3 * (1 - y) ** 5)
    m4 = y**4 * (1 + 3 * y + y**2) / (n_mean**4 * (1 - y) ** 7)
    var_g, var_g2, cov_g = 2 * (m2 - m1**2) / D, 2 * (m4 - m2**2) / D, 2 * (m3 - m1 * m2) / D
    # identity 1: the leverages sum to D, E[q/(1+q)] = D/M with q = n gamma
    q0 = y / (1 - y)
    fq = D / M + (m1**2 * var_n + n_mean**2 * var_g) / (1 + q0) ** 3
    q_mean = fq / (1 - fq)
    g_mean = q_mean / n_mean

    # identity 2: tr(G^2 V^T V) = tr G fixes the mean of gamma_2
    def h(n, g, g2):
        return n * g2 / (1 + n * g) ** 2

    def identity_2(g2_mean):
        cov = {(0, 0): var_n, (1, 1): var_g, (2, 2): var_g2, (1, 2): cov_g}
        lhs = g_mean - n_mean * g2_mean / (D * (1 + q_mean))
        return lhs - (M / D) * _second_order(h, [n_mean, g_mean, g2_mean], cov)

    g2_mean = mp.findroot(identity_2, m2)

    def f(p, n, g, g2):
        return p * n * g2 / (1 + n * g) ** 2

    cov = {(0, 0): pair["pp"] / D, (1, 1): var_n, (0, 1): pair["np"] / D, (2, 2): var_g,
           (3, 3): var_g2, (2, 3): cov_g}  # fmt: skip
    T = tau * psi_mean * q_mean**2 / (1 + q_mean) ** 2  # E tr(psi-part of A)/D
    X_r = tau * _second_order(f, [p_mean, n_mean, g_mean, g2_mean], cov)
    X_psi = tau * (pair["psipsi"] / D) * n_mean**2 * g2_mean / (1 + q_mean) ** 2
    tr_A = a + T
    tr_AA = a**2 + 2 * a * T + X_psi + X_r
    return 1 - 2 * tr_A + (1 + 1 / alpha + 1 / L) * tr_AA


def _one_over_d(alpha, tau, sigma2, gaussian=False):
    """The ``1/D`` coefficient of :func:`_first_step_expansion`, at the working precision:
    the expansion at ``D = 10^25``, ``10^26`` and ``10^27``, differenced pairwise.  The two
    differences agree to about ``1e-25`` relative where ``D = 10^25`` is far into the
    expansion's ``1/D`` regime; :func:`_certified` refuses where they do not (``tau`` within
    about ``1e-12`` of 1, where the coefficient itself exceeds ``1e24``)."""
    import mpmath as mp

    far = mp.mpf(10) ** _D_FAR
    E = [_first_step_expansion(alpha, tau, sigma2, far * 10**k, gaussian) for k in range(3)]
    return [(E[k] - E[k + 1]) / (1 / (far * 10**k) - 1 / (far * 10 ** (k + 1))) for k in (0, 1)]


def _certified(alpha, tau, sigma2, gaussian):
    """:func:`_one_over_d` at 60 and 90 digits: returned if its two differences agree (the
    expansion is in its ``1/D`` regime) and the two precisions agree, each to 1e-12 relative."""
    import mpmath as mp

    alpha, tau, sigma2 = domain.point(alpha, tau, sigma2)
    values = []
    for dps in (_DPS, _DPS + 30):
        with mp.workdps(dps):
            try:
                values.append(_one_over_d(alpha, tau, sigma2, gaussian))
            except (ValueError, ZeroDivisionError):  # findroot found no root
                raise domain.AccuracyError(
                    f"no certified c_1 at (alpha={alpha}, tau={tau}, sigma2={sigma2}): the "
                    f"identity for the mean of gamma_2 has no root at {dps} digits"
                ) from None
    (_, low), (near, high) = values
    if not abs(near - high) <= _AGREE * abs(high):
        raise domain.AccuracyError(
            f"c_1 at (alpha={alpha}, tau={tau}, sigma2={sigma2}): the expansion is not in its "
            f"1/D regime at D = 1e{_D_FAR} ({float(near)!r} against {float(high)!r} at 10 D)"
        )
    if not abs(low - high) <= _AGREE * abs(high):
        raise domain.AccuracyError(
            f"c_1 at (alpha={alpha}, tau={tau}, sigma2={sigma2}) is {float(high)!r} at "
            f"{_DPS + 30} digits and {float(low)!r} at {_DPS}"
        )
    return float(high)


def first_step_correction(alpha, tau, sigma2) -> float:
    """``c_1`` of ``E_1(D) = E_1 + c_1 / D + O(D^-2)``: the first finite-``D`` correction to
    Result 1's first CoT step, at ``lam = 0`` (the module's derivation, steps 1-4).

    Parameters
    ----------
    alpha : float
        ``L/D``, in ``[1e-12, 1e12]``.
    tau : float
        ``M/D``, in ``(1, 1e12]`` (the ridgeless pretrained matrix needs ``M > D``).
    sigma2 : float
        Label-noise variance, in ``[0, 1e12]``.

    Returns
    -------
    float
        ``c_1``, computed at 60 and 90 digits; raises
        :class:`~cotbook.theory.domain.AccuracyError` if the two differ by more than 1e-12
        relative, or if the expansion is not in its ``1/D`` regime at ``D = 1e25`` (``tau``
        within about ``1e-12`` of 1).

    Examples
    --------
    >>> round(first_step_correction(2.0, 3.0, 0.01), 6)
    0.653881
    """
    return _certified(alpha, tau, sigma2, gaussian=False)


def gaussian_pairs_correction(alpha, tau, sigma2) -> float:
    """``c_1`` of a reference model: the pretraining pairs ``(w, v)`` jointly Gaussian with the
    model's second moments (``E w w^T = I``, ``E w v^T = I``, ``E v v^T = (c + 1/L) I``), the
    test prompt as in the model.  Its answer is known exactly (an inverse Wishart mean), and
    the difference to :func:`first_step_correction` is what the pairs' non-Gaussian law adds.

    Parameters
    ----------
    alpha, tau, sigma2 : float
        As for :func:`first_step_correction`.

    Returns
    -------
    float
        The reference model's ``c_1``, certified as there.

    Examples
    --------
    >>> round(gaussian_pairs_correction(2.0, 3.0, 0.01), 4)
    0.416
    """
    return _certified(alpha, tau, sigma2, gaussian=True)


def _large_tau(alpha, sigma2, t_max):
    """``c_0..c_t_max`` as ``tau -> infinity`` at the current mpmath precision (see
    :func:`large_tau_correction`)."""
    import mpmath as mp

    alpha, sigma2 = mp.mpf(alpha), mp.mpf(sigma2)
    c = 1 + (1 + sigma2) / alpha
    a0, da = 1 / c, -1 / (alpha * c**2)  # a = 1/(c + 1/L) = a0 + da/D + O(D^-2)
    k_max = 2 * t_max
    mu = [mp.mpf(1)] + [mp.mpf(0)] * k_max  # E tr S^k / D as D -> infinity
    nu = [mp.mpf(0)] * (k_max + 1)  # its 1/D coefficient
    for k in range(k_max):
        mu[k + 1] = alpha * mu[k] + mp.fsum(mu[m] * mu[k - m] for m in range(k))
        cross = mp.fsum(nu[m] * mu[k - m] + mu[m] * nu[k - m] for m in range(k))
        nu[k + 1] = alpha * nu[k] + k * mu[k] + cross
    out = []
    for t in range(t_max + 1):
        terms = (
            math.comb(2 * t, k) * (-1 / alpha) ** k
            * (a0**k * nu[k] + (k * a0 ** (k - 1) * da * mu[k] if k else 0))
            for k in range(2 * t + 1)
        )  # fmt: skip
        out.append(mp.fsum(terms))
    return out


def large_tau_correction(alpha, sigma2, t_max):
    """``c_0, ..., c_{t_max}`` of ``E_t(D) = E_t + c_t / D + O(D^-2)`` in the limit ``tau ->
    infinity``, every ``t``, at ``lam = 0``.

    With infinitely many pretraining tasks the pretrained matrix is exactly ``a I``, ``a = 1/(c
    + 1/L)``, so ``E_t(D) = E tr (I - a S / alpha)^{2t} / D`` over the real Wishart ``S`` of
    the test prompt: its moments ``E tr S^k / D = mu_k + nu_k / D`` follow from Stein's lemma,
    ``mu_{k+1} = alpha mu_k + sum_{m<k} mu_m mu_{k-m}`` and ``nu_{k+1} = alpha nu_k + k mu_k +
    sum_{m<k} (nu_m mu_{k-m} + mu_m nu_{k-m})``, and ``a``'s own ``1/D`` term adds
    ``-1/(alpha c^2)``.  The alternating binomial sums are taken with enough digits for their
    cancellation and certified by a second evaluation with 20 more.

    Parameters
    ----------
    alpha : float
        ``L/D``, in ``[1e-12, 1e12]``.
    sigma2 : float
        Label-noise variance, in ``[0, 1e12]``.
    t_max : int
        Deepest CoT step, ``0 <= t_max <=`` :data:`LARGE_TAU_T_MAX`.

    Returns
    -------
    numpy.ndarray
        ``c_0..c_{t_max}`` (``c_0 = 0``).

    Examples
    --------
    >>> [round(float(x), 6) for x in large_tau_correction(2.0, 0.01, 3)]
    [0.0, 0.222215, 0.245606, 0.238839]
    """
    import mpmath as mp
    import numpy as np

    alpha, sigma2 = domain.alpha(alpha), domain.sigma2(sigma2)
    t_max = nonneg_int("t_max", t_max)
    if t_max > LARGE_TAU_T_MAX:
        raise ValueError(f"t_max must be <= {LARGE_TAU_T_MAX} (LARGE_TAU_T_MAX), got {t_max}")
    # the largest term of the sums is at most (1 + a (1 + sqrt(alpha))^2 / alpha)^(2t) times a
    # power of t; the result is O(1): that many digits cancel
    c = 1 + (1 + sigma2) / alpha
    growth = 1 + (1 + math.sqrt(alpha)) ** 2 / (alpha * c)
    dps = 30 + math.ceil(2 * t_max * math.log10(growth) + 2 * math.log10(t_max + 2))
    with mp.workdps(dps):
        low = _large_tau(alpha, sigma2, t_max)
    with mp.workdps(dps + 20):
        high = _large_tau(alpha, sigma2, t_max)
    for t, (x, y) in enumerate(zip(low, high, strict=True)):
        if not abs(x - y) <= 1e-15 * max(abs(y), mp.mpf(10) ** -300):
            raise domain.AccuracyError(
                f"large_tau_correction: c_{t} at (alpha={alpha}, sigma2={sigma2}) differs between "
                f"{dps} and {dps + 20} digits"
            )
    return np.array([float(y) for y in high])


def needed_words(t) -> tuple:
    """The words whose normalised traces ``c_t`` needs to ``O(1/D)``: every word of a product
    that enters ``E_t(D)`` at order ``D^0`` (:func:`cotbook.wick.prompt_average`; the words of
    products entering at ``1/D`` are needed only as ``D -> infinity``, which Result 1's
    theory gives).  Shortest first; ``0 <= t <= wick.T_MAX``.

    Examples
    --------
    >>> needed_words(1)
    ('A', 'AT')
    >>> len(needed_words(2)), len(needed_words(3))
    (5, 9)
    """
    average = wick.prompt_average(t)
    words = {w for key, c in average.items() if any(j == 0 for _, j in c) for w in key}
    return tuple(sorted(words, key=lambda w: (len(w), w)))


def finite_d_correction(alpha, tau, sigma2, t_max):
    """``c_0, ..., c_{t_max}`` of ``E_t(D) = E_t + c_t / D + O(D^-2)`` at ``lam = 0``, where they
    are derived: every ``t`` as ``tau -> infinity`` (``tau = math.inf``,
    :func:`large_tau_correction`), and ``t <= DERIVED_T_MAX`` at finite ``tau``
    (:func:`first_step_correction`; ``c_0 = 0`` since ``E_0(D) = 1``).

    Deeper at finite ``tau`` it refuses: ``c_t`` needs the ``1/D`` terms of the traces of the
    words in ``A`` and ``A^T`` of length up to ``2t`` (the test prompt's side is exact at every
    depth, :mod:`cotbook.wick`), each its own derivation; the measured values are the record
    ``finite_d_corrections`` (``python -m cotbook finite-d``).

    Parameters
    ----------
    alpha : float
        ``L/D``, in ``[1e-12, 1e12]``.
    tau : float
        ``M/D``, in ``(1, 1e12]``, or ``math.inf``.
    sigma2 : float
        Label-noise variance, in ``[0, 1e12]``.
    t_max : int
        Deepest CoT step: ``<= DERIVED_T_MAX`` at finite ``tau``, ``<= LARGE_TAU_T_MAX`` at
        ``tau = math.inf``.

    Returns
    -------
    numpy.ndarray
        ``c_0..c_{t_max}``, each certified at two precisions.

    Examples
    --------
    >>> [round(float(c), 6) for c in finite_d_correction(2.0, 3.0, 0.01, 1)]
    [0.0, 0.653881]
    >>> [round(float(c), 6) for c in finite_d_correction(2.0, math.inf, 0.01, 2)]
    [0.0, 0.222215, 0.245606]
    """
    import numpy as np

    t_max = nonneg_int("t_max", t_max)
    if tau == math.inf:
        return large_tau_correction(alpha, sigma2, t_max)
    alpha, tau, sigma2 = domain.point(alpha, tau, sigma2)
    if t_max > DERIVED_T_MAX:
        raise ValueError(
            f"t_max must be <= {DERIVED_T_MAX} (DERIVED_T_MAX) at finite tau, got {t_max}: c_t "
            f"for t >= 2 is derived only as tau -> infinity (tau=math.inf); at finite tau it is "
            f"measured (the record finite_d_corrections, python -m cotbook finite-d)"
        )
    return np.array([0.0, first_step_correction(alpha, tau, sigma2)][: t_max + 1])
