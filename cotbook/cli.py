"""Command line: ``python -m cotbook <command>``.

- ``chapters [NAME ...]``: execute chapters into ``tests/notebooks/`` (the nbval copies) and fail
  if one takes longer than its budget; executing the phase-diagram chapter also refreshes the
  figure that README.md shows (``chapters.README_FIGURE``).
- ``simulate --scale {book,paper,precision}``: the theory-vs-simulation study (Appendix E
  figure), saved to ``book/results/theory_vs_simulation[_precision].json``.
- ``experiments --scale {book,paper} [--only grid|sensitivity]``: trained attention models over
  the (L, M) grid (Figure 2) and the sensitivity study, saved to
  ``book/results/attention_{grid,sensitivity}.json``.
- ``bench {theory,simulate,attention}``: speed and accuracy benchmarks, printed as ``key: value``
  lines;
  ``bench accuracy``: the fast theory against the paper's recursion at t <= 80, saved to
  ``book/results/theory_accuracy.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import chapters, finite_size, results

CHAPTER_BUDGET_S = 180.0


def _chapters(args) -> int:
    root = Path(args.root)
    paths = chapters.chapter_paths(root)
    if args.names:
        unknown = set(args.names) - {p.stem for p in paths}
        if unknown:
            raise SystemExit(f"unknown chapter(s): {', '.join(sorted(unknown))}")
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


def _simulate(args) -> int:
    config = dict(finite_size.SCALES[args.scale], sigma2=finite_size.SIGMA2, lam=finite_size.LAM)
    config["seed"] = args.seed
    record = finite_size.run(**config, progress=True)
    config["dims"] = list(config["dims"])
    path = results.save(
        finite_size.result_name(args.scale),
        dict(config, scale=args.scale),
        record["panels"],
        record["timings_s"],
    )
    print(f"saved {path} ({sum(record['timings_s'].values()):.0f} s of simulation)")
    return 0


def _experiments(args) -> int:
    from . import attention, experiments

    jobs = {
        "grid": (experiments.GRID_RESULT, experiments.SCALES, experiments.run_grid),
        "sensitivity": (
            experiments.SENSITIVITY_RESULT,
            experiments.SENSITIVITY_SCALES,
            experiments.run_sensitivity,
        ),
    }
    for what in [args.only] if args.only else list(jobs):
        name, scales, run = jobs[what]
        scale = scales[args.scale]
        start = time.perf_counter()
        out = run(**scale, seed=args.seed, progress=True)
        timings = dict(out.pop("timings_s"), total=time.perf_counter() - start)
        config = attention.Config(model="linear", L=1, M=1, seed=args.seed).as_dict()
        for key in ("model", "L", "M", "trial"):
            config.pop(key)
        config.update(json.loads(json.dumps(scale)), scale=args.scale)
        config["device"] = str(attention.device())
        if what == "sensitivity":
            config["variants"] = experiments.VARIANTS
        path = results.save(name, config, out, timings)
        print(f"saved {path} ({timings['total']:.0f} s)")
    return 0


def _bench(args) -> int:
    from . import bench

    if args.what == "accuracy":
        start = time.perf_counter()
        rows = bench.accuracy_rows(80, dps=50)
        config = {
            "t_max": 80,
            "dps": 50,
            "points": [list(map(str, p)) for p in bench.ACCURACY_POINTS],
        }
        timings = {"total": time.perf_counter() - start}
        path = results.save(bench.ACCURACY_RESULT, config, {"rows": rows}, timings)
        print(f"saved {path}")
        return 0
    if args.what == "attention":
        import torch

        report = bench.attention_benchmark(**bench.ATTENTION_SETTINGS)
        config = dict(bench.ATTENTION_SETTINGS, torch_threads=torch.get_num_threads())
        timings = {k: v for k, v in report.items() if k.endswith("_s")}
        print(f"saved {results.save(bench.ATTENTION_RESULT, config, report, timings)}")
    else:
        report = {"theory": bench.theory_benchmark, "simulate": bench.simulate_benchmark}[
            args.what
        ]()
    for key, value in report.items():
        print(f"{key}: {value}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="cotbook", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("chapters", help="execute chapters into tests/notebooks (nbval copies)")
    p.add_argument("names", nargs="*", help="chapter names (file stems); default: all")
    p.add_argument("--root", default=".", help="repository root (default: .)")
    p.add_argument("--budget", type=float, default=CHAPTER_BUDGET_S, help="seconds per chapter")
    p.set_defaults(run=_chapters)
    p = sub.add_parser("simulate", help="theory vs finite-D simulation (Appendix E figure)")
    p.add_argument("--scale", choices=sorted(finite_size.SCALES), default="paper")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(run=_simulate)
    p = sub.add_parser("experiments", help="trained attention models over (L, M) (Figure 2)")
    p.add_argument("--scale", choices=["book", "paper"], default="paper")
    p.add_argument("--only", choices=["grid", "sensitivity"], help="default: both")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(run=_experiments)
    p = sub.add_parser("bench", help="speed/accuracy benchmarks")
    p.add_argument("what", choices=["theory", "simulate", "accuracy", "attention"])
    p.set_defaults(run=_bench)
    args = parser.parse_args(argv)
    return args.run(args)
