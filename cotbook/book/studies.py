"""The one loader behind every chapter that shows a long run: read its saved record (and say
so, with the code that wrote it and whether that code is stale), or run it now at a smaller
scale (and say that).

Each function returns a :class:`Study`; its ``caption`` is what the chapter prints.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
from dataclasses import dataclass
from typing import NamedTuple

from . import records

# Each study imports the wing it reads inside its function: a chapter that reads a theory
# record does not pay for torch, numba's attention kernels or Dask (about 2.5 s per kernel).

__all__ = [
    "Study",
    "caption",
    "grid",
    "sensitivity",
    "instability",
    "softmax",
    "lottery",
    "protocol",
    "recheck",
    "side_by_side",
    "their_draws",
    "reruns",
    "explorer",
    "simulation",
    "simulation_precision",
    "corrections",
    "finite_d_shares",
    "accuracy",
    "theory_benchmark",
    "ridge_coverage",
    "CostRow",
    "run_costs",
    "CommandCost",
    "command_costs",
    "ScalingRow",
    "scaling",
    "ScalingMeasured",
    "scaling_measured",
]


@dataclass(frozen=True)
class Study:
    """A study to show: its spec, data and timings, the caption that says where they come
    from, and the saved record they were read from (``None`` when computed now)."""

    spec: object
    data: dict
    timings_s: dict
    caption: str
    record: records.Record | None


#: Width of a caption line: a chapter prints it in the text column (80 characters fit).
CAPTION_WIDTH = 78


def caption(scale, origin, description, record=None) -> str:
    """What a chapter prints under a study: its scale and origin, what it is, the code that
    wrote its record and whether that code is stale, wrapped to :data:`CAPTION_WIDTH`."""
    lines = [f"{scale} scale, {origin}", description]
    if record is not None:
        lines.append(f"written by {record.written_by()}")
        if record.stale:
            lines.append(f"written by older code: rerun `{record.spec.command}`")
    first, *rest = lines
    wrapped = textwrap.wrap(first, CAPTION_WIDTH, subsequent_indent="  ")
    for line in "\n".join(rest).splitlines():
        wrapped += textwrap.wrap(
            line.strip(), CAPTION_WIDTH, initial_indent="  ", subsequent_indent="    "
        )
    return "\n".join(wrapped)


def _saved(name, from_dict, describe) -> Study | None:
    record = records.load(name)
    if record is None:
        return None
    try:
        spec = from_dict(record.config)
    except (ValueError, TypeError) as err:
        raise records.ResultError(f"{record.path}: invalid configuration ({err})") from None
    origin = f"read from book/results/{record.path.name}"
    text = caption(record.scale, origin, describe(spec), record)
    return Study(spec, record.data, record.timings_s, text, record)


def _computed(scale, spec, run, describe) -> Study:
    data, timings = run(spec)
    return Study(spec, data, timings, caption(scale, "computed now", describe(spec)), None)


def _check_scale(scale, scales):
    if scale not in scales:
        raise ValueError(f"scale must be one of {sorted(scales)}, got {scale!r}")


def _saved_or_now(name, scale, scales, from_dict, run, describe) -> Study:
    """The saved record of ``name``, else ``run(scales[scale])`` now."""
    _check_scale(scale, scales)
    saved = _saved(name, from_dict, describe)
    if saved is not None:
        return saved
    return _computed(scale, scales[scale], run, describe)


def _required(name, from_dict, describe) -> Study:
    """:func:`_saved`, where a missing record is a :class:`~cotbook.book.records.ResultError`
    that names the command writing it (a run too long for a chapter)."""
    saved = _saved(name, from_dict, describe)
    if saved is None:
        raise records.ResultError(
            f"no {name} record in {records.RESULTS_DIR}: run `{records.RESULTS[name].command}`"
        )
    return saved


def _describe_grid(spec) -> str:
    return (
        f"L = {list(spec.Ls)}\n  M = {list(spec.Ms)}\n"
        f"  {spec.trials} trials, {spec.settings['steps']} steps"
    )


def grid(scale="book") -> Study:
    """The Figure 2 grid: the saved ``attention_grid`` record, else :func:`grid.run
    <cotbook.attention.grid.run>` at ``scale`` now."""
    from ..attention import grid as attention_grid

    return _saved_or_now(
        "attention_grid",
        scale,
        attention_grid.GRID_SCALES,
        attention_grid.GridSpec.from_dict,
        attention_grid.run,
        _describe_grid,
    )


def sensitivity() -> Study | None:
    """The saved sensitivity study, or ``None`` (too long to run inside a chapter)."""
    from ..attention import grid as attention_grid

    return _saved(
        "attention_sensitivity",
        attention_grid.SensitivitySpec.from_dict,
        lambda spec: f"points (L, M) = {[list(p) for p in spec.points]}, {spec.trials} trials",
    )


def instability() -> Study | None:
    """The saved instability study (:mod:`cotbook.attention.instability`), or ``None``."""
    from ..attention import instability as attention_instability

    return _saved(
        "attention_instability",
        attention_instability.InstabilitySpec.from_dict,
        lambda spec: (
            f"{len(spec.Ls)} x {len(spec.Ms)} grid at D = {spec.D}, {spec.tasks} test tasks "
            f"per cell; D = {list(spec.dims)} at (alpha, tau) = "
            f"{', '.join(str(p) for p in spec.points)}; sigma2 = {list(spec.sigma2s)} at "
            f"{spec.points[0]}"
        ),
    )


def _describe_softmax(spec) -> str:
    return (
        f"points (L, M) = {[list(p) for p in spec.points]} at D = {spec.settings['D']}, "
        f"{len(spec.variants)} protocols, {spec.trials} trials"
    )


def softmax(scale="book") -> Study:
    """The softmax study (:mod:`cotbook.attention.softmax_study`): the saved
    ``attention_softmax`` record, else its ``scale`` run now."""
    from ..attention import softmax_study as attention_softmax

    return _saved_or_now(
        "attention_softmax",
        scale,
        attention_softmax.SCALES,
        attention_softmax.SoftmaxSpec.from_dict,
        attention_softmax.run,
        _describe_softmax,
    )


def lottery(scale="book") -> Study:
    """The lottery of the late-depth mean (:mod:`cotbook.attention.lottery`): the saved
    ``authors_lottery`` record, else its ``scale`` run now."""
    from ..attention import lottery as attention_lottery

    return _saved_or_now(
        "authors_lottery",
        scale,
        attention_lottery.SCALES,
        attention_lottery.LotterySpec.from_dict,
        attention_lottery.run,
        lambda spec: (
            f"(L, M) = ({spec.L}, {spec.M}) at D = {spec.settings['D']}, {spec.sets} test sets "
            f"of {spec.tasks} tasks, lambda = {spec.settings['lam']:g}, "
            f"{spec.settings['steps']} steps"
        ),
    )


def protocol() -> Study | None:
    """The authors' released protocol run by the book (:mod:`cotbook.attention.protocol`):
    the saved ``authors_protocol`` record, or ``None`` (too long to run inside a chapter)."""
    from ..attention import protocol as attention_protocol

    return _saved(
        "authors_protocol",
        attention_protocol.ProtocolSpec.from_dict,
        _describe_protocol,
    )


def recheck() -> Study | None:
    """Fresh trials of the authors' protocol where their value fell outside the book's
    (:mod:`cotbook.attention.recheck`): the saved ``authors_recheck`` record, or ``None``."""
    from ..attention import protocol as attention_protocol

    return _saved(
        "authors_recheck",
        attention_protocol.ProtocolSpec.from_dict,
        _describe_protocol,
    )


def side_by_side() -> Study | None:
    """The book's trials at the cells set beside the authors' script
    (:mod:`cotbook.attention.side_by_side`): the saved ``authors_side_by_side`` record, or
    ``None``."""
    from ..attention import protocol as attention_protocol

    return _saved(
        "authors_side_by_side", attention_protocol.ProtocolSpec.from_dict, _describe_protocol
    )


def their_draws() -> Study | None:
    """The book's computation fed the authors' draws (:mod:`cotbook.attention.their_draws`):
    the saved ``authors_draws`` record, or ``None``."""
    from ..attention import their_draws as draws

    return _saved(
        "authors_draws",
        draws.DrawsSpec.from_dict,
        lambda spec: (
            f"{len(spec.cells)} cells x {len(spec.seeds)} seeds of their script "
            f"({spec.seeds[0]}..{spec.seeds[-1]}), the book's computation on their draws"
        ),
    )


def reruns() -> Study | None:
    """The authors' script run unmodified (:mod:`cotbook.book.authors_script`): the saved
    ``authors_reruns`` record, checked (:func:`cotbook.book.authors.rerun.load`), or
    ``None``."""
    from . import authors_script
    from .authors import rerun

    found = rerun.load()
    if found is None:
        return None
    record, spec = found
    cells = sorted({(L, M) for L, M, _ in spec.runs})
    text = caption(
        record.scale,
        f"read from book/results/{record.path.name}",
        f"{len(spec.runs)} runs of their {authors_script.SCRIPT} "
        f"({authors_script.REPOSITORY}@{authors_script.COMMIT[:7]}) in {len(cells)} cells",
        record,
    )
    return Study(spec, record.data, record.timings_s, text, record)


def explorer() -> Study | None:
    """The explorer's data (:mod:`cotbook.book.explorer`): the saved ``theory_explorer``
    record, or ``None`` (minutes to compute: ``python -m cotbook explorer``)."""
    from . import explorer as theory_explorer

    return _saved(
        "theory_explorer",
        theory_explorer.Grid.from_dict,
        lambda g: (
            f"{len(g.alphas)} x {len(g.taus)} points, alpha = {g.alphas[0]:g}..{g.alphas[-1]:g},"
            f" tau - 1 = {g.taus[0] - 1:g}..{g.taus[-1] - 1:g} (log-spaced);\n  sigma2 = "
            f"{', '.join(f'{x:g}' for x in g.sigma2s)}; every depth t = 0..{g.t_max}"
        ),
    )


def _span(values) -> str:
    values = sorted(set(values))
    return f"{values[0]}" if len(values) == 1 else f"{values[0]}..{values[-1]} ({len(values)})"


def _describe_protocol(spec) -> str:
    cells = [
        f"{model}: {len(cells)} cells, L = {_span(L for L, _ in cells)}, "
        f"M = {_span(M for _, M in cells)}"
        for model, cells in spec.cells.items()
    ]
    return "\n  ".join(
        [
            *cells,
            f"{spec.trials} trials from root seed {spec.settings['seed']}, "
            f"λ = {spec.settings['lam']:g}, {spec.settings['steps']} steps, t <= {spec.t_max}",
        ]
    )


def _describe_simulation(spec) -> str:
    return (
        f"D = {list(spec.dims)}, {spec.trials} trials, {spec.test_designs} test designs per trial"
    )


def _with_theory(study: Study | None) -> Study | None:
    """``study`` (of the simulations) with Result 1's curve beside each panel."""
    from ..simulation import against_theory

    if study is None:
        return None
    return dataclasses.replace(study, data=against_theory.with_theory(study.spec, study.data))


