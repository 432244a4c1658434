"""The command line's commands: what each ``python -m cotbook COMMAND`` does once its
arguments are parsed (:mod:`cotbook.cli` parses them and says what each command is for).

Each command imports only what it needs, inside its body: ``authors`` and ``theory`` start no
Dask, Jupyter or torch.  The long runs go through :func:`_studies` (checkpointed units on the
engine of ``--workers`` / ``--scheduler``) and the measurements through :func:`_save_measured`
(one record, timed).
"""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

from . import __version__
from .book import records


class _OverBudget(BaseException):  # not an Exception: no handler in the engine swallows it
    pass


def _within_cpu_budget(seconds, call):
    """``call()`` stopped with :class:`_OverBudget` once this process has spent ``seconds``
    of CPU time on it (``ITIMER_PROF``: a busy machine slows the wall clock, not this).  The
    timer fires again every 0.2 s until ``call`` returns, and whatever ``call`` raises after it
    first fired counts as the budget's: a signal that lands inside a compiled kernel's call
    back into Python (numba loading its cache) surfaces as a ``SystemError`` instead."""
    fired = []

    def over_budget(signum, frame):
        fired.append(signum)
        raise _OverBudget

    previous = signal.signal(signal.SIGPROF, over_budget)
    signal.setitimer(signal.ITIMER_PROF, seconds, 0.2)
    try:
        return call()
    except BaseException:
        if fired:
            raise _OverBudget from None
        raise
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def _theory(args) -> int:
    from .theory import LAM_RTOL, AccuracyError, summary

    def ask():
        return summary(args.alpha, args.tau, args.sigma2, args.t, lam=args.lam)

    try:
        point = _within_cpu_budget(args.budget, ask)
    except _OverBudget:
        depths = ", ".join(map(str, sorted(set(args.t))))
        raise SystemExit(
            f"cotbook theory: E_t at (alpha={args.alpha:g}, tau={args.tau:g}, "
            f"sigma2={args.sigma2:g}, lam={args.lam:g}) for t = {depths}: not answered within "
            f"the {args.budget:g} s budget of CPU time (ask for fewer or shallower depths, or "
            "give --budget SECONDS)"
        ) from None
    except AccuracyError as err:
        hint = ""
        if args.lam > 0:
            reach = getattr(err, "certified_to", None)
            deepest = f"t <= {reach}" if reach is not None and reach >= 0 else "shallower depths"
            hint = (
                f" (the lam > 0 curve is certified to {LAM_RTOL:g} relative + 1e-12 absolute; "
                f"here it is certified for {deepest}: ask for those)"
            )
        asked = ", ".join(map(str, sorted(set(args.t))))
        raise SystemExit(f"cotbook theory: for t = {asked}: {err}{hint}") from None
    if args.json:
        print(json.dumps({**point.to_dict(), "cotbook_version": __version__}, indent=2))
    elif args.csv:
        print(point.to_csv(), end="")
    else:
        print(point)
    return 0


def _chapters(args) -> int:
    from .book.build import chapters

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


def _studies(args, studies) -> int:
    """Run ``studies`` (``(name, spec, module with run_unit and assemble, environment
    extra)``) on the engine of ``--workers`` / ``--scheduler``; 1 if units failed."""
    from .book.runs import execution, kernel_cache, runner

    if args.workers is not None:  # the workers load what this process compiles once
        print(f"numba kernels compiled or loaded in {kernel_cache.warm():.1f} s", flush=True)
    try:
        with execution.open_engine(args.workers, args.scheduler, args.no_workers) as engine:
            print(f"running on: {engine.description}", flush=True)
            for name, spec, module, extra in studies:
                path = runner.run_study(
                    name,
                    args.scale,
                    spec,
                    module.run_unit,
                    module.assemble,
                    out=args.out,
                    force=args.force,
                    resume=args.resume,
                    engine=engine,
                    environment_extra=extra,
                )
                print(f"saved {path}")
    except (runner.RunFailed, execution.NoWorkers) as err:
        print(f"cotbook {args.command}: {err}", file=sys.stderr)
        return 1
    return 0


def _simulate(args) -> int:
    from .simulation import finite_size

    spec = finite_size.SCALES[args.scale]
    spec = finite_size.SimulationSpec.from_dict(dict(spec.to_dict(), seed=args.seed))
    name = "theory_vs_simulation_precision" if args.scale == "precision" else "theory_vs_simulation"
    return _studies(args, [(name, spec, finite_size, None)])


