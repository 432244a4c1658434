"""The paper authors' released runs, parsed: one named view per run of the checked record.

The record ``authors_released`` (:mod:`.manifest`) keeps the raw files the authors
released at ``taka255/cot_asymptotics@1ed6569``, each verified against its git blob id; this
module reads them into views with named fields (:func:`release`, :func:`run`):

- :class:`Heatmap`: a heatmap run (linear ``latest_linear_heatmap`` and
  ``linear_heatmap_20260416_150619``, five softmax runs): ``E[M index, N index, t]`` from
  ``curves_long.csv``, checked on parsing against its ``heat_t28.csv`` / ``heat_t30.csv``.
- :class:`Dynamics`: a ``linear_dynamics`` run: per-trial curves from ``raw_eval_curves.npz``
  (one array per ``(N, M)`` pair, trials x depths), their mean and standard error, checked
  against its ``summary.csv``.
- :class:`Learned`: a ``learned_parameter_heatmap`` run: the learned ``V`` and ``W``
  (``(2D+2) x (2D+2)``, ``D = 10``).

Each view carries its configuration (:class:`RunConfig`), whether the run uses the early
marker convention (runs before 2026-04-17 put the marker value 1 on every token, examples
included; later runs mark only the estimate token), which panel of the paper's Figure 2 the
authors' figure notebook draws from it, and the facts about it worth knowing, each checked on
parsing (a single-trial rerun equals the trial it reruns; two runs share their seeds).  ``N``
is the authors' name for the context length, the paper's ``L``; ``M`` the number of
pretraining tasks; ``E_t`` the mean over test tasks of ``||w_hat_t - w||^2 / D``, so
``E_0 ~ 2``.  A file that does not parse as described raises
:class:`cotbook.book.records.ResultError` naming it.

>>> runs = release()
>>> fig = runs.heatmaps["latest_linear_heatmap"]
>>> fig.E.shape, fig.figure, fig.early_marker
((15, 15, 32), 'Figure 2B', False)
"""

from __future__ import annotations

import dataclasses
import datetime
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .. import records
from . import manifest

__all__ = [
    "MARKER_CHANGE",
    "HEATMAPS",
    "DYNAMICS",
    "LEARNED",
    "RunConfig",
    "Run",
    "Heatmap",
    "DynamicsCurve",
    "Dynamics",
    "Learned",
    "Release",
    "release",
    "run",
]

MARKER_CHANGE = datetime.date(2026, 4, 17)
"""Runs made before this day put the marker value 1 on every token (the early convention)."""

_LINEAR = "linear_heatmap/results"
_SOFTMAX = "softmax_heatmap/results"
_DYNAMICS = "linear_dynamics/results"
_LEARNED = "learned_parameter_heatmap/results/latest_learned_parameter_heatmap"

HEATMAPS = {
    "latest_linear_heatmap": _LINEAR,
    "linear_heatmap_20260416_150619": _LINEAR,
    "softmax_heatmap_20260410_193511": _SOFTMAX,
    "softmax_heatmap_20260410_193854": _SOFTMAX,
    "softmax_heatmap_20260410_195447": _SOFTMAX,
    "softmax_heatmap_20260411_003316": _SOFTMAX,
    "softmax_heatmap_20260417_195912": _SOFTMAX,
}
"""The heatmap runs: name -> the folder of the repository that holds it."""
DYNAMICS = {
    "linear_dynamics_20260417_164420": _DYNAMICS,
    "linear_dynamics_20260417_164550": _DYNAMICS,
    "linear_dynamics_20260417_170446": _DYNAMICS,
}
"""The ``linear_dynamics`` runs: name -> folder."""
LEARNED = {name: _LEARNED for name in ("M20_N20", "M20_N200", "M200_N20", "M200_N200")}
"""The learned-parameter runs: name (``M<M>_N<N>``) -> folder."""

