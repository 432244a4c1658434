"""The test prompt averaged exactly: ``E_S tr[(I - A S/alpha)^t (I - S A^T/alpha)^t] / D`` as a
polynomial in the traces of words in ``A`` and ``A^T``, at every ``D`` (paper, Eq.
generalization trace, for a fixed pretrained matrix ``A``).

The test design ``X`` is ``D x L`` with i.i.d. ``N(0, 1/D)`` entries and ``S = X X^T``; the test
task is averaged exactly (the trace).  Expanding the two powers binomially leaves the traces of
``(A S)^p (S A^T)^q``, each a Gaussian moment of the entries of ``X``: Wick's theorem sums it over
the pairings of its ``2 (p + q)`` ``X`` letters.  A pairing joins the letters' row indices
(``D`` values each) and column indices (``L`` values each); every column class gives a factor
``L``, every row class that no ``A`` touches a factor ``D``, each pair ``1/D``, and the ``A``
letters close into cycles, each the trace of a word in ``A`` and ``A^T`` (read backwards, an
``A`` is an ``A^T``).  So, exactly,

    E_S tr[...] / D = sum_k  P_k(alpha, 1/D)  prod_{w in k} phi(w),    phi(w) = tr(w) / D,

with ``P_k`` polynomials whose coefficients are integers over powers of ``alpha`` (``L = alpha
D``).  At ``t = 1`` it is ``1 - 2 phi(A) + (1 + 1/alpha + 1/L) phi(A A^T)``.

A word is a string of ``"A"`` and ``"T"`` (for ``A^T``), read left to right, in a canonical form
(the least of its rotations and of its transposed reversal's rotations: the trace is the same).
The pairings number ``(2n - 1)!!`` for ``n = p + q``, so the expansion is tabulated up to
:data:`T_MAX` (``t = 3``: about 13 000 pairings, under a second; ``t = 4`` would need two
million).

It is ground, not theory: the simulations average their test prompts with it
(:mod:`cotbook.simulation.corrections`) and the theory reads its ``1/D`` terms.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from math import comb

import numpy as np

from . import _checks

__all__ = ["T_MAX", "canonical", "prompt_average", "evaluate", "word_traces", "averaged_errors"]

T_MAX = 3
"""Deepest ``t`` of :func:`prompt_average` (the pairings grow as ``(4t - 1)!!``)."""


def canonical(word) -> str:
    """The canonical form of a word in ``"A"`` and ``"T"``: the least string among its rotations
    and those of its transposed reversal (``tr(w) = tr(w^T)`` and the trace is cyclic)."""
    word = str(word)
    if set(word) - {"A", "T"}:
        raise ValueError(f"word must be a string of 'A' and 'T', got {word!r}")
    back = "".join("A" if c == "T" else "T" for c in reversed(word))
    return min(w[i:] + w[:i] for w in (word, back) for i in range(max(1, len(w))))


def _pairings(items):
    if not items:
        yield ()
        return
    first, rest = items[0], items[1:]
    for i, other in enumerate(rest):
        for tail in _pairings(rest[:i] + rest[i + 1 :]):
            yield ((first, other), *tail)


def _root(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _wick(letters):
    """``{(d, n_L, words): count}`` for ``E tr(letters)`` (unnormalised): each pairing adds its
    ``count`` times ``D^d L^n_L prod tr(w)``.  ``letters`` is a string over ``A``, ``T``, ``X``
    and ``Y`` (``Y = X^T``); index ``k`` sits before letter ``k`` (cyclically)."""
    n = len(letters)
    xs = [k for k, c in enumerate(letters) if c in "XY"]
    cells = [k for k, c in enumerate(letters) if c in "AT"]

    def rows_cols(k):  # (row index, column index) of X letter k
        return (k, (k + 1) % n) if letters[k] == "X" else ((k + 1) % n, k)

    out = {}
    for pairing in _pairings(xs):
        parent = list(range(n))
        find = functools.partial(_root, parent)
        for p, q in pairing:
            for i, j in zip(rows_cols(p), rows_cols(q), strict=True):
                parent[find(i)] = find(j)
        columns = {find(rows_cols(k)[1]) for k in xs}
        ends = {}  # index class -> the A letters touching it, with the side (0 left, 1 right)
        for k in cells:
            ends.setdefault(find(k), []).append((k, 0))
            ends.setdefault(find((k + 1) % n), []).append((k, 1))
        free_rows = {find(i) for i in range(n)} - columns - set(ends)
        words, used = [], set()
        for start in cells:
            if start in used:
                continue
            word, k, side = [], start, 0
            while True:  # walk the cycle through the A letters; entering at the right, read A^T
                used.add(k)
                word.append(letters[k] if side == 0 else "AT"[letters[k] == "A"])
                exit_end = (k, 1 - side)
                node = find((k + 1) % n) if side == 0 else find(k)
                (k, side), *extra = [e for e in ends[node] if e != exit_end]
                if extra:
                    raise AssertionError("an index class joins more than two A letters")
                if k == start:
                    break
            words.append(canonical("".join(word)))
        key = (len(free_rows) - len(pairing), len(columns), tuple(sorted(words)))
        out[key] = out.get(key, 0) + 1
    return out


@functools.cache
def prompt_average(t) -> dict:
    """The exact test-prompt average at depth ``t`` (module docstring): ``{words: {(i, j):
    coefficient}}``, meaning ``sum coefficient * alpha^i * D^-j * prod phi(w)`` over the
    entries, ``words`` a sorted tuple of canonical words (``()`` is the constant term).

    ``0 <= t <= T_MAX``.  Paper, Eq. generalization trace, averaged over ``X``.

    Examples
    --------
    >>> avg = prompt_average(1)
    >>> sorted(avg)
    [(), ('A',), ('AT',)]
    >>> sorted((k, str(v)) for k, v in avg[('AT',)].items())
    [((-1, 0), '1'), ((-1, 1), '1'), ((0, 0), '1')]
    """
    t = _checks.nonneg_int("t", t)
    if t > T_MAX:
        raise ValueError(f"t must be an integer in [0, {T_MAX}] (T_MAX), got {t}")
    out = {}
    for p in range(t + 1):
        for q in range(t + 1):
            sign = comb(t, p) * comb(t, q) * (-1) ** (p + q)
            if p + q == 0:
                out.setdefault((), {})[(0, 0)] = Fraction(sign)
                continue
            for (d, n_l, words), count in _wick("AXY" * p + "XYT" * q).items():
                # D^d L^n_L prod tr(w) / D with tr = D phi and L = alpha D, over alpha^(p+q)
                key = (n_l - p - q, -(d + n_l + len(words) - 1))
                if key[1] < 0:
                    raise AssertionError("a pairing grew with D")
                terms = out.setdefault(words, {})
                terms[key] = terms.get(key, 0) + Fraction(sign * count)
    return {w: {k: v for k, v in c.items() if v} for w, c in out.items()}


def evaluate(average, alpha, D, phi) -> float:
    """``average`` (:func:`prompt_average`'s) at ``alpha`` and ``D`` with the word traces
    ``phi`` (``{word: tr(w)/D}``; numbers, or exact ``Fraction`` for an exact value)."""
    total = 0
    for words, coefficients in average.items():
        weight = sum(c * alpha**i / D**j for (i, j), c in coefficients.items())
        for w in words:
            weight = weight * phi[w]
        total = total + weight
    return total


def word_traces(A, words) -> dict:
    """``{w: tr(w)/D}`` for ``A`` (``D x D``) and each word, products shared between words (a
    word of length ``n`` costs about ``n/2`` products of ``D x D`` matrices)."""
    A = _checks.array("A", A, ndim=2)
    D = A.shape[0]
    if A.shape != (D, D):
        raise ValueError(f"A must be square, got shape {A.shape}")
    letters = {"A": A, "T": A.T}
    cache = dict(letters)

    def product(s):
        if s not in cache:
            cache[s] = product(s[:-1]) @ letters[s[-1]]
        return cache[s]

    out = {}
    for w in words:
        if len(w) == 1:  # tr A = tr A^T
            out[w] = float(np.trace(A)) / D
            continue
        half = (len(w) + 1) // 2
        out[w] = float(np.einsum("ij,ji->", product(w[:half]), product(w[half:]))) / D
    return out


def averaged_errors(A, L, t_max) -> np.ndarray:
    """``E_t`` for ``t = 0..t_max`` of the pretrained matrix ``A`` (``D x D``) with test prompts
    of ``L`` examples, averaged exactly over the test design and task (:func:`prompt_average`
    at ``alpha = L/D``; ``t_max <= T_MAX``)."""
    A = _checks.array("A", A, ndim=2)
    L = _checks.positive_int("L", L)
    t_max = _checks.nonneg_int("t_max", t_max)
    if t_max > T_MAX:
        raise ValueError(f"t_max must be an integer in [0, {T_MAX}] (T_MAX), got {t_max}")
    D = A.shape[0]
    averages = [prompt_average(t) for t in range(t_max + 1)]
    words = sorted({w for avg in averages for key in avg for w in key}, key=lambda w: (len(w), w))
    phi = word_traces(A, words)
    return np.array([evaluate(avg, L / D, D, phi) for avg in averages])
