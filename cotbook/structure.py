"""What fully learned linear attention learns: the paper's Appendix A figure, measured.

The simplified model keeps, in the blocks ``(D, 1, D, 1)`` of the ``(2D+2) x (2D+2)``
matrices, only ``W_13 = I``, ``W_24 = -1`` and ``V_31 = -D A`` (paper, Section 3,
"Simplified parameterization"; :func:`cotbook.model.block_parameters`).  Here ``W`` is the
score matrix ``W_K^T W_Q`` of a trained model (or its merged ``W``) and ``V = W_V``.
"""

from __future__ import annotations

import numpy as np

from . import _checks, attention

__all__ = ["APPENDIX_A", "trained_matrices", "block_slices", "block_report"]

# The Appendix A figure's settings: lambda = 1e-3, "sigma = 0.1" (read as a standard deviation,
# sigma2 = 0.01), M = L = 20 and M = L = 200; the rest as in Figure 2.
APPENDIX_A = dict(model="linear", lam=1e-3, sigma2=0.01)


def trained_matrices(config):
    """Train one configuration; return ``(W, V)`` as float64 numpy arrays, ``W = W_K^T W_Q``
    (or the merged ``W``) and ``V = W_V``."""
    params, _ = attention.train([config])
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
    - ``A_eff = -c V_31``: the learned counterpart of the theory's ``A`` when the other blocks
      vanish.  The update is then ``-(1/L) A_eff sum_l x_l (x_l . w_hat - y_l)``, the paper's
      ``-(D/L) A sum_l ...`` rewritten for features of variance 1 instead of ``1/D`` (which is
      what the factor ``D`` in ``V_31 = -D A`` compensates), so a one-step-optimal layer at
      large ``L`` has ``A_eff ~ I``.  ``A_eff_identity = tr A_eff / D``; ``A_eff_offdiag`` as
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
        "W_kept": float((np.sum(W13**2) + np.sum(W[b["W_24"]] ** 2)) / np.sum(W**2)),
        "V_kept": float(np.sum(V31**2) / np.sum(V**2)),
        "c": c,
        "W_13_offdiag": float(np.linalg.norm(W13 - c * np.eye(D)) / np.linalg.norm(W13)),
        "W_24_over_c": float(W[b["W_24"]][0, 0] / c),
        "A_eff_identity": a,
        "A_eff_offdiag": float(np.linalg.norm(A_eff - a * np.eye(D)) / np.linalg.norm(A_eff)),
    }
