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
from ..theory import closed_form, phases
from . import layer

__all__ = [
    "RISE",
    "FLOOR",
    "Rule",
    "RULE",
    "STRAIGHT",
    "RISES",
    "FLOORS",
    "HORIZONS",
    "rule_variants",
    "theory_regime",
    "STATISTICS",
    "curves",
    "regime_map",
    "unstable_share",
    "regime_agreement",
    "regime_counts",
    "classify",
    "finite_d_regime_map",
    "MeanSem",
    "grid_statistics",
    "agreement",
    "late_decades",
    "mean_sem",
    "regime_of_curve",
    "representatives",
    "Claim",
    "claims",
    "STATEMENT_LABELS",
    "best_depths",
    "sensitivity_table",
    "Robustness",
    "rule_sensitivity",
    "robust_verdict",
    "robust_summary",
    "count_ranges",
    "softmax_regime",
    "softmax_summary",
]

RISE = 1.1
"""Overthinking threshold: a curve overthinks if its error at the horizon exceeds the curve's
minimum by more than this factor -- it has turned up past an optimal depth (Section 5.1)."""

FLOOR = 0.1
"""Decay threshold: a curve that does not overthink decays if its error at the horizon is below
this fraction of ``E_0`` -- it tends to zero (the exponential regime of Result 2), rather than
levelling off at a floor comparable to ``E_0`` (the saturation regime, Section 5.3)."""


class Rule(NamedTuple):
    """The classification rule of a measured error curve (:func:`regime_of_curve`)."""

    rise: float = RISE
    """Overthinking threshold (a number ``>= 1``); the curve overthinks if
    ``E_T > rise * min_t E_t``."""
    floor: float = FLOOR
    """Decay threshold (a number in ``(0, 1)``); the curve decays if ``E_T < floor * E_0``."""
    horizon: int | None = None
    """The depth ``T`` the curve is read up to (``None`` for every saved depth)."""


RULE = Rule()
"""The book's rule, :data:`RISE` and :data:`FLOOR` over the whole saved curve (``t <= 40`` on the
Figure 2 grid)."""

RISES = (1.05, 1.1, 1.5, 2.0)
"""Overthinking thresholds of the sensitivity study (:func:`rule_sensitivity`)."""
FLOORS = (0.025, 0.05, 0.1, 0.2)
"""Decay thresholds (fractions of ``E_0``) of the sensitivity study."""
STRAIGHT = 0.5
"""How close to the theory's exponential a decaying curve must stay (the paper's "this decay is
close to the exponential behavior predicted by the theory", Section 6): over the second half
of the horizon it loses at least this fraction of the decades that the theory's own curve at
the same ``(alpha, tau)`` loses there (Result 1, ``sigma2 = 0``: ``E_t ~ K t^{-1/2}
Lambda^t``).  A curve that stops at a floor loses almost none; the reference is the theory's
curve, not a straight line, because near ``alpha = 1`` and ``tau_c`` the theory's own decay is
slow and bends (its ``t^{-1/2}`` and a rate close to 1)."""

HORIZONS = (20, 30, 40)
"""Depth horizons of the sensitivity study: the paper's heatmap depth, the public code's last
depth (about 30) and the deepest saved depth."""


def _rule(rule) -> Rule:
    """``rule`` validated: a :class:`Rule` with ``rise >= 1``, ``0 < floor < 1`` and an integer
    ``horizon >= 2`` or ``None``."""
    if not isinstance(rule, Rule):
        raise ValueError(f"rule must be a regimes.Rule, got {rule!r}")
    rise = _checks.real("rule.rise", rule.rise, "a finite number >= 1")
    if rise < 1:
        raise ValueError(f"rule.rise must be a finite number >= 1, got {rule.rise!r}")
    floor = _checks.real("rule.floor", rule.floor, "a finite number in (0, 1)")
    if not 0 < floor < 1:
        raise ValueError(f"rule.floor must be a finite number in (0, 1), got {rule.floor!r}")
    horizon = rule.horizon
    if horizon is not None:
        horizon = _checks.positive_int("rule.horizon", horizon)
        if horizon < 2:
            raise ValueError(f"rule.horizon must be an integer >= 2 or None, got {horizon}")
    return Rule(rise, floor, horizon)


