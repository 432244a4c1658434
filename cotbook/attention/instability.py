"""Why the mean over test tasks overthinks: tasks whose chain-of-thought map expands.

A linear attention layer's CoT step is affine in the estimate.  Under the examples-only mask,
``w_hat -> J w_hat + c`` with, per task, ``J = I + V_ex S P / L``: ``S = sum_l z_l z_l^T`` the
task's second moment of its example rows ``z_l = [x_l, y_l]``, ``P`` the estimate columns of
the example rows of ``W_K^T W_Q`` and ``V_ex`` the estimate rows of the example columns of
``W_V`` (:mod:`cotbook.attention.layer`).  The simplified model of the paper's Section 3 has
``J = I - (D/L) A X X^T`` (Appendix C.2).  A task whose ``J`` has spectral radius above 1 is
*unstable*: its error grows geometrically, and at depth 20-40 a small share of such tasks
outweighs all the others in the mean.

As ``D -> infinity`` (sigma2 = 0 or not) the spectral radius of the simplified model's map
tends to ``sqrt(Lambda)`` (Result 2: ``E_t ~ Lambda^t``), so the stability margin is
``1 - sqrt(Lambda)`` (:func:`cotbook.attention.versus_theory.margin`, which a chapter puts
beside the study: this module imports no theory, so that its record stales when the study
changes, not when the theory engine does); at finite ``D`` the extreme eigenvalues of the
task's sample covariance fluctuate by ``O(D^-2/3)`` and cross a small margin.

:class:`InstabilitySpec` is the study of the book's Figure 2 chapter: the share of unstable
test tasks over the grid (trained linear layer, trial 0 of the Figure 2 runs, and the
simplified model with as many test designs), against ``D`` and against ``sigma2``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .. import _checks
from .._threads import one_thread_unit
from ..simulation import pretrain, simulate
from . import layer

__all__ = [
    "trained_maps",
    "simplified_maps",
    "spectral_radius",
    "RADIUS_TOL",
    "InstabilitySpec",
    "SCALES",
    "run_unit",
    "assemble",
    "run",
]

_CHUNK = 512  # tasks whose D x D maps are held at once
RADIUS_TOL = 1e-6
"""A map is unstable if its spectral radius exceeds ``1 + RADIUS_TOL``.  For ``L < D`` the
task's second moment has rank ``<= L + 1``, so ``D - L - 1`` eigenvalues of ``J`` are 1 up to
round-off (directions the step does not touch): they neither grow nor decay."""


def trained_maps(params, Z, L) -> np.ndarray:
    """``J = I + V_ex S P / L`` for each task of ``Z`` (example rows, ``(n, L, D+1)``) under the
    trained linear layer ``params`` (one configuration): shape ``(n, D, D)``, float64."""
    p = {k: (v if v.ndim == 2 else v[0]).double().numpy() for k, v in params.items()}
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim != 3:
        raise ValueError(f"Z must have shape (n, L, D+1), got {Z.shape}")
    D = Z.shape[-1] - 1
    if "W" in p:
        WKQ = p["W"]
    else:
        WKQ = p["W_K"].T @ p["W_Q"]
    P = WKQ[: D + 1, D + 1 : 2 * D + 1]  # score vector's example block per estimate coordinate
    V = p["W_V"][D + 1 : 2 * D + 1, : D + 1]
    S = np.einsum("nli,nlj->nij", Z, Z)
    return np.eye(D) + (V @ S @ P) / _checks.positive_int("L", L)


def simplified_maps(A, X) -> np.ndarray:
    """``J = I - (D/L) A X X^T`` for each design of ``X`` (``(n, D, L)``): the simplified
    model's CoT map (Appendix C.2), shape ``(n, D, D)``."""
    X = _checks.array("X", X, ndim=3)
    n, D, L = X.shape
    A = _checks.array("A", A, ndim=2)
    if A.shape != (D, D):
        raise ValueError(f"A must have shape ({D}, {D}) to match X, got {A.shape}")
    return np.eye(D) - (D / L) * (A @ X) @ np.swapaxes(X, 1, 2)


def spectral_radius(maps) -> np.ndarray:
    """Largest ``|eigenvalue|`` of each ``(D, D)`` map of a batch ``(n, D, D)``."""
    maps = _checks.array("maps", maps, ndim=3)
    return np.abs(np.linalg.eigvals(maps)).max(axis=-1)