# What the authors' figure notebook draws from which run: name -> (panel, depth or None).
_FIGURE = {
    "linear_dynamics_20260417_170446": ("Figure 2A", None),
    "latest_linear_heatmap": ("Figure 2B", 30),
    "softmax_heatmap_20260417_195912": ("Figure 2C", 30),
}
# Single-trial reruns: name -> (the run, the trial they rerun).
_RERUNS = {
    "linear_dynamics_20260417_164420": ("linear_dynamics_20260417_170446", 0),
    "linear_dynamics_20260417_164550": ("linear_dynamics_20260417_170446", 0),
}
# linear_dynamics scales its objective's data term by 0.5 (the authors' script); no other run.
_DATA_WEIGHT = {"linear_dynamics": 0.5}
_PROTOCOL_NOTE = (
    "No run uses the protocol the paper's Figure 2 caption and appendix state (lambda = 1e-5, "
    "3000 steps, the paper's history mask, 5 trials, heatmap at t = 20)."
)


def _index(name, value, axis) -> int:
    """The position of ``value`` on ``axis``; ``ValueError`` naming ``name`` otherwise."""
    hits = np.flatnonzero(axis == value) if np.ndim(value) == 0 else []
    if len(hits) != 1:
        raise ValueError(f"{name} must be one of {_grid_text(axis)}, got {value!r}")
    return int(hits[0])


class RunConfig(NamedTuple):
    """A run's configuration, from its ``config.txt`` or ``config.json``.

    The authors' objective is ``data_weight`` times the batch mean of one CoT step's total
    squared error plus ``lam (||V||_F^2 + ||W||_F^2)``, minimised by Adam."""

    D: int
    """Dimension of the tasks (50; 10 for the learned parameters)."""
    lam: float
    """The authors' ``PARAM_L2_LAMBDA`` (no factor 1/2, unlike the book's ``lam``)."""
    data_weight: float
    """Factor of the data term: 0.5 in ``linear_dynamics`` (whose ``lam`` is therefore
    ``2 lam`` on the unscaled objective), 1 elsewhere (not in the files: the authors' code)."""
    steps: int
    """Adam steps (``ITERATIONS``)."""
    batch: int
    """Minibatch size, drawn with replacement from the M training prompts."""
    lr: float
    """Adam's learning rate."""
    mask: str
    """``"data_only"``: the query attends to the N examples only (every linear run, whose
    files do not say it); ``"history_cot"``: all earlier estimates too (the paper's mask)."""
    seed: int
    """The run's base seed (``SEED``)."""
    eval_tasks: int | None
    """Fresh test tasks per evaluation (``EVAL_BATCH_SIZE``); ``None`` when none."""
    trials: int
    """Trials per cell or pair (``N_TRIALS``; 1 for the learned parameters)."""
    raw: dict
    """Every entry of the file as written (text values for ``config.txt``)."""


@dataclass(frozen=True, eq=False)
class Run:
    """What every run of the release has (the base of :class:`Heatmap`, :class:`Dynamics`
    and :class:`Learned`)."""

    name: str
    """The run's folder name (``M<M>_N<N>`` for the learned parameters)."""
    folder: str
    """Its path in the repository."""
    attention: str
    """``"linear"`` or ``"softmax"``."""
    config: RunConfig
    """Its configuration."""
    date: datetime.date
    """The day it started (from its folder name; else the day its config was written)."""
    early_marker: bool
    """Whether it puts the marker value 1 on every token (runs before :data:`MARKER_CHANGE`)."""
    figure: str | None
    """The panel of the paper's Figure 2 the authors' notebook draws from it, else ``None``
    (the release does not say which run the Appendix A figure is drawn from)."""
    figure_t: int | None
    """The depth that panel shows (``None`` for curves over ``t``)."""
    notes: tuple
    """Facts about the run, each checked on the data when parsed."""


@dataclass(frozen=True, eq=False)
class Heatmap(Run):
    """A heatmap run: one trained model and one seed per cell ``(M, N)``."""

    M: np.ndarray
    """The numbers of pretraining tasks, the grid's first axis."""
    N: np.ndarray
    """The context lengths (the paper's L), its second axis."""
    t: np.ndarray
    """The depths, its third axis (0 to 31)."""
    E: np.ndarray
    """``E[i, j, k]``: ``E_t`` at ``M[i]``, ``N[j]``, ``t[k]``."""

    def at(self, M, N) -> np.ndarray:
        """``E_t`` over ``t`` at the cell ``(M, N)``; ``ValueError`` naming ``M`` or ``N``
        if it is not on the grid."""
        return self.E[_index("M", M, self.M), _index("N", N, self.N)]


