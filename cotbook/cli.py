"""Command line: ``python -m cotbook <command>`` (``--help`` on each command says more).

- ``chapters [NAME ...]``: execute chapters into ``tests/book/notebooks/`` (the nbval copies),
  failing if one takes longer than its budget; the phase-diagram chapter also refreshes the
  figure README.md shows.
- ``simulate``: the theory-vs-simulation study (Appendix E figure).
- ``experiments``: trained attention over the (L, M) grid (Figure 2) and the sensitivity study;
  ``--only softmax``: what trained softmax attention learns, under the untried protocols.
- ``bench {theory,simulate,accuracy,attention}``: timings; ``accuracy`` and ``attention`` save
  a record.

Long runs save a record (:mod:`cotbook.book.results`): at the committed scale into
``book/results/``, at any other scale into ``_build/results/`` (ignored by git), or into
``--out DIR``.  They checkpoint every finished unit; ``--resume`` finishes an interrupted run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .book import chapters, results, runner

CHAPTER_BUDGET_S = 180.0

# Wall-clock times measured on 2 cores (the paper-scale ones are also stored in their records).
_SIMULATE_TIMES = {"tiny": "1 s", "book": "40 s", "paper": "3 min", "precision": "6 min"}
_EXPERIMENT_TIMES = {
    "tiny": "5 s",
    "book": "2 min",
    "paper": "grid 21 min + sensitivity 5 min + instability 47 min (busy) + softmax 10 min",
}


_SCALE_HELP = "size of the run (default: %(default)s)"
_SEED_HELP = "root of every random stream of the run (default: %(default)s)"


def _seed(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text}")
    return value


def _positive_float(text):
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text}")
    return value


def _chapters(args) -> int:
    root = Path(args.root)
    paths = chapters.chapter_paths(root)
    if args.names:
        unknown = set(args.names) - {p.stem for p in paths}
        if unknown:
            raise SystemExit(
                f"unknown chapter(s): {', '.join(sorted(unknown))}; "
                f"chapters are: {', '.join(p.stem for p in paths)}"
            )
        paths = [p for p in paths if p.stem in args.names]
    slow = []
    for path in paths:
        print(f"executing {path.relative_to(root)} ...", flush=True)
        seconds = chapters.execute(path, chapters.executed_copy(root, path))
        print(f"  {seconds:.1f} s -> {chapters.executed_copy(root, path).relative_to(root)}")
        if seconds > args.budget:
            slow.append(f"{path.stem} ({seconds:.0f} s)")
        if path.stem == chapters.README_FIGURE[0]:
            print(f"  README figure -> {chapters.write_readme_figure(root).relative_to(root)}")
    if slow:
        print(f"over the {args.budget:.0f} s budget: {', '.join(slow)}", file=sys.stderr)
        return 1
    return 0


def _study(name, scale, spec, run_unit, assemble, args, **extra) -> None:
    path = runner.run_study(
        name,
        scale,
        spec,
        run_unit,
        assemble,
        out=args.out,
        force=args.force,
        resume=args.resume,
        environment_extra=extra or None,
    )
    print(f"saved {path}")


def _simulate(args) -> int:
    from .simulation import finite_size

    spec = finite_size.SCALES[args.scale]
    spec = finite_size.SimulationSpec.from_dict(dict(spec.to_dict(), seed=args.seed))
    name = "theory_vs_simulation_precision" if args.scale == "precision" else "theory_vs_simulation"
    _study(name, args.scale, spec, finite_size.run_unit, finite_size.assemble, args)
    return 0


def _experiments(args) -> int:
    from .attention import grid, instability, layer, softmax_study

    jobs = {  # --only name: (record, scales, spec class, module with run_unit and assemble)
        "grid": ("attention_grid", grid.GRID_SCALES, grid.GridSpec, grid),
        "sensitivity": (
            "attention_sensitivity",
            grid.SENSITIVITY_SCALES,
            grid.SensitivitySpec,
            grid,
        ),
        "instability": (
            "attention_instability",
            instability.SCALES,
            instability.InstabilitySpec,
            instability,
        ),
        "softmax": (
            "attention_softmax",
            softmax_study.SCALES,
            softmax_study.SoftmaxSpec,
            softmax_study,
        ),
    }
    chosen = [args.only] if args.only else [w for w in jobs if args.scale in jobs[w][1]]
    for what in chosen:
        if args.scale not in jobs[what][1]:
            raise SystemExit(
                f"--scale {args.scale} is not a scale of {what}: {sorted(jobs[what][1])}"
            )
    for what in chosen:
        name, scales, kind, module = jobs[what]
        spec = kind.from_dict(dict(scales[args.scale].to_dict(), seed=args.seed))
        _study(
            name,
            args.scale,
            spec,
            module.run_unit,
            module.assemble,
            args,
            device=str(layer.device()),
        )
    return 0


def _save_measured(name, config, compute, out) -> dict:
    """Run ``compute() -> data`` and save it as the record ``name`` (its committed scale)."""
    directory = runner.output_directory(name, "paper", out)
    code = results.code_info(results.RESULTS[name].producers)  # the code this run starts with
    start = time.perf_counter()
    data = compute()
    timings = {"total": time.perf_counter() - start}
    path = results.save(
        name,
        scale="paper",
        config=config,
        data=data,
        timings=timings,
        code=code,
        directory=directory,
    )
    print(f"saved {path}")
    return data


def _bench(args) -> int:
    from . import bench

    if args.what == "accuracy":
        from .theory import numerics

        config = {
            "t_max": 80,
            "dps": 50,
            "points": [list(map(str, p)) for p in numerics.ACCURACY_POINTS],
        }

        def accuracy():
            return {"rows": [list(row) for row in numerics.accuracy_rows(80, dps=50)]}

        _save_measured("theory_accuracy", config, accuracy, args.out)
        return 0
    if args.what == "attention":
        settings = dict(bench.ATTENTION_SETTINGS)
        report = _save_measured(
            "attention_benchmark", settings, lambda: bench.attention_benchmark(**settings), args.out
        )
    else:
        report = {"theory": bench.theory_benchmark, "simulate": bench.simulate_benchmark}[
            args.what
        ]()
    for key, value in report.items():
        print(f"{key}: {value}")
    return 0


def _scales_help(times, committed) -> str:
    return "; ".join(
        f"{scale}: ~{t}" + (" (committed to book/results/)" if scale in committed else "")
        for scale, t in times.items()
    )


def _add_output_options(p) -> None:
    p.add_argument(
        "--out",
        metavar="DIR",
        help="write the record into DIR (default: book/results/ at the committed scale, "
        "_build/results/ at any other)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="allow another scale to overwrite a committed record in book/results/",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="finish an interrupted run from its checkpoint (<out>/<name>.partial/)",
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="cotbook", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("chapters", help="execute chapters into tests/book/notebooks (nbval copies)")
    p.add_argument("names", nargs="*", help="chapter names (file stems); default: all")
    p.add_argument("--root", default=".", help="repository root (default: %(default)s)")
    p.add_argument(
        "--budget",
        type=_positive_float,
        default=CHAPTER_BUDGET_S,
        help="seconds per chapter (default: %(default)s)",
    )
    p.set_defaults(run=_chapters)
    p = sub.add_parser(
        "simulate",
        help="theory vs finite-D simulation (Appendix E figure)",
        description="Theory vs finite-D simulation (Appendix E figure).  Scales: "
        + _scales_help(_SIMULATE_TIMES, ("paper", "precision")),
    )
    p.add_argument("--scale", choices=list(_SIMULATE_TIMES), default="book", help=_SCALE_HELP)
    p.add_argument("--seed", type=_seed, default=0, help=_SEED_HELP)
    _add_output_options(p)
    p.set_defaults(run=_simulate)
    p = sub.add_parser(
        "experiments",
        help="trained attention models over (L, M) (Figure 2)",
        description="Trained attention over the (L, M) grid (Figure 2) and the sensitivity "
        "study.  Scales: " + _scales_help(_EXPERIMENT_TIMES, ("paper",)),
    )
    p.add_argument("--scale", choices=list(_EXPERIMENT_TIMES), default="book", help=_SCALE_HELP)
    p.add_argument(
        "--only", choices=["grid", "sensitivity", "instability", "softmax"], help="(default: all)"
    )
    p.add_argument("--seed", type=_seed, default=0, help=_SEED_HELP)
    _add_output_options(p)
    p.set_defaults(run=_experiments)
    p = sub.add_parser(
        "bench",
        help="timings; accuracy and attention save a record",
        description="theory: fast engine vs the recursion (~1 min); simulate: engine timings "
        "(~1 min); accuracy: the Appendix D accuracy table, t <= 80 (~1 min, saved); "
        "attention: one training run, fast vs literal (~4 min, saved).",
    )
    p.add_argument("what", choices=["theory", "simulate", "accuracy", "attention"])
    p.add_argument(
        "--out", metavar="DIR", help="folder for the saved record (default: book/results/)"
    )
    p.set_defaults(run=_bench)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ValueError as err:
        parser.exit(2, f"cotbook {args.command}: {err}\n")
