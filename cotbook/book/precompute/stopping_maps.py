"""The precomputed record ``stopping_maps``, shown by the chapter ``beyond``: the best depth inside
saturation, mapped (cotbook.theory.laws.stopping). :func:`compute` writes its data (``python -m
cotbook precompute --only stopping_maps``); :func:`decode` gives the chapter the objects the
computing functions return. This module and its import closure are the record's producers
(:data:`cotbook.book.records.PRECOMPUTED_ROOTS`): a change here stales this record.
"""

from __future__ import annotations

from . import plain

CHAPTER = "beyond"
DESCRIBE = "best depths on a 4 x 5 map per noise level, large-tau check, t_flip"
CONFIG = {
    "sigma2": 0.01,
    "alphas": [0.1, 0.3, 0.5, 0.7],
    "factors": [1.2, 2.0, 5.0, 10.0, 20.0],
    "noise": [0.0, 0.1],
    "large_tau": [[0.3, [30, 300, 3000]], [0.5, [30, 300, 3000]], [0.7, [30, 300]]],
    "flip_alphas": [0.3, 0.5, 0.7],
    "flip_deltas": [0.0003, 0.001, 0.003, 0.01, 0.02],
}
"""The study's parameters, stored as the record's configuration."""


def compute(config) -> dict:
    from ...theory import phases, stopping

    maps = []
    for s2 in [config["sigma2"], *config["noise"]]:
        best = stopping.optimum_map(config["alphas"], config["factors"], s2)
        maps.append({"sigma2": s2, "rows": [[a, f, *plain(b)] for (a, f), b in best.items()]})
    large = [
        plain(r._asdict())
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
            flips.append(plain([a, d, law, exact]))
    return {"maps": maps, "large_tau": large, "flips": flips}


def decode(data) -> dict:
    from ...theory import stopping

    maps = {
        m["sigma2"]: {(a, f): stopping.SaturationOptimum(*rest) for a, f, *rest in m["rows"]}
        for m in data["maps"]
    }
    large = [stopping.LargeTauCheck(**r) for r in data["large_tau"]]
    return {"maps": maps, "large_tau": large, "flips": [tuple(r) for r in data["flips"]]}