def _finite_d(args) -> int:
    from .simulation import corrections, finite_d_shares

    jobs = {  # --only name: (record, module with SCALES, run_unit and assemble, its spec class)
        "corrections": ("finite_d_corrections", corrections, corrections.CorrectionsSpec),
        "shares": ("finite_d_shares", finite_d_shares, finite_d_shares.SharesSpec),
    }
    chosen = [args.only] if args.only else list(jobs)
    studies = []
    for what in chosen:
        name, module, kind = jobs[what]
        if args.scale not in module.SCALES:
            raise SystemExit(
                f"--scale {args.scale} is not a scale of {what}: {sorted(module.SCALES)}"
            )
        spec = kind.from_dict(dict(module.SCALES[args.scale].to_dict(), seed=args.seed))
        studies.append((name, spec, module, None))
    return _studies(args, studies)


def _experiments(args) -> int:
    from .attention import (
        grid,
        instability,
        layer,
        lottery,
        protocol,
        recheck,
        side_by_side,
        softmax_study,
        their_draws,
    )

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
        "lottery": ("authors_lottery", lottery.SCALES, lottery.LotterySpec, lottery),
        # hours at paper scale: run only when asked for by name
        "protocol": ("authors_protocol", protocol.SCALES, protocol.ProtocolSpec, protocol),
        "recheck": ("authors_recheck", recheck.SCALES, protocol.ProtocolSpec, protocol),
        "side_by_side": (
            "authors_side_by_side",
            side_by_side.SCALES,
            protocol.ProtocolSpec,
            protocol,
        ),
        "their_draws": ("authors_draws", their_draws.SCALES, their_draws.DrawsSpec, their_draws),
    }
    by_name = ("protocol", "recheck", "side_by_side", "their_draws")
    default = [w for w in jobs if w not in by_name and args.scale in jobs[w][1]]
    chosen = [args.only] if args.only else default
    for what in chosen:
        if args.scale not in jobs[what][1]:
            raise SystemExit(
                f"--scale {args.scale} is not a scale of {what}: {sorted(jobs[what][1])}"
            )
    studies = []
    for what in chosen:
        name, scales, kind, module = jobs[what]
        seed = {} if args.seed is None else {"seed": args.seed}
        spec = kind.from_dict(dict(scales[args.scale].to_dict(), **seed))
        studies.append((name, spec, module, {"device": str(layer.device())}))
    return _studies(args, studies)


def _save_measured(name, config, compute, out, scale="paper", *, timings=None, engine=None):
    """Run ``compute() -> data`` and save it as the record ``name`` at ``scale``; its timings
    are the run's wall-clock, or ``timings(data)`` where the data measured their own (on the
    ``engine`` named)."""
    from .book.runs import runner

    directory = runner.output_directory(name, scale, out)
    code = records.code_info(records.RESULTS[name].producers)  # the code this run starts with
    start = time.perf_counter()
    data = compute()
    elapsed = {"total": time.perf_counter() - start}
    path = records.save(
        name,
        scale=scale,
        config=config,
        data=data,
        timings=elapsed if timings is None else timings(data),
        code=code,
        environment_extra=None if engine is None else {"engine": engine},
        directory=directory,
    )
    print(f"saved {path}")
    return data


def _bench(args) -> int:
    from . import bench

    if args.what == "accuracy":
        from .theory import numerics

        spec = numerics.SCALES[args.scale]
        return _studies(args, [("theory_accuracy", spec, numerics, None)])
    if args.what == "coverage":
        from .theory.ridge import coverage as ridge_coverage

        spec = ridge_coverage.SCALES[args.scale]
        return _studies(args, [("ridge_coverage", spec, ridge_coverage, None)])
    if args.what == "scaling":
        from .book.runs import scaling

        config = {"study": "attention_grid", "scale": args.scale, "workers": args.workers}
        runs = None if args.out is None else Path(args.out) / "engine_scaling-runs"
        data = _save_measured(
            "engine_scaling",
            config,
            lambda: scaling.measure(args.scale, args.workers, runs, resume=args.resume),
            args.out,
            scale=args.scale,
        )
        for label, run in data["runs"].items():
            print(f"{label}: {run['wall_s']:.1f} s")
        for ratio, x in data["speedup"].items():
            print(f"{ratio}: {x:.2f}x")
        print(f"data identical: {data['identical']}")
        return 0
    if args.what == "tests":
        from .book import suite_timing

        data = _save_measured(
            "test_suite",
            {"command": "python " + " ".join(suite_timing.COMMAND)},
            lambda: suite_timing.measure(args.root),
            args.out,
            # as a long run's record: the work (CPU time, all processes) and the wall-clock
            timings=lambda data: {"total": data["cpu_s"], "this_session": data["wall_s"]},
            engine=suite_timing.ENGINE,
        )
        print(f"{data['tests']} tests in {data['wall_s'] / 60:.1f} min, {data['cpu_s']:.0f} CPU s")
        for group, seconds, share in suite_timing.summary(data)[0]:
            print(f"  {group}: {seconds:.0f} test-s ({share:.0%})")
        return 0
    if args.what == "attention":
        settings = dict(bench.ATTENTION_SETTINGS)
        report = _save_measured(
            "attention_benchmark", settings, lambda: bench.attention_benchmark(**settings), args.out
        )
    elif args.what == "theory":
        report = _save_measured(
            "theory_benchmark",
            records.default_config(bench.theory_benchmark),
            bench.theory_benchmark,
            args.out,
        )
    else:
        report = bench.simulate_benchmark()
    for key, value in report.items():
        print(f"{key}: {value}")
    return 0


