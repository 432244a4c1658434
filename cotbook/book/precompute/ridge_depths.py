"""The precomputed record ``ridge_depths``, shown by the chapters ``ridge`` and ``ridge_depth``:
the closed system at lambda > 0: its depth, its lambda -> 0 limit and the overthinking boundary
(cotbook.theory.ridge, cotbook.theory.laws.upturn). :func:`compute` writes its data (``python -m
cotbook precompute --only ridge_depths``); :func:`decode` gives the chapter the objects the
computing functions return. This module and its import closure are the record's producers
(:data:`cotbook.book.records.PRECOMPUTED_ROOTS`): a change here stales this record.
"""

from __future__ import annotations

from . import plain

CHAPTER = "ridge"
DESCRIBE = (
    "E_t (t <= 40) of the closed system and its best depth, five ridges;\n"
    "the system at lambda = 0 (t <= 30); simulations at D = 800 (t <= 5);\n"
    "the deepest certified depth when t = 10^4 is asked for, and where E_t leaves\n"
    "the float range at tau <= 1 with a large ridge;\n"
    "lambda -> 0 against the ridgeless engine to t = 1000, and at three depths to 10^4;\n"
    "the largest tau whose curve turns up before t = 40 and 300, and the smallest\n"
    "certified to converge at every depth, five ridges"
)
CONFIG = {
    "alpha": 2.0,
    "sigma2": 0.01,
    "t_max": 40,
    "lams": [0.0, 0.001, 0.01, 0.1, 1.0],
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
            [2.0, 3.0, 1e-05],
            [2.0, 3.0, 0.1],
            [2.0, 3.0, 1.0],
            [2.0, 0.5, 0.1],
            [0.5, 0.5, 1.0],
        ],
    },
    "reach": {
        "t_max": 10_000,
        "points": [[2.0, 3.0], [4.0, 1.5], [2.0, 10.0], [4.0, 10.0], [0.5, 10.0], [2.0, 0.5]],
        "lams": [1e-08, 1e-05, 0.1],
    },
    "float_range": {
        "t_max": 10_000,
        "points": [[2.0, 1.0, 0.1], [2.0, 1.0, 1.0], [0.5, 0.5, 1.0]],
    },
    "lam_limit": {
        "t_max": 1000,
        "points": [[2.0, 3.0], [2.0, 10.0], [4.0, 10.0]],
        "lams": [1e-10, 2e-10],
        "deep": {"point": [2.0, 3.0], "depths": [2000, 5000, 10_000]},
    },
    "boundary": {
        "horizons": [40, 300],
        "lams": [0.0, 0.001, 0.01, 0.1, 1.0],
        "tau_lo": 1.25,
        "tau_hi": 12.0,
        "xtol": 0.001,
        "decay_radius": 1.03,
    },
}
"""The study's parameters, stored as the record's configuration."""


def compute(config) -> dict:
    from ...theory import curve, ridge

    a, s2, t_max, lams = config["alpha"], config["sigma2"], config["t_max"], config["lams"]
    curves = [
        {
            "tau": tau,
            "lam": lam,
            "E": plain(curve.error_curve(a, tau, s2, t_max, lam=lam)),
        }
        for tau in config["curve_taus"]
        for lam in lams
        if lam > 0 or tau > 1
    ]
    dmap = ridge.depth_map(a, s2, config["depth_taus"], lams, t_max)
    depth = [
        {
            "lam": lam,
            **plain({k: d[k] for k in ("t_star", "E_star", "E_end")}),
        }
        for lam, d in dmap.items()
    ]
    # the closed system solved at lam = 0, to set against Result 1's closed form
    checks = []
    for alpha, tau in config["system_checks"]:
        curve = ridge.ridge_curve(alpha, tau, s2, config["check_t_max"], lam=0.0)
        checks.append({"alpha": alpha, "tau": tau, **plain(curve._asdict())})
    return {
        "curves": curves,
        "depth_map": depth,
        "system_checks": checks,
        "simulations": _ridge_simulations(s2, config["simulations"]),
        "reach": _ridge_reach(s2, config["reach"]),
        "float_range": _ridge_float_range(s2, config["float_range"]),
        "lam_limit": _ridge_lam_limit(s2, config["lam_limit"]),
        "boundary": _ridge_boundary(a, s2, config["boundary"]),
    }


def _ridge_boundary(alpha, sigma2, config) -> dict:
    """At each ridge: the largest tau at which E_t turns up before each horizon
    (:func:`cotbook.theory.laws.upturn.boundary`) and the smallest at which a torus beyond 1
    certifies that it converges (:func:`cotbook.theory.laws.upturn.decay_boundary`)."""
    from ...theory import upturn

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
    """The deepest depth certified when ``t_max`` is asked for (``t_max`` itself where the
    whole curve is certified), at each point and ridge, with the torus radius used, the
    first depth the mixed sector's pole, a second torus beyond ``|x| = 1`` or the loop round
    the sectors' cut served (``pole_from``, ``beyond_from``, ``loop_from``; ``None`` where the
    torus served all), and
    ``E_{t_max}`` and its bound where the curve is returned."""
    from ...theory import ridge

    out = []
    for alpha, tau in config["points"]:
        for lam in config["lams"]:
            row = {"alpha": alpha, "tau": tau, "lam": lam}
            try:
                curve = ridge.ridge_curve(alpha, tau, sigma2, config["t_max"], lam=lam)
                row |= {"reach": config["t_max"], "radius": curve.radius}
                row |= {"pole_from": curve.pole_from, "beyond_from": curve.beyond_from}
                row |= {"beyond_radius": curve.beyond_radius, "loop_from": curve.loop_from}
                row |= {"E_end": float(curve.E[-1]), "error_end": float(curve.error[-1])}
            except ridge.RidgeAccuracyError as refusal:
                row |= {"reach": refusal.certified_to, "radius": None}
                row |= {"pole_from": None, "beyond_from": None, "beyond_radius": None}
                row |= {"loop_from": None}
                row |= {"E_end": None, "error_end": None}
            out.append(row)
    return out


