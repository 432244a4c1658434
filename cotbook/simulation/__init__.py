"""The simplified model of the paper at finite D (Section 3, Appendices B and E).

Modules (each has one job):

- :mod:`.model`       -- prompts, attention layer, readout and CoT, literally (Section 3, App. B).
- :mod:`.pretrain`    -- the ridge objective and its minimiser A* = B C^{-1} (Eq. loss).
- :mod:`.simulate`    -- finite-D test error E_t of the pretrained model (Eq. generalization trace).
- :mod:`.finite_size` -- the Appendix E study's simulations, unit by unit (no theory).
- :mod:`.against_theory` -- Result 1's curves beside them, added when a study is read
  (imported by name, not on this face).
- :mod:`.first_step`  -- one CoT step at finite D, averaged exactly over the test prompt (the
  check of :mod:`cotbook.theory.finite_d`; imported by name, not on this face).
- :mod:`.corrections` -- the finite-D correction measured at every depth, pretraining sets at
  several D (the test prompt averaged exactly by :mod:`cotbook.wick`; imported by name).
- :mod:`.finite_d_shares` -- the simplified model at the Figure 2 grid's D, pretrained from a
  zero first estimate and averaged over random ones (imported by name).
- :mod:`.apportion` -- the trained layers' gap to Result 1 against those models, verdicts by
  named tests (imported by name; the reader hands it the curves).
"""

import importlib

from . import model, pretrain, simulate
from .simulate import SimulatedCurve, simulated_curve

# :mod:`.finite_size` is imported on first use (it imported the theory once; the table is
# kept as it is, since this file's code is in the closure of every simulation record)
# (cotbook.book.records.import_closure reads this table)
_LAZY = {"finite_size": "cotbook.simulation.finite_size"}


def __getattr__(name):
    if name in _LAZY:
        return importlib.import_module(_LAZY[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["finite_size", "model", "pretrain", "simulate", "SimulatedCurve", "simulated_curve"]