def _explorer(args) -> int:
    from .book import explorer

    grid = explorer.SCALES[args.scale]
    data = _save_measured(
        "theory_explorer", grid.to_dict(), lambda: explorer.measure(grid), args.out, args.scale
    )
    for row in data["interpolation"]:
        print(
            f"sigma2 = {row['sigma2']:g}: interpolation error median {row['median']:.3g}, "
            f"95% {row['p95']:.3g}, largest {row['largest']:.3g} decades"
        )
    return 0


def _precompute(args) -> int:
    from .book import precomputed

    for name in args.only or list(precomputed.STUDIES):
        study = precomputed.STUDIES[name]
        _save_measured(name, study.config, lambda s=study: s.compute(s.config), args.out)
    return 0


def _build(args) -> int:
    from .book.build import read_build

    start = time.monotonic()
    built = read_build.build(args.root, execute=args.execute)
    if built.returncode != 0:
        print(built.log[-5000:], file=sys.stderr)
        print(
            f"the build failed (exit status {built.returncode}); its log ends above",
            file=sys.stderr,
        )
        return 1
    print(f"built {built.html / 'index.html'} in {time.monotonic() - start:.0f} s")
    return 0


def _pdf(args) -> int:
    from pypdf import PdfReader

    from .book.build import pdf

    out = pdf.build(args.html, args.out, jobs=args.jobs)
    print(f"saved {out} ({len(PdfReader(out).pages)} pages, {out.stat().st_size / 1e6:.1f} MB)")
    return 0


def _authors(args) -> int:
    from .book.authors import manifest

    if args.source is None:
        raise ValueError("--from CHECKOUT is required (or 'authors rerun --help')")
    path = manifest.save_release(args.source, args.out)
    size = path.stat().st_size
    print(
        f"checked {len(manifest.MANIFEST)} files of {manifest.REPOSITORY}@"
        f"{manifest.COMMIT[:7]} against their git blob ids"
    )
    print(f"saved {path} ({size / 1e6:.2f} MB)")
    return 0


def _authors_rerun(args) -> int:
    from .book import authors_script
    from .book.authors import rerun
    from .book.runs import execution, runner

    spec = authors_script.RerunSpec(((args.cells, args.seeds),), args.source)
    authors_script.load_script(args.source)  # a changed file is refused before any work
    directory = runner.output_directory(rerun.NAME, rerun.SCALE, args.out)
    found = rerun.load(directory)
    spec, done = rerun.extended(spec, None if found is None else found[0])
    todo = [u for u in spec.units() if u not in done]
    print(
        f"{len(spec.units())} runs of {authors_script.SCRIPT}: {len(done)} in the record, "
        f"{len(todo)} to run",
        flush=True,
    )
    if not todo:
        return 0
    # the record's runs go into the checkpoint first: the record only grows
    with records.Checkpoint(
        rerun.NAME,
        directory,
        scale=rerun.SCALE,
        config=spec.to_dict(),
        resume=args.resume,
    ) as checkpoint:
        have = checkpoint.done()
        for unit, result in done.items():
            if unit not in have:
                checkpoint.add(unit, result)
    try:
        with execution.open_engine(args.workers, args.scheduler, args.no_workers) as engine:
            print(f"running on: {engine.description}", flush=True)
            path = runner.run_study(
                rerun.NAME,
                rerun.SCALE,
                spec,
                authors_script.run_unit,
                authors_script.assemble,
                out=directory,
                resume=True,
                engine=engine,
            )
    except (runner.RunFailed, execution.NoWorkers) as err:
        print(f"cotbook authors rerun: {err}", file=sys.stderr)
        return 1
    print(f"saved {path}")
    return 0
