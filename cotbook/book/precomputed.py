"""Chapter computations too slow to repeat on every test run: computed once, read back.

Each entry of :data:`STUDIES` is a record of :mod:`cotbook.book.records` that one chapter
shows, computed by its own module of :mod:`cotbook.book.precompute`: its parameters (the
record's configuration), ``compute(config) -> data`` (plain JSON) and ``decode(data)``, which
gives the chapter the objects the computing functions return.
``python -m cotbook precompute [--only NAME ...]`` writes the records to ``book/results/``;
a chapter calls :func:`load`, which reads the committed record or, where it is missing,
computes it now, and says which in its caption.  A record's producers are the import closure
of its module (:data:`cotbook.book.records.PRECOMPUTED_ROOTS` and
:func:`cotbook.book.records.import_closure`), so a change in how it is computed stales it, and
the test that checks committed records asks for a rerun; this loader and the summaries here
(:func:`ridge_boundary`) only read records, and are in no record's closure.

Nothing here decides a number: the functions called are the ones the unit tests check, and
``tests/unit/book/test_precomputed.py`` recomputes one entry of every record.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from . import precompute, records

__all__ = ["Precomputed", "RidgeBoundary", "STUDIES", "compute", "load", "ridge_boundary"]


@dataclass(frozen=True)
class Precomputed:
    """One precomputed study: the record ``name``, the ``chapter`` that shows it, what it is
    (``describe``), its parameters and the functions that compute and decode it."""

    name: str
    chapter: str
    describe: str
    config: dict
    compute: Callable[[dict], dict]
    decode: Callable[[dict], dict]


class RidgeBoundary(NamedTuple):
    """What the ridge_depths record says of the overthinking boundary (:func:`ridge_boundary`).

    ``tau_c``: Result 2's ridgeless boundary at the record's ``(alpha, sigma2)``;
    ``shifts[T][lam]``: how much lower the ridge ``lam > 0`` places the largest ``tau`` that
    turns up before the horizon ``T``, relative to ``lam = 0`` (``1 - below(T, lam) /
    below(T, 0)``); ``bias``: how far below ``tau_c`` the deepest horizon places it at
    ``lam = 0`` (``tau_c / below - 1``); ``below_tau_c``: the ridges certified to converge
    from some ``tau < tau_c`` on; ``bracket[lam]``: ``(below at the deepest horizon, above)``
    for each of them, between which ``tau_c(lam)`` lies."""

    tau_c: float
    shifts: dict
    bias: float
    below_tau_c: tuple
    bracket: dict


def ridge_boundary(study) -> RidgeBoundary:
    """The boundary rows of the loaded ridge_depths ``study`` (:func:`load`) summarised.

    Raises ``ArithmeticError`` if Result 2's ``tau_c`` lies outside the ``lam = 0`` bracket
    (the two certified sides and Result 2 would contradict each other)."""
    from ..theory import phases

    cfg = study.spec["boundary"]
    turns_up, decays = study.data["boundary"], study.data["decays"]
    tau_c = phases.tau_c(study.spec["alpha"], study.spec["sigma2"])
    deep = max(cfg["horizons"])
    below0, above0 = turns_up[deep, 0.0]["below"], decays[0.0]["above"]
    if not (below0 <= tau_c and (above0 is None or tau_c <= above0)):
        raise ArithmeticError(
            f"Result 2's tau_c = {tau_c} is outside the lam = 0 bracket [{below0}, {above0}]"
        )
    ridges = [lam for lam in cfg["lams"] if lam > 0]
    shifts = {
        T: {lam: 1 - turns_up[T, lam]["below"] / turns_up[T, 0.0]["below"] for lam in ridges}
        for T in cfg["horizons"]
    }
    below_tau_c = tuple(
        lam
        for lam in cfg["lams"]
        if decays[lam]["above"] is not None and decays[lam]["above"] < tau_c
    )
    bracket = {lam: (turns_up[deep, lam]["below"], decays[lam]["above"]) for lam in below_tau_c}
    return RidgeBoundary(tau_c, shifts, tau_c / below0 - 1, below_tau_c, bracket)


def _registered(name) -> Precomputed:
    module = importlib.import_module(f"{precompute.__name__}.{name}")
    return Precomputed(
        name, module.CHAPTER, module.DESCRIBE, module.CONFIG, module.compute, module.decode
    )


STUDIES = {name: _registered(name) for name in precompute.NAMES}
"""Every precomputed study, by record name."""


def _study(name) -> Precomputed:
    if name not in STUDIES:
        raise ValueError(f"name must be one of {sorted(STUDIES)}, got {name!r}")
    return STUDIES[name]


def compute(name) -> tuple[dict, dict]:
    """``(data, timings_s)`` of the study ``name`` computed now."""
    study = _study(name)
    start = time.perf_counter()
    data = study.compute(study.config)
    return data, {"total": time.perf_counter() - start}


def load(name):
    """The study ``name`` for its chapter: the committed record, else computed now.

    ``data`` is decoded (the objects the computing functions return) and ``spec`` is the
    study's configuration; a record whose configuration is not the study's is refused.
    """
    from .studies import Study, caption  # the chapter's loader

    study = _study(name)
    record = records.load(name)
    if record is not None:
        if record.config != study.config:
            raise records.ResultError(
                f"{record.path}: configuration differs from the study's; rerun "
                f"`{record.spec.command}`"
            )
        origin = f"read from book/results/{record.path.name}"
        return Study(
            study.config,
            study.decode(record.data),
            record.timings_s,
            caption(record.scale, origin, study.describe, record),
            record,
        )
    data, timings = compute(name)
    return Study(
        study.config, study.decode(data), timings, caption("paper", "computed now", study.describe),
        None,
    )  # fmt: skip
