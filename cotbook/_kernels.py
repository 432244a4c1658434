"""Fused CPU kernels (numba) for the two heavy operations of :mod:`cotbook.attention`.

Both read each task's example data once per call, straight from the pool of stored tasks (no
gathered copy), in parallel over the batch:

- :func:`second_moment_apply`: ``out_b = S_{idx_b} v_b`` for linear attention (``S`` symmetric,
  so the same kernel gives the backward pass);
- :func:`gram_apply`: ``Z^T Z v`` over the first rows of each ``Z`` (earlier estimate tokens,
  at evaluation);
- :func:`softmax_pool`: ``c_b = sum_l a_bl Z_{idx_b, l}`` with ``a_b = softmax(scale Z_{idx_b}
  u_b)`` over the examples, and its log-normaliser; the backward pass is one more read of
  ``Z`` because ``sum_l a_l (Z_l . g) = c . g``.

Data are float32; accumulation is in the dtype of the vectors (float32 in training, float64 in
evaluation).  The torch forms in :func:`cotbook.attention.step` compute the same quantities
(tested) and are used on a GPU.
"""

from __future__ import annotations

import numba
import numpy as np
import torch
from numba import njit, prange

# Below this many rows a call is too short to share between threads: a parallel region then
# costs more than it saves, and on a busy machine it waits for descheduled workers.
PARALLEL_ROWS = 2048


def _threads(rows):
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS if rows >= PARALLEL_ROWS else 1)


__all__ = ["second_moment_apply", "softmax_pool", "gram_apply"]


@njit(parallel=True, fastmath=True, cache=True)
def _matvec(pool, idx, v, out):
    B, n = v.shape
    zero = v.dtype.type(0)
    for b in prange(B):
        S = pool[idx[b]]
        for i in range(n):
            acc = zero
            for j in range(n):
                acc += S[i, j] * v[b, j]
            out[b, i] = acc


@njit(parallel=True, fastmath=True, cache=True)
def _softmax_forward(pool, idx, u, scale, L, c, lse):
    B, n = u.shape
    zero = u.dtype.type(0)
    for b in prange(B):
        Z = pool[idx[b]]
        logits = np.empty(L, dtype=u.dtype)
        top = -np.inf
        for k in range(L):
            acc = zero
            for j in range(n):
                acc += Z[k, j] * u[b, j]
            logits[k] = scale * acc
            top = max(top, logits[k])
        total = zero
        for j in range(n):
            c[b, j] = 0.0
        for k in range(L):
            a = np.exp(logits[k] - top)
            total += a
            for j in range(n):
                c[b, j] += a * Z[k, j]
        for j in range(n):
            c[b, j] /= total
        lse[b] = top + np.log(total)


@njit(parallel=True, fastmath=True, cache=True)
def _softmax_backward(pool, idx, u, scale, L, c, lse, gc, glse, gu):
    B, n = u.shape
    zero = u.dtype.type(0)
    for b in prange(B):
        Z = pool[idx[b]]
        cg = zero
        for j in range(n):
            cg += c[b, j] * gc[b, j]
            gu[b, j] = glse[b] * c[b, j]
        for k in range(L):
            p = zero
            q = zero
            for j in range(n):
                p += Z[k, j] * u[b, j]
                q += Z[k, j] * gc[b, j]
            w = np.exp(scale * p - lse[b]) * (q - cg)
            for j in range(n):
                gu[b, j] += w * Z[k, j]
        for j in range(n):
            gu[b, j] *= scale


@njit(parallel=True, fastmath=True, cache=True)
def _gram(pool, idx, v, rows, out):
    B, n = v.shape
    zero = v.dtype.type(0)
    for b in prange(B):
        Z = pool[idx[b]]
        for j in range(n):
            out[b, j] = zero
        for k in range(rows):
            p = zero
            for j in range(n):
                p += Z[k, j] * v[b, j]
            for j in range(n):
                out[b, j] += p * Z[k, j]


def _flat(v):
    return v.detach().reshape(-1, v.shape[-1]).contiguous().numpy()


class _SecondMoment(torch.autograd.Function):
    @staticmethod
    def forward(ctx, v, pool, idx):
        ctx.pool, ctx.idx = pool, idx
        out = np.empty_like(_flat(v))
        _threads(out.shape[0])
        _matvec(pool, idx, _flat(v), out)
        return torch.from_numpy(out).view(v.shape)

    @staticmethod
    def backward(ctx, grad):
        out = np.empty_like(_flat(grad))
        _threads(out.shape[0])
        _matvec(ctx.pool, ctx.idx, _flat(grad), out)
        return torch.from_numpy(out).view(grad.shape), None, None


class _SoftmaxPool(torch.autograd.Function):
    @staticmethod
    def forward(ctx, u, pool, idx, scale, rows):
        flat = _flat(u)
        c = np.empty_like(flat)
        lse = np.empty(flat.shape[0], dtype=flat.dtype)
        _threads(flat.shape[0])
        _softmax_forward(pool, idx, flat, flat.dtype.type(scale), rows, c, lse)
        ctx.pool, ctx.idx, ctx.scale, ctx.saved = pool, idx, scale, (flat, c, lse)
        ctx.rows = rows
        ctx.shape = u.shape
        return torch.from_numpy(c).view(u.shape), torch.from_numpy(lse).view(u.shape[:-1])

    @staticmethod
    def backward(ctx, gc, glse):
        flat, c, lse = ctx.saved
        gu = np.empty_like(flat)
        gc = np.zeros_like(flat) if gc is None else _flat(gc)
        glse = np.zeros_like(lse) if glse is None else glse.reshape(-1).contiguous().numpy()
        scale = flat.dtype.type(ctx.scale)
        _threads(flat.shape[0])
        _softmax_backward(ctx.pool, ctx.idx, flat, scale, ctx.rows, c, lse, gc, glse, gu)
        return torch.from_numpy(gu).view(ctx.shape), None, None, None, None


def second_moment_apply(pool, idx, v):
    """``S_{idx_b} v_b`` for every row ``b`` of ``v`` (shape ``(..., n)``, ``idx`` of shape
    ``(...)`` flattened), differentiable in ``v``; ``pool``: float32 array ``(M, n, n)`` of
    symmetric matrices."""
    return _SecondMoment.apply(v, pool, idx)


def softmax_pool(pool, idx, u, scale, rows=None):
    """``(c, lse)``: softmax-weighted mean of the rows of ``Z_{idx_b}`` under logits ``scale
    Z_{idx_b} u_b``, and the log of the softmax normaliser; differentiable in ``u``.
    ``pool``: array ``(M, L, n)``; only the first ``rows`` rows of each ``Z`` are used (default
    all ``L``)."""
    return _SoftmaxPool.apply(u, pool, idx, scale, pool.shape[1] if rows is None else rows)


@torch.no_grad()
def gram_apply(pool, idx, v, rows):
    """``sum_{k < rows} Z_{idx_b, k} (Z_{idx_b, k} . v_b)`` for every row ``b`` of ``v``, i.e.
    ``Z^T Z v`` over the first ``rows`` rows (linear attention over earlier estimate tokens;
    evaluation only, not differentiable)."""
    flat = _flat(v)
    out = np.empty_like(flat)
    _threads(flat.shape[0])
    _gram(pool, idx, flat, rows, out)
    return torch.from_numpy(out).view(v.shape)
