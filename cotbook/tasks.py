"""Sampling of in-context linear-regression tasks (paper, Section 3, "Training data").

A task is a weight ``w ~ N(0, I_D)`` with ``L`` examples ``x_l ~ N(0, I_D / D)`` and labels
``y_l = w . x_l + eps_l``, ``eps_l ~ N(0, sigma2)``.  Here ``sigma2`` is the noise *variance*
(the paper's sigma^2).  All samplers take a ``numpy.random.Generator`` so that every result is
reproducible from a seed.
"""

from __future__ import annotations

import numpy as np

from . import _checks

__all__ = ["sample_tasks", "sample_features"]


def _check_sizes(D, L, n_tasks, sigma2, rng):
    D = _checks.positive_int("D", D)
    L = _checks.positive_int("L", L)
    n_tasks = _checks.positive_int("n_tasks", n_tasks)
    sigma2 = _checks.nonnegative("sigma2", sigma2)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return D, L, n_tasks, sigma2


def sample_tasks(D, L, n_tasks, sigma2, rng):
    """Sample ``n_tasks`` tasks literally, as the paper defines them (Section 3).

    Returns ``(X, y, w)`` with shapes ``(n_tasks, D, L)``, ``(n_tasks, L)`` and ``(n_tasks, D)``:
    ``X[mu]`` is the design matrix ``X_mu = [x_{mu,1}, ..., x_{mu,L}]`` with i.i.d. ``N(0, 1/D)``
    entries, ``w[mu] ~ N(0, I_D)`` and ``y[mu] = X[mu]^T w[mu] + eps``, ``eps ~ N(0, sigma2 I_L)``.
    """
    D, L, n_tasks, sigma2 = _check_sizes(D, L, n_tasks, sigma2, rng)
    X = rng.standard_normal((n_tasks, D, L)) / np.sqrt(D)
    w = rng.standard_normal((n_tasks, D))
    y = np.einsum("ndl,nd->nl", X, w) + np.sqrt(sigma2) * rng.standard_normal((n_tasks, L))
    return X, y, w


def sample_features(D, L, n_tasks, sigma2, rng):
    """Sample ``(w_mu, v_mu)`` pairs with ``v_mu = (D/L) X_mu y_mu`` exactly, without forming X_mu.

    ``v_mu`` is the only statistic of a pretraining prompt that the simplified model sees
    (paper, Appendix C "Preliminaries": ``v_mu = alpha^{-1} X_mu y_mu``).  Forming ``X_mu`` costs
    ``O(D L)`` per task; this sampler costs ``O(D + L)`` and has the *same joint distribution*:

    write ``X = w_hat g^T + X_perp`` with ``w_hat = w/|w|``, ``g = X^T w_hat ~ N(0, I_L/D)`` and
    ``X_perp = (I - w_hat w_hat^T) X`` independent of ``g``.  Then ``y = |w| g + eps`` and

        ``X y = w_hat (g . y) + (|y| / sqrt(D)) (I - w_hat w_hat^T) z``,  ``z ~ N(0, I_D)``,

    because, given ``y``, ``X_perp y`` is Gaussian with covariance ``|y|^2/D (I - w_hat w_hat^T)``.
    The tests compare its moments with :func:`sample_tasks`.

    Returns ``(w, v)``, both of shape ``(n_tasks, D)``.
    """
    D, L, n_tasks, sigma2 = _check_sizes(D, L, n_tasks, sigma2, rng)
    w = rng.standard_normal((n_tasks, D))
    norm_w = np.linalg.norm(w, axis=1, keepdims=True)
    w_hat = w / norm_w
    g = rng.standard_normal((n_tasks, L)) / np.sqrt(D)
    y = norm_w * g + np.sqrt(sigma2) * rng.standard_normal((n_tasks, L))
    z = rng.standard_normal((n_tasks, D))
    z_perp = z - w_hat * np.sum(w_hat * z, axis=1, keepdims=True)
    Xy = w_hat * np.sum(g * y, axis=1, keepdims=True)
    Xy += np.linalg.norm(y, axis=1, keepdims=True) / np.sqrt(D) * z_perp
    return w, (D / L) * Xy
