"""The authors' own training script, run unmodified as a second implementation.

Their linear heatmap script (``linear_heatmap/linear_heatmap.py`` of ``taka255/cot_asymptotics``
at commit ``1ed6569``, :data:`FILES`) trains and evaluates one ``(M, N)`` cell of their Figure 2
heatmap: a fixed training set of ``M`` tasks, 5000 Adam steps, ``E_t`` for ``t = 0..31`` on 4096
fresh tasks.  Its code never enters this repository: :func:`load_script` imports it from a
checkout of theirs, after checking every file's git blob id (a changed file is refused, naming
it), and :func:`run_unit` calls its own functions -- training set, training loop, evaluation --
in the order their ``main()`` does, after ``np.random.seed(s); torch.manual_seed(s)``, one thread
per run.  At their own seed for a cell (:func:`own_seed`) this gives their released curve; at
other seeds, fresh runs of their implementation to set beside the book's trainer
(:mod:`cotbook.attention.layer`).

A study is a :class:`RerunSpec` (cells and seeds, one pair per command), run unit by unit by
:func:`cotbook.book.runs.runner.run_study` (``python -m cotbook authors rerun --from CHECKOUT
--cells ... --seeds ...``): one unit is one run of their script.  The record
``authors_reruns`` keeps, per run, the curve ``E_t``, the final objective (their data loss on
the whole training set plus their penalty, computed with their functions after the
evaluation, so the released curve is untouched) and the seconds it took; its configuration
holds the repository, commit and blob ids, the commands and their runs.
:mod:`cotbook.book.authors.rerun` keeps the record: it grows it command by command and refuses
on load a record whose script differs from this module's or whose runs are not those its
commands make.  This module imports nothing of the book's record machinery, so that the
record's code hash covers the runs' code alone.

>>> own_seed(94, 38)
3801035
>>> spec = RerunSpec([("94,38 205,400", "own 11")])
>>> spec.units()
['L=94/M=38/seed=11', 'L=94/M=38/seed=3801035', 'L=205/M=400/seed=11', 'L=205/M=400/seed=40001146']
>>> spec.commands()
['python -m cotbook authors rerun --from CHECKOUT --cells 94,38 205,400 --seeds own 11']
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .. import _checks
from .._threads import one_thread_unit

__all__ = [
    "REPOSITORY",
    "COMMIT",
    "SCRIPT",
    "FILES",
    "OVERFLOW",
    "OWN",
    "own_seed",
    "parse_cells",
    "parse_seeds",
    "RerunSpec",
    "load_script",
    "run_unit",
    "assemble",
    "blob_id",
]

REPOSITORY = "taka255/cot_asymptotics"
"""Their repository (as :data:`cotbook.book.authors_release.REPOSITORY`, tested: not imported,
so that this module's code alone is what its record's hash covers)."""
COMMIT = "1ed6569d8f16e29d5288288788d734c143b58c16"
"""The commit of the script (as :data:`cotbook.book.authors_release.COMMIT`, tested)."""
SCRIPT = "linear_heatmap/linear_heatmap.py"
"""Their script, relative to the checkout."""
FILES = {SCRIPT: "2b7dbb177c8601989721e1ae49b250a6de705625"}
"""Every file of theirs a run imports, with its git blob id at :data:`COMMIT`."""
OVERFLOW = "inf"
"""How a run's ``E_t`` beyond the float range is kept (JSON has no infinity), spelled as in
the book's own protocol record (:data:`cotbook.attention.protocol.OVERFLOW`, tested; not
imported, so that this record's code is this module's and not the book's trainer)."""
OWN = "own"
"""The word for a cell's own seed in ``--seeds`` (:func:`own_seed`)."""


def own_seed(L, M) -> int:
    """The seed of their released run of the cell: ``941 + 100000 M + N`` (``N`` = ``L``).

    Their ``main()`` at :data:`COMMIT` computes ``941 + 1000 M + N``, but the released
    ``latest_linear_heatmap`` was made with the earlier formula (its ``E_0`` equals the earlier
    run's in all 225 cells; ``shared/authors-data/SOURCE.md``)."""
    L, M = _checks.positive_int("L", L), _checks.positive_int("M", M)
    return 941 + 100000 * M + L