def rule_variants(rises=RISES, floors=FLOORS, horizons=HORIZONS) -> list[Rule]:
    """Every :class:`Rule` of the sensitivity study: each ``rise`` with each ``floor`` and each
    ``horizon`` (default: :data:`RISES` x :data:`FLOORS` x :data:`HORIZONS`, 48 rules).

    Examples
    --------
    >>> rules = rule_variants()
    >>> len(rules), rules[0]
    (48, Rule(rise=1.05, floor=0.025, horizon=20))
    """
    rules = [
        _rule(Rule(rise, floor, horizon))
        for rise in rises
        for floor in floors
        for horizon in horizons
    ]
    if not rules:
        raise ValueError("rises, floors and horizons must each hold at least one value")
    return rules


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


def regime_map(spec, data, model, mask="history", *, statistic="mean", rule=RULE):
    """``(measured, theory)``: for every ``(L, M)`` of the grid, :func:`regime_of_curve` of the
    trial-mean curve of ``statistic`` (:func:`curves`) under ``rule`` (:class:`Rule`) and
    :func:`theory_regime`, as nested lists ``[L][M]``."""
    mean, _ = mean_sem(curves(data, model, mask, statistic))
    measured = classify(mean, rule)
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


def agreement(measured, theory) -> str:
    """:func:`regime_agreement` as the chapters print it, ``"same/compared"``.

    Examples
    --------
    >>> agreement([["decay", "saturation"]], [["decay", None]])
    '1/1'
    """
    return "{}/{}".format(*regime_agreement(measured, theory))


def classify(curves, rule=None):
    """:func:`regime_of_curve` under ``rule`` (default :data:`RULE`) of every curve of a nested
    ``[L][M][t]`` list or array: nested lists ``[L][M]`` (e.g. the simplified model's curves
    of :mod:`cotbook.attention.instability`)."""
    rule = RULE if rule is None else rule
    return [
        [regime_of_curve(np.asarray(curve, dtype=float), rule) for curve in row] for row in curves
    ]


def regime_counts(measured):
    """``{regime: number of cells}`` of a nested ``[L][M]`` regime map."""
    return {
        k: sum(row.count(k) for row in measured) for k in ("decay", "overthinking", "saturation")
    }


def finite_d_regime_map(spec, *, trials=5, test_designs=8, seed=0, statistic="mean", rule=RULE):
    """The simplified model (paper, Section 3: only ``A`` learned, by ridge) simulated at the
    experiments' own ``D`` (:func:`cotbook.simulation.simulated_curve`, ``alpha = L/D``,
    ``tau = M/D``, the grid's ``lam`` and ``sigma2``, ``t_max``) and classified by
    :func:`regime_of_curve` under ``rule`` like the trained layers: nested lists ``[L][M]``.

    ``statistic``: ``"mean"`` over the ``trials`` pretraining sets (each averaged over
    ``test_designs`` designs), as the trained layers' curves are averaged, or ``"median"`` over
    them (the typical pretraining set).  Result 2 is a ``D -> infinity`` statement; this is what
    the same model does at ``D = 50``, where ``M <= D`` is allowed (``lam > 0``)."""
    trials = _checks.positive_int("trials", trials)
    _rule(rule)
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

    rule = _rule(rule)
    return [[regime_of_curve(curve(L, M), rule) for M in spec.Ms] for L in spec.Ls]


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


def grid_statistics(data) -> dict:
    """``{(statistic, model, mask): MeanSem}``: the trial mean and its standard error of every
    curve of a Figure 2 grid's data, ``[L][M][t]`` each (:data:`STATISTICS`, the models and
    masks of :mod:`cotbook.attention.layer`)."""
    return {
        (s, m, k): mean_sem(curves(data, m, k, s))
        for s in STATISTICS
        for m in layer.MODELS
        for k in layer.MASKS
    }


