"""Chapter computations too slow to repeat on every test run: computed once, read back.

Each entry of :data:`STUDIES` is a record of :mod:`cotbook.book.results` that one chapter
shows: its parameters (the record's configuration), ``compute(config) -> data`` (plain JSON)
and ``decode(data)``, which gives the chapter the objects the computing functions return.
``python -m cotbook precompute [--only NAME ...]`` writes the records to ``book/results/``;
a chapter calls :func:`load`, which reads the committed record or, where it is missing,
computes it now, and says which in its caption.  A record's producers are the import closure
of the modules that compute it (:data:`cotbook.book.results.PRECOMPUTED_ROOTS` and
:func:`cotbook.book.results.import_closure`), so a change in any of them stales it, and the
test that checks committed records asks for a rerun.

Nothing here decides a number: the functions called are the ones the unit tests check, and
``tests/unit/book/test_precomputed.py`` recomputes one entry of every record.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable
from dataclasses import dataclass

from . import results

__all__ = ["Precomputed", "STUDIES", "compute", "load"]


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


def _plain(value):
    """A result (numbers, ``None``, strings, and tuples or dicts of them) as plain JSON."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        if not math.isfinite(value):
            raise ArithmeticError(f"a precomputed value is not finite: {value!r}")
        return float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return [_plain(v) for v in value]


# --------------------------------------------------------------------------------------------
# beyond the paper: the best depth in saturation (cotbook.theory.stopping)
# --------------------------------------------------------------------------------------------
def _stopping_maps(config) -> dict:
    from ..theory import phases, stopping

    maps = []
    for s2 in [config["sigma2"], *config["noise"]]:
        best = stopping.optimum_map(config["alphas"], config["factors"], s2)
        maps.append({"sigma2": s2, "rows": [[a, f, *_plain(b)] for (a, f), b in best.items()]})
    large = [
        _plain(r._asdict())
        for a, factors in config["large_tau"]
        for r in stopping.large_tau_check(a, config["sigma2"], factors)
    ]
    flips = []
    for a in config["flip_alphas"]:
        tau_x = phases.pole_crossover(a, config["sigma2"])
        for d in config["flip_deltas"]:
            tau = (1 + d) * tau_x
            law = stopping.t_flip_law(a, tau, config["sigma2"])
            exact = stopping.last_flip(a, tau, config["sigma2"])
            flips.append(_plain([a, d, law, exact]))
    return {"maps": maps, "large_tau": large, "flips": flips}


def _decode_stopping_maps(data) -> dict:
    from ..theory import stopping

    maps = {
        m["sigma2"]: {(a, f): stopping.SaturationOptimum(*rest) for a, f, *rest in m["rows"]}
        for m in data["maps"]
    }
    large = [
        stopping.LargeTauCheck(**{k: tuple(v) if isinstance(v, list) else v for k, v in r.items()})
        for r in data["large_tau"]
    ]
    return {"maps": maps, "large_tau": large, "flips": [tuple(r) for r in data["flips"]]}


# --------------------------------------------------------------------------------------------
# the derivation: the closed system at lambda > 0 (cotbook.theory.derivation)
# --------------------------------------------------------------------------------------------
def _ridge_depths(config) -> dict:
    from .. import theory
    from ..theory import derivation

    a, s2, t_max, lams = config["alpha"], config["sigma2"], config["t_max"], config["lams"]
    curves = [
        {
            "tau": tau,
            "lam": lam,
            "E": _plain(theory.error_curve(a, tau, s2, t_max, lam=lam)),
        }
        for tau in config["curve_taus"]
        for lam in lams
        if lam > 0 or tau > 1
    ]
    dmap = derivation.depth_map(a, s2, config["depth_taus"], lams, t_max)
    depth = [
        {
            "lam": lam,
            **_plain({k: d[k] for k in ("t_star", "E_star", "E_end")}),
        }
        for lam, d in dmap.items()
    ]
    # the closed system solved at lam = 0, to set against Result 1's closed form
    checks = []
    for alpha, tau in config["system_checks"]:
        curve = derivation.ridge_curve(alpha, tau, s2, config["check_t_max"], lam=0.0)
        checks.append({"alpha": alpha, "tau": tau, **_plain(curve._asdict())})
    return {
        "curves": curves,
        "depth_map": depth,
        "system_checks": checks,
        "simulations": _ridge_simulations(s2, config["simulations"]),
        "reach": _ridge_reach(s2, config["reach"]),
        "lam_limit": _ridge_lam_limit(s2, config["lam_limit"]),
        "boundary": _ridge_boundary(a, s2, config["boundary"]),
    }


