"""What is measured from the lambda = 0 curves: the scaling laws, saturation, early stopping,
and where a curve at any ridge turns up.

Each module reads the certified engines (:mod:`cotbook.theory.exact`, and
:mod:`cotbook.theory.ridge` for :mod:`.upturn`) and the regimes of
:mod:`cotbook.theory.phases`, and turns them into a claim of the paper or of the book:

- :mod:`.scaling` -- Result 3's constants (``kappa``, the critical prefactor, the optimal
  depth as ``tau -> tau_c``) and Result 2's asymptotic fits.
- :mod:`.saturation` -- the saturation regime and the claims of Figure 1: where the floor is
  overtaken, how E_t approaches it.
- :mod:`.stopping` -- the best finite depth inside saturation and the last crossing of the
  floor (built on :mod:`.saturation`).
- :mod:`.upturn` -- where the curve turns up within a horizon: the overthinking boundary at
  any ridge.

Order of imports: :mod:`.scaling` and :mod:`.upturn` import no other law; :mod:`.saturation`
imports :mod:`.scaling`; :mod:`.stopping` imports :mod:`.saturation`.  The modules are this
face's names (``laws.scaling.kappa``); each is imported on first use (``_LAZY``; see
:mod:`cotbook.theory`).
"""

from __future__ import annotations

from ... import _lazy

#: The laws, each imported on first use.
_LAZY = {
    "saturation": "cotbook.theory.laws.saturation",
    "scaling": "cotbook.theory.laws.scaling",
    "stopping": "cotbook.theory.laws.stopping",
    "upturn": "cotbook.theory.laws.upturn",
}

__all__ = list(_LAZY)

__getattr__, __dir__ = _lazy.face(globals(), _LAZY)