def regime_of_curve(curve, rule=RULE):
    """Classify a measured ``E_t`` curve (t = 0..T, ``T`` the ``rule``'s horizon, default the
    last saved depth) by the meaning of the paper's regimes (Section 5: Result 2's decay and
    saturation, Result 3's overthinking), as Figure 2's line styles do.

    - ``"overthinking"``: ``E_T > rule.rise * min_{t <= T} E_t`` (it turned up after a best
      depth);
    - ``"decay"``: otherwise, if ``E_T < rule.floor * E_0`` (it tends to zero);
    - ``"saturation"``: otherwise (it levels off at a floor comparable to ``E_0``).

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(41)
    >>> regime_of_curve(2 * 0.8**t), regime_of_curve(0.5 + 1.5 * 0.8**t)
    ('decay', 'saturation')
    >>> regime_of_curve(2 * 0.8**t + 1e-3 * 1.2**t)
    'overthinking'
    """
    rule = _rule(rule)
    curve = np.asarray(curve, dtype=float)
    if curve.ndim != 1 or curve.size < 3 or not np.all(np.isfinite(curve)):
        raise ValueError("curve must be a finite 1-d array of at least 3 errors")
    if rule.horizon is not None:
        if rule.horizon >= curve.size:
            raise ValueError(
                f"rule.horizon must be in [2, {curve.size - 1}] for this curve, got {rule.horizon}"
            )
        curve = curve[: rule.horizon + 1]
    if curve[-1] > rule.rise * curve.min():
        return "overthinking"
    if curve[-1] < rule.floor * curve[0]:
        return "decay"
    return "saturation"


def representatives(spec, data, model, mask="history", statistic="mean", rule=RULE):
    """``{regime: (i, j)}``: for each regime measured on ``statistic`` under ``rule``, the grid
    cell showing it at the largest ``M`` (then the middle ``L``) -- the curves drawn in Figure
    2B/2D."""
    measured, _ = regime_map(spec, data, model, mask, statistic=statistic, rule=rule)
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
    """What the grid shows, in a few words and numbers (Markdown, with math)."""
    holds: bool
    """Whether the measurement supports the statement (criteria in :func:`claims`)."""


def claims(spec, data, model, mask="history", t=20, statistic="mean", rule=RULE):
    """The paper's statements about Figure 2 (Section 6), each measured on the grid of
    ``model`` with the trial means of ``statistic`` (:func:`curves`), regimes by ``rule``.

    Criteria (``T`` the rule's horizon): all three regimes among the cells; overthinking cells
    more frequent in the smaller half of the ``M`` values than in the larger; at the largest
    ``M``, saturation at every ``L`` below every decaying ``L`` (both present); ``E_t``
    non-increasing in ``L`` along the decaying cells at the largest ``M`` (at least two); the
    best depth ``t* = argmin_{t <= T} E_t`` non-decreasing in ``M`` along each ``L`` with at
    least two overthinking cells; at least one overthinking cell ending (``t = T``) above a
    saturating cell with fewer examples; every decaying cell at the largest ``M`` (where the
    theory decays) still falling at the end of the horizon as the theory's curve does
    (:data:`STRAIGHT`).

    Returns a list of :class:`Claim`, the headline ("all three regimes appear") first.
    """
    t = _checks.nonneg_int("t", t)
    mean, measured = _read(spec, data, model, mask, statistic, rule)
    if t >= mean.shape[-1]:  # within the horizon: the statements read the cut curves
        raise ValueError(f"t must be in [0, {mean.shape[-1] - 1}], got {t}")
    late = _late_decades(spec, mean, measured)
    return _claims(list(spec.Ls), list(spec.Ms), mean, np.array(measured), t, late)


def _read(spec, data, model, mask, statistic, rule):
    """The trial-mean curves of ``statistic`` cut at ``rule``'s horizon, and the regimes of the
    grid under ``rule``: what :func:`claims`, :func:`late_decades` and :func:`best_depths`
    read."""
    rule = _rule(rule)
    mean, _ = mean_sem(curves(data, model, mask, statistic))
    measured, _ = regime_map(spec, data, model, mask, statistic=statistic, rule=rule)
    if rule.horizon is not None:
        mean = mean[..., : rule.horizon + 1]
    return mean, measured


