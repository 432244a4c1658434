"""The simplified model of the paper at finite D (Section 3, Appendices B and E).

Modules (each has one job):

- :mod:`.model`       -- prompts, attention layer, readout and CoT, literally (Section 3, App. B).
- :mod:`.pretrain`    -- the ridge objective and its minimiser A* = B C^{-1} (Eq. loss).
- :mod:`.simulate`    -- finite-D test error E_t of the pretrained model (Eq. generalization trace).
- :mod:`.finite_size` -- theory against simulation: the Appendix E study, unit by unit.
"""

from . import finite_size, model, pretrain, simulate
from .simulate import SimulatedCurve, simulated_curve

__all__ = ["finite_size", "model", "pretrain", "simulate", "SimulatedCurve", "simulated_curve"]
