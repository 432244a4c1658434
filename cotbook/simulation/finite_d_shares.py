"""The simplified model simulated at the Figure 2 grid's own ``D = 50``: how far finite size
alone moves ``E_t`` from Result 1 on the cells where the trained layers are compared with it.

The Figure 2 grid (:mod:`cotbook.attention.grid`, ``D = 50``) sets trained linear attention
beside twice Result 1's ``D -> infinity`` curve (:mod:`cotbook.attention.versus_theory`).  Part
of the gap ``trained_t - 2 E_t`` may be finite size rather than training: this study measures
that part by simulating the simplified model itself at ``D = 50`` -- the whole finite-size
effect, not its ``1/D`` term -- with the grid's ridge ``lam = 1e-5`` and no label noise, on
every cell of the grid with ``L < D < M`` (:meth:`SharesSpec.cells`): 4 values of ``L`` times 6
of ``M`` at the committed grid.  ``M > D`` because Result 1's ridgeless curve exists only
there; ``L < D`` is the question asked (issue 65).  Every such cell is simulated: none is chosen
by the size of its gap or of its finite-size effect.

Each cell is one unit: ``trials`` pretraining sets, each averaged over ``test_designs`` test
designs (:func:`cotbook.simulation.simulated_curve`, from ``w_hat_0 = 0``).  A unit keeps
summaries per depth, not the sets' curves: the mean and its SEM, the median, the largest single
set's share of the sum over sets (``top_share``: near ``1/trials`` when the sets are alike,
near 1 when one rare set makes the mean), and the median over disjoint groups of
:data:`GROUP` sets of their mean (what a study of :data:`GROUP` trials, as many as the grid's,
typically sees).

This module simulates only: it imports no theory and no trained layer, so its record stales
when the simulation changes, not when the theory engine or the training does.  The gap and the
verdicts are computed when the record is read (:mod:`cotbook.simulation.apportion`,
:func:`cotbook.book.studies.finite_d_shares`).  The grid's ``L`` and ``M`` are tabulated here
(:data:`GRID_LS`, :data:`GRID_MS`), and the tests check them against the committed grid.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .. import _checks
from .._threads import one_thread_unit
from . import simulate

__all__ = [
    "GRID_LS",
    "GRID_MS",
    "GROUP",
    "SharesSpec",
    "SCALES",
    "summarise",
    "run_unit",
    "assemble",
    "run",
]

#: The ``L`` and ``M`` of the Figure 2 grid (:data:`cotbook.attention.grid.GRID_SCALES`'s paper
#: scale, ``D = 50``); the cells simulated are those with ``L < D < M``.
GRID_LS = (10, 15, 25, 35, 50, 75, 110, 160)
GRID_MS = (25, 50, 100, 200, 400, 800, 1600, 3200)
#: Trials per cell of the Figure 2 grid: the size of the groups whose mean ``median_of_group``
#: summarises.
GROUP = 5


@dataclass(frozen=True)
class SharesSpec:
    """The simplified model at dimension ``D`` on every cell ``(L, M)`` of ``Ls x Ms`` with
    ``L < D < M``: ``trials`` pretraining sets a cell, ``test_designs`` test designs each,
    ``t <= t_max``, ridge ``lam``, label noise ``sigma2``; one unit per cell.

    Examples
    --------
    >>> spec = SCALES["paper"]
    >>> len(spec.cells()), spec.cells()[0], spec.units()[0]
    (24, (10, 100), 'L=10/M=100')
    >>> SharesSpec.from_dict(spec.to_dict()) == spec
    True
    """

    trials: int
    test_designs: int
    t_max: int = 20
    D: int = 50
    Ls: tuple = GRID_LS
    Ms: tuple = GRID_MS
    lam: float = 1e-5
    sigma2: float = 0.0
    seed: int = 0

    def __post_init__(self):
        for name in ("Ls", "Ms"):
            values = tuple(_checks.positive_int(name[:-1], v) for v in getattr(self, name))
            if not values or len(set(values)) != len(values):
                raise ValueError(f"{name} must list distinct integers >= 1, got {values}")
            object.__setattr__(self, name, values)
        object.__setattr__(self, "D", _checks.positive_int("D", self.D))
        trials = _checks.positive_int("trials", self.trials)
        if trials < max(2, GROUP):
            raise ValueError(f"trials must be an integer >= {GROUP} (one group), got {trials}")
        object.__setattr__(self, "trials", trials)
        object.__setattr__(
            self, "test_designs", _checks.positive_int("test_designs", self.test_designs)
        )
        object.__setattr__(self, "t_max", _checks.nonneg_int("t_max", self.t_max))
        object.__setattr__(self, "lam", _checks.nonnegative("lam", self.lam))
        object.__setattr__(self, "sigma2", _checks.nonnegative("sigma2", self.sigma2))
        object.__setattr__(self, "seed", _checks.nonneg_int("seed", self.seed))
        if not self.cells():
            raise ValueError(f"no cell of Ls x Ms has L < D = {self.D} < M")

    def cells(self) -> list:
        """Every ``(L, M)`` of ``Ls x Ms`` with ``L < D < M``, ``L`` slowest."""
        return [(L, M) for L in self.Ls for M in self.Ms if L < self.D < M]

    def units(self) -> list:
        """``"L=<L>/M=<M>"`` for every cell."""
        return [f"L={L}/M={M}" for L, M in self.cells()]

    def to_dict(self) -> dict:
        """The spec as a flat JSON-ready dict: the configuration a saved record keeps."""
        return {
            "trials": self.trials,
            "test_designs": self.test_designs,
            "t_max": self.t_max,
            "D": self.D,
            "Ls": list(self.Ls),
            "Ms": list(self.Ms),
            "lam": self.lam,
            "sigma2": self.sigma2,
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, d) -> SharesSpec:
        """The spec of :meth:`to_dict`'s layout (the saved record's configuration)."""
        fields = ("trials", "test_designs", "t_max", "D", "Ls", "Ms", "lam", "sigma2", "seed")
        unknown = sorted(set(d) - set(fields))
        if unknown:
            raise ValueError(f"a shares configuration has only {list(fields)}, got {unknown}")
        return cls(**d)


SCALES = {
    "tiny": SharesSpec(trials=10, test_designs=1, t_max=3, D=10, Ls=(5,), Ms=(20, 40)),
    # 2000 sets x 4 test designs a cell: the SEM of the finite-size shift well below the gap's
    # at t <= 5, in minutes on one core (the record keeps the time each cell took).
    "paper": SharesSpec(trials=2000, test_designs=4),
}


def _seed(seed, D, L, M):
    return int(np.random.SeedSequence([seed, D, L, M]).generate_state(1)[0])


def summarise(per_set) -> dict:
    """Per-depth summaries of ``per_set`` (``(sets, depths)``, each set's ``E_t >= 0``):
    ``mean``, ``sem``, ``median``, ``top_share`` (the largest set's share of the sum over sets;
    1 where the sum is not finite) and ``median_of_group`` (the median over the
    ``sets // GROUP`` disjoint groups of :data:`GROUP` consecutive sets of their mean).

    Examples
    --------
    >>> s = summarise(np.array([[1.0], [1.0], [1.0], [1.0], [1.0], [5.0]]))
    >>> s["mean"], s["top_share"], s["median_of_group"]
    ([1.6666666666666667], [0.5], [1.0])
    """
    per_set = np.asarray(per_set, dtype=float)  # a set beyond float64 is inf, kept as such
    if per_set.ndim != 2:
        raise ValueError(f"per_set must be a 2-dimensional array, got shape {per_set.shape}")
    sets = per_set.shape[0]
    if sets < GROUP:
        raise ValueError(f"per_set must hold at least {GROUP} sets, got {sets}")
    with np.errstate(invalid="ignore", over="ignore"):
        mean = per_set.mean(axis=0)
        sem = per_set.std(axis=0, ddof=1) / np.sqrt(sets)
        total = per_set.sum(axis=0)
        top = np.where(np.isfinite(total) & (total > 0), per_set.max(axis=0) / total, 1.0)
        groups = per_set[: sets // GROUP * GROUP].reshape(sets // GROUP, GROUP, -1).mean(axis=1)
    sem[~np.isfinite(mean)] = np.inf
    return {
        "mean": mean.tolist(),
        "sem": sem.tolist(),
        "median": np.median(per_set, axis=0).tolist(),
        "top_share": top.tolist(),
        "median_of_group": np.median(groups, axis=0).tolist(),
    }


@one_thread_unit
def run_unit(spec: SharesSpec, unit) -> dict:
    """Simulate one cell (``unit = "L=<L>/M=<M>"``) at ``alpha = L/D``, ``tau = M/D``.  Returns
    a JSON-ready ``{"L", "M", **summarise(sets' curves), "seconds"}``.  The cell is seeded by
    ``SeedSequence([seed, D, L, M])`` (its own numbers, not its place in the list), so any unit
    can be recomputed on its own and a cell added later reseeds no other."""
    if unit not in spec.units():
        raise ValueError(f"unit must be one of {spec.units()}, got {unit!r}")
    L, M = (int(part.split("=")[1]) for part in unit.split("/"))
    start = time.perf_counter()
    curve = simulate.simulated_curve(
        L / spec.D,
        M / spec.D,
        spec.sigma2,
        spec.t_max,
        D=spec.D,
        lam=spec.lam,
        trials=spec.trials,
        test_designs=spec.test_designs,
        seed=_seed(spec.seed, spec.D, L, M),
    )
    return {"L": L, "M": M, **summarise(curve.per_trial), "seconds": time.perf_counter() - start}


def assemble(spec: SharesSpec, results) -> tuple[dict, dict]:
    """``(data, timings_s)`` from ``{unit: run_unit(spec, unit)}``: ``data = {"cells": {unit:
    {"L", "M", "mean", "sem", "median", "top_share", "median_of_group"}}}`` in the order of
    :meth:`SharesSpec.units`."""
    missing = [u for u in spec.units() if u not in results]
    if missing:
        raise ValueError(f"results must hold every unit of the study; missing {missing}")
    cells = {u: {k: v for k, v in results[u].items() if k != "seconds"} for u in spec.units()}
    return {"cells": cells}, {u: results[u]["seconds"] for u in spec.units()}


def run(spec: SharesSpec, *, progress=False) -> tuple[dict, dict]:
    """Every unit of ``spec`` in order, assembled (:func:`assemble`)."""
    units = spec.units()
    if progress:
        from tqdm import tqdm

        units = tqdm(units, desc="cells", unit="cell")
    return assemble(spec, {u: run_unit(spec, u) for u in units})