class DynamicsCurve(NamedTuple):
    """One pair ``(N, M)`` of a ``linear_dynamics`` run, over the run's depths ``t``."""

    N: int
    """Context length (the paper's L)."""
    M: int
    """Number of pretraining tasks."""
    seeds: tuple
    """Each trial's seed (``trial_meta.json``)."""
    E: np.ndarray
    """``E[trial, k]``: ``E_t`` at ``t[k]`` (float32 in the authors' file)."""
    mean: np.ndarray
    """Mean over trials."""
    sem: np.ndarray
    """Standard error: standard deviation (``ddof = 1``) over ``sqrt(trials)``; NaN for one
    trial (as the authors' ``summary.csv``, checked against it)."""


@dataclass(frozen=True, eq=False)
class Dynamics(Run):
    """A ``linear_dynamics`` run: several pairs ``(N, M)``, trials of each."""

    M: np.ndarray
    """``M[i]``: the i-th pair's number of pretraining tasks (pairs, not a grid)."""
    N: np.ndarray
    """``N[i]``: the i-th pair's context length."""
    t: np.ndarray
    """The depths (0 to 21)."""
    curves: tuple
    """One :class:`DynamicsCurve` per pair, in the order of ``N`` and ``M``."""
    rerun_of: tuple | None
    """``(run, trial)`` when this run reruns that trial of another alone (checked: equal
    curves), else ``None``."""

    def curve(self, N, M) -> DynamicsCurve:
        """The :class:`DynamicsCurve` at ``(N, M)``; ``ValueError`` naming ``N, M`` if the
        run has no such pair."""
        for c in self.curves:
            if (c.N, c.M) == (N, M):
                return c
        pairs = [(c.N, c.M) for c in self.curves]
        raise ValueError(f"N, M must be one of the run's pairs (N, M) {pairs}, got {(N, M)!r}")


@dataclass(frozen=True, eq=False)
class Learned(Run):
    """A learned-parameter run of linear attention at one ``(M, N)``."""

    M: int
    """Number of pretraining tasks."""
    N: int
    """Context length (the paper's L)."""
    V: np.ndarray
    """The learned ``V``, ``(2D+2) x (2D+2)``.  The authors' file holds ``-V`` (``(V, W) ->
    (-V, -W)`` leaves the layer unchanged); negated back here."""
    W: np.ndarray
    """The learned ``W = W_K^T W_Q``, ``(2D+2) x (2D+2)``; the file holds ``-W``."""


class Release(NamedTuple):
    """Every run of the release, by name."""

    heatmaps: dict
    """``{name:`` :class:`Heatmap` ``}``: the two linear runs, then the five softmax runs."""
    dynamics: dict
    """``{name:`` :class:`Dynamics` ``}``."""
    learned: dict
    """``{name:`` :class:`Learned` ``}``."""
    record: records.Record
    """The record the runs were read from."""
    notes: tuple
    """Facts about the release as a whole."""

    @property
    def runs(self) -> dict:
        """Every view, by run name: heatmaps, then dynamics, then learned parameters."""
        return {**self.heatmaps, **self.dynamics, **self.learned}


# --------------------------------------------------------------------------------------------
# parsing
# --------------------------------------------------------------------------------------------
class _Files:
    """The stored files of one record, read with errors that name the file."""

    def __init__(self, record):
        self.record = record
        self.bytes = manifest.files(record)

    def error(self, path, what) -> records.ResultError:
        return records.ResultError(f"{self.record.path}: stored file {path}: {what}")

    def text(self, path) -> str:
        try:
            return self.bytes[path].decode("utf-8")
        except UnicodeDecodeError as err:
            raise self.error(path, f"not UTF-8 text ({err})") from None

    def table(self, path, ndmin=2) -> np.ndarray:
        try:
            return np.loadtxt(io.StringIO(self.text(path)), delimiter=",", ndmin=ndmin)
        except ValueError as err:
            raise self.error(path, f"not a table of numbers ({err})") from None

    def integers(self, path) -> np.ndarray:
        values = self.table(path, ndmin=1)
        if values.ndim != 1 or not np.array_equal(values, np.round(values)):
            raise self.error(path, "not one column of integers")
        return values.astype(np.int64)

    def config_text(self, path) -> dict:
        raw = {}
        for line in self.text(path).splitlines():
            if line.strip():
                key, sep, value = line.partition("=")
                if not sep:
                    raise self.error(path, f"line {line!r} is not key=value")
                raw[key.strip()] = value.strip()
        return raw

    def json(self, path):
        try:
            return json.loads(self.text(path))
        except ValueError as err:
            raise self.error(path, f"not valid JSON ({err})") from None