def simulation(scale="book") -> Study:
    """The theory-vs-simulation study (Appendix E figure): the saved record, else
    :func:`cotbook.simulation.finite_size.run` at ``scale`` now; ``data`` is its panels, each
    with Result 1's curve as ``"theory"``
    (:func:`cotbook.simulation.against_theory.with_theory`)."""
    from ..simulation import finite_size as fs

    _check_scale(scale, fs.SCALES)
    saved = _saved("theory_vs_simulation", fs.SimulationSpec.from_dict, _describe_simulation)
    if saved is None:
        saved = _computed(scale, fs.SCALES[scale], fs.run, _describe_simulation)
    return _with_theory(saved)


def _describe_corrections(spec) -> str:
    sets = ", ".join(f"{n} at D = {D}" for D, n in zip(spec.dims, spec.sets, strict=True))
    return f"lam = 0, pretraining sets: {sets}; {spec.test_designs} test designs per set"


def corrections() -> Study:
    """The measured finite-D corrections (:mod:`cotbook.simulation.corrections`): the saved
    ``finite_d_corrections`` record (an hour's run: a missing one is an error naming its
    command), ``data`` its points as saved; the table with Result 1 and the fits is
    :func:`cotbook.simulation.against_theory.corrections_table`."""
    from ..simulation import corrections as co

    return _required("finite_d_corrections", co.CorrectionsSpec.from_dict, _describe_corrections)


