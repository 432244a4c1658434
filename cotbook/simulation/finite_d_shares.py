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

Two references are simulated per cell, with independent seeds.  ``zero_start`` is the
paper's simplified model, pretrained from ``w_hat_0 = 0`` (:mod:`cotbook.simulation.pretrain`):
its ``A`` minimises ``sum_mu |w_mu - A v_mu|^2`` (+ ridge), ``v_mu = P_mu w_mu + n_mu``,
``P_mu = (D/L) X_mu X_mu^T``, ``n_mu = (D/L) X_mu eps_mu``.  ``averaged`` is the
protocol-matched model: the trained layers draw a fresh ``w_hat_0 ~ N(0, I)`` for every task of
every minibatch (:func:`cotbook.attention.layer.train`), so over training their one-step
objective is averaged over ``w_hat_0``; per task

    E |(w - w_hat_0) - A (P (w - w_hat_0) + n)|^2 = |w - A v|^2 + |I - A P|_F^2,

and with the same ridge ``lam/2 |A|_F^2`` the minimiser is (:func:`averaged_solution`)

    A = B C^{-1},  B = (1/M) sum_mu (w_mu v_mu^T + P_mu),
                   C = (1/M) sum_mu (v_mu v_mu^T + P_mu^2) + (lam/2) I.

Each task adds the full-rank ``P_mu^2`` to ``C``, so at finite ``M`` this ``A`` is far better
conditioned than the zero-start one: another finite-``M`` model with the same test side (its
error from a random first estimate is, like the zero-start one's, twice
:func:`cotbook.simulation.simulate.design_errors` averaged over designs).  A cell's record keeps
the zero-start summaries at its top level (as before this reference was added) and the
averaged one's under ``"averaged"`` (same keys, :attr:`SharesSpec.averaged_trials` sets).

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

from .. import _checks, tasks
from .._threads import one_thread_unit
from . import simulate

__all__ = [
    "GRID_LS",
    "GRID_MS",
    "GROUP",
    "SharesSpec",
    "SCALES",
    "averaged_moments",
    "averaged_loss",
    "averaged_gradient",
    "averaged_solution",
    "sampled_averaged_solution",
    "averaged_per_set",
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
    averaged_trials: int | None = None
    """Pretraining sets of the averaged-objective reference a cell (``None``: ``trials``)."""

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
        averaged = trials if self.averaged_trials is None else self.averaged_trials
        averaged = _checks.positive_int("averaged_trials", averaged)
        if averaged < max(2, GROUP):
            raise ValueError(
                f"averaged_trials must be an integer >= {GROUP} (one group), got {averaged}"
            )
        object.__setattr__(self, "averaged_trials", averaged)
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
            "averaged_trials": self.averaged_trials,
        }

    @classmethod
    def from_dict(cls, d) -> SharesSpec:
        """The spec of :meth:`to_dict`'s layout (the saved record's configuration)."""
        fields = (
            "trials",
            "test_designs",
            "t_max",
            "D",
            "Ls",
            "Ms",
            "lam",
            "sigma2",
            "seed",
            "averaged_trials",
        )
        unknown = sorted(set(d) - set(fields))
        if unknown:
            raise ValueError(f"a shares configuration has only {list(fields)}, got {unknown}")
        return cls(**d)


SCALES = {
    "tiny": SharesSpec(trials=10, test_designs=1, t_max=3, D=10, Ls=(5,), Ms=(20, 40)),
    # 2000 sets x 4 test designs a cell: the SEM of the finite-size shift well below the gap's
    # at t <= 5, in minutes on one core (the record keeps the time each cell took).  The
    # averaged reference draws every task's X_mu (0.67 s a set over the 24 cells, against
    # 0.08 s for a zero-start set) but varies less from set to set: 500 sets keep its SEM
    # below the trained trials' SE, and the whole run under 10 minutes on one core.
    "paper": SharesSpec(trials=2000, test_designs=4, averaged_trials=500),
}