def parse_cells(text) -> tuple:
    """``"205,400 94,38"`` (or a list of such words) as ``((205, 400), (94, 38))``: ``L,M``
    pairs; a word that is not two positive integers is refused by name."""
    words = text.split() if isinstance(text, str) else list(text)
    cells = []
    for word in words:
        parts = word if isinstance(word, (tuple, list)) else str(word).split(",")
        try:
            L, M = (int(p) for p in parts)
        except ValueError:
            raise ValueError(
                f"cells must be L,M pairs of positive integers, got {word!r}"
            ) from None
        if L < 1 or M < 1:
            raise ValueError(f"cells must be L,M pairs of positive integers, got {word!r}")
        cells.append((L, M))
    if not cells or len(set(cells)) != len(cells):
        raise ValueError(f"cells must be a non-empty list of distinct L,M pairs, got {text!r}")
    return tuple(cells)


def parse_seeds(text) -> tuple:
    """``"own 11-15 20"`` (or a list of such words) as ``("own", 11, 12, 13, 14, 15, 20)``:
    :data:`OWN`, non-negative integers and ranges ``a-b``; anything else refused by name."""
    words = text.split() if isinstance(text, str) else list(text)
    seeds = []
    for word in map(str, words):
        if word == OWN:
            seeds.append(OWN)
            continue
        first, _, last = word.partition("-")
        if not (first.isdigit() and (not last or last.isdigit())):
            raise ValueError(
                f"seeds must be non-negative integers, ranges a-b or {OWN!r}, got {word!r}"
            )
        a, b = int(first), int(last or first)
        if b < a:
            raise ValueError(f"seeds: the range {word!r} is empty")
        seeds.extend(range(a, b + 1))
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be a non-empty list without repeats, got {text!r}")
    return tuple(seeds)


@dataclass(frozen=True)
class RerunSpec:
    """Runs of their script asked for by ``requests``: ``(cells, seeds)`` pairs, each every
    cell at every seed (:func:`parse_cells`, :func:`parse_seeds`; :data:`OWN` is the cell's
    :func:`own_seed`), one pair for each command that made the record.  ``checkout``: the
    folder their files are imported from (needed to run, not part of the record)."""

    requests: tuple
    checkout: str | None = None

    def __post_init__(self):
        requests = tuple((parse_cells(c), parse_seeds(s)) for c, s in self.requests)
        if not requests:
            raise ValueError("requests must hold at least one (cells, seeds) pair")
        object.__setattr__(self, "requests", requests)

    @property
    def runs(self) -> tuple:
        """Every ``(L, M, seed)`` asked for, once, sorted."""
        return tuple(
            sorted(
                {
                    (L, M, own_seed(L, M) if s == OWN else s)
                    for cells, seeds in self.requests
                    for L, M in cells
                    for s in seeds
                }
            )
        )

    def units(self) -> list:
        return [f"L={L}/M={M}/seed={s}" for L, M, s in self.runs]

    def commands(self) -> list:
        """The commands that make the runs, one per request."""
        return [
            f"python -m cotbook authors rerun --from CHECKOUT --cells "
            f"{' '.join(f'{L},{M}' for L, M in cells)} --seeds {' '.join(map(str, seeds))}"
            for cells, seeds in self.requests
        ]

    def extend(self, other) -> RerunSpec:
        """This spec's requests, then those of ``other`` not among them."""
        new = tuple(r for r in other.requests if r not in self.requests)
        return RerunSpec(self.requests + new, self.checkout or other.checkout)

    def to_dict(self) -> dict:
        """The record's configuration: the script's identity, the commands and their runs."""
        return {
            "repository": REPOSITORY,
            "commit": COMMIT,
            "files": dict(FILES),
            "commands": self.commands(),
            "runs": [list(r) for r in self.runs],
        }

    @classmethod
    def from_dict(cls, d, checkout=None) -> RerunSpec:
        """The spec of a record's configuration; ``ValueError`` if its script is not
        :data:`FILES` or its runs are not those its commands make."""
        script = {k: d.get(k) for k in ("repository", "commit", "files")}
        if script != {"repository": REPOSITORY, "commit": COMMIT, "files": FILES}:
            raise ValueError(
                f"the runs were made with another script ({script}); this book runs "
                f"{REPOSITORY}@{COMMIT[:7]} {FILES}"
            )
        requests = []
        for line in d.get("commands") or [None]:
            found = re.fullmatch(
                r"python -m cotbook authors rerun --from CHECKOUT --cells (.+) --seeds (.+)",
                str(line),
            )
            if not found:
                raise ValueError(f"not a command of this book: {line!r}")
            requests.append(found.groups())
        spec = cls(tuple(requests), checkout)
        if [list(r) for r in spec.runs] != d.get("runs"):
            raise ValueError("its runs are not those its commands make")
        return spec