def simulation_precision() -> Study | None:
    """The saved precision run (20 trials at ``t <= 5``, panels with Result 1's curve, as in
    :func:`simulation`), or ``None``."""
    from ..simulation import finite_size as fs

    return _with_theory(
        _saved("theory_vs_simulation_precision", fs.SimulationSpec.from_dict, _describe_simulation)
    )


def finite_d_shares(*, level=None, top_share_max=None, reference="zero_start") -> tuple[list, str]:
    """How much of the trained layers' gap to twice Result 1 finite size explains at the grid's
    ``D``: ``(rows, caption)``, rows :class:`~cotbook.simulation.apportion.Share` for every
    cell of the saved ``finite_d_shares`` record (``L < D < M``, none chosen by its effect) at
    each depth of :data:`~cotbook.simulation.apportion.DEPTHS`, judged by
    :func:`~cotbook.simulation.apportion.cell_shares` (thresholds: its defaults unless given).

    Both records are read (a missing one is a :class:`~cotbook.book.records.ResultError` that
    names its command): the simulation's means, doubled (a random first estimate,
    :data:`cotbook.attention.versus_theory.E0_VARIANCE`), against the trained linear layers'
    five trials of the ``attention_grid`` record (history mask), both measured from twice
    Result 1 (:func:`cotbook.attention.versus_theory.theory_curve`).

    ``reference`` picks the simulated model handed to ``cell_shares`` as the simulated curve:
    ``"zero_start"`` (the paper's simplified model, pretrained from ``w_hat_0 = 0``) or
    ``"averaged"`` (pretrained on the objective averaged over a random ``w_hat_0``, as the
    trained layers are: :mod:`cotbook.simulation.finite_d_shares`)."""
    import numpy as np

    from ..attention import versus_theory
    from ..simulation import apportion
    from ..simulation import finite_d_shares as shares

    if reference not in ("zero_start", "averaged"):
        raise ValueError(f"reference must be 'zero_start' or 'averaged', got {reference!r}")

    def describe(spec):
        sets = spec.trials if reference == "zero_start" else spec.averaged_trials
        start = {
            "zero_start": "pretrained from a zero first estimate",
            "averaged": "pretrained averaged over random first estimates",
        }[reference]
        return (
            f"{len(spec.cells())} cells (L < D = {spec.D} < M), the model {start}: {sets} "
            f"pretraining sets x {spec.test_designs} test designs a cell, lambda = {spec.lam:g}"
        )

    sims = _required("finite_d_shares", shares.SharesSpec.from_dict, describe)
    grid = _required("attention_grid", dict, lambda c: f"{c['trials']} trained trials a cell")
    spec, config = sims.spec, grid.spec
    if config["D"] != spec.D or config["sigma2"] != spec.sigma2:
        raise records.ResultError(
            f"the grid's D = {config['D']}, sigma2 = {config['sigma2']} differ from the "
            f"simulation's D = {spec.D}, sigma2 = {spec.sigma2}"
        )
    history = np.asarray(grid.data["E"]["linear"]["history"], dtype=float)
    given = {"level": level, "top_share_max": top_share_max}
    thresholds = {k: v for k, v in given.items() if v is not None}
    k, rows = versus_theory.E0_VARIANCE, []
    for cell in sims.data["cells"].values():
        L, M = cell["L"], cell["M"]
        sim = cell if reference == "zero_start" else cell["averaged"]
        trained = history[config["Ls"].index(L), config["Ms"].index(M), :, : spec.t_max + 1]
        rows += apportion.cell_shares(
            L,
            M,
            spec.D,
            trained,
            versus_theory.theory_curve(L, M, spec.D, spec.t_max),
            k * np.asarray(sim["mean"]),
            k * np.asarray(sim["sem"]),
            sim["top_share"],
            typical=k * np.asarray(sim["median_of_group"]),
            pretraining_tail=reference == "zero_start",
            **thresholds,
        )
    text = sims.caption + "\n" + textwrap.indent(grid.caption, "  ")
    return rows, text