def _seed(seed, D, L, M):
    return int(np.random.SeedSequence([seed, D, L, M]).generate_state(1)[0])


#: The averaged reference's seed tag: its sets of a cell use ``SeedSequence([seed, D, L, M,
#: AVERAGED_TAG]).spawn(averaged_trials)``, independent of the zero-start sets.
AVERAGED_TAG = 1
#: Tasks drawn per block by :func:`sampled_averaged_solution` (part of its random stream).
AVERAGED_BLOCK = 1024


def _tasks(X, y, w):
    X = _checks.array("X", X, ndim=3)
    M, D, L = X.shape
    y = _checks.array("y", y, ndim=2)
    w = _checks.array("w", w, ndim=2)
    if y.shape != (M, L) or w.shape != (M, D):
        raise ValueError(
            f"y and w must have shapes {(M, L)} and {(M, D)} to match X, got {y.shape}, {w.shape}"
        )
    return X, y, w


def averaged_moments(X, y, w) -> tuple:
    """``(sum_mu (w_mu v_mu^T + P_mu), sum_mu (v_mu v_mu^T + P_mu^2))`` for tasks ``X``
    ``(M, D, L)``, ``y`` ``(M, L)``, ``w`` ``(M, D)``: the sums (not means) of the averaged
    objective's normal equations, ``P_mu = (D/L) X_mu X_mu^T`` and ``v_mu = (D/L) X_mu y_mu``,
    batched (no ``D x D`` matrix per task)."""
    X, y, w = _tasks(X, y, w)
    M, D, L = X.shape
    v = (D / L) * np.einsum("mdl,ml->md", X, y)
    flat = np.swapaxes(X, 0, 1).reshape(D, M * L)  # [X_1 ... X_M]
    gram_x = np.swapaxes(X @ (np.swapaxes(X, 1, 2) @ X), 0, 1).reshape(D, M * L)  # X_mu G_mu
    wv = w.T @ v + (D / L) * (flat @ flat.T)
    vv = v.T @ v + (D / L) ** 2 * (gram_x @ flat.T)
    return wv, vv


def _averaged_solve(wv, vv, M, lam):
    D = wv.shape[0]
    C = vv / M + (lam / 2) * np.eye(D)
    return np.linalg.solve(C, (wv / M).T).T  # A C = B, C symmetric


def averaged_solution(X, y, w, lam):
    """The minimiser ``A = B C^{-1}`` of the averaged objective (:func:`averaged_loss`) on the
    tasks ``(X, y, w)`` with ridge ``lam >= 0`` (the loss carries ``lam/2 |A|_F^2``, as the
    zero-start model's: :func:`cotbook.simulation.pretrain.ridge_solution`).  ``C`` holds
    every task's full-rank ``P_mu^2``, so it is invertible for any ``M >= 1`` when ``L >= D``
    and for ``M L >= D`` in general."""
    X, y, w = _tasks(X, y, w)
    return _averaged_solve(*averaged_moments(X, y, w), X.shape[0], _checks.nonnegative("lam", lam))


def sampled_averaged_solution(D, L, M, sigma2, lam, rng):
    """:func:`averaged_solution` for ``M`` tasks drawn literally by
    :func:`cotbook.tasks.sample_tasks` in blocks of :data:`AVERAGED_BLOCK` (the sums
    accumulated block by block)."""
    D, M = _checks.positive_int("D", D), _checks.positive_int("M", M)
    lam = _checks.nonnegative("lam", lam)
    wv, vv = np.zeros((D, D)), np.zeros((D, D))
    for start in range(0, M, AVERAGED_BLOCK):
        block = tasks.sample_tasks(D, L, min(AVERAGED_BLOCK, M - start), sigma2, rng)
        bwv, bvv = averaged_moments(*block)
        wv += bwv
        vv += bvv
    return _averaged_solve(wv, vv, M, lam)


