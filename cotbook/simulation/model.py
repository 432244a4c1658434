"""The simplified CoT model of the paper, literally: prompts, attention, readout, CoT.

Paper, Section 3 ("Prompt construction", "Architecture", "Simplified parameterization",
"CoT in inference phase") and Appendix B (readout formula).  Tokens live in
``R^{2D+2}`` with the four row blocks (features ``D``, label ``1``, estimate ``D``, marker ``1``).

Everything here is written the way the paper writes it -- full ``(2D+2) x (2D+2)`` matrices and
full prompts -- so that the chapters can check the paper's algebra against it.  Fast code paths
(:mod:`cotbook.pretrain`, :mod:`cotbook.simulate`) use the reduced formulas instead and are tested
against these functions.
"""

from __future__ import annotations

import numpy as np

from .. import _checks

__all__ = [
    "prompt",
    "block_parameters",
    "attention",
    "read",
    "readout",
    "gradient_step",
    "cot_trajectory",
    "error_recursion",
    "literal_error_curve",
]


def _design(X, y):
    X = _checks.array("X", X)
    y = _checks.array("y", y)
    if X.ndim < 2 or y.shape != X.shape[:-2] + X.shape[-1:]:
        raise ValueError(
            f"X must have shape (..., D, L) and y shape (..., L); got {X.shape} and {y.shape}"
        )
    return X, y


def prompt(X, y, estimates):
    """The prompt matrix ``E_mu`` (one estimate) or the CoT prompt ``P_t`` (several estimates).

    Paper, Section 3: ``E = [[X, 0], [y^T, 0], [0, W_hat], [0, 1]]`` where ``W_hat`` holds the
    estimate tokens ``[w_hat_0, ..., w_hat_t]`` as columns and every estimate token carries the
    marker 1.  ``X`` has shape ``(..., D, L)``, ``y`` shape ``(..., L)`` and ``estimates`` shape
    ``(..., D)`` (one token, giving ``E_mu``) or ``(..., D, k)`` (``k = t + 1`` tokens, ``P_t``).
    Returns an array of shape ``(..., 2D+2, L+k)``.
    """
    X, y = _design(X, y)
    est = _checks.array("estimates", estimates)
    D, L = X.shape[-2:]
    if est.shape == X.shape[:-1]:
        est = est[..., None]
    if est.ndim != X.ndim or est.shape[:-1] != X.shape[:-1]:
        raise ValueError(
            f"estimates must have shape (..., D) or (..., D, k) matching X {X.shape}, "
            f"got {est.shape}"
        )
    k = est.shape[-1]
    E = np.zeros(X.shape[:-2] + (2 * D + 2, L + k))
    E[..., :D, :L] = X
    E[..., D, :L] = y
    E[..., D + 1 : 2 * D + 1, L:] = est
    E[..., 2 * D + 1, L:] = 1.0
    return E


def block_parameters(A):
    """The block-parameterised ``(W, V)`` of the paper's "Simplified parameterization".

    ``W`` has ``W_13 = I_D`` and ``W_24 = -1``; ``V`` has ``V_31 = -D A``; every other block is
    zero (blocks of sizes ``D, 1, D, 1``).  Returns ``(W, V)``, each ``(2D+2) x (2D+2)``.
    """
    A = _checks.array("A", A, ndim=2)
    D = A.shape[0]
    if A.shape != (D, D):
        raise ValueError(f"A must be a square (D, D) matrix, got shape {A.shape}")
    n = 2 * D + 2
    W = np.zeros((n, n))
    W[:D, D + 1 : 2 * D + 1] = np.eye(D)
    W[D, 2 * D + 1] = -1.0
    V = np.zeros((n, n))
    V[D + 1 : 2 * D + 1, :D] = -D * A
    return W, V


def attention(E, W, V, L):
    """One residual linear self-attention layer, ``E + (1/L) V E E^T W E`` (paper, Section 3).

    ``E`` has shape ``(..., 2D+2, T)``; ``L`` is the number of in-context examples (the layer
    divides by ``L``, not by the number of tokens ``T``).
    """
    E = _checks.array("E", E)
    W = _checks.array("W", W, ndim=2)
    V = _checks.array("V", V, ndim=2)
    L = _checks.positive_int("L", L)
    n = E.shape[-2] if E.ndim >= 2 else -1
    if E.ndim < 2 or W.shape != (n, n) or V.shape != (n, n):
        raise ValueError(
            f"E must have shape (..., n, T) and W, V shape (n, n); "
            f"got {E.shape}, {W.shape}, {V.shape}"
        )
    return E + (V @ E @ (np.swapaxes(E, -1, -2) @ (W @ E))) / L


def read(E):
    """``Read(E) = E_{(D+2):(2D+1), (L+1)}``: the estimate block of the last token (Section 3)."""
    E = _checks.array("E", E)
    if E.ndim < 2 or E.shape[-2] < 4 or E.shape[-2] % 2:
        raise ValueError(f"E must have shape (..., 2D+2, T) with D >= 1, got {E.shape}")
    D = (E.shape[-2] - 2) // 2
    return E[..., D + 1 : 2 * D + 1, -1].copy()