def accuracy(t_max_now=40) -> tuple[list, str]:
    """The Appendix D accuracy table: ``(rows, caption)`` with rows
    :class:`~cotbook.theory.numerics.AccuracyRow`, from the saved ``theory_accuracy`` record or
    computed now at ``t <= t_max_now``."""
    from ..theory import numerics

    def describe(spec):
        return f"t <= {spec.t_max}, recursion at {spec.dps} digits"

    saved = _saved("theory_accuracy", numerics.AccuracySpec.from_dict, describe)
    if saved is not None:
        return [numerics.AccuracyRow(*row) for row in saved.data["rows"]], saved.caption
    spec = numerics.AccuracySpec(t_max=t_max_now)
    rows = numerics.accuracy_rows(spec.t_max, dps=spec.dps, points=spec.points)
    return rows, caption("book", "computed now", describe(spec))


def theory_benchmark() -> Study:
    """The theory engine's timings (:func:`cotbook.bench.theory_benchmark`) from the saved
    ``theory_benchmark`` record; only the command line runs benchmarks, so a missing record is a
    :class:`~cotbook.book.records.ResultError` that names the command."""

    def describe(spec):
        a, tau, s2 = spec["point"]
        return (
            f"E_0..E_{spec['t_max']} at ({a:g}, {tau:g}, {s2:g}), a {spec['grid_n']} x "
            f"{spec['grid_n']} grid, single depths to 10^5"
        )

    return _required("theory_benchmark", dict, describe)


