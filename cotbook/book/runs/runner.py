"""Run a long study unit by unit, checkpointing each finished unit, and save its record.

A study is a spec with ``units()`` and ``to_dict()`` and two functions of its module:
``run_unit(spec, unit)`` (JSON-ready result with its ``"seconds"``) and ``assemble(spec,
results)`` (``(data, timings_s)``).  :func:`run_study` checks that the output folder can be
written and that the engine (:mod:`.execution`: serial, a local Dask cluster, or a running
scheduler) is there before any work, resumes from a checkpoint when asked, saves every unit
as it arrives, and removes the checkpoint once the record is saved.

The record's data do not depend on how the run was executed: every unit is seeded by its own
configuration, units are assembled by name (never in the order they finished), and a unit is
kept as the JSON its checkpoint holds, so distributed and interrupted-and-resumed runs give
byte-identical data sections, and serial runs too wherever a unit's numbers do not depend on
its thread count (:mod:`.execution`).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from .. import records
from . import execution

__all__ = ["RunFailed", "output_directory", "run_study"]


class RunFailed(RuntimeError):
    """Some units of a run failed twice; the others are saved in its checkpoint."""


def output_directory(name, scale, out=None, *, force=False) -> Path:
    """:func:`records.target_directory`, checked to be writable before any work starts."""
    return records.check_writable(records.target_directory(name, scale, out, force=force))


def _progress(todo, name, total, enabled):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(desc=name, unit="unit", initial=total - len(todo), total=total)


def run_study(
    name,
    scale,
    spec,
    run_unit,
    assemble,
    *,
    out=None,
    force=False,
    resume=False,
    progress=True,
    engine=None,
    environment_extra=None,
) -> Path:
    """Run every unit of ``spec`` not yet in the checkpoint, assemble and save the record of
    ``name``; returns its path.

    ``engine`` runs the units (:func:`.execution.open_engine`; default: serial).  Raises
    :class:`RunFailed` naming every unit that failed twice (the rest saved, ``resume=True``
    finishes the run), and ``ValueError`` for a unit computed by other code than this."""
    directory = output_directory(name, scale, out, force=force)
    producers = records.RESULTS[name].producers
    code = records.code_info(producers)  # the code this run starts with
    engine = execution.serial() if engine is None else engine
    units = spec.units()
    checkpoint = records.Checkpoint(
        name, directory, scale=scale, config=spec.to_dict(), resume=resume
    )
    done = checkpoint.done()
    todo = [u for u in units if u not in done]
    start = time.perf_counter()
    bar = _progress(todo, name, len(units), progress)
    failed = {}
    try:
        for outcome in engine.run(run_unit, spec, todo, producers):
            if outcome.error is not None:
                failed[outcome.unit] = outcome.error
            elif outcome.source_hash != code["source_hash"]:
                failed[outcome.unit] = (
                    f"computed by other code (source hash {outcome.source_hash}, here "
                    f"{code['source_hash']}): every worker must run this checkout"
                )
            else:
                # kept as its checkpoint holds it: a resumed run reads the same JSON
                done[outcome.unit] = json.loads(json.dumps(outcome.result, allow_nan=False))
                checkpoint.add(outcome.unit, done[outcome.unit])
            if bar is not None:
                bar.update()
                if failed:
                    bar.set_postfix(failed=len(failed))
    except BaseException:
        print(
            f"{name}: interrupted with {len(done)} of {len(units)} units saved in "
            f"{checkpoint.folder}; --resume finishes the run",
            file=sys.stderr,
        )
        raise
    finally:
        if bar is not None:
            bar.close()
    if failed:
        listed = "; ".join(f"{u}: {e}" for u, e in failed.items())
        raise RunFailed(
            f"{name}: {len(failed)} of {len(units)} units failed {execution.TRIES} times "
            f"({listed}); the {len(done)} finished are saved in {checkpoint.folder}: fix the "
            "cause and finish the run with --resume"
        )
    data, timings = assemble(spec, done)
    timings = dict(timings, total=sum(timings.values()), this_session=time.perf_counter() - start)
    path = records.save(
        name,
        scale=scale,
        config=spec.to_dict(),
        data=data,
        timings=timings,
        code=code,
        environment_extra={**(environment_extra or {}), "engine": engine.description},
        directory=directory,
        force=force,
    )
    checkpoint.remove()
    return path