def _ridge_boundary(alpha, sigma2, config) -> dict:
    """At each ridge: the largest tau at which E_t turns up before each horizon
    (:func:`cotbook.theory.upturn.boundary`) and the smallest at which a torus beyond 1
    certifies that it converges (:func:`cotbook.theory.upturn.decay_boundary`)."""
    from ..theory import upturn

    span = {k: config[k] for k in ("tau_lo", "tau_hi", "xtol")}
    up = [
        {"horizon": T, "lam": lam, **upturn.boundary(alpha, sigma2, T, lam=lam, **span)._asdict()}
        for T in config["horizons"]
        for lam in config["lams"]
    ]
    radius = config["decay_radius"]
    down = []
    for lam in config["lams"]:
        row = {"lam": lam, "below": config["tau_hi"], "above": None, "steps": 1}
        # a ridge whose rate stays above about radius^-2 up to tau_hi has no certified side
        if upturn.decays(alpha, config["tau_hi"], sigma2, lam=lam, radius=radius):
            b = upturn.decay_boundary(alpha, sigma2, lam=lam, radius=radius, **span)
            row = {"lam": lam, **b._asdict()}
        down.append(row)
    return {"turns_up": up, "decays": down}


def _ridge_reach(sigma2, config) -> list:
    """The deepest depth the torus certifies when ``t_max`` is asked for (``t_max`` itself
    where the whole curve is certified), at each point and ridge, with the radius used and
    ``E_{t_max}`` and its bound where the curve is returned."""
    from ..theory import derivation

    out = []
    for alpha, tau in config["points"]:
        for lam in config["lams"]:
            row = {"alpha": alpha, "tau": tau, "lam": lam}
            try:
                curve = derivation.ridge_curve(alpha, tau, sigma2, config["t_max"], lam=lam)
                row |= {"reach": config["t_max"], "radius": curve.radius}
                row |= {"E_end": float(curve.E[-1]), "error_end": float(curve.error[-1])}
            except derivation.RidgeAccuracyError as refusal:
                row |= {"reach": refusal.certified_to, "radius": None}
                row |= {"E_end": None, "error_end": None}
            out.append(row)
    return out


def _ridge_lam_limit(sigma2, config) -> list:
    """``lam -> 0`` of the deep ``lam > 0`` curve against the ridgeless engine (contours, an
    independent method): ``E`` is linear in ``lam`` at ``lam = 1e-8, 2e-8``, so
    ``2 E(1e-8) - E(2e-8)`` is the limit; its largest difference to the ridgeless curve, as a
    multiple of the two bounds and relative where ``E_t > 1e-8``, and ``lam = 1e-8``'s own
    largest relative effect there."""
    import numpy as np

    from .. import theory
    from ..theory import derivation

    small, double = config["lams"]
    t_max = config["t_max"]
    out = []
    for alpha, tau in config["points"]:
        one, two = (
            derivation.ridge_curve(alpha, tau, sigma2, t_max, lam=lam) for lam in (small, double)
        )
        ridgeless = theory.error_curve(alpha, tau, sigma2, t_max)
        limit = (2 * one.E - two.E)[1:]  # E_0 = 1 exactly, with bound 0
        bound = (2 * one.error + two.error)[1:]
        one, ridgeless = one.E[1:], ridgeless[1:]
        big = ridgeless > 1e-8  # beyond |x| = 1 the poles' removal leaves a floor near 1e-18
        out.append(
            {
                "alpha": alpha,
                "tau": tau,
                "over_bound": float(np.max(np.abs(limit - ridgeless) / bound)),
                "rel_limit": float(np.max(np.abs(limit[big] / ridgeless[big] - 1))),
                "rel_lam": float(np.max(np.abs(one[big] / ridgeless[big] - 1))),
            }
        )
    return out