@dataclass(frozen=True)
class InstabilitySpec:
    """The instability study.

    ``Ls`` x ``Ms`` at ``D``: the trained linear layer (trial 0 of the Figure 2 protocol,
    ``settings``) and the simplified model (ridge ``lam``, one pretraining set per cell), each on
    ``tasks`` test tasks.  At each cell ``(alpha, tau)`` of ``points``: the same for each ``D``
    of ``dims`` (``L = alpha D``, ``M = tau D``); at the first point and ``D``, for each
    label-noise variance of ``sigma2s``.  The trained layer's curves run to ``t_max``.
    """

    Ls: tuple
    Ms: tuple
    points: tuple = ((1.5, 16.0), (0.7, 16.0))
    dims: tuple = (50, 100, 200)
    sigma2s: tuple = (0.0, 0.01, 0.1)
    tasks: int = 4096
    t_max: int = 40
    lam: float = 1e-5
    seed: int = 0
    settings: dict = field(default_factory=dict)

    def __post_init__(self):
        for name in ("Ls", "Ms", "dims"):
            values = tuple(_checks.positive_int(name, v) for v in getattr(self, name))
            if not values:
                raise ValueError(f"{name} must be a non-empty list of integers >= 1")
            object.__setattr__(self, name, values)
        sigma2s = tuple(_checks.nonnegative("sigma2s", s) for s in self.sigma2s)
        object.__setattr__(self, "sigma2s", sigma2s)
        points = tuple(tuple(_checks.positive("points", v) for v in p) for p in self.points)
        if not points or any(len(p) != 2 or p[1] <= 1 for p in points):
            raise ValueError(
                f"points must be (alpha, tau) pairs with tau > 1 (Result 2's margin needs it), "
                f"got {self.points}"
            )
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "tasks", _checks.positive_int("tasks", self.tasks))
        object.__setattr__(self, "t_max", _checks.positive_int("t_max", self.t_max))
        object.__setattr__(self, "lam", _checks.positive("lam", self.lam))
        object.__setattr__(self, "seed", _checks.nonneg_int("seed", self.seed))
        object.__setattr__(self, "settings", dict(self.settings))
        if "seed" in self.settings:
            raise ValueError("settings must not hold 'seed' (the spec's seed is used)")
        layer.Config(model="linear", L=1, M=1, **self.settings)  # validates the settings

    @property
    def D(self) -> int:
        return self.settings.get("D", 50)

    def units(self) -> list:
        """``"grid/L=<L>"``, ``"D=<D>"`` and ``"sigma2=<s>"``."""
        return (
            [f"grid/L={L}" for L in self.Ls]
            + [f"point{k}/D={D}" for k in range(len(self.points)) for D in self.dims]
            + [f"sigma2={s!r}" for s in self.sigma2s]
        )

    def to_dict(self) -> dict:
        return {
            "Ls": list(self.Ls),
            "Ms": list(self.Ms),
            "points": [list(p) for p in self.points],
            "dims": list(self.dims),
            "sigma2s": list(self.sigma2s),
            "tasks": self.tasks,
            "t_max": self.t_max,
            "lam": self.lam,
            "seed": self.seed,
            "settings": dict(self.settings),
        }

    @classmethod
    def from_dict(cls, d) -> InstabilitySpec:
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})


def _trained_cells(spec, configs) -> list[dict]:
    """Train ``configs`` (one group) and measure each on its test tasks."""
    params, _ = layer.train(configs)
    out = []
    for g, c in enumerate(configs):
        one = {k: v[g : g + 1] for k, v in params.items()}
        Z, _, _ = layer.test_set(c, spec.tasks)
        radius = np.concatenate(
            [
                spectral_radius(trained_maps(one, Z[s : s + _CHUNK], c.L))
                for s in range(0, spec.tasks, _CHUNK)
            ]
        )
        E = layer.evaluate_stack(
            c, one, spec.t_max, tasks=spec.tasks, masks=("examples",), per_task=True
        )["examples"][0]
        out.append(_summary(radius, E))
    return out


def _summary(radius, E=None) -> dict:
    """Shares and means of one cell from per-task spectral radii and, if given, error curves
    ``(n, T)``: the share of tasks ending above their start, the share of those that are
    unstable, and the mean final error over all tasks and over the stable ones."""
    unstable = radius > 1.0 + RADIUS_TOL
    out = {"unstable": float(unstable.mean()), "radius_median": float(np.median(radius))}
    if E is not None:
        rising = E[:, -1] > E[:, 0]
        out |= {
            "rising": float(rising.mean()),
            "rising_unstable": float(unstable[rising].mean()) if rising.any() else 1.0,
            "E_end": float(E[:, -1].mean()),
            "E_end_stable": float(E[~unstable, -1].mean()) if (~unstable).any() else None,
        }
    return out