def _square(name, A, D):
    A = _checks.array(name, A, ndim=2)
    if A.shape != (D, D):
        raise ValueError(f"{name} must have shape ({D}, {D}) to match X, got {A.shape}")
    return A


def readout(A, X, y, w_init):
    """Closed form of ``Read(Atten(E))``: ``w - (D/L) A (X X^T w - X y)`` (paper, Eq. readout)."""
    X, y = _design(X, y)
    D, L = X.shape[-2:]
    A = _square("A", A, D)
    w = _checks.array("w_init", w_init)
    if w.shape != X.shape[:-1]:
        raise ValueError(f"w_init must have shape {X.shape[:-1]}, got {w.shape}")
    resid = np.einsum("...dl,...d->...l", X, w) - y
    return w - (D / L) * np.einsum("ij,...jl,...l->...i", A, X, resid)


def gradient_step(A, X, y, w_init):
    """The preconditioned gradient step ``w - D A grad L_mu(w)`` of Appendix B.

    ``L_mu(w) = |X^T w - y|^2 / (2L)``; its gradient is taken by automatic differentiation
    (PyTorch, float64), independently of the hand-derived readout formula.
    """
    import torch

    X, y = _design(X, y)
    if X.ndim != 2:
        raise ValueError(f"X must be a single (D, L) design, got shape {X.shape}")
    D, L = X.shape
    A = _square("A", A, D)
    w0 = _checks.array("w_init", w_init, ndim=1)
    if w0.shape != (D,):
        raise ValueError(f"w_init must have shape ({D},), got {w0.shape}")
    w = torch.tensor(w0, dtype=torch.float64, requires_grad=True)
    loss = ((torch.from_numpy(X).T @ w - torch.from_numpy(y)) ** 2).sum() / (2 * L)
    (grad,) = torch.autograd.grad(loss, w)
    return w0 - D * A @ grad.numpy()


def cot_trajectory(A, X, y, t_max, w0=None):
    """CoT at inference, literally: ``w_hat_{t+1} = Read(Atten(P_t; theta(A)))`` (Section 3).

    Builds the full prompt ``P_t`` (all ``L`` examples and all ``t+1`` estimates, marker 1 on
    each) at every step and applies the block-parameterised attention layer.  Returns the
    estimates ``w_hat_0, ..., w_hat_{t_max}`` as an array of shape ``(t_max + 1, D)``.
    ``w0`` defaults to the paper's ``w_hat_0 = 0``.
    """
    X, y = _design(X, y)
    if X.ndim != 2:
        raise ValueError(f"X must be a single (D, L) design, got shape {X.shape}")
    D, L = X.shape
    W, V = block_parameters(_square("A", A, D))
    t_max = _checks.nonneg_int("t_max", t_max)
    w0 = np.zeros(D) if w0 is None else _checks.array("w0", w0, ndim=1)
    if w0.shape != (D,):
        raise ValueError(f"w0 must have shape ({D},), got {w0.shape}")
    estimates = [w0]
    for _ in range(t_max):
        P = prompt(X, y, np.stack(estimates, axis=1))
        estimates.append(read(attention(P, W, V, L)))
    return np.stack(estimates)


def error_recursion(A, X, e0, t_max):
    """Iterate the error recursion ``e_{t+1} = (I - A S / alpha) e_t`` (Appendix C.2).

    ``S = X X^T`` and ``alpha = L / D`` from the design's own sizes.  Returns ``e_0, ...,
    e_{t_max}`` with shape ``(t_max + 1, D)``; for the paper's ``w_hat_0 = 0``, ``e_0 = w``.
    """
    X = _checks.array("X", X, ndim=2)
    D, L = X.shape
    A = _square("A", A, D)
    e = _checks.array("e0", e0, ndim=1)
    if e.shape != (D,):
        raise ValueError(f"e0 must have shape ({D},), got {e.shape}")
    t_max = _checks.nonneg_int("t_max", t_max)
    step = np.eye(D) - (D / L) * A @ (X @ X.T)
    out = [e]
    for _ in range(t_max):
        out.append(step @ out[-1])
    return np.stack(out)


def literal_error_curve(A, X, t_max):
    """``E_w |w - w_hat_t|^2 / D`` for one design, by running the literal CoT over a basis.

    For ``w ~ N(0, I_D)`` the average of ``|e_t|^2`` is ``sum_i |e_t(w = e_i)|^2`` (the error is
    linear in ``w``), so running :func:`cot_trajectory` on the ``D`` noiseless tasks ``w = e_i``
    gives the exact average.  Slow -- ``D`` full CoT runs -- and meant as the reference for
    :func:`cotbook.simulation.simulate.design_errors`.  Returns shape ``(t_max + 1,)``.
    """
    X = _checks.array("X", X, ndim=2)
    D = X.shape[0]
    total = np.zeros(_checks.nonneg_int("t_max", t_max) + 1)
    for basis in np.eye(D):
        estimates = cot_trajectory(A, X, X.T @ basis, t_max)
        total += np.sum((basis - estimates) ** 2, axis=1)
    return total / D