def _ridge_simulations(sigma2, config) -> list:
    """The pretrained model simulated at large D next to the closed system at each point."""
    from .. import theory
    from ..simulation import simulate

    D, t_max = config["D"], config["t_max"]
    runs = []
    for alpha, tau, lam in config["points"]:
        sim = simulate.simulated_curve(
            alpha, tau, sigma2, t_max, D=D, lam=lam, trials=config["trials"],
            test_designs=config["test_designs"],
        )  # fmt: skip
        E = theory.error_curve(alpha, tau, sigma2, t_max, lam=lam)
        runs.append(
            {
                "alpha": alpha,
                "tau": tau,
                "lam": lam,
                **_plain({"sim": sim.mean, "sem": sim.sem, "E": E}),
            }
        )
    return runs


def _decode_ridge_depths(data) -> dict:
    import numpy as np

    from ..theory.derivation import RidgeCurve

    curves = {(c["tau"], c["lam"]): np.array(c["E"]) for c in data["curves"]}
    dmap = {
        d["lam"]: {k: np.array(d[k]) for k in ("t_star", "E_star", "E_end")}
        for d in data["depth_map"]
    }
    checks = {
        (c["alpha"], c["tau"]): RidgeCurve(np.array(c["E"]), np.array(c["error"]), c["radius"])
        for c in data["system_checks"]
    }
    sims = {
        (r["alpha"], r["tau"], r["lam"]): {k: np.array(r[k]) for k in ("sim", "sem", "E")}
        for r in data["simulations"]
    }
    reach = {(r["alpha"], r["tau"], r["lam"]): r for r in data["reach"]}
    return {
        "curves": curves,
        "depth_map": dmap,
        "system_checks": checks,
        "simulations": sims,
        "reach": reach,
        "lam_limit": {(r["alpha"], r["tau"]): r for r in data["lam_limit"]},
        "boundary": {(r["horizon"], r["lam"]): r for r in data["boundary"]["turns_up"]},
        "decays": {r["lam"]: r for r in data["boundary"]["decays"]},
    }


# --------------------------------------------------------------------------------------------
# Result 3: the optimal depth as tau -> tau_c (cotbook.theory.scaling)
# --------------------------------------------------------------------------------------------
def _optimal_depths(config) -> dict:
    from ..theory import scaling

    cases = []
    for alpha, sigma2 in config["cases"]:
        rows = scaling.optimal_depth_rows(alpha, sigma2, config["deltas"])
        cases.append(
            {
                "alpha": alpha,
                "sigma2": sigma2,
                "C_t": _plain(1 / (2 * scaling.kappa(alpha, sigma2))),
                "C_E": _plain(scaling.critical_prefactor(alpha, sigma2) * math.exp(0.5)),
                "rows": _plain(rows),
            }
        )
    return {"cases": cases}


def _decode_optimal_depths(data) -> dict:
    from ..theory import scaling

    return {
        (c["alpha"], c["sigma2"]): (
            c["C_t"],
            c["C_E"],
            [scaling.OptimalDepth(*r) for r in c["rows"]],
        )
        for c in data["cases"]
    }


# --------------------------------------------------------------------------------------------
# saturation: from which side E_t approaches the floor (cotbook.theory.saturation)
# --------------------------------------------------------------------------------------------
def _saturation_approach(config) -> dict:
    from ..theory import phases, saturation

    rows = []
    for alpha, factors in config["points"]:
        for factor in factors:
            tau = factor * phases.tau_c(alpha, config["sigma2"])
            r = saturation.approach(alpha, tau, config["sigma2"])
            law = r["law"]._asdict()
            rows.append(_plain({"alpha": alpha, "factor": factor, "tau": tau, **r, "law": law}))
    return {"approaches": rows}


def _decode_saturation_approach(data) -> dict:
    from ..theory import asymptotics

    out = {}
    for row in data["approaches"]:
        r = {k: v for k, v in row.items() if k not in ("alpha", "factor", "tau")}
        r["law"] = asymptotics.AsymptoticLaw(**r["law"])
        out[row["alpha"], row["factor"], row["tau"]] = r
    return out


# --------------------------------------------------------------------------------------------
# Appendix A: the learned matrices of linear attention (cotbook.attention.structure)
# --------------------------------------------------------------------------------------------
def _attention_structure(config) -> dict:
    from .. import attention
    from ..attention import structure

    runs = []
    for D in config["dims"]:
        for n in config["sizes"]:
            W, V = structure.trained_matrices(attention.Config(L=n, M=n, D=D, **config["settings"]))
            runs.append({"D": D, "n": n, "W": _plain(W.tolist()), "V": _plain(V.tolist())})
    return {"runs": runs}


