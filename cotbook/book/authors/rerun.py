"""The record ``authors_reruns``: the authors' script's runs (:mod:`.authors_script`), grown
command by command and checked on load.

:func:`extended` gives the study a command runs: the record's requests with the new ones
added and the record's runs as finished units, so that :func:`cotbook.book.runs.runner.run_study`
computes only the new runs and a record only grows.  :func:`load` validates the record: its
script must be :data:`.authors_script.FILES`, its runs those its commands make, each curve 32
finite values (or :data:`.authors_script.OVERFLOW` from some ``t`` on).
"""

from __future__ import annotations

import math
from pathlib import Path

from .. import records
from ..authors_script import OVERFLOW, RerunSpec

__all__ = ["NAME", "SCALE", "extended", "load"]

NAME = "authors_reruns"
"""The record's name in :data:`cotbook.book.records.RESULTS`."""
SCALE = "paper"
"""Its scale: every run is at their full protocol."""


def extended(spec, record) -> tuple[RerunSpec, dict]:
    """``(spec after the record's requests, {unit: result} of the record's runs)``: what
    :func:`cotbook.book.runs.runner.run_study` starts from, so that a record only grows.  A record
    made by other code than this is refused (its runs could not be told from new ones)."""
    if record is None:
        return spec, {}
    if record.stale:
        raise ValueError(
            f"{NAME} was made by other code than this checkout's: remove it and run its "
            "commands again rather than extend it"
        )
    both = RerunSpec.from_dict(record.config, spec.checkout).extend(spec)
    done = {u: dict(run, seconds=record.timings_s[u]) for u, run in record.data["runs"].items()}
    return both, done


def load(directory=records.RESULTS_DIR):
    """The validated ``authors_reruns`` record and its :class:`RerunSpec`, or ``None``: a
    record whose script differs from :data:`FILES`, whose runs differ from its configuration,
    or whose curves are not 32 finite values (or :data:`OVERFLOW` from some ``t`` on) is
    refused, naming the file."""
    record = records.load(NAME, directory)
    if record is None:
        return None
    where = Path(directory) / f"{NAME}.json"
    try:
        spec = RerunSpec.from_dict(record.config)
    except (KeyError, TypeError, ValueError) as err:
        raise records.ResultError(f"{where}: {err}") from None
    runs = record.data.get("runs")
    if not isinstance(runs, dict) or sorted(runs) != sorted(spec.units()):
        raise records.ResultError(f"{where}: its runs are not those its configuration names")
    for unit, run in runs.items():
        E = run.get("E")
        finite = E[: E.index(OVERFLOW)] if isinstance(E, list) and OVERFLOW in E else E
        if not (
            isinstance(E, list)
            and len(E) == 32
            and all(isinstance(x, float) and math.isfinite(x) for x in finite)
            and all(x == OVERFLOW for x in E[len(finite) :])
        ):
            raise records.ResultError(
                f"{where}: {unit}: E must be 32 finite numbers, or {OVERFLOW!r} from some t on"
            )
    return record, spec
