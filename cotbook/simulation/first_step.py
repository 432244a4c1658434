"""One CoT step at finite D, averaged exactly over the test prompt: the Monte Carlo that checks
the first finite-D correction (:mod:`cotbook.theory.finite_d`).

At ``lam = 0`` the pretrained matrix is ``A = W^T V (V^T V)^-1`` (``w_mu``, ``v_mu`` the
pretraining pairs, drawn from their exact law by :func:`cotbook.tasks.sample_features`), and the
test prompt enters one CoT step only through ``S = X X^T``, a real Wishart matrix with ``E S =
alpha I`` and ``E S^2 = alpha (alpha + 1 + 1/D) I``.  So, exactly for each pretraining set,

    E_1 = 1 - 2 tr A / D + (1 + 1/alpha + 1/L) tr(A A^T) / D,

which removes the test prompts' sampling noise: the spread left is the pretraining sets' own.
"""

from __future__ import annotations

import numpy as np

from .. import _checks, tasks

__all__ = ["first_step_errors"]


def _size(name, ratio, D) -> int:
    size = ratio * D
    if abs(size - round(size)) > 1e-9 * max(1.0, size):
        raise ValueError(f"{name} * D must be an integer (the sizes are exact here), got {size!r}")
    return round(size)


def first_step_errors(alpha, tau, sigma2, D, *, trials, seed=0) -> np.ndarray:
    """``E_1`` at dimension ``D`` and ``lam = 0`` for ``trials`` independent pretraining sets,
    each averaged exactly over the test prompt (the module's formula; the paper's Eq.
    generalization trace at ``t = 1``).

    Parameters
    ----------
    alpha, tau : float
        ``L/D`` and ``M/D``, with ``L = alpha D`` and ``M = tau D`` integers and ``M > D``.
    sigma2 : float
        Label-noise variance, ``>= 0``.
    D : int
        Dimension, ``>= 1``.
    trials : int
        Independent pretraining sets, ``>= 2``.
    seed : int
        Root of the random stream, ``>= 0``.

    Returns
    -------
    numpy.ndarray
        Shape ``(trials,)``: each set's ``E_1``.

    Examples
    --------
    >>> e = first_step_errors(2.0, 3.0, 0.01, 20, trials=4)
    >>> e.shape, bool(0.3 < e.mean() < 0.8)
    ((4,), True)
    """
    alpha, tau = _checks.positive("alpha", alpha), _checks.positive("tau", tau)
    sigma2 = _checks.nonnegative("sigma2", sigma2)
    D = _checks.positive_int("D", D)
    trials = _checks.positive_int("trials", trials)
    if trials < 2:
        raise ValueError(f"trials must be an integer >= 2, got {trials!r}")
    seed = _checks.nonneg_int("seed", seed)
    L, M = _size("alpha", alpha, D), _size("tau", tau, D)
    if M <= D:
        raise ValueError(f"tau must be > 1 (M = tau D > D at lam = 0), got {tau!r}")
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    out = np.empty(trials)
    for i in range(trials):
        w, v = tasks.sample_features(D, L, M, sigma2, rng)
        A_T = np.linalg.solve(v.T @ v, v.T @ w)
        out[i] = 1 - 2 * np.trace(A_T) / D + (1 + 1 / alpha + 1 / L) * np.sum(A_T**2) / D
    return out
