"""The paper authors' released runs read against the paper's stated protocol, the theory and
their own spread.

The authors released the measurements behind their Figure 2 and Appendix A figure
(``taka255/cot_asymptotics`` at ``1ed6569``; parsed by :mod:`cotbook.book.authors.runs`).  This
module holds what the book computes from them, on plain numbers and arrays (it never reads the
record itself): which stated protocol each run departs from, and where (:func:`protocol_of`,
:func:`mismatches`); how far two runs on the same seeds lie apart (:func:`factor_apart`);
which trials of a cell fall into separate groups (:func:`split_trials`); and the smallest
context length at which a heatmap leaves a regime (:func:`first_departure`); and whether one of
their single-seed values lies where one more of the book's trials could fall
(:func:`versus_trials`); and how far the rows of a heatmap that a run leaves out lie from the
rows kept around them (:func:`between_rows`).  How much a
single-seed cell owes to its one test set is :mod:`cotbook.attention.lottery`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import _checks

__all__ = [
    "FIGURE2_STATED",
    "APPENDIX_A_STATED",
    "FIELDS",
    "protocol_of",
    "mismatches",
    "describe",
    "factor_apart",
    "GAP",
    "Split",
    "split_trials",
    "level",
    "first_departure",
    "LEVEL",
    "Versus",
    "versus_trials",
    "CellVersus",
    "cells_versus",
    "Tally",
    "tally",
    "held_out",
    "SecondLook",
    "second_look",
    "RowCheck",
    "between_rows",
]

FIGURE2_STATED = {
    "lam": 1e-5,
    "steps": 3000,
    "batch": 300,
    "mask": "history_cot",
    "trials": 5,
    "eval_tasks": 4096,
    "depth": 20,
    "noise_sd": 0.0,
    "marker": "estimate token",
}
"""The protocol the paper states for Figure 2 (caption: "lambda = 1e-5, sigma^2 = 0", 5
trials, heatmaps at t = 20; appendix "Experimental details": 3000 Adam steps, minibatch 300,
the full-history mask, 4096 test tasks; Section 3's prompt: the marker 1 on estimate tokens
only), in the authors' vocabulary (``"history_cot"`` is the paper's mask, ``"data_only"`` the
examples-only one)."""

APPENDIX_A_STATED = {
    "lam": 1e-3,
    "noise_sd": 0.1,
    "steps": 3000,
    "batch": 300,
    "marker": "estimate token",
}
"""The protocol the paper states for its Appendix A figure: ``lambda = 1e-3, sigma = 0.1``
(caption; ``sigma`` read as the label noise's standard deviation), and the setup of the
appendix "Experimental details", to which Appendix A refers (3000 steps, minibatch 300; the
mask does not enter: training prompts hold one estimate token, which is the query).  No ``D``:
the caption states none (the experimental details' ``D = 50`` is stated for the Section 6
experiments)."""

FIELDS = {
    "lam": "λ",
    "steps": "steps",
    "batch": "batch",
    "mask": "mask",
    "trials": "trials",
    "eval_tasks": "test tasks",
    "depth": "heatmap depth",
    "noise_sd": "label-noise sd",
    "marker": "marker on",
}
"""The protocol fields, and their names in text (:func:`describe`)."""


def protocol_of(config, *, depth=None, noise_sd=0.0, early_marker=False) -> dict:
    """A released run's protocol in the fields of :data:`FIGURE2_STATED`.

    Parameters
    ----------
    config : object
        The run's configuration, with attributes ``lam``, ``data_weight``, ``steps``,
        ``batch``, ``mask``, ``trials``, ``eval_tasks`` (as
        :class:`cotbook.book.authors.RunConfig`).
    depth : int, optional
        The depth its heatmap is drawn at (``None``: not a heatmap; no ``"depth"`` field).
    noise_sd : float
        The standard deviation of its label noise (the released runs have none).
    early_marker : bool
        Whether it puts the marker value 1 on every token, examples included (the authors'
        runs before 2026-04-17), rather than on estimate tokens only.

    Returns
    -------
    dict
        ``lam`` on the unscaled objective (``config.lam / config.data_weight``: the authors'
        ``linear_dynamics`` halves its data term, which doubles its penalty), and the other
        fields as the run has them.

    Examples
    --------
    >>> from types import SimpleNamespace as Run
    >>> run = Run(lam=1e-4, data_weight=0.5, steps=3000, batch=500, mask="data_only",
    ...           trials=5, eval_tasks=2048)
    >>> protocol_of(run)["lam"]
    0.0002
    """
    weight = _checks.positive("config.data_weight", config.data_weight)
    out = {
        "lam": _checks.nonnegative("config.lam", config.lam) / weight,
        "steps": config.steps,
        "batch": config.batch,
        "mask": config.mask,
        "trials": config.trials,
        "eval_tasks": config.eval_tasks,
        "noise_sd": _checks.nonnegative("noise_sd", noise_sd),
        "marker": "every token" if early_marker else "estimate token",
    }
    if not isinstance(early_marker, (bool, np.bool_)):
        raise ValueError(f"early_marker must be a bool, got {early_marker!r}")
    if depth is not None:
        out["depth"] = _checks.nonneg_int("depth", depth)
    return out


def mismatches(run, stated) -> dict:
    """The fields in which a run departs from a stated protocol.

    Parameters
    ----------
    run : dict
        The run's fields (:func:`protocol_of`).
    stated : dict
        The stated protocol (:data:`FIGURE2_STATED`, :data:`APPENDIX_A_STATED`).

    Returns
    -------
    dict
        ``{field: (run's value, stated value)}`` for every field both hold where the values
        differ (numbers by a relative tolerance of 1e-9), in the order of ``stated``; empty
        when the run follows the stated protocol.

    Examples
    --------
    >>> mismatches({"lam": 1e-3, "steps": 3000, "depth": 30}, FIGURE2_STATED)
    {'lam': (0.001, 1e-05), 'depth': (30, 20)}
    """
    if not isinstance(run, dict) or not isinstance(stated, dict):
        raise ValueError("run and stated must be dicts of protocol fields")
    out = {}
    for key, want in stated.items():
        if key not in run:
            continue
        have = run[key]
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (have, want))
        same = math.isclose(have, want, rel_tol=1e-9) if numbers else have == want
        if not same:
            out[key] = (have, want)
    return out


def describe(found) -> str:
    """A :func:`mismatches` dict as text: ``"λ 0.001 (stated 1e-05), ..."``, or
    ``"none"``.

    Examples
    --------
    >>> describe({"lam": (0.001, 1e-05), "eval_tasks": (None, 4096)})
    'λ 0.001 (stated 1e-05), test tasks not recorded (stated 4096)'
    """
    if not isinstance(found, dict):
        raise ValueError(f"found must be a dict from mismatches(), got {found!r}")
    parts = []
    for key, (have, want) in found.items():
        shown = "not recorded" if have is None else f"{have:g}" if _real(have) else str(have)
        stated = f"{want:g}" if _real(want) else str(want)
        parts.append(f"{FIELDS.get(key, key)} {shown} (stated {stated})")
    return ", ".join(parts) if parts else "none"


def _real(value) -> bool:
    return isinstance(value, (int, float, np.floating, np.integer)) and not isinstance(value, bool)


def factor_apart(a, b) -> np.ndarray:
    """``max(a / b, b / a)`` elementwise: by what factor two positive error grids differ (1
    where they agree), e.g. two runs on the same seeds (:mod:`cotbook.book.authors.runs`).

    Examples
    --------
    >>> factor_apart([1.0, 0.5, 4.0], [2.0, 0.5, 1.0])
    array([2., 1., 4.])
    """
    a = _checks.array("a", a)
    b = _checks.array("b", b)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have one shape, got {a.shape} and {b.shape}")
    if np.any(a <= 0) or np.any(b <= 0):
        raise ValueError("a and b must be > 0 everywhere (they are errors)")
    return np.exp(np.abs(np.log(a) - np.log(b)))


GAP = 20.0
"""The trials of a cell split into two groups where their errors, sorted, jump by more than
this factor between neighbours (:func:`split_trials`)."""


class Split(NamedTuple):
    """The trials of one cell, split at their largest gap (:func:`split_trials`)."""

    low: tuple
    """Indices of the trials below the gap (every trial when there is no split)."""
    high: tuple
    """Indices of the trials above it (empty when there is no split)."""
    ratio: float
    """The largest ratio between neighbouring sorted errors."""


def split_trials(errors, gap=GAP) -> Split:
    """Split a cell's trials by their errors at one depth into two groups, when they fall
    apart.

    The errors are sorted and the largest ratio between neighbours found; above ``gap`` the
    trials below it and above it are the two groups (a bimodal cell: trained models that end
    at two distinct levels, as the authors' Figure 2 dynamics hold at ``L = 600, 800``).

    Parameters
    ----------
    errors : array_like
        One error per trial (``> 0``), at least two.
    gap : float
        The factor a split needs, ``> 1`` (default :data:`GAP`).

    Returns
    -------
    Split

    Examples
    --------
    >>> split_trials([0.001, 0.046, 0.049, 0.048, 0.049])
    Split(low=(0,), high=(1, 2, 3, 4), ratio=46.0)
    >>> split_trials([5.7, 16.2, 228.0, 5.4, 8.3]).high   # a factor 14 only
    ()
    """
    errors = _checks.array("errors", errors, ndim=1)
    if errors.size < 2 or np.any(errors <= 0):
        raise ValueError("errors must hold at least two positive errors, one per trial")
    gap = _checks.greater_than("gap", gap, 1.0)
    order = np.argsort(errors, kind="stable")
    jumps = errors[order][1:] / errors[order][:-1]
    k = int(np.argmax(jumps))
    ratio = float(jumps[k])
    if ratio <= gap:
        return Split(tuple(range(errors.size)), (), ratio)
    return Split(
        tuple(sorted(order[: k + 1].tolist())), tuple(sorted(order[k + 1 :].tolist())), ratio
    )


def level(errors, trials):
    """The geometric mean of ``errors`` over the indices ``trials`` (one group of a
    :class:`Split`): the level its trials reach; ``None`` for an empty group.

    Examples
    --------
    >>> level([0.001, 0.04, 0.09], (1, 2)), level([1.0], ())
    (0.06, None)
    """
    errors = _checks.array("errors", errors, ndim=1)
    trials = list(trials)
    if not trials:
        return None
    if any(not 0 <= _checks.nonneg_int("trials", k) < errors.size for k in trials):
        raise ValueError(f"trials must be indices of errors (0 to {errors.size - 1})")
    picked = errors[trials]
    if np.any(picked <= 0):
        raise ValueError("errors must be > 0 at the trials picked")
    return float(np.exp(np.mean(np.log(picked))))


def first_departure(kinds, Ls, regime="overthinking"):
    """The smallest context length ``L`` at which a regime map holds a cell not of
    ``regime``: where, going up in ``L``, the curves first stop being all ``regime``.

    Parameters
    ----------
    kinds : nested list ``[L][M]`` of str
        A regime map (:func:`cotbook.attention.regimes.classify`).
    Ls : sequence of int
        The context lengths of its rows, increasing.
    regime : str
        The regime left.

    Returns
    -------
    tuple or None
        ``(L, cells)``: that ``L`` and how many of its cells are not ``regime``; ``None`` when
        every cell is ``regime``.

    Examples
    --------
    >>> first_departure([["overthinking"] * 2, ["overthinking", "decay"]], [10, 100])
    (100, 1)
    """
    Ls = [_checks.positive_int("Ls", L) for L in Ls]
    if len(kinds) != len(Ls) or any(b <= a for a, b in zip(Ls, Ls[1:], strict=False)):
        raise ValueError("Ls must be increasing, one per row of kinds")
    for L, row in zip(Ls, kinds, strict=True):
        other = sum(kind != regime for kind in row)
        if other:
            return L, other
    return None


LEVEL = 0.95
"""The level of the prediction interval :func:`versus_trials` sets their value against."""


class Versus(NamedTuple):
    """Their single-seed value against the book's trials of the same cell, per depth
    (:func:`versus_trials`)."""

    centre: np.ndarray
    """The geometric mean of the book's trials."""
    low: np.ndarray
    """The lower end of the prediction interval of one more trial."""
    high: np.ndarray
    """Its upper end (``inf`` where a trial overflowed)."""
    inside: np.ndarray
    """Whether their value lies in ``[low, high]``."""
    bimodal: np.ndarray
    """Whether the book's trials split into two groups (:func:`split_trials`)."""


def versus_trials(ours, theirs, level=LEVEL, gap=GAP) -> Versus:
    """Where one more of the book's trials of a cell could fall, and whether their value does.

    ``log E`` of one more trial is predicted from the ``n`` trials' ``log E`` as a draw from
    the same normal law: the interval ``mean +- t_{n-1} s sqrt(1 + 1/n)`` (Student's ``t`` at
    ``level``, ``s`` the trials' standard deviation), the standard prediction interval of one
    new draw. A trial that overflowed (``inf``) makes the interval unbounded above, its lower
    end taken from the finite trials (or 0 when fewer than two are finite).

    Parameters
    ----------
    ours : array_like, shape ``(trials, depths)``
        The book's trials of one cell, ``> 0`` (``inf`` allowed), at least two trials.
    theirs : array_like, shape ``(depths,)``
        Their value at the same depths, ``> 0``.
    level : float
        The interval's level in ``(0, 1)`` (default :data:`LEVEL`).
    gap : float
        The factor above which the trials count as split (:func:`split_trials`).

    Examples
    --------
    >>> v = versus_trials([[1.0, 0.10], [1.2, 0.12], [0.9, 0.09]], [1.1, 0.3])
    >>> v.inside.tolist(), [round(float(x), 2) for x in v.high]
    ([True, False], [2.11, 0.21])
    """
    ours = np.asarray(ours, dtype=float)  # inf allowed: a trial that overflowed
    theirs = _checks.array("theirs", theirs, ndim=1)
    if ours.ndim != 2 or ours.shape[0] < 2 or ours.shape[1] != theirs.size:
        raise ValueError(
            f"ours must be (trials >= 2, depths) with one depth per value of theirs, got "
            f"{ours.shape} and {theirs.shape}"
        )
    if np.any(np.isnan(ours)) or np.any(ours <= 0) or np.any(~(theirs > 0)):
        raise ValueError("ours and theirs must be errors > 0 (ours may be inf)")
    level = _checks.real("level", level, "a number in (0, 1)")
    if not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    from scipy import stats

    depths = ours.shape[1]
    centre, low, high = (np.empty(depths) for _ in range(3))
    bimodal = np.zeros(depths, dtype=bool)
    for k in range(depths):
        col = ours[:, k]
        finite = np.log(col[np.isfinite(col)])
        n = finite.size
        if n >= 2:
            half = stats.t.ppf(0.5 + level / 2, n - 1) * finite.std(ddof=1) * math.sqrt(1 + 1 / n)
            low[k], high[k] = np.exp(finite.mean() - half), np.exp(finite.mean() + half)
            centre[k] = np.exp(finite.mean())
        else:
            low[k] = 0.0 if n == 0 else float(np.exp(finite[0]))
            high[k] = centre[k] = np.inf
        if n < col.size:
            high[k] = centre[k] = np.inf
        bimodal[k] = n == col.size and bool(split_trials(col, gap).high)
    inside = (theirs >= low) & (theirs <= high)
    return Versus(centre, low, high, inside, bimodal)


class CellVersus(NamedTuple):
    """One cell of :func:`cells_versus`."""

    L: int
    M: int
    theirs: np.ndarray
    """Their value at the depths compared."""
    versus: Versus
    """:func:`versus_trials` at those depths."""
    verdict: str
    """At the depths up to ``early``: ``"bimodal"`` (our trials split), ``"inside"`` (their
    value inside the interval at every one) or ``"outside"``."""
    apart: float
    """The largest factor between their value and our trials' geometric mean up to ``early``."""


def cells_versus(cells, ours, theirs, depths, *, early=10, level=LEVEL, gap=GAP) -> list:
    """:func:`versus_trials` for every cell of a study, with a verdict up to depth ``early``.

    Parameters
    ----------
    cells : sequence of ``(L, M)``
    ours : array_like, shape ``(cells, trials, t)``
        The book's trials of each cell, over every saved depth.
    theirs : array_like, shape ``(cells, t)``
        Their single run of each cell, over the same depths.
    depths : sequence of int
        The depths compared; at least one ``<= early``.
    level, gap : float
        As in :func:`versus_trials`.

    Examples
    --------
    >>> ours = [[[2.0, 1.0, 0.5], [2.0, 1.1, 0.6], [2.0, 0.9, 0.45]]]
    >>> (cell,) = cells_versus([(10, 20)], ours, [[2.0, 1.05, 2.0]], [1, 2], early=1)
    >>> cell.verdict, round(cell.apart, 3), cell.versus.inside.tolist()
    ('inside', 1.054, [True, False])
    """
    ours = np.asarray(ours, dtype=float)
    theirs = _checks.array("theirs", theirs, ndim=2)
    depths = [_checks.nonneg_int("depths", t) for t in depths]
    early = _checks.nonneg_int("early", early)
    if ours.ndim != 3 or len(cells) != ours.shape[0] or theirs.shape[0] != ours.shape[0]:
        raise ValueError("cells, ours (cells, trials, t) and theirs (cells, t) must match")
    at = [i for i, t in enumerate(depths) if t <= early]
    if not at or max(depths) >= min(ours.shape[2], theirs.shape[1]):
        raise ValueError(f"depths must include one <= early = {early} and lie on the curves")
    out = []
    for (L, M), mine, single in zip(cells, ours, theirs, strict=True):
        v = versus_trials(mine[:, depths], single[depths], level, gap)
        verdict = (
            "bimodal" if v.bimodal[at].any() else "inside" if v.inside[at].all() else "outside"
        )
        apart = float(factor_apart(single[depths][at], v.centre[at]).max())
        out.append(CellVersus(int(L), int(M), single[depths], v, verdict, apart))
    return out


class Tally(NamedTuple):
    """How many cells of :func:`cells_versus` hold their value inside the interval."""

    inside: int
    compared: int
    """Cells not bimodal."""
    bimodal: int


def tally(cells) -> Tally:
    """Count the verdicts of :func:`cells_versus`' cells (bimodal cells are not compared).

    Examples
    --------
    >>> ours = [[[2.0, 1.0], [2.0, 1.1], [2.0, 0.9]]] * 2
    >>> tally(cells_versus([(1, 2), (1, 3)], ours, [[2.0, 1.0], [2.0, 3.0]], [1]))
    Tally(inside=1, compared=2, bimodal=0)
    """
    kinds = [getattr(c, "verdict", None) for c in cells]
    if any(k not in ("inside", "outside", "bimodal") for k in kinds):
        raise ValueError("cells must be the CellVersus of cells_versus")
    compared = [k for k in kinds if k != "bimodal"]
    return Tally(compared.count("inside"), len(compared), kinds.count("bimodal"))


def held_out(ours, depths, *, early=10, level=LEVEL) -> Tally:
    """The rule of :func:`cells_versus` applied to the book's own trials: each trial of each
    cell held out in turn and set, as if it were their value, against the interval of the
    cell's other trials at the ``depths`` up to ``early``.  Two identical implementations
    would put their value outside as often as this puts a trial outside: the count of
    outside verdicts to expect under no difference.

    Parameters
    ----------
    ours : array_like, shape ``(cells, trials, t)``
        The book's trials of each cell (at least three), over every saved depth.
    depths : sequence of int
        The depths compared; at least one ``<= early``.

    Returns
    -------
    Tally
        Over every (cell, held-out trial): ``inside``, ``compared`` and ``bimodal`` (the
        other trials split).

    Examples
    --------
    >>> ours = [[[1.0, 0.50], [1.0, 0.55], [1.0, 0.45], [1.0, 2.0]]]
    >>> held_out(ours, [1], early=1)
    Tally(inside=3, compared=4, bimodal=0)
    """
    ours = np.asarray(ours, dtype=float)
    if ours.ndim != 3 or ours.shape[1] < 3:
        raise ValueError(f"ours must be (cells, trials >= 3, t), got shape {ours.shape}")
    found = []
    for k in range(ours.shape[1]):
        rest = np.delete(ours, k, axis=1)
        found += cells_versus(
            [(0, 0)] * len(ours), rest, ours[:, k], depths, early=early, level=level
        )
    return tally(found)


class SecondLook(NamedTuple):
    """A cell judged again by fresh trials (:func:`second_look`)."""

    fresh: CellVersus
    """Their value against the new trials alone."""
    pooled: CellVersus
    """Against the first and the new trials together."""
    first_inside: int
    """How many first trials lie inside the new trials' interval at every depth ``<= early``."""
    nearest: float
    """The factor between their value and the nearest of all trials at depth ``at``."""


def second_look(cells, first, new, theirs, depths, *, early=10, at=10, level=LEVEL) -> list:
    """Cells whose value fell outside the ``first`` trials, judged again by ``new`` ones.

    The first trials chose the cells, so only new draws test them: :func:`cells_versus`
    against the new trials alone and against all of them; as a check of the interval, each
    first trial against the new trials' interval; and how close their value comes to one of
    the trials (a cell whose trials stop at two levels).

    Parameters
    ----------
    cells : sequence of ``(L, M)``
    first, new : array_like, shape ``(cells, trials, t)``
        The first and the new trials of each cell, over every saved depth.
    theirs : array_like, shape ``(cells, t)``
        Their single run of each cell.
    depths : sequence of int
        The depths compared; at least one ``<= early``.
    early, at : int
        The verdicts' deepest depth, and the depth of ``nearest``.

    Returns
    -------
    list of SecondLook

    Examples
    --------
    >>> first = [[[1.0, 1.0], [1.0, 1.01], [1.0, 0.99]]]
    >>> new = [[[1.0, 1.0], [1.0, 2.0], [1.0, 1.02], [1.0, 1.96]]]
    >>> (look,) = second_look([(1, 2)], first, new, [[1.0, 1.95]], [1], early=1, at=1)
    >>> look.fresh.verdict, look.pooled.verdict, look.first_inside, round(look.nearest, 3)
    ('inside', 'inside', 3, 1.005)
    """
    first, new = np.asarray(first, dtype=float), np.asarray(new, dtype=float)
    theirs = _checks.array("theirs", theirs, ndim=2)
    if first.ndim != 3 or new.shape[::2] != first.shape[::2]:
        raise ValueError("first and new must be (cells, trials, t) with the same cells and t")
    both = np.concatenate([first, new], axis=1)
    fresh, pooled = (
        cells_versus(cells, trials, theirs, depths, early=early, level=level)
        for trials in (new, both)
    )
    shallow = [k for k, t in enumerate(depths) if t <= early]
    out = []
    for f, p, old, fresh_trials, all_trials, single in zip(
        fresh, pooled, first, new, both, theirs, strict=True
    ):
        inside = sum(
            bool(versus_trials(fresh_trials[:, depths], o[depths], level).inside[shallow].all())
            for o in old
        )
        nearest = float(factor_apart(all_trials[:, at], np.full(len(all_trials), single[at])).min())
        out.append(SecondLook(f, p, inside, nearest))
    return out


class RowCheck(NamedTuple):
    """How the left-out rows of a heatmap lie against the kept rows around them
    (:func:`between_rows`)."""

    inside: int
    """Cells of left-out rows inside the range of their two kept neighbours at every depth."""
    cells: int
    """Cells of left-out rows compared."""
    worst: float
    """The largest factor by which a left-out value lies outside that range (1: none does)."""


def between_rows(M, E, kept, depths) -> RowCheck:
    """Whether leaving out rows of a heatmap loses anything its kept rows do not bracket.

    ``E[i, j, t]`` is the heatmap at ``M[i]`` (rows, increasing), column ``j`` and depth ``t``;
    ``kept`` the rows a run keeps (including the first and the last ``M``).  Each left-out row
    is compared, cell by cell at ``depths``, with the range spanned by the kept rows just below
    and just above it: a value inside the range at every depth is *inside*; otherwise the
    factor by which it lies outside counts towards ``worst``.

    Examples
    --------
    >>> E = np.array([[[1.0]], [[3.0]], [[2.0]]])  # rows M = 1, 2, 3; one column, one depth
    >>> between_rows([1, 2, 3], E, kept=[1, 3], depths=[0])
    RowCheck(inside=0, cells=1, worst=1.5)
    """
    M = [int(m) for m in _checks.array("M", M, ndim=1)]
    E = _checks.array("E", E, ndim=3)
    if E.shape[0] != len(M) or sorted(M) != M:
        raise ValueError(f"M must be increasing and index E's first axis, got {M}")
    kept = sorted(int(m) for m in kept)
    if not set(kept) <= set(M) or kept[0] != M[0] or kept[-1] != M[-1]:
        raise ValueError(f"kept must be rows of M including {M[0]} and {M[-1]}, got {kept}")
    depths = list(depths)
    inside = cells = 0
    worst = 1.0
    for i, m in enumerate(M):
        if m in kept:
            continue
        lo = M.index(max(k for k in kept if k < m))
        hi = M.index(min(k for k in kept if k > m))
        a, b, v = E[lo][:, depths], E[hi][:, depths], E[i][:, depths]
        factor = np.maximum.reduce([np.minimum(a, b) / v, v / np.maximum(a, b), np.ones_like(v)])
        factor = factor.max(axis=1)  # per column, over the depths
        inside += int(np.sum(factor == 1.0))
        cells += factor.size
        worst = max(worst, float(factor.max()))
    return RowCheck(inside, cells, worst)