def _ridge_float_range(sigma2, config) -> list:
    """Curves that grow past the float64 range before ``t_max`` (their saddle on the positive
    axis, :mod:`cotbook.theory.ridge.pole`): the deepest depth the search certifies, whether
    it refused for the float range, and, from the pole path alone, the saddle ``x0``, the
    growth per step ``1/psi0`` and ``log10 E_t`` at that depth and the next."""
    import math

    from ...theory import derivation, ridge
    from ...theory.ridge import pole as ridge_pole

    out = []
    for alpha, tau, lam in config["points"]:
        row = {"alpha": alpha, "tau": tau, "lam": lam}
        try:
            ridge.ridge_curve(alpha, tau, sigma2, config["t_max"], lam=lam)
            row |= {"reach": config["t_max"], "overflow": False}
        except ridge.RidgeAccuracyError as refusal:
            row |= {"reach": refusal.certified_to, "overflow": refusal.overflow}
        t = row["reach"]
        pole = ridge_pole.deep_curve(derivation.Point.of(alpha, tau, sigma2, lam), t, t + 1, 4096)
        row |= {"x0": pole.x0, "growth": 1 / pole.psi0}
        row |= {"log10_E": [math.log10(e) if math.isfinite(e) else None for e in pole.E]}
        out.append(row)
    return out


def _ridge_lam_limit(sigma2, config) -> list:
    """``lam -> 0`` of the deep ``lam > 0`` curve against the ridgeless engine (contours, an
    independent method): ``E`` is linear in ``lam`` at ``lam = 1e-10, 2e-10`` (the quadratic
    term, about the square of ``lam``'s relative effect, stays below the bounds; at ``1e-8``
    it does not where E_t grows), so ``2 E(lam) - E(2 lam)`` is the limit; its largest
    difference to the ridgeless curve, as a multiple of the two bounds and relative where
    ``E_t > 1e-8``, and ``lam``'s own largest relative effect there.  ``deep``: the same at
    single depths to ``10^4`` at one point, the ridgeless values from ``errors_at``."""
    import numpy as np

    from ...theory import closed_form, curve, ridge

    small, double = config["lams"]
    t_max = config["t_max"]

    def compared(alpha, tau, depths, ridgeless):
        one, two = (
            ridge.ridge_curve(alpha, tau, sigma2, depths[-1], lam=lam) for lam in (small, double)
        )
        limit = (2 * one.E - two.E)[depths]  # E_0 = 1 exactly, with bound 0: not compared
        bound = (2 * one.error + two.error)[depths]
        one = one.E[depths]
        big = ridgeless > 1e-8  # beyond |x| = 1 the poles' removal leaves a floor near 1e-18
        return {
            "alpha": alpha,
            "tau": tau,
            "over_bound": float(np.max(np.abs(limit - ridgeless) / bound)),
            "rel_limit": float(np.max(np.abs(limit[big] / ridgeless[big] - 1))),
            "rel_lam": float(np.max(np.abs(one[big] / ridgeless[big] - 1))),
        }

    depths = np.arange(1, t_max + 1)
    rows = [
        compared(alpha, tau, depths, curve.error_curve(alpha, tau, sigma2, t_max)[1:])
        for alpha, tau in config["points"]
    ]
    (alpha, tau), deep = config["deep"]["point"], np.array(config["deep"]["depths"])
    ridgeless = closed_form.errors_at(alpha, tau, sigma2, deep)
    return {"rows": rows, "deep": compared(alpha, tau, deep, ridgeless) | {"depths": deep.tolist()}}


def _ridge_simulations(sigma2, config) -> list:
    """The pretrained model simulated at large D next to the closed system at each point."""
    from ...simulation import simulate
    from ...theory import curve

    D, t_max = config["D"], config["t_max"]
    runs = []
    for alpha, tau, lam in config["points"]:
        sim = simulate.simulated_curve(
            alpha, tau, sigma2, t_max, D=D, lam=lam, trials=config["trials"],
            test_designs=config["test_designs"],
        )  # fmt: skip
        E = curve.error_curve(alpha, tau, sigma2, t_max, lam=lam)
        runs.append(
            {
                "alpha": alpha,
                "tau": tau,
                "lam": lam,
                **plain({"sim": sim.mean, "sem": sim.sem, "E": E}),
            }
        )
    return runs


def decode(data) -> dict:
    import numpy as np

    from ...theory.ridge import RidgeCurve

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
    float_range = {(r["alpha"], r["tau"], r["lam"]): r for r in data["float_range"]}
    return {
        "curves": curves,
        "depth_map": dmap,
        "system_checks": checks,
        "simulations": sims,
        "reach": reach,
        "float_range": float_range,
        "lam_limit": {(r["alpha"], r["tau"]): r for r in data["lam_limit"]["rows"]},
        "lam_limit_deep": data["lam_limit"]["deep"],
        "boundary": {(r["horizon"], r["lam"]): r for r in data["boundary"]["turns_up"]},
        "decays": {r["lam"]: r for r in data["boundary"]["decays"]},
    }