def _simplified_cell(spec, L, M, D, sigma2, *, curves=True) -> dict:
    """The simplified model at ``(L, M, D, sigma2)``: one pretraining set, ``spec.tasks`` test
    designs (``x ~ N(0, I/D)``, the paper's Section 3); with ``curves``, also their error
    curves from ``w_hat_0 = 0`` (:func:`cotbook.simulation.simulate.design_errors`), whose
    mean and median over the designs are kept (``E_mean``, ``E_median``)."""
    seed = np.random.SeedSequence([spec.seed, L, M, D, round(sigma2 * 1e6)])
    rng = np.random.default_rng(seed)
    A = pretrain.sampled_solution(D, L, M, sigma2, spec.lam, rng)
    radius, E = [], []
    for s in range(0, spec.tasks, _CHUNK):
        X = rng.standard_normal((min(_CHUNK, spec.tasks - s), D, L)) / math.sqrt(D)
        radius.append(spectral_radius(simplified_maps(A, X)))
        if curves:
            E.append(simulate.design_errors(A, X, spec.t_max))
    if not curves:
        return _summary(np.concatenate(radius))
    E = np.concatenate(E)
    out = _summary(np.concatenate(radius), E)
    return out | {"E_mean": E.mean(axis=0).tolist(), "E_median": np.median(E, axis=0).tolist()}


@one_thread_unit
def run_unit(spec: InstabilitySpec, unit) -> dict:
    """One unit of :meth:`InstabilitySpec.units`, JSON-ready, with its wall-clock seconds."""
    if unit not in spec.units():
        raise ValueError(f"unit must be one of {spec.units()}, got {unit!r}")
    start = time.perf_counter()
    if unit.startswith("grid/L="):
        L = int(unit[len("grid/L=") :])
        configs = [
            layer.Config(model="linear", L=L, M=M, seed=spec.seed, **spec.settings) for M in spec.Ms
        ]
        trained = _trained_cells(spec, configs)
        simplified = [_simplified_cell(spec, L, M, spec.D, 0.0) for M in spec.Ms]
        out = {"trained": trained, "simplified": simplified}
    else:
        if unit.startswith("point"):  # "point<k>/D=<D>"
            k, D = (int(v) for v in unit[len("point") :].split("/D="))
            sigma2 = 0.0
        else:  # "sigma2=<s>", at the first point
            k, D, sigma2 = 0, spec.D, float(unit[len("sigma2=") :])
        alpha, tau = spec.points[k]
        L, M = round(alpha * D), round(tau * D)
        settings = {**spec.settings, "D": D, "sigma2": sigma2, "seed": spec.seed}
        (trained,) = _trained_cells(spec, [layer.Config(model="linear", L=L, M=M, **settings)])
        simplified = _simplified_cell(spec, L, M, D, sigma2, curves=False)
        out = {
            "trained": trained,
            "simplified": simplified,
            "L": L,
            "M": M,
        }
    return {**out, "seconds": time.perf_counter() - start}


def assemble(spec: InstabilitySpec, results) -> tuple[dict, dict]:
    """``(data, timings_s)``: ``data = {"grid": {"trained"|"simplified": {key: [L][M]}},
    "dims": {"alpha, tau": {D: unit}}, "sigma2s": {sigma2: unit}}`` (unit as :func:`run_unit`
    returns it; ``sigma2s`` at the first point)."""
    missing = [u for u in spec.units() if u not in results]
    if missing:
        raise ValueError(f"results must hold every unit of the study; missing {missing}")
    grid = {}
    for model in ("trained", "simplified"):
        rows = [results[f"grid/L={L}"][model] for L in spec.Ls]
        grid[model] = {key: [[cell[key] for cell in row] for row in rows] for key in rows[0][0]}
    strip = lambda r: {k: v for k, v in r.items() if k != "seconds"}  # noqa: E731
    data = {
        "grid": grid,
        "dims": {
            f"{alpha:g}, {tau:g}": {str(D): strip(results[f"point{k}/D={D}"]) for D in spec.dims}
            for k, (alpha, tau) in enumerate(spec.points)
        },
        "sigma2s": {repr(s): strip(results[f"sigma2={s!r}"]) for s in spec.sigma2s},
    }
    return data, {u: results[u]["seconds"] for u in spec.units()}


def run(spec: InstabilitySpec, *, progress=False) -> tuple[dict, dict]:
    """Every unit of ``spec`` in order, assembled (:func:`assemble`)."""
    units = spec.units()
    if progress:
        from tqdm import tqdm

        units = tqdm(units, desc="units", unit="unit")
    return assemble(spec, {u: run_unit(spec, u) for u in units})


SCALES = {
    "tiny": InstabilitySpec(
        Ls=(5, 20),
        Ms=(10, 40),
        points=((1.5, 4.0), (0.7, 4.0)),
        dims=(8, 12),
        sigma2s=(0.0, 0.1),
        tasks=64,
        t_max=4,
        settings=dict(D=8, steps=20),
    ),
    "paper": InstabilitySpec(
        Ls=(10, 15, 25, 35, 50, 75, 110, 160),
        Ms=(25, 50, 100, 200, 400, 800, 1600, 3200),
    ),
}