def _date(name, raw) -> datetime.date:
    """The day the run started (its folder's time stamp), else the day its config was written."""
    stamp = re.search(r"(\d{8})_\d{6}$", name)
    if stamp:
        return datetime.datetime.strptime(stamp.group(1), "%Y%m%d").date()
    return datetime.date.fromisoformat(raw["timestamp"][:10])


def _config(files, path, raw, kind, defaults=()) -> RunConfig:
    get = dict(defaults) | raw

    def field(key, convert):
        if key not in get:
            raise files.error(path, f"lacks {key}")
        try:
            return convert(get[key])
        except (TypeError, ValueError):
            raise files.error(path, f"{key} = {get[key]!r} is not a {convert.__name__}") from None

    eval_tasks = field("EVAL_BATCH_SIZE", int) if "EVAL_BATCH_SIZE" in get else None
    return RunConfig(
        D=field("D", int),
        lam=field("PARAM_L2_LAMBDA", float),
        data_weight=_DATA_WEIGHT.get(kind, 1.0),
        steps=field("ITERATIONS", int),
        batch=field("BATCH_SIZE", int),
        lr=field("ADAM_LR", float),
        mask=field("ATTN_MASK_MODE", str),
        seed=field("SEED", int),
        eval_tasks=eval_tasks,
        trials=field("N_TRIALS", int),
        raw=raw,
    )


def _common(name, folder, attention, files, config_path, raw, defaults) -> dict:
    """The :class:`Run` fields of a run (``notes`` filled in later)."""
    kind = folder.split("/", 1)[0]
    date = _date(name, raw)
    figure, figure_t = _FIGURE.get(name, (None, None))
    return dict(
        name=name,
        folder=folder,
        attention=attention,
        config=_config(files, config_path, raw, kind, defaults),
        date=date,
        early_marker=date < MARKER_CHANGE,
        figure=figure,
        figure_t=figure_t,
        notes=(),
    )


def _heatmap(files, name) -> Heatmap:
    folder = f"{HEATMAPS[name]}/{name}"
    attention = "softmax" if folder.startswith("softmax") else "linear"
    raw = files.config_text(f"{folder}/config.txt")
    run = _common(
        name, folder, attention, files, f"{folder}/config.txt", raw, {"ATTN_MASK_MODE": "data_only"}
    )
    M, N = files.integers(f"{folder}/M_list.csv"), files.integers(f"{folder}/N_list.csv")
    t = files.integers(f"{folder}/EVAL_T_list.csv")
    for what, values in (("M_LIST", M), ("N_LIST", N), ("EVAL_T_LIST", t)):
        if raw.get(what) != ",".join(map(str, values)):
            raise files.error(f"{folder}/config.txt", f"{what} differs from its {what[:-5]}_list")
    curves_path = f"{folder}/curves_long.csv"
    rows = files.table(curves_path)
    if rows.shape != (len(M) * len(N) * len(t), 4):
        raise files.error(curves_path, f"has shape {rows.shape}, not one row per (M, N, t)")
    E = np.full((len(M), len(N), len(t)), np.nan)
    try:
        where = []
        for column, axis in enumerate((M, N, t)):
            position = {int(v): i for i, v in enumerate(axis)}
            where.append(np.array([position[x] for x in rows[:, column].tolist()]))
        where = tuple(where)
    except KeyError as err:
        raise files.error(curves_path, f"a row's M, N or t {err} is not in the lists") from None
    E[where] = rows[:, 3]
    if np.isnan(E).any():
        raise files.error(curves_path, "misses a cell (M, N, t) or repeats one")
    for depth in (28, 30):
        path = f"{folder}/heat_t{depth}.csv"
        if path in manifest.MANIFEST:
            heat = files.table(path)
            k = np.flatnonzero(t == depth)
            if heat.shape != E.shape[:2] or len(k) != 1 or not np.array_equal(heat, E[:, :, k[0]]):
                raise files.error(path, f"disagrees with {curves_path} at t = {depth}")
    return Heatmap(**run, M=M, N=N, t=t, E=E)


