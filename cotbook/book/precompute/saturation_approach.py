"""The precomputed record ``saturation_approach``, shown by the chapter ``saturation``: the side
from which E_t approaches the floor (cotbook.theory.laws.saturation). :func:`compute` writes its
data (``python -m cotbook precompute --only saturation_approach``); :func:`decode` gives the
chapter the objects the computing functions return. This module and its import closure are the
record's producers (:data:`cotbook.book.records.PRECOMPUTED_ROOTS`): a change here stales this
record.
"""

from __future__ import annotations

from . import plain

CHAPTER = "saturation"
DESCRIBE = "the side E_t approaches the floor from, eleven points"
CONFIG = {
    "sigma2": 0.01,
    "points": [[0.2, [1.1, 1.5, 3, 10]], [0.5, [1.1, 1.5, 3, 10]], [0.8, [1.5, 3, 10]]],
}
"""The study's parameters, stored as the record's configuration."""


def compute(config) -> dict:
    from ...theory import phases, saturation

    rows = []
    for alpha, factors in config["points"]:
        for factor in factors:
            tau = factor * phases.tau_c(alpha, config["sigma2"])
            r = saturation.approach(alpha, tau, config["sigma2"])
            law = r["law"]._asdict()
            rows.append(plain({"alpha": alpha, "factor": factor, "tau": tau, **r, "law": law}))
    return {"approaches": rows}


def decode(data) -> dict:
    from ...theory import asymptotics

    out = {}
    for row in data["approaches"]:
        r = {k: v for k, v in row.items() if k not in ("alpha", "factor", "tau")}
        r["law"] = asymptotics.AsymptoticLaw(**r["law"])
        out[row["alpha"], row["factor"], row["tau"]] = r
    return out
