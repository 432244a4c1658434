"""The precomputed record ``optimal_depths``, shown by the chapter ``overthinking``: Result 3's
optimal depth as tau -> tau_c (cotbook.theory.laws.scaling). :func:`compute` writes its data
(``python -m cotbook precompute --only optimal_depths``); :func:`decode` gives the chapter the
objects the computing functions return. This module and its import closure are the record's
producers (:data:`cotbook.book.records.PRECOMPUTED_ROOTS`): a change here stales this record.
"""

from __future__ import annotations

import math

from . import plain

CHAPTER = "overthinking"
DESCRIBE = "the optimal depth at tau = tau_c - delta, three (alpha, sigma2)"
CONFIG = {
    "deltas": [0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005],
    "cases": [[2.0, 0.0], [4.0, 0.0001], [2.0, 0.01]],
}
"""The study's parameters, stored as the record's configuration."""


def compute(config) -> dict:
    from ...theory import scaling

    cases = []
    for alpha, sigma2 in config["cases"]:
        rows = scaling.optimal_depth_rows(alpha, sigma2, config["deltas"])
        cases.append(
            {
                "alpha": alpha,
                "sigma2": sigma2,
                "C_t": plain(1 / (2 * scaling.kappa(alpha, sigma2))),
                "C_E": plain(scaling.critical_prefactor(alpha, sigma2) * math.exp(0.5)),
                "rows": plain(rows),
            }
        )
    return {"cases": cases}


def decode(data) -> dict:
    from ...theory import scaling

    return {
        (c["alpha"], c["sigma2"]): (
            c["C_t"],
            c["C_E"],
            [scaling.OptimalDepth(*r) for r in c["rows"]],
        )
        for c in data["cases"]
    }