def _dynamics(files, name) -> Dynamics:
    folder = f"{DYNAMICS[name]}/{name}"
    config_path = f"{folder}/config.json"
    raw = files.json(config_path)
    run = _common(name, folder, "linear", files, config_path, raw, {"ATTN_MASK_MODE": "data_only"})
    config = run["config"]
    t = np.asarray(raw["EVAL_T_LIST"], dtype=np.int64)
    pairs = [tuple(int(x) for x in pair) for pair in raw["NM_LIST"]]
    npz_path = f"{folder}/raw_eval_curves.npz"
    try:
        with np.load(io.BytesIO(files.bytes[npz_path]), allow_pickle=False) as npz:
            arrays = {key: npz[key] for key in npz.files}
    except (ValueError, OSError) as err:
        raise files.error(npz_path, f"not a readable .npz ({err})") from None
    if sorted(arrays) != sorted(f"n{n}_m{m}" for n, m in pairs):
        raise files.error(npz_path, f"holds {sorted(arrays)}, not one array per NM_LIST pair")
    meta = files.json(f"{folder}/trial_meta.json")
    summary = _summary(files, f"{folder}/summary.csv")
    curves = []
    for n, m in pairs:
        E = arrays[f"n{n}_m{m}"].astype(np.float64)
        if E.shape != (config.trials, len(t)):
            raise files.error(npz_path, f"n{n}_m{m} has shape {E.shape}, not trials x depths")
        seeds = tuple(
            entry["trial_seed"]
            for entry in sorted(meta, key=lambda e: e["trial"])
            if (entry["n"], entry["m"]) == (n, m)
        )
        if len(seeds) != config.trials:
            raise files.error(f"{folder}/trial_meta.json", f"has not one seed per trial at {n, m}")
        mean = E.mean(axis=0)
        sem = E.std(axis=0, ddof=1) / np.sqrt(len(E)) if len(E) > 1 else np.full(len(t), np.nan)
        want = summary.get((n, m))
        if want is None or not (
            np.array_equal(want[0], t)
            and np.allclose(want[1], mean, rtol=1e-12, atol=0)
            and np.allclose(want[2], sem, rtol=1e-12, atol=0, equal_nan=True)
        ):
            raise files.error(
                f"{folder}/summary.csv", f"disagrees with {npz_path} at (N, M) = {(n, m)}"
            )
        curves.append(DynamicsCurve(n, m, seeds, E, mean, sem))
    return Dynamics(
        **run,
        M=np.array([m for _, m in pairs]),
        N=np.array([n for n, _ in pairs]),
        t=t,
        curves=tuple(curves),
        rerun_of=_RERUNS.get(name),
    )


def _summary(files, path) -> dict:
    """``{(N, M): (t, mean, se)}`` of a ``summary.csv`` (columns ``n, m, t, mean_loss,
    se_loss``)."""
    lines = files.text(path).splitlines()
    if not lines or lines[0].split(",") != ["n", "m", "t", "mean_loss", "se_loss"]:
        raise files.error(path, "its header is not n,m,t,mean_loss,se_loss")
    try:
        rows = np.loadtxt(lines[1:], delimiter=",", ndmin=2)
    except ValueError as err:
        raise files.error(path, f"not a table of numbers ({err})") from None
    out = {}
    for key in dict.fromkeys(map(tuple, rows[:, :2].astype(np.int64).tolist())):
        sel = rows[(rows[:, 0] == key[0]) & (rows[:, 1] == key[1])]
        out[key] = (sel[:, 2].astype(np.int64), sel[:, 3], sel[:, 4])
    return out


def _learned(files, name) -> Learned:
    folder = f"{LEARNED[name]}/{name}"
    raw = files.config_text(f"{folder}/config.txt")
    defaults = {"ATTN_MASK_MODE": "data_only", "N_TRIALS": "1"}
    run = _common(name, folder, "linear", files, f"{folder}/config.txt", raw, defaults)
    size = 2 * run["config"].D + 2
    matrices = {}
    for which in ("v", "w"):
        path = f"{folder}/{which}_matrix.csv"
        stored = files.table(path)
        if stored.shape != (size, size):
            raise files.error(path, f"has shape {stored.shape}, not (2D+2) x (2D+2) = {size}")
        matrices[which] = -stored
    M, N = int(raw["M"]), int(raw["N"])
    if name != f"M{M}_N{N}":
        raise files.error(f"{folder}/config.txt", f"says M = {M}, N = {N}, not {name}")
    return Learned(**run, M=M, N=N, V=matrices["v"], W=matrices["w"])


