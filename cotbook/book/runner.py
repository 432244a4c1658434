"""Run a long study unit by unit, checkpointing each finished unit, and save its record.

A study is a spec with ``units()`` and ``to_dict()`` and two functions of its wing:
``run_unit(spec, unit)`` (JSON-ready result with its ``"seconds"``) and ``assemble(spec,
results)`` (``(data, timings_s)``).  :func:`run_study` checks that the output folder can be
written before any work, resumes from a checkpoint when asked, and removes the checkpoint once
the record is saved.  A resumed run gives the same record data as an uninterrupted one: every
unit is seeded by its own configuration, and a unit read back from its checkpoint is the same
JSON as the one computed.
"""

from __future__ import annotations

import time
from pathlib import Path

from . import results

__all__ = ["output_directory", "run_study"]


def output_directory(name, scale, out=None, *, force=False) -> Path:
    """:func:`results.target_directory`, checked to be writable before any work starts."""
    return results.check_writable(results.target_directory(name, scale, out, force=force))


def run_study(
    name, scale, spec, run_unit, assemble, *, out=None, force=False, resume=False, progress=True,
    environment_extra=None,
) -> Path:
    """Run every unit of ``spec`` not yet in the checkpoint, assemble and save the record of
    ``name``; returns its path."""
    directory = output_directory(name, scale, out, force=force)
    code = results.code_info(results.RESULTS[name].producers)  # the code this run starts with
    checkpoint = results.Checkpoint(
        name, directory, scale=scale, config=spec.to_dict(), resume=resume
    )
    done = checkpoint.done()
    units = spec.units()
    todo = [u for u in units if u not in done]
    start = time.perf_counter()
    if progress:
        from tqdm import tqdm

        todo = tqdm(todo, desc=name, unit="unit", initial=len(units) - len(todo), total=len(units))
    for unit in todo:
        done[unit] = run_unit(spec, unit)
        checkpoint.add(unit, done[unit])
    data, timings = assemble(spec, done)
    timings = dict(timings, total=sum(timings.values()), this_session=time.perf_counter() - start)
    path = results.save(
        name,
        scale=scale,
        config=spec.to_dict(),
        data=data,
        timings=timings,
        code=code,
        environment_extra=environment_extra,
        directory=directory,
        force=force,
    )
    checkpoint.remove()
    return path
