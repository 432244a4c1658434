"""Finite-D test error ``E_t`` of the pretrained simplified model.

Paper, Eq. (generalization trace): with ``w_hat_0 = 0`` the CoT error is
``w - w_hat_t = (I - A* S / alpha)^t w`` (Appendix C.2), so averaging exactly over the test task
``w ~ N(0, I_D)`` gives

    E_t = E_X |(I - A* S / alpha)^t|_F^2 / D,      S = X X^T,

which is what this module computes: ``A*`` is fitted to freshly sampled
pretraining tasks by :func:`cotbook.pretrain.sampled_solution`, and
the expectation over test designs ``X`` by an average over ``test_designs`` fresh noiseless
designs (label noise does not enter at test time).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _checks
from . import pretrain

__all__ = ["design_errors", "SimulatedCurve", "simulated_curve"]

MEMORY_BUDGET = 1 << 30
"""Bytes of working memory :func:`design_errors` may use for its stacks of ``D x D`` matrices."""


def design_errors(A, X, t_max):
    """``|(I - (D/L) A X X^T)^t|_F^2 / D`` for ``t = 0..t_max`` and each design in a batch.

    ``A`` is ``(D, D)``, ``X`` is ``(n, D, L)``.  This equals ``E_w |w - w_hat_t|^2 / D`` for the
    CoT of :func:`cotbook.model.cot_trajectory` started at ``w_hat_0 = 0``, averaged exactly over
    ``w ~ N(0, I_D)``.  Returns shape ``(n, t_max + 1)``.

    The power is renormalised by a power of two each step (its exponent kept as an integer), so
    deep overthinking curves do not overflow into ``inf - inf = NaN``: a value beyond the
    float64 range is returned as ``inf``, one below it as ``0.0``.
    """
    X = _checks.array("X", X, ndim=3)
    n, D, L = X.shape
    A = _checks.array("A", A, ndim=2)
    if A.shape != (D, D):
        raise ValueError(f"A must have shape ({D}, {D}) to match X, got {A.shape}")
    t_max = _checks.nonneg_int("t_max", t_max)
    chunk = max(1, MEMORY_BUDGET // (3 * 8 * D * D))  # step, power and the product
    out = np.empty((n, t_max + 1))
    for start in range(0, n, chunk):
        Xc = X[start : start + chunk]
        step = np.eye(D) - (D / L) * (A @ Xc) @ np.swapaxes(Xc, 1, 2)
        power = np.broadcast_to(np.eye(D), step.shape)
        exponent = np.zeros(len(Xc), dtype=np.int64)  # power = 2^exponent * (stored power)
        for t in range(t_max + 1):
            if t:
                power = step @ power
                top = np.abs(power).max(axis=(1, 2))
                shift = np.frexp(np.where(top > 0, top, 1.0))[1]
                power = power * np.ldexp(1.0, -shift)[:, None, None]
                exponent += shift
            with np.errstate(over="ignore", under="ignore"):
                norm = np.einsum("nij,nij->n", power, power) / D
                out[start : start + chunk, t] = np.ldexp(norm, 2 * exponent)
    return out


class SimulatedCurve(NamedTuple):
    """A simulated error curve ``E_0 .. E_{t_max}`` over independent trials."""

    mean: np.ndarray
    """Mean over trials, shape ``(t_max + 1,)``."""
    sem: np.ndarray
    """Standard error of that mean, shape ``(t_max + 1,)``."""
    per_trial: np.ndarray
    """Each trial's curve, shape ``(trials, t_max + 1)``."""


def simulated_curve(
    alpha, tau, sigma2, t_max, *, D, lam, trials=5, test_designs=8, seed=0
) -> SimulatedCurve:
    """Simulated ``E_0 .. E_{t_max}`` at finite ``D`` (Eq. generalization trace), the finite-D
    counterpart of :func:`cotbook.theory.error_curve`.

    Sizes are ``L = round(alpha D)`` and ``M = round(tau D)``; the model then uses the realised
    ratios ``L/D`` and ``M/D`` consistently (the CoT step is ``(D/L) A S``).  Each trial draws its
    own pretraining set (label-noise variance ``sigma2``) and ``A*`` (ridge ``lam``), then averages
    :func:`design_errors` over ``test_designs`` fresh designs.  Trial ``k`` uses the random stream
    ``SeedSequence(seed).spawn(trials)[k]``, so results are reproducible and trials independent.

    Parameters
    ----------
    alpha, tau : float
        ``L/D > 0`` and ``M/D > 0`` (``M >= D`` when ``lam = 0``).
    sigma2 : float
        Label-noise variance of the pretraining tasks, ``>= 0``.
    t_max : int
        Deepest CoT step, ``>= 0``.
    D : int
        Dimension, ``>= 1``.
    lam : float
        Ridge ``>= 0`` of the pretraining loss.
    trials : int
        Independent pretraining sets, ``>= 2``.
    test_designs : int
        Test designs averaged per trial, ``>= 1``.
    seed : int
        Root of the random streams, ``>= 0``.

    Returns
    -------
    SimulatedCurve
        ``mean``, ``sem`` (over trials) and ``per_trial``.

    Examples
    --------
    >>> curve = simulated_curve(
    ...     2.0, 4.0, 0.01, 3, D=40, lam=1e-5, trials=2, test_designs=1)
    >>> curve.mean.shape, curve.per_trial.shape, float(curve.mean[0])
    ((4,), (2, 4), 1.0)
    """
    alpha = _checks.positive("alpha", alpha)
    tau = _checks.positive("tau", tau)
    sigma2 = _checks.nonnegative("sigma2", sigma2)
    lam = _checks.nonnegative("lam", lam)
    D = _checks.positive_int("D", D)
    t_max = _checks.nonneg_int("t_max", t_max)
    trials = _checks.nonneg_int("trials", trials)
    if trials < 2:
        raise ValueError(f"trials must be an integer >= 2 (the SEM needs two), got {trials!r}")
    test_designs = _checks.positive_int("test_designs", test_designs)
    seed = _checks.nonneg_int("seed", seed)
    L, M = round(alpha * D), round(tau * D)
    if L < 1 or M < 1:
        raise ValueError(
            f"alpha * D and tau * D must round to at least 1 (got L={L}, M={M} for D={D})"
        )
    if lam == 0 and M < D:
        raise ValueError(f"lam must be > 0 when tau * D < D (M={M}, D={D})")
    per_trial = np.empty((trials, t_max + 1))
    for k, stream in enumerate(np.random.SeedSequence(seed).spawn(trials)):
        rng = np.random.default_rng(stream)
        A = pretrain.sampled_solution(D, L, M, sigma2, lam, rng)
        X = rng.standard_normal((test_designs, D, L)) / np.sqrt(D)
        per_trial[k] = design_errors(A, X, t_max).mean(axis=0)
    with np.errstate(invalid="ignore", over="ignore"):
        mean = per_trial.mean(axis=0)
        sem = per_trial.std(axis=0, ddof=1) / np.sqrt(trials)
    sem[~np.isfinite(mean)] = np.inf  # a trial beyond the float64 range: no finite error bar
    return SimulatedCurve(mean, sem, per_trial)