# --------------------------------------------------------------------------------------------
# facts about the runs, each checked on the data
# --------------------------------------------------------------------------------------------
# pairs of heatmap runs with the same seeds (E_0 equal in every cell) but different models
_SAME_SEEDS = (
    ("latest_linear_heatmap", "linear_heatmap_20260416_150619"),
    ("softmax_heatmap_20260411_003316", "softmax_heatmap_20260417_195912"),
)
# pairs of heatmap runs whose E_t is equal at every cell both grids hold, at every depth
_SAME_CELLS = (
    ("softmax_heatmap_20260410_193511", "softmax_heatmap_20260410_193854"),
    ("softmax_heatmap_20260410_195447", "softmax_heatmap_20260411_003316"),
)


def _shared(a, b):
    """Index arrays of the cells (M, N) that heatmaps ``a`` and ``b`` both hold."""
    Ms = [m for m in a.M if m in set(b.M)]
    Ns = [n for n in a.N if n in set(b.N)]
    ia = np.ix_([list(a.M).index(m) for m in Ms], [list(a.N).index(n) for n in Ns])
    ib = np.ix_([list(b.M).index(m) for m in Ms], [list(b.N).index(n) for n in Ns])
    return Ms, Ns, ia, ib


def _grid_text(values) -> str:
    return ", ".join(str(int(v)) for v in values)


def _notes(files, heatmaps, dynamics, learned) -> dict:
    """``{run name: notes}``: the facts about each run; :class:`ResultError` naming a file
    whose data contradict one."""
    notes = {name: [] for name in (*heatmaps, *dynamics, *learned)}
    views = {**heatmaps, **dynamics, **learned}
    for name, view in views.items():
        if view.figure is not None:
            depth = "" if view.figure_t is None else f" at t = {view.figure_t}"
            notes[name].append(
                f"the authors' figure notebook draws {view.figure} from this run{depth}"
            )
        if view.early_marker:
            notes[name].append(
                f"made before {MARKER_CHANGE.isoformat()}: the marker value 1 on every token, "
                "examples included (later runs mark only the estimate token)"
            )
        if view.attention == "softmax" and view.config.mask == "data_only":
            notes[name].append(
                "mask data_only: the query attends to the N examples only, not the earlier "
                "estimates the paper's mask adds"
            )
    for a, b in _SAME_SEEDS:
        A, B = heatmaps[a], heatmaps[b]
        _, _, ia, ib = _shared(A, B)
        if not np.array_equal(A.E[ia][..., 0], B.E[ib][..., 0]) or np.any(
            A.E[ia][..., 1:] == B.E[ib][..., 1:]
        ):
            raise files.error(
                f"{B.folder}/curves_long.csv", f"does not share its seeds with {a} as noted"
            )
        for x, y in ((a, b), (b, a)):
            notes[x].append(
                f"same seeds as {y} (E_0 equal in all {A.E[ia][..., 0].size} cells) but "
                "another model: E_t differs at every t >= 1 in every cell"
            )
    for a, b in _SAME_CELLS:
        A, B = heatmaps[a], heatmaps[b]
        Ms, Ns, ia, ib = _shared(A, B)
        if not np.array_equal(A.E[ia], B.E[ib]):
            raise files.error(f"{B.folder}/curves_long.csv", f"differs from {a} as noted")
        whole = len(Ms) == len(A.M) == len(B.M) and len(Ns) == len(A.N) == len(B.N)
        where = "in every cell" if whole else f"at M = {_grid_text(Ms)} (every N)"
        for x, y in ((a, b), (b, a)):
            notes[x].append(
                f"E_t equal to {y}'s, digit for digit at every depth, {where}: the same "
                "training, run again"
            )
    for name, (of, trial) in _RERUNS.items():
        rerun, whole = dynamics[name], dynamics[of]
        for c in rerun.curves:
            if not np.array_equal(c.E, whole.curve(c.N, c.M).E[trial : trial + 1]):
                raise files.error(
                    f"{rerun.folder}/raw_eval_curves.npz", f"is not trial {trial} of {of} as noted"
                )
        notes[name].append(f"a single-trial rerun of trial {trial} of {of} (equal curves)")
        notes[of].append(f"trial {trial} is rerun alone by {name} (equal curves)")
    for name, view in learned.items():
        notes[name].append("the files hold -V and -W; V and W here are negated back")
        if view.M == view.N:
            notes[name].append(
                f"M = L = {view.M}, a panel of the paper's Appendix A figure; the release does "
                "not say which run the authors' figure is drawn from"
            )
    return {name: tuple(text) for name, text in notes.items()}