def averaged_loss(A, X, y, w, lam) -> float:
    """The one-step objective averaged exactly over ``w_hat_0 ~ N(0, I_D)``:
    ``(1/M) sum_mu (|w_mu - A v_mu|^2 + |I - A P_mu|_F^2) + (lam/2) |A|_F^2`` (per task
    ``P_mu`` formed: for checks at small sizes)."""
    X, y, w = _tasks(X, y, w)
    M, D, L = X.shape
    A = _checks.array("A", A, ndim=2)
    P = (D / L) * X @ np.swapaxes(X, 1, 2)
    v = (D / L) * np.einsum("mdl,ml->md", X, y)
    fit = np.sum((w - v @ A.T) ** 2) + np.sum((np.eye(D) - A @ P) ** 2)
    return float(fit / M + lam / 2 * np.sum(A * A))


def averaged_gradient(A, X, y, w, lam):
    """Gradient of :func:`averaged_loss` in ``A``: ``2 (A C - B)`` in the notation of
    :func:`averaged_solution` (it vanishes there)."""
    X, y, w = _tasks(X, y, w)
    M = X.shape[0]
    A = _checks.array("A", A, ndim=2)
    wv, vv = averaged_moments(X, y, w)
    lam = _checks.nonnegative("lam", lam)
    return 2 * (A @ (vv / M + (lam / 2) * np.eye(A.shape[0])) - wv / M)


def averaged_per_set(spec, L, M, seed):
    """Each of ``spec.averaged_trials`` averaged-objective sets' mean over ``spec.test_designs``
    test designs of :func:`cotbook.simulation.simulate.design_errors` (``w_hat_0 = 0`` scale),
    shape ``(averaged_trials, t_max + 1)``; set ``k`` uses
    ``SeedSequence(seed).spawn(averaged_trials)[k]`` (``seed``: an int or a list of ints) for
    its tasks, then its designs."""
    per_set = np.empty((spec.averaged_trials, spec.t_max + 1))
    for k, stream in enumerate(np.random.SeedSequence(seed).spawn(spec.averaged_trials)):
        rng = np.random.default_rng(stream)
        A = sampled_averaged_solution(spec.D, L, M, spec.sigma2, spec.lam, rng)
        X = rng.standard_normal((spec.test_designs, spec.D, L)) / np.sqrt(spec.D)
        per_set[k] = simulate.design_errors(A, X, spec.t_max).mean(axis=0)
    return per_set


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
    a JSON-ready ``{"L", "M", **summarise(zero-start sets' curves), "averaged":
    summarise(averaged sets' curves), "seconds"}``.  The zero-start sets are seeded by
    ``SeedSequence([seed, D, L, M])``, the averaged ones by ``SeedSequence([seed, D, L, M,
    AVERAGED_TAG])`` (the cell's own numbers, not its place in the list), so any unit can be
    recomputed on its own and a cell added later reseeds no other."""
    if unit not in spec.units():
        raise ValueError(f"unit must be one of {spec.units()}, got {unit!r}")
    L, M = (int(part.split("=")[1]) for part in unit.split("/"))
    start = time.perf_counter()
    zero_start = simulate.simulated_curve(
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
    averaged = averaged_per_set(spec, L, M, [spec.seed, spec.D, L, M, AVERAGED_TAG])
    return {
        "L": L,
        "M": M,
        **summarise(zero_start.per_trial),
        "averaged": summarise(averaged),
        "seconds": time.perf_counter() - start,
    }


def assemble(spec: SharesSpec, results) -> tuple[dict, dict]:
    """``(data, timings_s)`` from ``{unit: run_unit(spec, unit)}``: ``data = {"cells": {unit:
    {"L", "M", "mean", "sem", "median", "top_share", "median_of_group", "averaged": {the same
    five}}}}`` in the order of :meth:`SharesSpec.units`."""
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
