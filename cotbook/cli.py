"""Command line: python -m cotbook COMMAND (--help on each command says more).

- ``build [--execute]``: the book's pages at ``_build/html``, from the committed executed
  chapters (no kernel runs); ``--execute`` executes every chapter afresh
  (:mod:`cotbook.book.build.read_build`).
- ``chapters [NAME ...]``: execute chapters into ``tests/book/notebooks/`` (the nbval copies),
  failing if one takes longer than its budget; the phase-diagram chapter also refreshes the
  figure README.md shows.
- ``simulate``: the theory-vs-simulation study (Appendix E figure).
- ``finite-d [--only corrections|shares]``: the finite-D chapters' simulations of the
  simplified model: ``corrections``, ``E_t(D)`` at ``lam = 0`` over many pretraining sets at
  ``D`` = 100 ... 800, for the measured correction ``c_t``
  (:mod:`cotbook.simulation.corrections`); ``shares``, the Figure 2 grid's ``D = 50`` on its
  cells with ``L < D < M``: how much of the trained layers' gap to Result 1 finite size
  explains (:mod:`cotbook.simulation.finite_d_shares`, read by
  :func:`cotbook.book.studies.finite_d_shares`).
- ``experiments``: trained attention over the (L, M) grid (Figure 2) and the sensitivity study;
  ``--only softmax``: what trained softmax attention learns, under the untried protocols;
  ``--only lottery`` (``--scale book``): one model at the authors' protocol on eight test sets;
  ``--only protocol`` (never by default): the authors' released protocol, several trials a
  cell (:mod:`cotbook.attention.protocol`); ``--only recheck`` (never by default): fresh
  trials of it where their value fell outside ours (:mod:`cotbook.attention.recheck`);
  ``--only side_by_side`` (never by default): the book's trials at the cells where it is set
  beside the authors' own script (:mod:`cotbook.attention.side_by_side`); ``--only
  their_draws`` (never by default): the book's computation fed the authors' random draws
  (:mod:`cotbook.attention.their_draws`).
- ``bench {theory,simulate,accuracy,coverage,attention,scaling,tests}``: timings; ``theory``,
  ``accuracy`` (the Appendix D table, a long run), ``coverage`` (how deep lambda > 0 is
  certified at random points, a long run), ``attention``, ``scaling`` (the Figure 2 grid on
  each engine) and ``tests`` (the README's test command, :mod:`cotbook.book.suite_timing`)
  save a record.
- ``theory --alpha A --tau T --sigma2 S [--lam LAM] --t T1 [T2 ...]``: Result 1's E_t at those
  depths and Results 2-3 at that point (:func:`cotbook.theory.summary`); ``--json``, ``--csv``.
- ``explorer [--scale tiny|paper]``: the explorer page's data, E_t on a fine (alpha, tau) grid
  at four noise levels and its interpolation error (:mod:`cotbook.book.explorer`), saved as the
  record ``theory_explorer``.
- ``precompute [--only NAME ...]``: the chapters' slow tables and figures
  (:mod:`cotbook.book.precomputed`), one record each, which the chapters read back.
- ``pdf [--html DIR] [--out FILE]``: the built book as one PDF, printed page by page by
  headless Chromium in reading order (:mod:`cotbook.book.build.pdf`).
- ``authors --from CHECKOUT``: the paper authors' released measurement files, checked against
  their git blob ids and saved as the record ``authors_released``
  (:mod:`cotbook.book.authors.manifest`); a missing or altered file fails before anything is
  written.  ``authors rerun --from CHECKOUT --cells L,M ... --seeds ...``: their linear heatmap
  script, run unmodified at those cells and seeds, added to the record ``authors_reruns``
  (:mod:`cotbook.book.authors_script`, :mod:`cotbook.book.authors.rerun`).

Each command imports only what it needs (``authors`` and ``theory`` start no Dask, Jupyter or
torch); their bodies are in :mod:`cotbook.commands`, the parser and its options here.

Long runs (``simulate``, ``finite-d``, ``experiments``, ``bench accuracy``, ``bench
coverage``) save a record (:mod:`cotbook.book.records`): at the committed scale into
``book/results/``, at any other scale into ``_build/results/`` (ignored by git), or into
``--out DIR``.  They checkpoint every finished unit; ``--resume`` finishes an interrupted
run.  They run serially in this process, on a local Dask cluster (``--workers N``) or on a
running one (``--scheduler ADDRESS``), with byte-identical data
(:mod:`cotbook.book.runs.execution`).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from . import __version__, commands
from .book import records

CHAPTER_BUDGET_S = 180.0
#: CPU seconds a ``theory`` call may spend before it refuses (issue 63: every call answers or
#: refuses within 10 s on one core)
THEORY_BUDGET_S = 7.0
# ``experiments --only`` names; the last four (the authors' protocol) run only when named
_EXPERIMENTS = (
    "grid sensitivity instability softmax lottery protocol recheck side_by_side their_draws"
)
_EXPERIMENTS = tuple(_EXPERIMENTS.split())

# What each scale is for.  No run time is written here: what the committed runs cost is read
# from their records by the chapter Long runs (book/long_runs.md).
_COSTS = "what the committed runs cost, read from their records: book/long_runs.md"
_SIMULATE_SCALES = {
    "tiny": "a smoke test",
    "book": "what the chapter runs when no record is present",
    "paper": "the committed record",
    "precision": "the second committed record: more trials at the two largest D",
}
# ``finite-d --only`` names: the finite-D chapters' studies of the simplified model
_FINITE_D = ("corrections", "shares")
_FINITE_D_SCALES = {"tiny": "a smoke test", "paper": "the committed records"}
_EXPERIMENT_SCALES = {
    "tiny": "a smoke test",
    "book": "a quick check",
    "paper": "the committed records, a long run",
}


_ROOT = Path(__file__).resolve().parents[1]
_SCALE_HELP = "size of the run (default: %(default)s)"
_SEED_HELP = "root of every random stream of the run (default: %(default)s)"


def _seed(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text}")
    return value


def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return value


def _number(text):
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None


def _workers(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return value


def _depth(text):
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None


def _add_authors(sub) -> None:
    p = sub.add_parser(
        "authors",
        help="the authors' released runs as a checked record (authors_released); "
        "'authors rerun': their script run at chosen cells and seeds (authors_reruns)",
        description="Read the measurement files the paper's authors released "
        "(taka255/cot_asymptotics at commit 1ed6569), check each against its git blob id and "
        "save them, byte for byte, as the record authors_released (default: into "
        "book/results/).  A missing or altered file is named and nothing is written.  "
        "'authors rerun --help': their training script, run unmodified.",
    )
    p.add_argument(
        "--from",
        dest="source",
        metavar="CHECKOUT",
        help="a checkout of taka255/cot_asymptotics at 1ed6569d, or a folder holding its "
        "result files at the same relative paths",
    )
    p.add_argument(
        "--out", metavar="DIR", help="folder for the saved record (default: book/results/)"
    )
    p.set_defaults(run=commands._authors)
    q = p.add_subparsers(dest="action").add_parser(
        "rerun",
        help="their linear heatmap script run unmodified at chosen cells and seeds",
        description="Import linear_heatmap/linear_heatmap.py from a checkout of "
        "taka255/cot_asymptotics at 1ed6569 (a file whose git blob id differs is refused), "
        "run its own functions (training set, training, evaluation) at every cell and seed "
        "asked for, one thread per run, and add the runs to the record authors_reruns "
        "(default: book/results/).  Runs already in the record are not run again; every "
        "finished run is checkpointed (--resume finishes an interrupted command).",
    )
    q.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="CHECKOUT",
        help="a checkout of taka255/cot_asymptotics at 1ed6569d",
    )
    q.add_argument(
        "--cells",
        required=True,
        nargs="+",
        metavar="L,M",
        help="cells as L,M pairs (L: their N, the context length)",
    )
    q.add_argument(
        "--seeds",
        required=True,
        nargs="+",
        metavar="SEED",
        help="seeds: integers, ranges a-b, or 'own' (the released run's seed, 941 + 100000 M + L)",
    )
    q.add_argument("--out", metavar="DIR", help="folder of the record (default: book/results/)")
    q.add_argument(
        "--resume", action="store_true", help="finish an interrupted command from its checkpoint"
    )
    _add_engine_options(q)
    q.set_defaults(run=commands._authors_rerun)


def _scales_help(scales) -> str:
    return "; ".join(f"{scale}: {what}" for scale, what in scales.items()) + f" ({_COSTS})"


def _add_engine_options(p) -> None:
    engine = p.add_mutually_exclusive_group()
    engine.add_argument(
        "--workers",
        type=_workers,
        metavar="N",
        help="run the units on a local Dask cluster of N worker processes, one thread each",
    )
    engine.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the units on the running Dask cluster whose scheduler is at ADDRESS "
        "(e.g. tcp://host:8786); default: serially in this process",
    )
    p.add_argument(
        "--no-workers",
        choices=("wait", "stop"),
        default="wait",
        help="when the cluster has had no running worker for 20 s: say so and keep waiting, "
        "repeating the count of finished units every minute (wait, the default), or stop, the "
        "finished units kept for --resume (stop)",
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
    _add_engine_options(p)


def _add_theory(sub) -> None:
    p = sub.add_parser(
        "theory",
        help="E_t at chosen depths and Results 2-3 at one (alpha, tau, sigma2, lam)",
        description="Result 1's error E_t at the depths given and, for lam = 0, Result 2's "
        "tau_c, regime, rate Lambda and floor E_inf, the leading term of E_t - E_inf, and "
        "Result 3's optimal depth (cotbook.theory.summary).  Domain: alpha in [1e-12, 1e12], "
        "tau in (1, 1e12] (lam = 0) or [1e-12, 1e12] (lam > 0), sigma2 and lam in [0, 1e12].",
    )
    p.add_argument("--alpha", type=_number, required=True, help="L/D")
    p.add_argument("--tau", type=_number, required=True, help="M/D")
    p.add_argument("--sigma2", type=_number, required=True, help="noise variance sigma^2")
    p.add_argument("--lam", type=_number, default=0.0, help="ridge (default: %(default)s)")
    p.add_argument(
        "--t", type=_depth, nargs="+", required=True, metavar="T", help="CoT depth(s), >= 0"
    )
    p.add_argument(
        "--budget",
        type=_positive_float,
        default=THEORY_BUDGET_S,
        metavar="SECONDS",
        help="CPU seconds the command may spend before it refuses, naming the depths asked "
        "(default: %(default)s)",
    )
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="one JSON object")
    form.add_argument("--csv", action="store_true", help="CSV of t,E_t")
    p.set_defaults(run=commands._theory)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="cotbook", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"cotbook {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser(
        "build",
        help="build the book's pages (_build/html)",
        description="Build the book into _build/html from the chapters' committed executed "
        "copies, executing nothing (a chapter edited since its copy was written is refused by "
        "name); --execute executes every chapter afresh instead.",
    )
    p.add_argument("--root", default=".", help="repository root (default: %(default)s)")
    p.add_argument(
        "--execute", action="store_true", help="execute every chapter (minutes; needs no copies)"
    )
    p.set_defaults(run=commands._build)
    p = sub.add_parser("chapters", help="execute chapters into tests/book/notebooks (nbval copies)")
    p.add_argument("names", nargs="*", help="chapter names (file stems); default: all")
    p.add_argument("--root", default=".", help="repository root (default: %(default)s)")
    p.add_argument(
        "--budget",
        type=_positive_float,
        default=CHAPTER_BUDGET_S,
        help="seconds per chapter (default: %(default)s)",
    )
    p.set_defaults(run=commands._chapters)
    p = sub.add_parser(
        "simulate",
        help="theory vs finite-D simulation (Appendix E figure)",
        description="Theory vs finite-D simulation (Appendix E figure).  Scales: "
        + _scales_help(_SIMULATE_SCALES),
    )
    p.add_argument("--scale", choices=list(_SIMULATE_SCALES), default="book", help=_SCALE_HELP)
    p.add_argument("--seed", type=_seed, default=0, help=_SEED_HELP)
    _add_output_options(p)
    p.set_defaults(run=commands._simulate)
    p = sub.add_parser(
        "finite-d",
        help="the finite-D chapters' simulations (measured c_t; finite size at D = 50)",
        description="The finite-D chapters' simulations of the simplified model: the measured "
        "corrections c_t (corrections) and, at the Figure 2 grid's D = 50 on its cells with "
        "L < D < M, the share of the trained layers' gap to Result 1 that finite size explains "
        "(shares).  Scales: " + _scales_help(_FINITE_D_SCALES),
    )
    p.add_argument("--scale", choices=list(_FINITE_D_SCALES), default="tiny", help=_SCALE_HELP)
    p.add_argument("--only", choices=list(_FINITE_D), help="one study (default: all: %(choices)s)")
    p.add_argument("--seed", type=_seed, default=0, help=_SEED_HELP)
    _add_output_options(p)
    p.set_defaults(run=commands._finite_d)
    p = sub.add_parser(
        "experiments",
        help="trained attention models over (L, M) (Figure 2)",
        description="Trained attention over the (L, M) grid (Figure 2) and the sensitivity "
        "study.  Scales: " + _scales_help(_EXPERIMENT_SCALES),
    )
    p.add_argument("--scale", choices=list(_EXPERIMENT_SCALES), default="book", help=_SCALE_HELP)
    p.add_argument(
        "--only",
        choices=list(_EXPERIMENTS),
        help="(default: all but protocol, recheck, side_by_side and their_draws, the authors' "
        "released protocol: only by name)",
    )
    p.add_argument(
        "--seed",
        type=_seed,
        default=None,
        help="root of every random stream of the run (default: the scale's own, 0; recheck's 1, "
        "side_by_side's 11)",
    )
    _add_output_options(p)
    p.set_defaults(run=commands._experiments)
    p = sub.add_parser(
        "pdf",
        help="the built book as one PDF",
        description="Print every page of the built book (jupyter-book build . first) with "
        "headless Chromium and merge them in reading order, one bookmark per chapter.",
    )
    p.add_argument(
        "--html",
        default=str(_ROOT / "_build" / "html"),
        help="the built book (default: %(default)s)",
    )
    p.add_argument(
        "--out", default=str(_ROOT / "_build" / "cotbook.pdf"), help="(default: %(default)s)"
    )
    p.add_argument("--jobs", type=_workers, default=2, help="pages printed at once (default: 2)")
    p.set_defaults(run=commands._pdf)
    p = sub.add_parser(
        "explorer",
        help="the explorer page's data (a record)",
        description="E_t on the explorer's (alpha, tau) grid at four noise levels, with its "
        f"interpolation error: the record theory_explorer ({_COSTS}).",
    )
    p.add_argument("--scale", choices=["tiny", "paper"], default="paper", help=_SCALE_HELP)
    p.add_argument(
        "--out", metavar="DIR", help="folder for the saved record (default: book/results/)"
    )
    p.set_defaults(run=commands._explorer)
    p = sub.add_parser(
        "precompute",
        help="the chapters' slow tables and figures (records)",
        description="Compute the slow tables and figures that chapters read back (the best "
        "depth in saturation, the closed system's depths, Result 3's optimal depth, the side of "
        f"the floor): one record each ({_COSTS}).",
    )
    p.add_argument(
        "--only",
        nargs="+",
        choices=sorted(records.PRECOMPUTED_ROOTS),
        help="these studies (default: all)",
    )
    p.add_argument(
        "--out", metavar="DIR", help="folder for the saved records (default: book/results/)"
    )
    p.set_defaults(run=commands._precompute)
    p = sub.add_parser(
        "bench",
        help="timings; theory, accuracy, coverage, attention and tests save a record",
        description="theory: fast engine vs the recursion (saved); simulate: engine "
        "timings; accuracy: the Appendix D accuracy table, t <= 80 (saved; a long "
        "run: --scale, --resume, --workers, --scheduler); coverage: lambda > 0 at random points "
        "to t = 10^4 (a long run, saved); attention: one training run, fast "
        "vs literal (saved); scaling: the Figure 2 grid on each engine (saved); tests: the "
        f"README's test command (saved); {_COSTS}.",
    )
    kinds = p.add_subparsers(dest="what", required=True)
    kinds.add_parser("simulate").set_defaults(run=commands._bench)
    q = kinds.add_parser("theory", description="The theory engine's timings (saved).")
    q.add_argument(
        "--out", metavar="DIR", help="folder for the saved record (default: book/results/)"
    )
    q.set_defaults(run=commands._bench)
    q = kinds.add_parser("accuracy", description="The Appendix D accuracy table (a long run).")
    q.add_argument("--scale", choices=["tiny", "paper"], default="paper", help=_SCALE_HELP)
    _add_output_options(q)
    q.set_defaults(run=commands._bench)
    q = kinds.add_parser(
        "coverage",
        description="How deep the lambda > 0 engine certifies E_t at random points of the "
        f"domain, asked for t = 10^4 (a long run; {_COSTS}).",
    )
    q.add_argument("--scale", choices=["tiny", "paper"], default="paper", help=_SCALE_HELP)
    _add_output_options(q)
    q.set_defaults(run=commands._bench)
    q = kinds.add_parser(
        "tests",
        description="The README's test command run once in a checkout: its wall-clock, CPU "
        "time and test-seconds per file (the record test_suite; a red run is not saved).",
    )
    q.add_argument(
        "--root", default=str(_ROOT), help="the checkout whose tests run (default: %(default)s)"
    )
    q.add_argument(
        "--out", metavar="DIR", help="folder for the saved record (default: book/results/)"
    )
    q.set_defaults(run=commands._bench)
    q = kinds.add_parser(
        "scaling",
        description="The Figure 2 grid serially, on one worker process and on a local Dask "
        "cluster, each from scratch: wall-clock times, per-unit costs, byte-identical data "
        f"(a long run; {_COSTS}).",
    )
    q.add_argument("--scale", choices=["tiny", "book", "paper"], default="paper", help=_SCALE_HELP)
    q.add_argument(
        "--workers", type=_workers, default=2, help="worker processes (default: %(default)s)"
    )
    q.add_argument(
        "--out", metavar="DIR", help="folder for the saved record (default: book/results/)"
    )
    q.add_argument(
        "--resume",
        action="store_true",
        help="keep the runs an interrupted measurement finished (same scale and code)",
    )
    q.set_defaults(run=commands._bench)
    q = kinds.add_parser("attention")
    q.add_argument(
        "--out", metavar="DIR", help="folder for the saved record (default: book/results/)"
    )
    q.set_defaults(run=commands._bench)
    _add_theory(sub)
    _add_authors(sub)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ValueError as err:
        parser.exit(2, f"cotbook {args.command}: {err}\n")