def _late_decades(spec, mean, measured) -> dict:
    """``{L: (trained, theory)}`` over the decaying cells at the largest ``M`` where the
    theory's curve falls: the decades each curve loses over the second half of the horizon
    (``mean`` cut at it)."""
    D, M, T = spec.settings["D"], spec.Ms[-1], mean.shape[-1] - 1
    out = {}
    for i, L in enumerate(spec.Ls):
        if measured[i][-1] != "decay" or M <= D:
            continue
        curve = closed_form.ridgeless_curve(L / D, M / D, 0.0, T)
        reference = float(np.log10(curve[T // 2] / curve[T]))
        if reference > 0:
            out[L] = (float(np.log10(mean[i, -1, T // 2] / mean[i, -1, T])), reference)
    return out


def late_decades(spec, data, model, mask="history", *, statistic="mean", rule=RULE) -> dict:
    """What the statement "decay close to exponential" of :func:`claims` reads: ``{L:
    (trained, theory)}``, the decades the trial-mean curve of ``statistic`` and the theory's
    curve (Result 1, ``sigma2 = 0``, same ``alpha``, ``tau``) lose over the second half of the
    horizon, at each decaying cell of the largest ``M`` where the theory falls.  The statement
    holds if every ``trained >= STRAIGHT * theory``; the ratios show how far each cell is from
    that threshold."""
    return _late_decades(spec, *_read(spec, data, model, mask, statistic, rule))


def _best_depths(mean, kinds):
    """``t* = argmin_t mean[i, j, t]`` at every overthinking cell of ``kinds``, NaN elsewhere."""
    depths = np.argmin(mean, axis=-1).astype(float)
    depths[kinds != "overthinking"] = np.nan
    return depths


def best_depths(spec, data, model, mask="history", *, statistic="mean", rule=RULE):
    """The best depth ``t* = argmin_{t <= T} E_t`` (Result 3's optimal depth, measured) of the
    trial-mean curve of ``statistic`` at every overthinking cell of the grid under ``rule``
    (``T`` its horizon), NaN at the other cells: an array ``[L][M]``, what the statement "more
    tasks M: longer useful CoT" of :func:`claims` reads along each ``L``."""
    mean, measured = _read(spec, data, model, mask, statistic, rule)
    return _best_depths(mean, np.array(measured))


STATEMENT_LABELS = {
    "all three regimes appear": "three regimes",
    "small M: overthinking more prominent": "small $M$ overthinks",
    "large M: saturation or decay depending on L": "large $M$ splits by $L$",
    "more examples L: faster decay": "more $L$, faster decay",
    "more tasks M: longer useful CoT (t* grows with M)": "more $M$, later $t^*$",
    "overthinking can end worse than saturation with fewer examples": "overthinking ends worse",
    "decay close to exponential": "decay stays exponential",
}
"""Short labels (Markdown, with math) of the statements of :func:`claims`, for narrow tables."""


def _listed(name, values):
    return f"{name} at $L = {', '.join(map(str, values))}$" if values else f"{name} at no $L$"


def _claims(Ls, Ms, mean, kinds, t, late):
    """:func:`claims` from the trial-mean curves ``mean[L][M][t]`` (cut at the horizon), the
    regimes ``kinds[L][M]`` and ``late`` (:func:`_late_decades`)."""
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
    depths = _best_depths(mean, kinds)
    longer = [row[np.isfinite(row)] for row in depths if np.isfinite(row).sum() >= 2]
    rising = sum(bool(np.all(np.diff(d) >= 0)) for d in longer)
    grows = bool(longer) and rising == len(longer)
    worse = [
        (Ls[i], Ms[j], Ls[k], Ms[m])
        for i, j in zip(*np.nonzero(kinds == "overthinking"), strict=True)
        for k, m in zip(*np.nonzero(kinds == "saturation"), strict=True)
        if Ls[k] < Ls[i] and mean[i, j, -1] > mean[k, m, -1]
    ]
    floored = [L for L, (trained, ref) in late.items() if trained < STRAIGHT * ref]
    E_text = (
        rf"$\mathcal{{E}}_{{{t}}} = "
        + ", ".join(f"{v:.2g}" for v in E_top.values())
        + f"$ at $L = {', '.join(map(str, E_top))}$"
        if E_top
        else "no decaying $L$"
    )
    return [
        Claim(
            "all three regimes appear",
            ", ".join(present),
            {"decay", "overthinking", "saturation"} <= set(present),
        ),
        Claim(
            "small M: overthinking more prominent",
            f"overthinking in {low:.0%} of the cells at smaller $M$, {high:.0%} at larger",
            low > high,
        ),
        Claim(
            "large M: saturation or decay depending on L",
            f"{_listed('saturation', sat_L)}; {_listed('decay', decay_L)}",
            bool(sat_L) and bool(decay_L) and max(sat_L) < min(decay_L),
        ),
        Claim("more examples L: faster decay", E_text, faster),
        Claim(
            "more tasks M: longer useful CoT (t* grows with M)",
            f"$t^*$ non-decreasing in $M$ at {rising} of {len(longer)} $L$",
            grows,
        ),
        Claim(
            "overthinking can end worse than saturation with fewer examples",
            f"{len(worse)} pair{'' if len(worse) == 1 else 's'} of cells",
            bool(worse),
        ),
        Claim(
            "decay close to exponential",
            f"{_listed('still falling', [L for L in late if L not in floored])}; "
            f"{_listed('a floor', floored)}",
            bool(late) and not floored,
        ),
    ]


def sensitivity_table(spec, data, model, t=20, rule=RULE):
    """Rows ``[variant, (L, M), E_t history, E_t examples, regimes]`` for one model of the
    protocol-sensitivity study (:class:`~cotbook.attention.grid.SensitivitySpec`): the
    trial-mean error (mean over test tasks) at depth ``t`` under both masks, and the regime of
    each trial-mean curve by ``rule``, written ``mean history / mean examples / median history /
    median examples`` with D decay, O overthinking, S saturation."""
    rule = _rule(rule)
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
            kinds = [regime_of_curve(curve, rule)[0].upper() for curve in means.values()]
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


class Robustness(NamedTuple):
    """How one statement of :func:`claims` fares over the variants of the rule."""

    statement: str
    holds_in: int
    """Rule variants under which the statement holds."""
    variants: int
    """Rule variants tried."""
    by_default: bool
    """Whether it holds under the book's rule :data:`RULE`."""


def rule_sensitivity(spec, data, model, mask="history", *, statistic="mean", t=20, rules=None):
    """The Figure 2 statements (:func:`claims`, Section 6) under every rule of ``rules``
    (default :func:`rule_variants`: 4 rises x 4 floors x 3 horizons): for each statement, in how
    many of the rules it holds, as a list of :class:`Robustness` in the order of
    :func:`claims`."""
    rules = rule_variants() if rules is None else [_rule(r) for r in rules]
    if not rules:
        raise ValueError("rules must hold at least one Rule")
    held = None
    for rule in rules:
        found = claims(spec, data, model, mask, t=t, statistic=statistic, rule=rule)
        held = [0] * len(found) if held is None else held
        held = [k + bool(c.holds) for k, c in zip(held, found, strict=True)]
    default = claims(spec, data, model, mask, t=t, statistic=statistic, rule=RULE)
    return [
        Robustness(c.statement, k, len(rules), bool(c.holds))
        for c, k in zip(default, held, strict=True)
    ]


def robust_verdict(robustness) -> tuple[bool, dict[str, bool]]:
    """``(holds, caveats)`` for :func:`cotbook.book.ledger.verdict` from a
    :func:`rule_sensitivity` list (headline first): a statement that holds under every rule
    holds; one that holds under none fails (the headline: the claim is not reproduced; any
    other: a caveat "not seen under any rule"); one that holds under some rules only is a
    caveat that says so, and for the headline the book's rule :data:`RULE` decides."""
    robustness = list(robustness)
    if not robustness or not all(isinstance(r, Robustness) for r in robustness):
        raise ValueError("robustness must be a non-empty list of regimes.Robustness")
    head, *rest = robustness
    caveats = {}
    for r in (head, *rest):
        if 0 < r.holds_in < r.variants:
            caveats[
                f"{r.statement}: depends on the classification rule, "
                f"holds in {r.holds_in} of {r.variants} variants"
            ] = True
        elif r.holds_in == 0 and r is not head:
            caveats[f"{r.statement}: not seen under any rule variant"] = True
    return head.holds_in == head.variants or (head.holds_in > 0 and head.by_default), caveats


def robust_summary(robustness) -> str:
    """One line on a :func:`rule_sensitivity` list: how many statements hold under every rule
    variant, and how many more under some."""
    robustness = list(robustness)
    if not robustness or not all(isinstance(r, Robustness) for r in robustness):
        raise ValueError("robustness must be a non-empty list of regimes.Robustness")
    every = sum(r.holds_in == r.variants for r in robustness)
    some = sum(0 < r.holds_in < r.variants for r in robustness)
    text = f"{every} of {len(robustness)} under all {robustness[0].variants} rule variants"
    return text + (f", {some} more under some" if some else "")


def count_ranges(spec, data, model, mask="history", *, statistic="mean", rules=None):
    """``{regime: (fewest, most)}``: the range of :func:`regime_counts` over ``rules`` (default
    :func:`rule_variants`) -- how many cells each regime takes under the rule variants."""
    rules = rule_variants() if rules is None else [_rule(r) for r in rules]
    if not rules:
        raise ValueError("rules must hold at least one Rule")
    counts = [
        regime_counts(regime_map(spec, data, model, mask, statistic=statistic, rule=r)[0])
        for r in rules
    ]
    return {k: (min(c[k] for c in counts), max(c[k] for c in counts)) for k in counts[0]}


# --------------------------------------------------------------------------------------------
# reading the softmax study (cotbook.attention.softmax_study), kept here so that the study's
# record does not hold the theory this module imports
# --------------------------------------------------------------------------------------------
def _trial_mean(trials, *keys):
    """Mean over trials of the entry ``keys`` of each trial's measurements; an overflow
    (``None`` in the record) counts as ``inf``."""
    values = []
    for m in trials:
        for k in keys:
            m = m[k]
        values.append(np.nan_to_num(np.asarray(m, dtype=float), nan=np.inf))
    return np.mean(values, axis=0)


def softmax_regime(curve, rule=RULE) -> str:
    """:func:`regime_of_curve` of ``curve`` under ``rule``; a curve
    that overflows (an ``inf`` error) has grown past every factor of its minimum and counts as
    ``"overthinking"``."""
    curve = np.asarray(curve, dtype=float)
    if curve.ndim == 1 and curve.size >= 3 and np.any(np.isposinf(curve)):
        return "overthinking"
    return regime_of_curve(curve, rule)


def softmax_summary(spec, data, *, rule=RULE, depth=10) -> list[dict]:
    """One row per unit of the softmax study (``spec``, ``data``: its record's):
    ``variant``, ``model``, ``L``, ``M``, ``D``; the trial means of
    ``loss_train``, ``loss_test``, ``drift_at_truth``; ``radius_0`` (median spectral radius at
    the first estimates) and ``radius_t`` (at the deepest Jacobian depth), ``ratio_t``,
    ``estimate_share_t`` and ``sources_t`` at ``depth`` (history mask); ``best_t``, the depth of
    the smallest median error; ``regimes``, :func:`softmax_regime` of the trial-mean curves under
    ``rule``, in the order mean history, median history, mean examples, median examples; and
    the history-mask curves ``E_median``, ``E_mean`` (``t = 0..t_max``), ``ratio`` and
    ``estimate_share`` (``t = 0..t_max - 1``).  Overflows count as ``inf``."""
    depth = _checks.nonneg_int("depth", depth)
    if depth >= spec.t_max:
        raise ValueError(f"depth must be in [0, {spec.t_max - 1}], got {depth}")
    rows = []
    for unit in spec.units():
        name, model, _ = spec._parse(unit)
        u = data["units"][unit]
        trials = u["trials"]
        curves = {
            (stat, mask): _trial_mean(trials, key, mask)
            for mask in layer.MASKS
            for stat, key in STATISTICS.items()
        }
        order = [
            ("mean", "history"),
            ("median", "history"),
            ("mean", "examples"),
            ("median", "examples"),
        ]
        rows.append(
            {
                "variant": name,
                "model": model,
                "L": u["L"],
                "M": u["M"],
                "D": u["D"],
                **{
                    k: float(_trial_mean(trials, k))
                    for k in ("loss_train", "loss_test", "drift_at_truth")
                },
                "radius_0": float(_trial_mean(trials, "probe", "radius_median")[0]),
                "radius_t": float(_trial_mean(trials, "probe", "radius_median")[-1]),
                "radius_depth": trials[0]["probe"]["depths"][-1],
                **{
                    f"{k}_t": float(_trial_mean(trials, "probe", k)[depth])
                    for k in ("ratio", "estimate_share", "sources")
                },
                "best_t": int(np.argmin(curves["median", "history"])),
                "regimes": [softmax_regime(curves[o], rule) for o in order],
                "E_median": curves["median", "history"].tolist(),
                "E_mean": curves["mean", "history"].tolist(),
                "ratio": _trial_mean(trials, "probe", "ratio").tolist(),
                "estimate_share": _trial_mean(trials, "probe", "estimate_share").tolist(),
            }
        )
    return rows
