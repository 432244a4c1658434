"""The fused CPU kernel (numba) of :mod:`cotbook.attention`'s training.

:func:`train_fit` computes the training objective's data term and its gradients in one pass
per query: forward through the layer, residual against the task vector, and back again while
the task's example data -- read in place from the pool of stored tasks, no gathered copy --
are still in cache.  Queries run in parallel.

Dot products over rows run four rows at a time (independent accumulators: a single
accumulator chain left the FMA units idle, 2x slower).  Data and arithmetic are float32 in
training (float64 when the tests check gradients).  :func:`cotbook.attention.step` computes
the same layer in torch (tested); it is used on a GPU and for evaluation.
"""

from __future__ import annotations

import contextlib

import numba
import numpy as np
import torch
from numba import njit, prange

# Below this many queries a call is too short to share between threads: a parallel region
# then costs more than it saves, and on a busy machine it waits for descheduled workers.  One
# configuration's batch (300 queries) is above it: measured on 2 cores, L = M = 100, steps of
# 2.7-3.4 ms (softmax) and 1.9-2.5 ms (linear) in parallel against 3.1-4.4 and 2.1-2.9 serial.
PARALLEL_ROWS = 256

__all__ = ["train_fit", "cot_errors"]


@contextlib.contextmanager
def _threads(rows):
    """numba's threads for a call over ``rows`` queries inside: every core from
    :data:`PARALLEL_ROWS` up, else one.  numba's OpenMP layer sets the process's OpenMP thread
    count with its own and torch reads that count, so torch's count is put back after: a
    caller that keeps torch on one thread (a serial unit,
    :func:`cotbook._threads.one_thread_unit`) rounds as a one-thread worker does."""
    torch_threads = torch.get_num_threads()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS if rows >= PARALLEL_ROWS else 1)
    try:
        yield
    finally:
        torch.set_num_threads(torch_threads)


@njit(fastmath=True, cache=True)
def _rows_dot(Z, v, rows, out):
    """``out[k] = Z[k] . v`` for ``k < rows``."""
    n = v.shape[0]
    k = 0
    while k + 4 <= rows:
        a0 = a1 = a2 = a3 = v.dtype.type(0)
        for j in range(n):
            vj = v[j]
            a0 += Z[k, j] * vj
            a1 += Z[k + 1, j] * vj
            a2 += Z[k + 2, j] * vj
            a3 += Z[k + 3, j] * vj
        out[k], out[k + 1], out[k + 2], out[k + 3] = a0, a1, a2, a3
        k += 4
    while k < rows:
        a0 = v.dtype.type(0)
        for j in range(n):
            a0 += Z[k, j] * v[j]
        out[k] = a0
        k += 1


@njit(fastmath=True, cache=True)
def _rows_combine(Z, a, rows, out):
    """``out = sum_{k < rows} a[k] Z[k]``."""
    n = out.shape[0]
    for j in range(n):
        out[j] = 0
    for k in range(rows):
        ak = a[k]
        for j in range(n):
            out[j] += ak * Z[k, j]


@njit(fastmath=True, cache=True)
def _softmax_rows(Z, u, scale, rows, a, c):
    """Softmax weights ``a`` over ``scale * Z[k] . u`` (``k < rows``), ``c = sum a_k Z[k]``;
    returns the log-normaliser."""
    _rows_dot(Z, u, rows, a)
    top = -np.inf
    for k in range(rows):
        a[k] *= scale
        top = max(top, a[k])
    for k in range(rows):  # apart from the sum, as in _cot_errors
        a[k] = np.exp(a[k] - top)
    total = u.dtype.type(0)
    for k in range(rows):
        total += a[k]
    for k in range(rows):
        a[k] /= total
    _rows_combine(Z, a, rows, c)
    return top + np.log(total)


