"""Reading the Figure 2 runs: regimes of measured curves, the paper's statements measured on
the grid, and the simplified model at the experiments' own D as a reference.

Everything here analyses a saved (or freshly run) study of :mod:`cotbook.attention.grid`: its
spec (:class:`~cotbook.attention.grid.GridSpec`) and its JSON-ready data.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _checks
from ..simulation import simulate
from ..theory import phases
from . import layer

__all__ = [
    "theory_regime",
    "STATISTICS",
    "curves",
    "regime_map",
    "unstable_share",
    "regime_agreement",
    "regime_counts",
    "finite_d_regime_map",
    "MeanSem",
    "mean_sem",
    "regime_of_curve",
    "representatives",
    "Claim",
    "claims",
    "sensitivity_table",
]


def theory_regime(L, M, D):
    """The simplified model's regime (Result 2, sigma2 = 0) at ``alpha = L/D``, ``tau = M/D``,
    named as Figure 2's line styles: "decay" (exponential or critical), "overthinking",
    "saturation"; ``None`` where ``tau <= 1`` (the ridgeless theory needs ``M > D``)."""
    if M <= D:
        return None
    name = phases.regime(L / D, M / D, 0.0)
    return "decay" if name in ("exponential", "critical") else name


STATISTICS = {"mean": "E", "median": "E_median"}
"""Per-configuration curves a saved run holds: the mean over its test tasks (the paper's MSE)
and the median over them (the typical task); key in the result's data."""


def curves(data, model, mask="history", statistic="mean"):
    """The grid's per-trial curves ``[L][M][trial][t]`` of one model, mask and ``statistic``
    (:data:`STATISTICS`) as an array."""
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {sorted(STATISTICS)}, got {statistic!r}")
    return np.asarray(data[STATISTICS[statistic]][model][mask], dtype=float)


def regime_map(spec, data, model, mask="history", *, statistic="mean", horizon=None):
    """``(measured, theory)``: for every ``(L, M)`` of the grid, :func:`regime_of_curve` of the
    trial-mean curve of ``statistic`` (:func:`curves`) up to depth ``horizon`` (default: all
    saved depths) and :func:`theory_regime`, as nested lists ``[L][M]``."""
    mean, _ = mean_sem(curves(data, model, mask, statistic))
    if horizon is not None:
        horizon = _checks.positive_int("horizon", horizon)
        if horizon < 2 or horizon >= mean.shape[-1]:
            raise ValueError(f"horizon must be in [2, {mean.shape[-1] - 1}], got {horizon}")
        mean = mean[..., : horizon + 1]
    measured = [[regime_of_curve(curve) for curve in row] for row in mean]
    theory = [[theory_regime(L, M, spec.settings["D"]) for M in spec.Ms] for L in spec.Ls]
    return measured, theory


def unstable_share(data, model, mask="history"):
    """Trial mean of the share of test tasks whose error at the last saved depth exceeds their
    error at ``t = 0``, as an array ``[L][M]``."""
    return np.mean(np.asarray(data["unstable"][model][mask], dtype=float), axis=-1)


def regime_agreement(measured, theory):
    """``(same, compared)``: cells of two nested ``[L][M]`` regime maps that agree, among those
    where ``theory`` has a regime (not ``None``)."""
    pairs = [
        (m, t)
        for rm, rt in zip(measured, theory, strict=True)
        for m, t in zip(rm, rt, strict=True)
        if t is not None
    ]
    return sum(m == t for m, t in pairs), len(pairs)


def regime_counts(measured):
    """``{regime: number of cells}`` of a nested ``[L][M]`` regime map."""
    return {
        k: sum(row.count(k) for row in measured) for k in ("decay", "overthinking", "saturation")
    }


def finite_d_regime_map(spec, *, trials=5, test_designs=8, seed=0, statistic="mean"):
    """The simplified model (paper, Section 3: only ``A`` learned, by ridge) simulated at the
    experiments' own ``D`` (:func:`cotbook.simulation.simulated_curve`, ``alpha = L/D``,
    ``tau = M/D``, the grid's ``lam`` and ``sigma2``, ``t_max``) and classified by
    :func:`regime_of_curve` like the trained layers: nested lists ``[L][M]``.

    ``statistic``: ``"mean"`` over the ``trials`` pretraining sets (each averaged over
    ``test_designs`` designs), as the trained layers' curves are averaged, or ``"median"`` over
    them (the typical pretraining set).  Result 2 is a ``D -> infinity`` statement; this is what
    the same model does at ``D = 50``, where ``M <= D`` is allowed (``lam > 0``)."""
    trials = _checks.positive_int("trials", trials)
    if statistic not in ("mean", "median"):
        raise ValueError(f"statistic must be 'mean' or 'median', got {statistic!r}")
    D, lam, sigma2 = (spec.settings[k] for k in ("D", "lam", "sigma2"))

    def curve(L, M):
        per_trial = simulate.simulated_curve(
            L / D,
            M / D,
            sigma2,
            spec.t_max,
            D=D,
            lam=lam,
            trials=trials,
            test_designs=test_designs,
            seed=seed,
        ).per_trial
        return np.mean(per_trial, axis=0) if statistic == "mean" else np.median(per_trial, axis=0)

    return [[regime_of_curve(curve(L, M)) for M in spec.Ms] for L in spec.Ls]


class MeanSem(NamedTuple):
    """Mean over trials and its standard error."""

    mean: np.ndarray
    sem: np.ndarray


def mean_sem(E) -> MeanSem:
    """Mean and standard error over the trial axis (the second to last) of ``E``."""
    E = np.asarray(E, dtype=float)
    trials = E.shape[-2]
    sem = E.std(axis=-2, ddof=1) / np.sqrt(trials) if trials > 1 else np.zeros_like(E[..., 0, :])
    return MeanSem(E.mean(axis=-2), sem)


def regime_of_curve(curve, *, rise=1.1, decay=0.5):
    """Classify a measured ``E_t`` curve (t = 0..T) the way Figure 2's line styles do.

    - ``"overthinking"``: the error at ``T`` exceeds its minimum by more than ``rise`` times;
    - ``"decay"``: otherwise, if ``E_T < decay * E_{T//2}`` (still falling markedly);
    - ``"saturation"``: otherwise (a plateau at long depth).
    """
    curve = np.asarray(curve, dtype=float)
    if curve.ndim != 1 or curve.size < 3 or not np.all(np.isfinite(curve)):
        raise ValueError("curve must be a finite 1-d array of at least 3 errors")
    if curve[-1] > rise * curve.min():
        return "overthinking"
    if curve[-1] < decay * curve[curve.size // 2]:
        return "decay"
    return "saturation"


def representatives(spec, data, model, mask="history", statistic="mean"):
    """``{regime: (i, j)}``: for each regime measured on ``statistic``, the grid cell showing it
    at the largest ``M`` (then the middle ``L``) -- the curves drawn in Figure 2B/2D."""
    measured, _ = regime_map(spec, data, model, mask, statistic=statistic)
    cells = {}
    for regime in ("decay", "overthinking", "saturation"):
        found = [
            (j, -abs(i - len(measured) // 2), i)
            for i, row in enumerate(measured)
            for j, kind in enumerate(row)
            if kind == regime
        ]
        if found:
            j, _, i = max(found)
            cells[regime] = (i, j)
    return cells


class Claim(NamedTuple):
    """One statement of the paper about Figure 2, measured."""

    statement: str
    measured: str
    """What the grid shows, in words and numbers."""
    holds: bool
    """Whether the measurement supports the statement (criteria in :func:`claims`)."""


def claims(spec, data, model, mask="history", t=20, statistic="mean"):
    """The paper's statements about Figure 2, each measured on the grid of ``model`` with the
    trial means of ``statistic`` (:func:`curves`).

    Returns a list of :class:`Claim`; ``holds`` is computed from the measurement (criteria in
    the chapter).
    """
    Ls, Ms = list(spec.Ls), list(spec.Ms)
    mean, _ = mean_sem(curves(data, model, mask, statistic))
    measured, _ = regime_map(spec, data, model, mask, statistic=statistic)
    kinds = np.array(measured)
    half = len(Ms) // 2
    low = float(np.mean(kinds[:, :half] == "overthinking"))
    high = float(np.mean(kinds[:, half:] == "overthinking"))
    top = list(kinds[:, -1])
    present = sorted(set(kinds.ravel()))
    decay_L = [L for L, k in zip(Ls, top, strict=True) if k == "decay"]
    sat_L = [L for L, k in zip(Ls, top, strict=True) if k == "saturation"]
    E_top = {L: float(mean[i, -1, t]) for i, L in enumerate(Ls) if top[i] == "decay"}
    faster = len(E_top) >= 2 and all(
        E_top[a] >= E_top[b] for a, b in zip(decay_L, decay_L[1:], strict=False)
    )
    depths = [
        [int(np.argmin(mean[i, j])) for j in range(len(Ms)) if kinds[i, j] == "overthinking"]
        for i in range(len(Ls))
    ]
    longer = [d for d in depths if len(d) >= 2]
    grows = bool(longer) and all(np.all(np.diff(d) >= 0) for d in longer)
    worse = [
        (Ls[i], Ms[j], Ls[k], Ms[m])
        for i, j in zip(*np.nonzero(kinds == "overthinking"), strict=True)
        for k, m in zip(*np.nonzero(kinds == "saturation"), strict=True)
        if Ls[k] < Ls[i] and mean[i, j, -1] > mean[k, m, -1]
    ]
    return [
        Claim(
            "all three regimes appear",
            ", ".join(present),
            {"decay", "overthinking", "saturation"} <= set(present),
        ),
        Claim(
            "small M: overthinking more prominent",
            f"overthinking share {low:.0%} (smaller M half) vs {high:.0%} (larger M half)",
            low > high,
        ),
        Claim(
            "large M: saturation or decay depending on L",
            f"at M = {Ms[-1]}: saturation at L = {sat_L}, decay at L = {decay_L}",
            bool(sat_L) and bool(decay_L) and max(sat_L) < min(decay_L),
        ),
        Claim(
            "more examples L: faster decay",
            f"E_{t} at M = {Ms[-1]} over decaying L: "
            + ", ".join(f"{L}: {v:.2g}" for L, v in E_top.items()),
            faster,
        ),
        Claim(
            "more tasks M: longer useful CoT (t* grows with M)",
            f"t* along M for overthinking rows: {longer}",
            grows,
        ),
        Claim(
            "overthinking can end worse than saturation with fewer examples",
            f"{len(worse)} (overthinking, saturation at smaller L) pairs with larger E_T",
            bool(worse),
        ),
    ]


def sensitivity_table(spec, data, model, t=20):
    """Rows ``[variant, (L, M), E_t history, E_t examples, regimes]`` for one model: the
    trial-mean error (mean over test tasks) at depth ``t`` under both masks, and the regime of
    each trial-mean curve, written ``mean history / mean examples / median history / median
    examples`` with D decay, O overthinking, S saturation."""
    rows = []
    for name in data["E"]:
        for k, point in enumerate(spec.points):
            means = {
                (statistic, mask): np.mean(
                    np.asarray(data[key][name][model][mask][k], dtype=float), axis=0
                )
                for statistic, key in STATISTICS.items()
                for mask in layer.MASKS
            }
            kinds = [regime_of_curve(curve)[0].upper() for curve in means.values()]
            rows.append(
                [
                    name,
                    f"({point[0]}, {point[1]})",
                    float(means["mean", "history"][t]),
                    float(means["mean", "examples"][t]),
                    " / ".join(kinds),
                ]
            )
    headers = ["variant", "(L, M)", f"E_{t} history", f"E_{t} examples", "regimes"]
    return headers, rows
