"""The paper's Figure 2: trained linear and softmax attention over an (L, M) grid.

Every configuration of :mod:`cotbook.attention` with the paper's settings (D = 50, no label
noise, lambda = 1e-5, Adam 1e-3, batch 300, 3000 steps) is trained once; its test error is
evaluated for ``t = 0..t_max`` under both masks.  All ``M`` values and trials of one ``(model,
L)`` are trained side by side (:func:`cotbook.attention.train`).  ``python -m cotbook
experiments --scale paper`` saves the result to ``book/results/attention_grid.json``.
"""

from __future__ import annotations

import time

import numpy as np

from . import _checks, attention, phases, results, simulate

__all__ = [
    "SCALES",
    "GRID_RESULT",
    "grid_configs",
    "train_and_evaluate",
    "run_grid",
    "SENSITIVITY_RESULT",
    "VARIANTS",
    "SENSITIVITY_SCALES",
    "run_sensitivity",
    "saved_sensitivity",
    "sensitivity_table",
    "grid_study",
    "mean_sem",
    "theory_regime",
    "STATISTICS",
    "curves",
    "regime_map",
    "regime_counts",
    "regime_agreement",
    "unstable_share",
    "finite_d_regime_map",
    "representatives",
    "best_depth",
    "claims",
    "regime_of_curve",
    "run_costs",
]

GRID_RESULT = "attention_grid"
SCALES = {
    # L and M geometric, from well below D = 50 to well above it.  Book scale trains for 1000
    # steps instead of the paper's 3000 to fit a chapter's time budget.
    "book": dict(Ls=(10, 50, 160), Ms=(25, 400, 3200), trials=2, t_max=40, steps=1000),
    "paper": dict(
        Ls=(10, 15, 25, 35, 50, 75, 110, 160),
        Ms=(25, 50, 100, 200, 400, 800, 1600, 3200),
        trials=5,
        t_max=40,
    ),
}


def grid_configs(Ls, Ms, trials, **settings):
    """Every ``Config`` of the grid: both models, every ``L``, ``M`` and trial."""
    return [
        attention.Config(model=model, L=L, M=M, trial=r, **settings)
        for model in attention.MODELS
        for L in Ls
        for M in Ms
        for r in range(trials)
    ]


def train_and_evaluate(configs, t_max, *, progress=False):
    """Train ``configs`` -- those that can share a tensor program together (same
    :meth:`Config.group_key`) -- and evaluate each under both masks.

    Returns ``(runs, timings)``: ``runs[config] = {"E": {mask: mean error over the test tasks,
    t = 0..t_max}, "E_median": {mask: median over the test tasks}, "unstable": {mask: share of
    test tasks whose error at t_max exceeds their error at t = 0}, "final_loss": mean
    training objective over the last 100 steps}``, and seconds per group.
    """
    groups = {}
    for c in configs:
        groups.setdefault(c.group_key(), []).append(c)
    runs, timings = {}, {}
    items = groups.values()
    if progress:
        from tqdm import tqdm

        items = tqdm(items, desc="groups", unit="group")
    for members in items:
        start = time.perf_counter()
        params, losses = attention.train(members, progress=progress)
        # Test tasks depend on (L, trial) only: the configurations of one trial are
        # evaluated together on them.
        for trial in sorted({c.trial for c in members}):
            rows = [g for g, c in enumerate(members) if c.trial == trial]
            stack = {k: v[rows] for k, v in params.items()}
            errors = attention.evaluate_stack(members[rows[0]], stack, t_max, per_task=True)
            for i, g in enumerate(rows):
                runs[members[g]] = {
                    "E": {k: v[i].mean(0).tolist() for k, v in errors.items()},
                    "E_median": {k: np.median(v[i], 0).tolist() for k, v in errors.items()},
                    "unstable": {
                        k: float(np.mean(v[i, :, -1] > v[i, :, 0])) for k, v in errors.items()
                    },
                    "final_loss": float(losses[-100:, g].mean()),
                }
        c = members[0]
        timings[f"{c.model}/L={c.L}/steps={c.steps}/lam={c.lam:g}/merged={c.merged}"] = (
            time.perf_counter() - start
        )
    return runs, timings


