"""Pretraining of the simplified model: the ridge objective and its minimiser.

Paper, Section 3 ("Training objective", Eq. loss) and Appendix C ("Preliminaries"):

    L(A) = (1/M) sum_mu |w_mu - Read(Atten(E_mu; theta(A)))|^2 + (lam/2) |A|_F^2,

with ``w_hat_init = 0`` in every pretraining prompt, so that the readout is ``A v_mu`` with
``v_mu = (D/L) X_mu y_mu``.  The minimiser is ``A* = B C^{-1}`` with
``B = (1/M) sum w_mu v_mu^T`` and ``C = (1/M) sum v_mu v_mu^T + (lam/2) I``.
"""

from __future__ import annotations

import numpy as np

from .. import _checks, tasks
from . import model

TASK_BLOCK = 4096
"""Tasks drawn per block by :func:`sampled_solution` (part of its random stream: keep fixed)."""

__all__ = [
    "features",
    "ridge_solution",
    "sampled_solution",
    "loss",
    "loss_gradient",
    "gradient_check",
    "perturbation_rises",
]


def features(X, y):
    """``v_mu = (D/L) X_mu y_mu`` for a batch of designs ``X`` ``(M, D, L)`` and labels ``(M, L)``.

    This is the readout of the pretraining prompt for ``A = I`` and ``w_hat_init = 0``.
    """
    X = _checks.array("X", X, ndim=3)
    y = _checks.array("y", y, ndim=2)
    if y.shape != (X.shape[0], X.shape[2]):
        raise ValueError(f"y must have shape (M, L) = {(X.shape[0], X.shape[2])}, got {y.shape}")
    D, L = X.shape[1:]
    return (D / L) * np.einsum("mdl,ml->md", X, y)


def _pairs(w, v):
    w = _checks.array("w", w, ndim=2)
    v = _checks.array("v", v, ndim=2)
    if w.shape != v.shape:
        raise ValueError(f"w and v must have the same shape (M, D), got {w.shape} and {v.shape}")
    return w, v


def _moments(w, v, lam):
    M, D = w.shape
    B = w.T @ v / M
    C = v.T @ v / M + (lam / 2) * np.eye(D)
    return B, C


def ridge_solution(w, v, lam):
    """The minimiser ``A* = B C^{-1}`` of the pretraining loss (Appendix C, "Preliminaries").

    ``w`` and ``v`` have shape ``(M, D)`` (task weights and features ``v_mu``); ``lam >= 0`` is the
    paper's ridge parameter (the loss carries ``lam/2 |A|^2``, hence ``lam/2`` in ``C``).  With
    ``lam = 0`` the minimiser is unique only when ``C`` is invertible, i.e. ``M >= D``.
    """
    w, v = _pairs(w, v)
    lam = _checks.nonnegative("lam", lam)
    M, D = w.shape
    if lam == 0 and M < D:
        raise ValueError(
            f"lam must be > 0 when M < D (here M={M}, D={D}): with lam = 0 the ridge minimiser "
            "is not unique"
        )
    return _solve(*_moments(w, v, lam))


def _solve(B, C):
    # A C = B  <=>  C A^T = B^T  (C is symmetric).
    return np.linalg.solve(C, B.T).T


def sampled_solution(D, L, M, sigma2, lam, rng):
    """``A*`` for ``M`` freshly sampled pretraining tasks, in memory ``O(D^2)`` whatever ``M``.

    Draws the tasks' ``(w_mu, v_mu)`` with :func:`cotbook.tasks.sample_features` in blocks of
    :data:`TASK_BLOCK` and accumulates ``sum w v^T`` and ``sum v v^T`` block by block, so that
    ``M = tau D`` tasks at ``D = 3200`` never sit in memory at once.  Equal to
    :func:`ridge_solution` on the concatenated draws.
    """
    D = _checks.positive_int("D", D)
    M = _checks.positive_int("M", M)
    lam = _checks.nonnegative("lam", lam)
    if lam == 0 and M < D:
        raise ValueError(f"lam must be > 0 when M < D (here M={M}, D={D})")
    wv, vv = np.zeros((D, D)), np.zeros((D, D))
    for start in range(0, M, TASK_BLOCK):
        w, v = tasks.sample_features(D, L, min(TASK_BLOCK, M - start), sigma2, rng)
        wv += w.T @ v
        vv += v.T @ v
    return _solve(wv / M, vv / M + (lam / 2) * np.eye(D))


