"""A sum of residue terms over the nodes of a contour, ``S_t = sum_k w_k psi_k^-t`` at every
depth, and its error: what :mod:`cotbook.theory.ridge.pole` (the poles of the mixed sector
along its x-contour) and :mod:`cotbook.theory.ridge._loop_pole` (a pole's share on the loop path)
both sum.
"""

from __future__ import annotations

import numpy as np

from . import _nodes

_U = np.finfo(float).eps / 2


def residue_sum(w, psi, even, rel_w, rel_psi, t):
    """``(top, S, err)``: ``S_t = sum w psi^-t`` scaled by ``exp(-top_t)``, ``top_t`` the log of
    its largest term, and its error (scaled alike): the trapezoidal rule's difference to the
    nodes ``even`` (every second node, whose weights double), rounding, and the data's (``w``
    known to ``rel_w`` and ``psi`` to ``rel_psi``, relative, so each term to
    ``(1 + rel_w)(1 - rel_psi)^-t - 1``); a block of depths at a time."""
    log_w, log_psi = np.log(w), np.log(psi)
    log_rel_w, log_rel_psi = np.log1p(rel_w), np.log1p(-np.minimum(rel_psi, 1.0))
    top, S, err = np.empty(len(t)), np.empty(len(t), complex), np.empty(len(t))
    for s in _nodes.blocks(len(t), len(w)):  # in place: a new block per step cost more
        ts = t[s, None]
        parts = ts * log_psi[None, :]
        np.subtract(log_w[None, :], parts, out=parts)  # the terms' logs
        top[s] = parts.real.max(1)
        parts -= top[s, None]
        data = ts * log_rel_psi[None, :]
        np.subtract(log_rel_w[None, :], data, out=data)
        with np.errstate(over="ignore", divide="ignore"):
            np.exp(parts, out=parts)
            np.expm1(data, out=data)
        S[s] = parts.sum(1)
        moduli = np.abs(parts)
        # the trapezoidal rule's difference and rounding; then the data's
        err[s] = (
            np.abs(S[s] - 2 * parts[:, even].sum(1))
            + (12 * ts[:, 0] + 60) * _U * moduli.sum(1)
        )  # fmt: skip
        data *= moduli
        err[s] += data.sum(1)
    return top, S, err
