"""How the Figure 2 grid scales over Dask workers: measured on this machine, predicted for more.

:func:`measure` runs the grid twice from scratch -- serially in this process, then on a local
cluster of ``workers`` processes (:mod:`.execution`) -- and returns both wall-clock times, the
cost of every unit in each run and whether the two data sections are byte-identical
(``python -m cotbook bench scaling`` saves it as the record ``engine_scaling``).

:func:`makespan` predicts the wall-clock of a run on ``W`` workers from per-unit costs: each
unit, in the order the run submits them, goes to the first worker that is free (what the Dask
scheduler does with independent tasks of unknown cost).  No schedule beats
``max(longest unit, total / W)`` (:func:`makespan_bound`).
"""

from __future__ import annotations

import hashlib
import heapq
import json
import time
from pathlib import Path

from .._checks import positive_int
from ..attention import grid
from . import execution, results, runner

__all__ = ["makespan", "makespan_bound", "measure"]


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


def measure(scale="paper", workers=2, directory=None, *, progress=True) -> dict:
    """Run the Figure 2 grid at ``scale`` serially and on ``workers`` local worker processes,
    each from scratch, its records written under ``directory``.

    Returns ``{"serial": run, "workers": run, "identical": bool, "speedup": serial / workers
    wall-clock}`` with ``run = {"engine", "wall_s", "unit_seconds": {unit: s},
    "data_sha256"}``; ``wall_s`` includes starting and closing the cluster."""
    if scale not in grid.GRID_SCALES:
        raise ValueError(f"scale must be one of {sorted(grid.GRID_SCALES)}, got {scale!r}")
    workers = positive_int("workers", workers)
    spec = grid.GRID_SCALES[scale]
    directory = Path(results.SCRATCH_DIR / "engine_scaling" if directory is None else directory)
    runs = {}
    for label, engine_args in (("serial", {}), ("workers", {"workers": workers})):
        folder = directory / label
        (folder / "attention_grid.json").unlink(missing_ok=True)
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
        record = results.load("attention_grid", folder)
        runs[label] = {
            "engine": engine.description,
            "wall_s": wall,
            "unit_seconds": {u: record.timings_s[u] for u in spec.units()},
            "data_sha256": hashlib.sha256(json.dumps(record.data).encode()).hexdigest(),
        }
    return {
        **runs,
        "identical": runs["serial"]["data_sha256"] == runs["workers"]["data_sha256"],
        "speedup": runs["serial"]["wall_s"] / runs["workers"]["wall_s"],
    }
