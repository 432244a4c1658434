"""What fully learned linear attention learns: the paper's Appendix A figure, measured.

The simplified model keeps, in the blocks ``(D, 1, D, 1)`` of the ``(2D+2) x (2D+2)``
matrices, only ``W_13 = I``, ``W_24 = -1`` and ``V_31 = -D A`` (paper, Section 3,
"Simplified parameterization"; :func:`cotbook.model.block_parameters`).  Here ``W`` is the
score matrix ``W_K^T W_Q`` of a trained model (or its merged ``W``) and ``V = W_V``.
"""

from __future__ import annotations

import numpy as np

from .. import _checks
from ..simulation import pretrain
from . import layer, softmax_study

__all__ = [
    "APPENDIX_A",
    "trained_matrices",
    "block_slices",
    "block_report",
    "training_moments",
    "one_step_objective",
    "optimal_A",
    "compare_A",
]

# The Appendix A figure's settings: lambda = 1e-3, "sigma = 0.1" (read as a standard deviation,
# sigma2 = 0.01), M = L = 20 and M = L = 200; the rest as in Figure 2.
APPENDIX_A = dict(model="linear", lam=1e-3, sigma2=0.01)


def trained_matrices(config):
    """Train one configuration; return ``(W, V)`` as float64 numpy arrays, ``W = W_K^T W_Q``
    (or the merged ``W``) and ``V = W_V``."""
    # One torch thread: torch's two threads wait on each other on a busy 2-core machine (the
    # Appendix A chapter took 242 s instead of 12 s in a build with both cores busy). The
    # results are bit-identical.
    with softmax_study._one_torch_thread():
        params, _ = layer.train([config])
    p = {k: v[0].double().numpy() for k, v in params.items()}
    W = p["W"] if "W" in p else p["W_K"].T @ p["W_Q"]
    return W, p["W_V"]


def block_slices(D):
    """``{name: (rows, cols)}`` of the blocks named in the paper's parameterization."""
    D = _checks.positive_int("D", D)
    x, y, w, m = slice(0, D), slice(D, D + 1), slice(D + 1, 2 * D + 1), slice(2 * D + 1, 2 * D + 2)
    return {"W_13": (x, w), "W_24": (y, m), "V_31": (w, x), "W_14": (x, m), "W_23": (y, w)}


def block_report(W, V, D):
    """Numbers for the Appendix A claim, from learned ``(W, V)``:

    - ``W_kept``, ``V_kept``: fraction of ``||W||_F^2`` in ``W_13`` and ``W_24``, and of
      ``||V||_F^2`` in ``V_31`` (the blocks the theory keeps);
    - ``c``: the scale of ``W_13`` (``tr W_13 / D``) and ``W_13_offdiag``: ``||W_13 - c I|| /
      ||W_13||`` (0 for an exact multiple of the identity);
    - ``W_24_over_c``: the marker entry relative to ``c`` (the theory has ``-1``);
    - ``A_eff = -c V_31`` (returned as a matrix): the learned counterpart of the theory's ``A``
      when the other blocks vanish.  The update is then
      ``-(1/L) A_eff sum_l x_l (x_l . w_hat - y_l)``, the paper's ``-(D/L) A sum_l ...``
      rewritten for features of variance 1 instead of ``1/D`` (which is what the factor ``D``
      in ``V_31 = -D A`` compensates), so a one-step-optimal layer at large ``L`` has
      ``A_eff ~ I``.  ``A_eff_identity = tr A_eff / D``; ``A_eff_offdiag`` as
      for ``W_13``.
    """
    W = _checks.array("W", W, ndim=2)
    V = _checks.array("V", V, ndim=2)
    if W.shape != (2 * D + 2,) * 2 or V.shape != W.shape:
        raise ValueError(f"W and V must have shape {(2 * D + 2,) * 2}, got {W.shape}, {V.shape}")
    b = block_slices(D)
    W13, V31 = W[b["W_13"]], V[b["V_31"]]
    c = float(np.trace(W13) / D)
    A_eff = -c * V31
    a = float(np.trace(A_eff) / D)
    return {
        "A_eff": A_eff,
        "W_kept": float((np.sum(W13**2) + np.sum(W[b["W_24"]] ** 2)) / np.sum(W**2)),
        "V_kept": float(np.sum(V31**2) / np.sum(V**2)),
        "c": c,
        "W_13_offdiag": float(np.linalg.norm(W13 - c * np.eye(D)) / np.linalg.norm(W13)),
        "W_24_over_c": float(W[b["W_24"]][0, 0] / c),
        "A_eff_identity": a,
        "A_eff_offdiag": float(np.linalg.norm(A_eff - a * np.eye(D)) / np.linalg.norm(A_eff)),
    }