@njit(parallel=True, fastmath=True, cache=True)
def _train_fit(pool, idx, softmax, u, V, est, w, per, scale, inv_L, r, c, gu):
    """Per query ``b`` (configuration ``b // per``): pooled examples ``c`` (softmax mean, or
    ``S u / L``), residual ``r = est + V c - w``, and ``gu``: the gradient of ``sum_b ||r_b||^2
    / per`` with respect to ``u_b``."""
    N, n = u.shape
    L, D = pool.shape[1], est.shape[1]
    two = u.dtype.type(2.0 / per)
    for b in prange(N):
        X = pool[idx[b]]
        Vg = V[b // per]
        a = np.empty(L, dtype=u.dtype)
        if softmax:
            _softmax_rows(X, u[b], scale, L, a, c[b])
        else:
            _rows_dot(X, u[b], n, c[b])
            for j in range(n):
                c[b, j] *= inv_L
        _rows_dot(Vg, c[b], D, r[b])
        for i in range(D):
            r[b, i] += est[b, i] - w[b, i]
        gc = np.empty(n, dtype=u.dtype)
        _rows_combine(Vg, r[b], D, gc)  # V^T r
        for j in range(n):
            gc[j] *= two
        if softmax:  # d c / d u: scale * sum_k a_k (Z_k . gc - c . gc) Z_k
            cg = u.dtype.type(0)
            for j in range(n):
                cg += c[b, j] * gc[j]
            q = np.empty(L, dtype=u.dtype)
            _rows_dot(X, gc, L, q)
            for k in range(L):
                q[k] = scale * a[k] * (q[k] - cg)
            _rows_combine(X, q, L, gu[b])
        else:  # S symmetric
            _rows_dot(X, gc, n, gu[b])
            for j in range(n):
                gu[b, j] *= inv_L


class _TrainFit(torch.autograd.Function):
    @staticmethod
    def forward(ctx, u, V, est, w, pool, idx, softmax, scale, L):
        G, B, n = u.shape
        flat = [t.detach().reshape(-1, t.shape[-1]).contiguous().numpy() for t in (u, est, w)]
        r, c, gu = np.empty_like(flat[1]), np.empty_like(flat[0]), np.empty_like(flat[0])
        Vn = V.detach().contiguous().numpy()
        f = flat[0].dtype.type
        with _threads(G * B):
            _train_fit(
                pool, idx, softmax, flat[0], Vn, flat[1], flat[2], B, f(scale), f(1 / L), r, c, gu
            )
        r, c, gu = (torch.from_numpy(x).view(G, B, -1) for x in (r, c, gu))
        ctx.save_for_backward(r, c, gu)
        return (r**2).sum(-1).mean(-1)

    @staticmethod
    def backward(ctx, grad):
        r, c, gu = ctx.saved_tensors
        g = grad[:, None, None]
        gV = (2.0 / r.shape[1]) * g * (r.transpose(1, 2) @ c)
        return g * gu, gV, None, None, None, None, None, None, None


def train_fit(pool, idx, model, u, V, est, w, scale, L):
    """Data term of the training objective, ``mean_b ||w_hat_1 - w||^2`` per configuration
    (shape ``(G,)``), differentiable in ``u`` and ``V``.

    ``u``: score vectors on the examples block, ``(G, B, D+1)``; ``V``: the rows of ``W_V``
    that write the estimate block, over the example columns, ``(G, D, D+1)``; ``est``, ``w``:
    first estimates and task vectors ``(G, B, D)``; ``pool``/``idx``: second moments ``S``
    (``"linear"``, the update is ``V S u / L``) or example rows ``Z`` (``"softmax"``, the
    update is ``V`` times the softmax mean of the rows under logits ``scale * Z u``), ``idx``
    naming each of the ``G * B`` queries' task.  Same value and gradients as
    :func:`cotbook.attention.step` followed by the squared error (tested), in one read of each
    task's data.
    """
    return _TrainFit.apply(u, V, est, w, pool, idx, model == "softmax", scale, L)


@njit(parallel=True, fastmath=True, cache=True)
def _cot_errors(pool, softmax, history, K, V, est0, w, scale, inv_L, err):
    """Per task ``b`` (in parallel) and configuration ``g``: the CoT trajectory for ``t = 0 ..
    T`` (``T + 1 = err.shape[2]``) and its error ``||w_hat_t - w||^2 / D`` into ``err[g, b,
    t]``.  ``K[g]``: rows of ``W_K^T W_Q`` over the query's estimate-and-marker columns, so
    ``u = K[g] [w_hat; 1]``; ``V[g]``: the estimate-block rows of ``W_V``."""
    G, n, T1 = err.shape
    R, n1 = pool.shape[1], pool.shape[2]
    D = n1 - 1
    T = T1 - 1
    nu = 2 * n1 if history else n1  # score entries in use: examples (and earlier estimates)
    for b in prange(n):
        X = pool[b]
        e = np.empty(n1)
        u = np.empty(2 * n1)
        c = np.zeros(2 * n1)
        out = np.empty(D)
        a = np.empty(R + T)
        hist = np.empty((max(T, 1), n1))
        for g in range(G):
            Kg, Vg = K[g], V[g]
            for i in range(D):
                e[i] = est0[b, i]
            e[D] = 1.0
            for t in range(T1):
                s = 0.0
                for i in range(D):
                    d = e[i] - w[b, i]
                    s += d * d
                err[g, b, t] = s / D
                if t == T:
                    break
                _rows_dot(Kg, e, nu, u)
                k = t if history else 0  # earlier estimate tokens visible to the query
                if softmax:  # one softmax over the examples and the visible estimates
                    _rows_dot(X, u[:n1], R, a)
                    _rows_dot(hist, u[n1:], k, a[R:])
                    top = -np.inf
                    for m in range(R + k):
                        a[m] *= scale
                        top = max(top, a[m])
                    # exp and sum in two loops: fused, LLVM vectorized them when it compiled
                    # the kernel in this process but not in the copy numba caches, and the two
                    # rounded differently -- the first run after a change then did not
                    # reproduce the next, last bit of some CoT errors.
                    for m in range(R + k):
                        a[m] = np.exp(a[m] - top)
                    total = 0.0
                    for m in range(R + k):
                        total += a[m]
                    for m in range(R + k):
                        a[m] /= total
                    _rows_combine(X, a, R, c[:n1])
                    _rows_combine(hist, a[R:], k, c[n1:])
                else:
                    _rows_dot(X, u[:n1], n1, c[:n1])
                    _rows_dot(hist, u[n1:], k, a)
                    _rows_combine(hist, a, k, c[n1:])
                    for j in range(nu):
                        c[j] *= inv_L
                _rows_dot(Vg, c[:nu], D, out)
                for j in range(n1):
                    hist[t, j] = e[j]
                for i in range(D):
                    e[i] += out[i]


def cot_errors(pool, model, history, K, V, est0, w, scale, L, t_max):
    """Per-task test errors of stacked trained layers iterated as chain of thought, float64:
    ``err[g, b, t] = ||w_hat_t - w_b||^2 / D`` for configuration ``g``, task ``b`` and ``t =
    0..t_max``.

    ``pool``: the tasks' second moments ``S`` (``"linear"``) or example rows ``Z``
    (``"softmax"``); ``history``: whether the query also attends to the earlier estimates (the
    paper's mask) or to the examples only; ``K``: ``(G, 2D+2, D+1)``, the columns of ``W_K^T
    W_Q`` that act on the query's estimate block and marker; ``V``: ``(G, D, 2D+2)``, the rows
    of ``W_V`` that write the estimate block; ``est0``, ``w``: ``(n, D)`` first estimates and
    task vectors.  Each trajectory runs in cache from start to end; the torch form
    :func:`cotbook.attention.step` computes the same layer (tested).
    """
    n = w.shape[0]
    err = np.empty((K.shape[0], n, t_max + 1))
    with _threads(n):
        _cot_errors(pool, model == "softmax", history, K, V, est0, w, scale, 1.0 / L, err)
    return err