def _decode_attention_structure(data) -> dict:
    import numpy as np

    return {(r["D"], r["n"]): (np.array(r["W"]), np.array(r["V"])) for r in data["runs"]}


STUDIES = {
    s.name: s
    for s in (
        Precomputed(
            "stopping_maps",
            "beyond",
            "best depths on a 4 x 5 map per noise level, large-tau check, t_flip",
            {
                "sigma2": 0.01,
                "alphas": [0.1, 0.3, 0.5, 0.7],
                "factors": [1.2, 2.0, 5.0, 10.0, 20.0],
                "noise": [0.0, 0.1],
                "large_tau": [[0.3, [30, 300, 3000]], [0.5, [30, 300, 3000]], [0.7, [30, 300]]],
                "flip_alphas": [0.3, 0.5, 0.7],
                "flip_deltas": [3e-4, 1e-3, 3e-3, 1e-2, 2e-2],
            },
            _stopping_maps,
            _decode_stopping_maps,
        ),
        Precomputed(
            "ridge_depths",
            "ridge",
            "E_t (t <= 40) of the closed system and its best depth, five ridges;\n"
            "the system at lambda = 0 (t <= 30); simulations at D = 800 (t <= 5);\n"
            "the deepest certified depth when t = 1000 is asked for;\n"
            "the largest tau whose curve turns up before t = 40 and 300, and the smallest\n"
            "certified to converge at every depth, five ridges",
            {
                "alpha": 2.0,
                "sigma2": 0.01,
                "t_max": 40,
                "lams": [0.0, 1e-3, 1e-2, 0.1, 1.0],
                "curve_taus": [2.0, 0.5],
                "depth_taus": [1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0],
                "system_checks": [[2.0, 3.0], [0.5, 10.0], [2.0, 2.0]],
                "check_t_max": 30,
                "simulations": {
                    "D": 800,
                    "t_max": 5,
                    "trials": 3,
                    "test_designs": 1,
                    "points": [
                        [2.0, 3.0, 1e-5],
                        [2.0, 3.0, 0.1],
                        [2.0, 3.0, 1.0],
                        [2.0, 0.5, 0.1],
                        [0.5, 0.5, 1.0],
                    ],
                },
                "reach": {
                    "t_max": 1000,
                    "points": [[2.0, 3.0], [2.0, 10.0], [4.0, 10.0], [0.5, 10.0]],
                    "lams": [1e-5, 0.1],
                },
                "lam_limit": {
                    "t_max": 1000,
                    "points": [[2.0, 3.0], [2.0, 10.0], [4.0, 10.0]],
                    "lams": [1e-8, 2e-8],
                },
                "boundary": {
                    "horizons": [40, 300],
                    "lams": [0.0, 1e-3, 1e-2, 0.1, 1.0],
                    "tau_lo": 1.25,
                    "tau_hi": 12.0,
                    "xtol": 1e-3,
                    "decay_radius": 1.03,
                },
            },
            _ridge_depths,
            _decode_ridge_depths,
        ),
        Precomputed(
            "optimal_depths",
            "overthinking",
            "the optimal depth at tau = tau_c - delta, three (alpha, sigma2)",
            {
                "deltas": [0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005],
                "cases": [[2.0, 0.0], [4.0, 1e-4], [2.0, 0.01]],
            },
            _optimal_depths,
            _decode_optimal_depths,
        ),
        Precomputed(
            "saturation_approach",
            "saturation",
            "the side E_t approaches the floor from, eleven points",
            {
                "sigma2": 0.01,
                "points": [[0.2, [1.1, 1.5, 3, 10]], [0.5, [1.1, 1.5, 3, 10]], [0.8, [1.5, 3, 10]]],
            },
            _saturation_approach,
            _decode_saturation_approach,
        ),
        Precomputed(
            "attention_structure",
            "parameter_structure",
            "W and V of linear attention trained at M = L = 20 and 200, D = 50 and 10",
            {
                "dims": [50, 10],
                "sizes": [20, 200],
                "settings": {"model": "linear", "lam": 1e-3, "sigma2": 0.01},
            },
            _attention_structure,
            _decode_attention_structure,
        ),
    )
}
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
    record = results.load(name)
    if record is not None:
        if record.config != study.config:
            raise results.ResultError(
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