def ridge_coverage() -> Study:
    """The coverage study of the lambda > 0 engine (:mod:`cotbook.theory.ridge.coverage`) from
    the saved ``ridge_coverage`` record (a missing one is a
    :class:`~cotbook.book.records.ResultError` that names the command)."""
    from ..theory.ridge import coverage

    def describe(s):
        def box(name):
            lo, hi = getattr(s, name)
            return f"{name} in [{lo:g}, {hi:g}]"

        return (
            f"{s.count} points from seed {s.seed}, asked for t = {s.t_max}: {box('alpha')}, "
            f"{box('tau')}, {box('lam')} (log-uniform); sigma2 = 0 with probability "
            f"{s.zero_noise:g}, else in [{s.sigma2[0]:g}, {s.sigma2[1]:g}]"
        )

    return _required("ridge_coverage", coverage.CoverageSpec.from_dict, describe)


class CostRow(NamedTuple):
    """What one saved long run cost."""

    run: str
    measured: str
    time: str
    written_by: str


def run_costs() -> list[CostRow]:
    """One row per saved record: the grid and the sensitivity study (wall-clock of the run that
    wrote the record, on the engine it names) and ``python -m cotbook bench attention`` (one
    configuration, fast and literal, per model).  Records not saved are left out."""
    rows = []
    for name, what in (
        ("attention_grid", "Figure 2 grid"),
        ("attention_sensitivity", "sensitivity study"),
    ):
        record = records.load(name)
        if record is not None:
            wall = record.timings_s.get("this_session", record.timings_s.get("total"))
            engine = record.environment.get("engine", "serial, in this process")
            rows.append(
                CostRow(what, f"all units, {engine}", f"{wall / 60:.1f} min", record.written_by())
            )
    record = records.load("attention_benchmark")
    if record is not None:
        cfg, d = record.config, record.data
        for model in ("linear", "softmax"):
            rows.append(
                CostRow(
                    f"one {model} run (L = {cfg['L']}, M = {cfg['M']}, {cfg['steps']} steps)",
                    "fast / literal",
                    f"{d[f'{model}_fast_s']:.1f} s / {d[f'{model}_literal_s']:.1f} s "
                    f"= {d[f'{model}_speedup']:.1f}x",
                    record.written_by(),
                )
            )
    return rows


class CommandCost(NamedTuple):
    """What the run that wrote one committed record cost (:func:`command_costs`)."""

    command: str
    record: str
    work_min: float
    """Its units' times summed (each on one core; the whole run's where it has no units)."""
    wall_min: float | None
    """Wall-clock of the run that finished it (``None``: the same as ``work_min``)."""
    engine: str
    written_by: str
    cpu: str
    """The CPU it ran on (model and vector instruction sets), or ``"not recorded"``."""

    @property
    def where(self) -> str:
        """The engine in a word or two: ``"serial"``, ``"2 workers"``, ``"Dask scheduler"``."""
        local = re.match(r"local Dask cluster, (\d+) worker", self.engine)
        if local:
            return f"{local.group(1)} workers"
        return "serial" if self.engine.startswith("serial") else self.engine.split(" tcp")[0]


def command_costs() -> list[CommandCost]:
    """One row per committed record, in :data:`cotbook.book.records.RESULTS` order: the
    command that writes it and what the run that wrote it cost, read from the record's
    timings and environment (records not saved are left out)."""
    rows = []
    for name, spec in records.RESULTS.items():
        record = records.load(name)
        if record is None:
            continue
        timings = record.timings_s
        wall = timings.get("this_session")
        rows.append(
            CommandCost(
                spec.command.removeprefix("python -m cotbook "),
                name,
                timings.get("total", sum(timings.values())) / 60,
                None if wall is None else wall / 60,
                record.environment.get("engine", "serial, in this process"),
                record.written_by(),
                records.cpu_text(record.environment.get("cpu")),
            )
        )
    return rows