def _unit(unit) -> tuple:
    L, M, seed = (int(part.split("=")[1]) for part in unit.split("/"))
    return L, M, seed


def blob_id(data: bytes) -> str:
    """Git's id of a file holding ``data`` (:func:`cotbook.book.records.git_blob_id`, tested:
    not imported, so that a change to the records' machinery does not touch these runs)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def load_script(checkout):
    """Their script imported from ``checkout`` as a module, after every file of :data:`FILES`
    is checked against its git blob id; ``ValueError`` naming the file otherwise."""
    root = Path(checkout)
    if not root.is_dir():
        raise ValueError(f"checkout must be a folder holding {SCRIPT}, got {str(checkout)!r}")
    for rel, blob in FILES.items():
        path = root / rel
        if not path.is_file():
            raise ValueError(f"{path}: missing; checkout must be {REPOSITORY} at {COMMIT}")
        found = blob_id(path.read_bytes())
        if found != blob:
            raise ValueError(
                f"{path}: git blob id {found}, not {blob} ({REPOSITORY}@{COMMIT[:7]}): a "
                "changed file is not run"
            )
    name = f"_authors_{FILES[SCRIPT][:12]}"
    if name not in sys.modules:  # one import per process: the same file, checked above
        spec = importlib.util.spec_from_file_location(name, root / SCRIPT)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]


@one_thread_unit
def run_unit(spec, unit) -> dict:
    """One run of their script: ``{"E": [E_0 .. E_31], "objective": ..., "device": ...,
    "seconds": ...}``, their functions called in their ``main()``'s order."""
    import numpy as np
    import torch

    if not isinstance(spec, RerunSpec) or spec.checkout is None:
        raise ValueError("spec must be a RerunSpec with its checkout")
    if unit not in spec.units():
        raise ValueError(f"unit must be one of the spec's units, got {unit!r}")
    script = load_script(spec.checkout)
    L, M, seed = _unit(unit)
    start = time.perf_counter()
    np.random.seed(seed)
    torch.manual_seed(seed)
    train = script.build_fixed_train_dataset(M, n=L)
    v, w = script.train_model_no_cot_finite(train)
    curve = script.eval_dynamics_curve(v, w, n=L, t_list=script.EVAL_T_LIST)
    with torch.no_grad():  # after the evaluation: the released curve's draws are untouched
        fit = script.no_cot_train_loss(v, w, train["X"], train["y"], train["w_star"])
        objective = fit + script.PARAM_L2_LAMBDA * script.parameter_l2_penalty(v, w)
    return {
        "E": _overflow_marked([float(curve[t]) for t in script.EVAL_T_LIST], unit),
        "objective": float(objective),
        "device": str(script.device),
        "seconds": time.perf_counter() - start,
    }


def _overflow_marked(E, where) -> list:
    """``E`` with every value from the first overflow on as :data:`OVERFLOW` (their float32
    evaluation gives ``inf``, then ``nan`` for ``inf - inf``); a ``nan`` or ``-inf`` with no
    overflow before it is an error, named by ``where``."""
    out = list(E)
    for t, x in enumerate(E):
        if x == math.inf:
            return out[:t] + [OVERFLOW] * (len(E) - t)
        if not math.isfinite(x):
            raise ValueError(f"{where}: E_{t} = {x!r} with no overflow before it")
    return out


def assemble(spec, results_by_unit) -> tuple[dict, dict]:
    """``(data, timings_s)``: ``data = {"runs": {unit: {"E", "objective", "device"}}}``."""
    missing = [u for u in spec.units() if u not in results_by_unit]
    if missing:
        raise ValueError(f"results must hold every unit of the study; missing {missing}")
    runs = {
        u: {k: v for k, v in results_by_unit[u].items() if k != "seconds"} for u in spec.units()
    }
    return {"runs": runs}, {u: results_by_unit[u]["seconds"] for u in spec.units()}