_RELEASE_NOTES = (
    "Data: x ~ N(0, I_D), w ~ N(0, I_D), y = w . x, no label noise; D = 50 (10 for the "
    "learned parameters).",
    _PROTOCOL_NOTE,
)

_CACHE = {}


def release(directory=None) -> Release:
    """Every run the authors released, parsed from the checked record.

    Parameters
    ----------
    directory : str or Path, optional
        The folder holding ``authors_released.json`` (default: ``book/results/``).

    Returns
    -------
    Release
        ``heatmaps``, ``dynamics`` and ``learned``: ``{run name:`` :class:`Heatmap`,
        :class:`Dynamics` or :class:`Learned` ``}``; ``record``; ``notes``.  Arrays are
        read-only (the views are shared between calls).

    Raises
    ------
    cotbook.book.records.ResultError
        Naming the file, if the record is missing, a stored file's bytes or blob id are not
        the manifest's, or a file does not parse as described.

    Examples
    --------
    >>> runs = release()
    >>> trial0 = runs.dynamics["linear_dynamics_20260417_170446"].curve(N=30, M=200)
    >>> trial0.E.shape, runs.dynamics["linear_dynamics_20260417_164420"].rerun_of
    ((5, 22), ('linear_dynamics_20260417_170446', 0))
    >>> runs.learned["M200_N200"].V.shape
    (22, 22)
    """
    if directory is None:
        directory = records.RESULTS_DIR
    if not isinstance(directory, (str, Path)) or not Path(directory).is_dir():
        raise ValueError(f"directory must be an existing folder, got {directory!r}")
    path = Path(directory).resolve() / f"{manifest.NAME}.json"
    stat = path.stat() if path.is_file() else None
    key = (str(path), None if stat is None else (stat.st_mtime_ns, stat.st_size))
    if key in _CACHE:
        return _CACHE[key]
    record = manifest.load(directory)
    files = _Files(record)
    heatmaps = {name: _heatmap(files, name) for name in HEATMAPS}
    dynamics = {name: _dynamics(files, name) for name in DYNAMICS}
    learned = {name: _learned(files, name) for name in LEARNED}
    notes = _notes(files, heatmaps, dynamics, learned)

    def finish(view):
        arrays = [v for v in vars(view).values() if isinstance(v, np.ndarray)]
        for curve in getattr(view, "curves", ()):
            arrays += [curve.E, curve.mean, curve.sem]
        for array in arrays:
            array.flags.writeable = False
        return dataclasses.replace(view, notes=notes[view.name])

    out = Release(
        {k: finish(v) for k, v in heatmaps.items()},
        {k: finish(v) for k, v in dynamics.items()},
        {k: finish(v) for k, v in learned.items()},
        record,
        _RELEASE_NOTES,
    )
    _CACHE.clear()
    _CACHE[key] = out
    return out


def run(name, directory=None):
    """One run of the release, by name (:func:`release`).

    Parameters
    ----------
    name : str
        A run's name: a key of :data:`HEATMAPS`, :data:`DYNAMICS` or :data:`LEARNED`.
    directory : str or Path, optional
        As for :func:`release`.

    Returns
    -------
    Heatmap, Dynamics or Learned

    Examples
    --------
    >>> fig2c = run("softmax_heatmap_20260417_195912")
    >>> fig2c.config.mask, fig2c.figure, fig2c.figure_t, len(fig2c.M), len(fig2c.N)
    ('data_only', 'Figure 2C', 30, 15, 15)
    """
    names = [*HEATMAPS, *DYNAMICS, *LEARNED]
    if name not in names:
        raise ValueError(f"name must be one of {names}, got {name!r}")
    return release(directory).runs[name]