def loss(A, X, y, w, lam):
    """The pretraining loss of Eq. (loss), evaluated literally through the attention layer.

    Each task's prompt ``E_mu`` (with ``w_hat_init = 0``) goes through
    :func:`cotbook.model.attention` with the block-parameterised ``theta(A)`` and is read out with
    :func:`cotbook.model.read`.  ``X``: ``(M, D, L)``, ``y``: ``(M, L)``, ``w``: ``(M, D)``.
    """
    X = _checks.array("X", X, ndim=3)
    M, D, L = X.shape
    w = _checks.array("w", w, ndim=2)
    if w.shape != (M, D):
        raise ValueError(f"w must have shape {(M, D)}, got {w.shape}")
    lam = _checks.nonnegative("lam", lam)
    W, V = model.block_parameters(A)
    E = model.prompt(X, y, np.zeros((M, D)))
    pred = model.read(model.attention(E, W, V, L))
    return float(np.mean(np.sum((w - pred) ** 2, axis=1)) + lam / 2 * np.sum(A * A))


def loss_gradient(A, w, v, lam):
    """Gradient of Eq. (loss) with respect to ``A``: ``2 (A C - B)`` (it vanishes at ``A*``)."""
    w, v = _pairs(w, v)
    lam = _checks.nonnegative("lam", lam)
    D = w.shape[1]
    A = _checks.array("A", A, ndim=2)
    if A.shape != (D, D):
        raise ValueError(f"A must have shape ({D}, {D}), got {A.shape}")
    B, C = _moments(w, v, lam)
    return 2 * (A @ C - B)


def gradient_check(A, X, y, w, lam, rng, *, n_directions=5, h=1e-2) -> float:
    """Largest relative error of :func:`loss_gradient` against finite differences of :func:`loss`.

    Along ``n_directions`` random directions ``Delta``, compares ``<grad L(A), Delta>`` with the
    central difference ``(L(A + h Delta) - L(A - h Delta)) / 2h`` of the *literal* loss -- exact up
    to round-off, because the loss is quadratic in ``A``.
    """
    n_directions = _checks.positive_int("n_directions", n_directions)
    h = _checks.positive("h", h)
    M, D = np.shape(w)
    grad = loss_gradient(A, w, features(X, y), lam)
    worst = 0.0
    for _ in range(n_directions):
        delta = rng.standard_normal((D, D))
        central = (loss(A + h * delta, X, y, w, lam) - loss(A - h * delta, X, y, w, lam)) / (2 * h)
        worst = max(worst, abs(central - np.sum(grad * delta)) / abs(central))
    return worst


def perturbation_rises(A, X, y, w, lam, rng, *, n=200, eps=1e-2):
    """Rise of the literal loss under ``n`` random perturbations ``A + eps Delta``, ``|Delta| = 1``.

    Returns ``(rises, predicted)``: the measured ``L(A + eps Delta) - L(A)`` and, for ``A = A*``,
    the exact prediction ``eps^2 Tr(Delta C Delta^T)`` of the quadratic loss (positive whenever
    ``C`` is positive definite, so ``A*`` is the unique minimiser).
    """
    n = _checks.positive_int("n", n)
    eps = _checks.positive("eps", eps)
    M, D = np.shape(w)
    _, C = _moments(np.asarray(w, dtype=float), features(X, y), _checks.nonnegative("lam", lam))
    base = loss(A, X, y, w, lam)
    rises, predicted = np.empty(n), np.empty(n)
    for k in range(n):
        delta = rng.standard_normal((D, D))
        delta /= np.linalg.norm(delta)
        rises[k] = loss(A + eps * delta, X, y, w, lam) - base
        predicted[k] = eps**2 * np.trace(delta @ C @ delta.T)
    return rises, predicted