def run_grid(Ls, Ms, trials, t_max, *, progress=False, **settings):
    """Train and evaluate the grid.  Returns ``{"E": {model: {mask: array [L][M][trial][t]}},
    "E_median": (same, median over test tasks), "unstable": {model: {mask: [L][M][trial]}},
    "final_loss": {model: [L][M][trial]}, "timings_s": {group: seconds}}``, JSON-ready."""
    runs, timings = train_and_evaluate(
        grid_configs(Ls, Ms, trials, **settings), t_max, progress=progress
    )
    shape = (len(Ls), len(Ms), trials)
    out = {
        key: {m: {k: np.zeros(shape + tail) for k in attention.MASKS} for m in attention.MODELS}
        for key, tail in (("E", (t_max + 1,)), ("E_median", (t_max + 1,)), ("unstable", ()))
    }
    loss = {m: np.zeros(shape) for m in attention.MODELS}
    for c, run in runs.items():
        index = (Ls.index(c.L), Ms.index(c.M), c.trial)
        for key in out:
            for mask, value in run[key].items():
                out[key][c.model][mask][index] = value
        loss[c.model][index] = run["final_loss"]
    return {
        **{
            key: {m: {k: v.tolist() for k, v in by.items()} for m, by in d.items()}
            for key, d in out.items()
        },
        "final_loss": {m: v.tolist() for m, v in loss.items()},
        "timings_s": timings,
    }


SENSITIVITY_RESULT = "attention_sensitivity"
# Each variant changes one setting of the paper's protocol (the "paper" row is the baseline).
VARIANTS = {
    "paper": {},
    "steps = 1000": dict(steps=1000),
    "steps = 10000": dict(steps=10000),
    "lambda = 1e-3": dict(lam=1e-3),
    "merged W": dict(merged=True),
}
SENSITIVITY_SCALES = {
    "book": dict(points=((25, 3200), (50, 100), (160, 3200)), trials=1, t_max=40),
    "paper": dict(points=((25, 3200), (50, 100), (160, 3200)), trials=2, t_max=40),
}


def run_sensitivity(points, trials, t_max, *, variants=None, progress=False, **settings):
    """Both models at each ``(L, M)`` in ``points`` under each of ``variants`` (default
    :data:`VARIANTS`).  Returns ``{"E": {variant: {model: {mask: [point][trial][t]}}},
    "E_median": (same, median over test tasks), "timings_s": {...}}``, JSON-ready."""
    variants = VARIANTS if variants is None else variants
    configs = {
        (name, model, k, r): attention.Config(
            model=model, L=L, M=M, trial=r, **{**settings, **change}
        )
        for name, change in variants.items()
        for model in attention.MODELS
        for k, (L, M) in enumerate(points)
        for r in range(trials)
    }
    runs, timings = train_and_evaluate(list(configs.values()), t_max, progress=progress)
    out = {
        key: {
            name: {
                m: {mask: [[None] * trials for _ in points] for mask in attention.MASKS}
                for m in attention.MODELS
            }
            for name in variants
        }
        for key in ("E", "E_median")
    }
    for (name, model, k, r), c in configs.items():
        for key in out:
            for mask, curve in runs[c][key].items():
                out[key][name][model][mask][k][r] = curve
    return {**out, "timings_s": timings}