def training_moments(config):
    """Per-task statistics of a configuration's own training tasks (float64), in the units
    of the experiments (features of variance 1): ``w`` ``(M, D)``, ``r = X y / L`` ``(M, D)``
    (the paper's ``v_mu = (D/L) X_mu y_mu`` for features of variance ``1/D``) and ``S = X
    X^T / L`` ``(M, D, D)``."""
    Z, w = layer.example_rows(
        config.M, config.D, config.L, config.sigma2, layer.config_seeds(config)["data"]
    )
    Z = Z.double().numpy()
    X, y = Z[..., : config.D], Z[..., config.D]
    r = np.einsum("mld,ml->md", X, y) / config.L
    S = np.einsum("mld,mle->mde", X, X) / config.L
    return w.double().numpy(), r, S


def one_step_objective(A, w, r, S, lam):
    """The training objective of the simplified layer ``w_hat_1 = w_hat_0 + A (r - S
    w_hat_0)`` averaged exactly over ``w_hat_0 ~ N(0, I)``: ``mean_mu (||w - A r||^2 + ||I - A
    S||_F^2) + (lam/2) ||A||_F^2``."""
    D = w.shape[1]
    fit = np.sum((w - r @ A.T) ** 2, axis=1) + np.sum((np.eye(D) - A @ S) ** 2, axis=(1, 2))
    return float(fit.mean() + lam / 2 * np.sum(A**2))


def optimal_A(config, lam=None):
    """The theory's ``A*`` for a configuration's own training tasks, in two readings:

    - ``"paper"``: the minimiser of the paper's Eq. (loss), prompts with ``w_hat_init = 0``
      (:func:`cotbook.pretrain.ridge_solution`);
    - ``"random_init"``: the minimiser of :func:`one_step_objective`, the objective the
      attention layer is trained on (a fresh Gaussian ``w_hat_0`` per prompt), ``A* = (mean w
      r^T + mean S) (mean r r^T + mean S^2 + (lam/2) I)^{-1}``.

    ``lam`` defaults to the configuration's (the penalty of the trained layer acts on ``W_K,
    W_Q, W_V``, not on ``A``; this is the same number put on ``A``).
    """
    lam = config.lam if lam is None else _checks.nonnegative("lam", lam)
    w, r, S = training_moments(config)
    M, D = w.shape
    B = (w.T @ r + S.sum(0)) / M
    C = (r.T @ r + np.einsum("mij,mjk->ik", S, S)) / M + lam / 2 * np.eye(D)
    return {
        "paper": pretrain.ridge_solution(w, r, lam),
        "random_init": np.linalg.solve(C, B.T).T,
    }


def compare_A(A_eff, A_star):
    """Relative Frobenius distance ``||A_eff - A*|| / ||A*||`` and the ratio of the mean
    diagonals ``tr A_eff / tr A*``."""
    A_eff = _checks.array("A_eff", A_eff, ndim=2)
    A_star = _checks.array("A_star", A_star, ndim=2)
    if A_eff.shape != A_star.shape:
        raise ValueError(f"A_eff and A_star must have one shape, got {A_eff.shape}, {A_star.shape}")
    return {
        "distance": float(np.linalg.norm(A_eff - A_star) / np.linalg.norm(A_star)),
        "trace_ratio": float(np.trace(A_eff) / np.trace(A_star)),
    }