class ScalingRow(NamedTuple):
    """The Figure 2 grid on one engine: measured wall-clock (``None`` where not run) and the
    wall-clock predicted from one-thread unit costs (:func:`~cotbook.book.runs.scaling.makespan`
    plus the engine's start-up and close as measured), with its lower bound, in minutes."""

    engine: str
    measured_min: float | None
    predicted_min: float | None
    bound_min: float | None


def scaling(workers=(1, 2, 64, 512)) -> tuple[list[ScalingRow], str] | None:
    """``(rows, caption)`` from the saved ``engine_scaling`` record (``None`` without one):
    the serial run as measured, then for each count of ``workers`` the prediction from the
    per-unit costs of the one-worker run (one thread, nothing else running; units in
    submission order) plus the one-worker run's overhead (its wall-clock less its units: the
    cluster's start-up, dispatch and close), with the measured time for the counts that ran."""
    from .runs import scaling as engine_scaling

    record = records.load("engine_scaling")
    if record is None:
        return None
    runs = record.data["runs"]
    costs = list(runs["workers=1"]["unit_seconds"].values())
    overhead = runs["workers=1"]["wall_s"] - sum(costs)
    if overhead < 0:
        raise ValueError(
            f"engine_scaling: the one-worker run's units outlast its wall-clock by "
            f"{-overhead:.1f} s; the record is inconsistent"
        )
    rows = [ScalingRow(runs["serial"]["engine"], runs["serial"]["wall_s"] / 60, None, None)]
    for w in workers:
        measured = runs.get(f"workers={w}")
        rows.append(
            ScalingRow(
                f"{w} worker process{'es' if w > 1 else ''}",
                None if measured is None else measured["wall_s"] / 60,
                (overhead + engine_scaling.makespan(costs, w)) / 60,
                (overhead + engine_scaling.makespan_bound(costs, w)) / 60,
            )
        )
    origin = f"read from book/results/{record.path.name}"
    longest = max(runs["workers=1"]["unit_seconds"].items(), key=lambda item: item[1])
    speedups = ", ".join(f"{ratio}: {x:.2f}x" for ratio, x in record.data["speedup"].items())
    describe = (
        f"{len(costs)} units; wall-clock {speedups}; data "
        f"{'byte-identical in every run' if record.data['identical'] else 'DIFFERENT'}; "
        f"longest unit {longest[0]}, {longest[1]:.0f} s on one thread; predictions add "
        f"the cluster's start-up, dispatch and close, {overhead:.1f} s as the one-worker run "
        f"measured (warm numba cache)"
    )
    return rows, caption(record.scale, origin, describe, record)


class ScalingMeasured(NamedTuple):
    """What the ``engine_scaling`` record measured, as the running chapter quotes it."""

    minutes: dict
    """Wall-clock of each run (``"serial"``, ``"workers=1"``, ``"workers=2"``), minutes."""
    unit_minutes: dict
    """Each run's units summed, minutes."""
    speedup: dict
    """``"workers=1 / workers=2"`` and ``"serial / workers=2"``: ratios of wall-clocks."""
    identical: bool
    """Whether every run saved byte-identical data."""
    same_as_grid_record: bool
    """Whether those data are the committed ``attention_grid`` record's (same SHA-256)."""
    written_by: str
    """The code that wrote the record (:meth:`~cotbook.book.records.Record.written_by`)."""


def scaling_measured() -> ScalingMeasured | None:
    """The ``engine_scaling`` record's measurements (``None`` without one): the numbers the
    running chapter glues into its text, so that none of them is typed by hand."""
    record = records.load("engine_scaling")
    if record is None:
        return None
    runs = record.data["runs"]
    grid_record = records.load("attention_grid")
    return ScalingMeasured(
        minutes={k: r["wall_s"] / 60 for k, r in runs.items()},
        unit_minutes={k: sum(r["unit_seconds"].values()) / 60 for k, r in runs.items()},
        speedup=dict(record.data["speedup"]),
        identical=bool(record.data["identical"]),
        same_as_grid_record=grid_record is not None
        and all(r["data_sha256"] == grid_record.data_sha256 for r in runs.values()),
        written_by=record.written_by(),
    )
