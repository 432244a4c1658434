"""The precomputed record ``attention_structure``, shown by the chapter ``parameter_structure``:
Appendix A's learned matrices of linear attention (cotbook.attention.structure). :func:`compute`
writes its data (``python -m cotbook precompute --only attention_structure``); :func:`decode`
gives the chapter the objects the computing functions return. This module and its import closure
are the record's producers (:data:`cotbook.book.records.PRECOMPUTED_ROOTS`): a change here
stales this record.
"""

from __future__ import annotations

from ..._threads import one_thread_unit
from . import plain

CHAPTER = "parameter_structure"
DESCRIBE = "W and V of linear attention trained at M = L = 20 and 200, D = 50 and 10"
CONFIG = {
    "dims": [50, 10],
    "sizes": [20, 200],
    "settings": {"model": "linear", "lam": 0.001, "sigma2": 0.01},
}
"""The study's parameters, stored as the record's configuration."""


def compute(config) -> dict:
    from ...attention import layer  # noqa: F401 - loads torch, which _trained keeps on one thread

    return {"runs": [_trained(config, (D, n)) for D in config["dims"] for n in config["sizes"]]}


@one_thread_unit
def _trained(config, dims) -> dict:
    """One run, trained with torch and BLAS on one thread whoever calls it: a second thread
    rounds the large products differently (W of the D = 50 run moved by up to 0.6 % on 2
    threads)."""
    from ...attention import layer, structure

    D, n = dims
    W, V = structure.trained_matrices(layer.Config(L=n, M=n, D=D, **config["settings"]))
    return {"D": D, "n": n, "W": plain(W.tolist()), "V": plain(V.tolist())}


def decode(data) -> dict:
    import numpy as np

    return {(r["D"], r["n"]): (np.array(r["W"]), np.array(r["V"])) for r in data["runs"]}
