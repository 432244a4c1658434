"""Every saved result's name: :data:`RESULTS`, each with the modules that produce it.

A :class:`ResultSpec` names a record, its committed scale, its roots (the modules whose
functions compute it; their import closure are its producers, :mod:`.provenance`) and the
command that re-creates it.  :class:`ResultError` is what every reader raises for a record it
cannot use.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .. import precompute
from . import provenance


@dataclass(frozen=True)
class ResultSpec:
    """A saved result: its ``name``, the ``scale`` committed to ``book/results/``, the modules
    whose functions compute it (``roots``), the ``command`` that re-creates it, and whether the
    book must have it committed (``required``; an optional record is a measurement of the
    machine it ran on, which a chapter shows when present), and whether its data keep the raw
    bytes of files (``stored_files``: ``data["files"]``, a list of :func:`stored_file` entries,
    each re-verified against its git blob id on load).

    Its :attr:`producers` are the import closure of its roots (:func:`import_closure`): every
    module whose code runs when they are imported, so the record stales on any change of the
    code its numbers come from, and of no other."""

    name: str
    scale: str
    roots: tuple
    command: str
    required: bool = True
    stored_files: bool = False

    @functools.cached_property
    def producers(self) -> tuple:
        """The modules whose code the record's :func:`source_hash` covers."""
        return provenance.import_closure(*self.roots)


#: The chapter studies of :mod:`cotbook.book.precomputed`, with the modules that compute them.
PRECOMPUTED_ROOTS = {name: (f"{precompute.__name__}.{name}",) for name in precompute.NAMES}


def _experiment(name, scale, root, only, **kwargs):
    command = f"python -m cotbook experiments --scale {scale} --only {only}"
    return ResultSpec(name, scale, (root,), command, **kwargs)


RESULTS = {
    spec.name: spec
    for spec in (
        *(
            ResultSpec(n, "paper", roots, f"python -m cotbook precompute --only {n}")
            for n, roots in PRECOMPUTED_ROOTS.items()
        ),
        _experiment("attention_grid", "paper", "cotbook.attention.grid", "grid"),
        _experiment("attention_sensitivity", "paper", "cotbook.attention.grid", "sensitivity"),
        _experiment(
            "attention_instability", "paper", "cotbook.attention.instability", "instability"
        ),
        _experiment(
            "authors_protocol", "paper", "cotbook.attention.protocol", "protocol", required=False
        ),
        _experiment(
            "authors_recheck", "paper", "cotbook.attention.recheck", "recheck", required=False
        ),
        _experiment(
            "authors_side_by_side",
            "paper",
            "cotbook.attention.side_by_side",
            "side_by_side",
            required=False,
        ),
        _experiment(
            "authors_draws",
            "paper",
            "cotbook.attention.their_draws",
            "their_draws",
            required=False,
        ),
        _experiment("authors_lottery", "book", "cotbook.attention.lottery", "lottery"),
        _experiment("attention_softmax", "paper", "cotbook.attention.softmax_study", "softmax"),
        ResultSpec(
            "attention_benchmark", "paper", ("cotbook.bench",), "python -m cotbook bench attention"
        ),
        ResultSpec(
            "theory_benchmark", "paper", ("cotbook.bench",), "python -m cotbook bench theory"
        ),
        ResultSpec(
            "engine_scaling",
            "paper",
            ("cotbook.book.runs.scaling",),
            "python -m cotbook bench scaling",
            required=False,
        ),
        ResultSpec(
            "test_suite",
            "paper",
            ("cotbook.book.suite_timing",),
            "python -m cotbook bench tests",
            required=False,
        ),
        ResultSpec(
            "authors_released",
            "released",
            ("cotbook.book.authors.manifest",),
            "python -m cotbook authors --from CHECKOUT",
            stored_files=True,
        ),
        ResultSpec(
            "authors_reruns",
            "paper",
            ("cotbook.book.authors_script",),
            "python -m cotbook authors rerun --from CHECKOUT ...",
            required=False,
        ),
        ResultSpec(
            "theory_explorer", "paper", ("cotbook.book.explorer",), "python -m cotbook explorer"
        ),
        ResultSpec(
            "theory_accuracy",
            "paper",
            ("cotbook.theory.numerics",),
            "python -m cotbook bench accuracy",
        ),
        ResultSpec(
            "ridge_coverage",
            "paper",
            ("cotbook.theory.ridge.coverage",),
            "python -m cotbook bench coverage",
        ),
        ResultSpec(
            "theory_vs_simulation",
            "paper",
            ("cotbook.simulation.finite_size",),
            "python -m cotbook simulate --scale paper",
        ),
        ResultSpec(
            "finite_d_corrections",
            "paper",
            ("cotbook.simulation.corrections",),
            "python -m cotbook finite-d --scale paper --only corrections",
        ),
        ResultSpec(
            "finite_d_shares",
            "paper",
            ("cotbook.simulation.finite_d_shares",),
            "python -m cotbook finite-d --scale paper --only shares",
        ),
        ResultSpec(
            "theory_vs_simulation_precision",
            "precision",
            ("cotbook.simulation.finite_size",),
            "python -m cotbook simulate --scale precision",
        ),
    )
}
"""Every saved result of the book, by name."""


class ResultError(ValueError):
    """A result file that cannot be read as a valid record (the message names the file)."""


def _spec(name) -> ResultSpec:
    if name not in RESULTS:
        raise ValueError(f"name must be one of {sorted(RESULTS)}, got {name!r}")
    return RESULTS[name]