def grid_study(scale="book"):
    """The grid to show: the saved result of ``python -m cotbook experiments`` if present, else
    :func:`run_grid` at ``scale`` now.  Returns ``(config, data, description)``."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {sorted(SCALES)}, got {scale!r}")
    record = results.load(GRID_RESULT)
    if record is not None:
        cfg = record["config"]
        return (
            cfg,
            record["data"],
            (
                f"{cfg['scale']} scale, read from book/results/{GRID_RESULT}.json\n"
                f"  L = {cfg['Ls']}, M = {cfg['Ms']}, {cfg['trials']} trials, "
                f"{cfg['steps']} steps\n  written by {record['code_version']}"
            ),
        )
    data = run_grid(**SCALES[scale])
    data.pop("timings_s")
    config = dict(attention.Config(model="linear", L=1, M=1).as_dict(), **SCALES[scale])
    config["scale"] = scale
    return (
        config,
        data,
        (
            f"{scale} scale, computed now\n  L = {list(config['Ls'])}, M = {list(config['Ms'])}, "
            f"{config['trials']} trials, {config['steps']} steps"
        ),
    )


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


def regime_map(config, data, model, mask="history", *, statistic="mean", horizon=None):
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
    theory = [[theory_regime(L, M, config["D"]) for M in config["Ms"]] for L in config["Ls"]]
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


def finite_d_regime_map(config, *, trials=5, test_designs=8, seed=0, statistic="mean"):
    """The simplified model (paper, Section 3: only ``A`` learned, by ridge) simulated at the
    experiments' own ``D`` (:func:`cotbook.simulate.error_curve`, ``alpha = L/D``, ``tau =
    M/D``, the grid's ``lam`` and ``sigma2``, ``t_max``) and classified by
    :func:`regime_of_curve` like the trained layers: nested lists ``[L][M]``.

    ``statistic``: ``"mean"`` over the ``trials`` pretraining sets (each averaged over
    ``test_designs`` designs), as the trained layers' curves are averaged, or ``"median"`` over
    them (the typical pretraining set).  Result 2 is a ``D -> infinity`` statement; this is what
    the same model does at ``D = 50``, where ``M <= D`` is allowed (``lam > 0``)."""
    trials = _checks.positive_int("trials", trials)
    if statistic not in ("mean", "median"):
        raise ValueError(f"statistic must be 'mean' or 'median', got {statistic!r}")
    D, lam, sigma2 = config["D"], config["lam"], config["sigma2"]

    def curve(L, M):
        per_trial = simulate.error_curve(
            L / D,
            M / D,
            sigma2,
            lam,
            D,
            config["t_max"],
            trials=trials,
            test_designs=test_designs,
            seed=seed,
        )[2]
        return np.mean(per_trial, axis=0) if statistic == "mean" else np.median(per_trial, axis=0)

    return [[regime_of_curve(curve(L, M)) for M in config["Ms"]] for L in config["Ls"]]


def mean_sem(E):
    """Mean and standard error over the trial axis (the second to last) of ``E``."""
    E = np.asarray(E, dtype=float)
    trials = E.shape[-2]
    sem = E.std(axis=-2, ddof=1) / np.sqrt(trials) if trials > 1 else np.zeros_like(E[..., 0, :])
    return E.mean(axis=-2), sem


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


def representatives(config, data, model, mask="history", statistic="mean"):
    """``{regime: (i, j)}``: for each regime measured on ``statistic``, the grid cell showing it
    at the largest ``M`` (then the middle ``L``) -- the curves drawn in Figure 2B/2D."""
    measured, _ = regime_map(config, data, model, mask, statistic=statistic)
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


def best_depth(curve):
    """Depth of the smallest error of a curve (the first, on ties)."""
    return int(np.argmin(np.asarray(curve, dtype=float)))


def claims(config, data, model, mask="history", t=20, statistic="mean"):
    """The paper's statements about Figure 2, each measured on the grid of ``model`` with the
    trial means of ``statistic`` (:func:`curves`).

    Returns ``(headers, rows)`` with rows ``[statement, measurement, holds]``; ``holds`` is a
    bool computed from the measurement (criteria in the chapter).
    """
    Ls, Ms = list(config["Ls"]), list(config["Ms"])
    mean, _ = mean_sem(curves(data, model, mask, statistic))
    measured, _ = regime_map(config, data, model, mask, statistic=statistic)
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
        [best_depth(mean[i, j]) for j in range(len(Ms)) if kinds[i, j] == "overthinking"]
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
    rows = [
        [
            "all three regimes appear",
            ", ".join(present),
            {"decay", "overthinking", "saturation"} <= set(present),
        ],
        [
            "small M: overthinking more prominent",
            f"overthinking share {low:.0%} (smaller M half) vs {high:.0%} (larger M half)",
            low > high,
        ],
        [
            "large M: saturation or decay depending on L",
            f"at M = {Ms[-1]}: saturation at L = {sat_L}, decay at L = {decay_L}",
            bool(sat_L) and bool(decay_L) and max(sat_L) < min(decay_L),
        ],
        [
            "more examples L: faster decay",
            f"E_{t} at M = {Ms[-1]} over decaying L: "
            + ", ".join(f"{L}: {v:.2g}" for L, v in E_top.items()),
            faster,
        ],
        [
            "more tasks M: longer useful CoT (t* grows with M)",
            f"t* along M for overthinking rows: {longer}",
            grows,
        ],
        [
            "overthinking can end worse than saturation with fewer examples",
            f"{len(worse)} (overthinking, saturation at smaller L) pairs with larger E_T",
            bool(worse),
        ],
    ]
    return ["statement", "measured", "holds"], rows


def saved_sensitivity():
    """``(config, data, description)`` of the saved sensitivity study, or ``None``."""
    record = results.load(SENSITIVITY_RESULT)
    if record is None:
        return None
    cfg = record["config"]
    return (
        cfg,
        record["data"],
        (
            f"{cfg['scale']} scale, read from book/results/{SENSITIVITY_RESULT}.json\n"
            f"  points (L, M) = {cfg['points']}, {cfg['trials']} trials\n"
            f"  written by {record['code_version']}"
        ),
    )


def sensitivity_table(config, data, model, t=20):
    """Rows ``[variant, (L, M), E_t history, E_t examples, regimes]`` for one model: the
    trial-mean error (mean over test tasks) at depth ``t`` under both masks, and the regime of
    each trial-mean curve, written ``mean history / mean examples / median history / median
    examples`` with D decay, O overthinking, S saturation."""
    rows = []
    for name in data["E"]:
        for k, point in enumerate(config["points"]):
            means = {
                (statistic, mask): np.mean(
                    np.asarray(data[key][name][model][mask][k], dtype=float), axis=0
                )
                for statistic, key in STATISTICS.items()
                for mask in attention.MASKS
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


def run_costs():
    """What the saved paper-scale runs cost: ``(headers, rows)`` for :func:`cotbook.report.table`,
    one row per saved record -- the grid and the sensitivity study (wall-clock seconds of
    training and evaluation, all groups) and ``python -m cotbook bench attention`` (one
    configuration, fast and literal, per model) -- with the code version that wrote it.
    Records not saved are left out."""
    from . import bench

    rows = []
    for name, what in ((GRID_RESULT, "Figure 2 grid"), (SENSITIVITY_RESULT, "sensitivity study")):
        record = results.load(name)
        if record is not None:
            total = record["timings_s"].get("total", sum(record["timings_s"].values()))
            rows.append([what, "all groups", f"{total / 60:.1f} min", record["code_version"]])
    record = results.load(bench.ATTENTION_RESULT)
    if record is not None:
        cfg, d = record["config"], record["data"]
        for model in attention.MODELS:
            rows.append(
                [
                    f"one {model} run (L = {cfg['L']}, M = {cfg['M']}, {cfg['steps']} steps)",
                    "fast / literal",
                    f"{d[f'{model}_fast_s']:.1f} s / {d[f'{model}_literal_s']:.1f} s "
                    f"= {d[f'{model}_speedup']:.1f}x",
                    record["code_version"],
                ]
            )
    return ["run", "measured", "time", "written by"], rows
