"""How the Figure 2 grid scales over Dask workers: measured on this machine, predicted for more.

:func:`measure` runs the grid from scratch serially in this process, on one worker process
and on a local cluster of ``workers`` processes (:mod:`.execution`) and returns each run's
wall-clock time, the cost of every unit in it and whether their data sections are
byte-identical (``python -m cotbook bench scaling`` saves it as the record ``engine_scaling``).

:func:`makespan` predicts the wall-clock of a run on ``W`` workers from per-unit costs: each
unit, in the order the run submits them, goes to the first worker that is free (what the Dask
scheduler does with independent tasks of unknown cost).  No schedule beats
``max(longest unit, total / W)`` (:func:`makespan_bound`).
"""

from __future__ import annotations

import heapq
import json
import shutil
import time
from pathlib import Path

from ..._checks import positive_int
from ...attention import grid
from .. import records
from . import execution, runner

__all__ = ["engines", "makespan", "makespan_bound", "measure"]


def _costs(costs) -> list:
    costs = [float(c) for c in costs]
    if not costs or any(not c >= 0 for c in costs):
        raise ValueError(f"costs must be a non-empty list of seconds >= 0, got {costs}")
    return costs


def makespan(costs, workers) -> float:
    """Seconds until the last of ``costs`` (per unit, in submission order) finishes on
    ``workers`` workers, each unit taken by the first free worker.

    >>> makespan([3, 1, 1, 1], 2), makespan([3, 1, 1, 1], 8)
    (3.0, 3.0)
    """
    costs, workers = _costs(costs), positive_int("workers", workers)
    free = [0.0] * min(workers, len(costs))
    for cost in costs:
        heapq.heappush(free, heapq.heappop(free) + cost)
    return max(free)


def makespan_bound(costs, workers) -> float:
    """``max(longest unit, total / workers)``: no schedule of ``costs`` on ``workers`` is
    shorter."""
    costs, workers = _costs(costs), positive_int("workers", workers)
    return max(max(costs), sum(costs) / workers)


def engines(workers) -> dict:
    """The runs :func:`measure` makes: ``{label: open_engine arguments}`` -- serial, one
    worker process and, for ``workers > 1``, ``workers`` of them."""
    runs = {"serial": {}, "workers=1": {"workers": 1}}
    if positive_int("workers", workers) > 1:
        runs[f"workers={workers}"] = {"workers": workers}
    return runs


def _run(scale, engine_args, folder, progress) -> dict:
    spec = grid.GRID_SCALES[scale]
    # from scratch: a finished record, or the checkpoint of a run interrupted here, would time
    # a part of the grid
    (folder / "attention_grid.json").unlink(missing_ok=True)
    shutil.rmtree(folder / "attention_grid.partial", ignore_errors=True)
    start = time.perf_counter()
    with execution.open_engine(**engine_args) as engine:
        runner.run_study(
            "attention_grid",
            scale,
            spec,
            grid.run_unit,
            grid.assemble,
            out=folder,
            progress=progress,
            engine=engine,
        )
    wall = time.perf_counter() - start
    record = records.load("attention_grid", folder)
    return {
        "engine": engine.description,
        "wall_s": wall,
        "unit_seconds": {u: record.timings_s[u] for u in spec.units()},
        "data_sha256": record.data_sha256,  # the record's own: comparable with any grid record
    }


def measure(scale="paper", workers=2, directory=None, *, resume=False, progress=True) -> dict:
    """Run the Figure 2 grid at ``scale`` from scratch on each of :func:`engines`
    (``workers``), one after another, their records written under ``directory``.

    Returns ``{"runs": {label: run}, "identical": bool, "speedup": {label: x}}`` with ``run =
    {"engine", "wall_s", "unit_seconds": {unit: s}, "data_sha256"}`` (``wall_s`` includes
    starting and closing the cluster), ``identical`` whether every run saved the same data
    bytes, and ``speedup`` the wall-clock of the serial and of the one-worker run over that of
    the largest cluster.  Each finished run is kept in ``<directory>/<label>.json`` with the
    source hash of the code that ran it; ``resume=True`` takes a kept run of the same scale
    and code instead of running it again."""
    if scale not in grid.GRID_SCALES:
        raise ValueError(f"scale must be one of {sorted(grid.GRID_SCALES)}, got {scale!r}")
    directory = Path(records.SCRATCH_DIR / "engine_scaling" if directory is None else directory)
    code = records.source_hash(records.RESULTS["engine_scaling"].producers)
    runs = {}
    for label, engine_args in engines(workers).items():
        kept = directory / f"{label}.json"
        if resume and kept.is_file():
            saved = json.loads(kept.read_text())
            if saved.get("scale") == scale and saved.get("source_hash") == code:
                runs[label] = saved["run"]
                continue
        runs[label] = _run(scale, engine_args, directory / label, progress)
        kept.parent.mkdir(parents=True, exist_ok=True)
        saved = {"scale": scale, "source_hash": code, "run": runs[label]}
        records.write_atomic(kept, json.dumps(saved, indent=1))
    largest = list(runs)[-1]
    return {
        "runs": runs,
        "identical": len({run["data_sha256"] for run in runs.values()}) == 1,
        "speedup": {
            f"{label} / {largest}": runs[label]["wall_s"] / runs[largest]["wall_s"]
            for label in runs
            if label != largest
        },
    }
