"""The exact D -> infinity theory of the paper (Results 1-3, Theorem 1, Appendices C and D).

The face readers use is :func:`error_curve`: ``E_0 .. E_{t_max}`` of Result 1 for any ridge
``lam >= 0``.  It dispatches ``lam = 0`` to the closed form (:mod:`.exact`, certified to
``rtol``) and ``lam > 0`` to the closed order-parameter system of Appendix C.9 (:mod:`.ridge`).

Every name here is imported on first use (``_LAZY``), so that importing one theory module runs
only the modules it imports itself: a record computed with :mod:`.phases` does not depend on
the closed system's code (:func:`cotbook.book.records.import_closure` reads ``_LAZY``, so a
module that binds this package counts every name in it).  The modules of the sub-packages are
on this face under their own names too (``theory.closed_form``, ``theory.scaling``, ...).

**How the parts fit.**  Two engines compute ``E_t``, each certifying every value it returns;
the laws of Results 2 and 3 are read off them; the derivation shows where the closed system
comes from.  Each layer imports only the layers above it in this list
(``tests/unit/test_imports.py`` holds the order):

1. :mod:`.domain` -- the parameter domain every public function checks, and the accuracy
   arguments with :class:`AccuracyError`.
2. :mod:`.exact` -- the ``lam = 0`` engine and its references: Result 1 in closed form
   (:mod:`.exact.result1`), the finite quadratic form (:mod:`.exact.lagrange`), the contours
   through the saddles (:mod:`.exact.contour`), ball arithmetic (:mod:`.exact.ball`) and the
   certified engine's entry points (:mod:`.exact.closed_form`) with the one ordered list of
   evaluation tiers that answers each depth (:mod:`.exact.route`).
3. :mod:`.derivation` -- Appendix C executed step by step, to the closed system (App. C.9);
   :mod:`._torus` compiles its sectors and ``m13`` on a torus (numba).
4. :mod:`.ridge` -- the ``lam >= 0`` engine: the closed system read off a torus, and the paths
   past a torus (a second torus, the mixed sector's pole, a loop round the cut).
5. :mod:`.asymptotics` and :mod:`.phases` -- the law of ``E_t - E_inf`` as ``t -> infinity``
   (from the singularities of the contour integrals), and Result 2's regimes, ``tau_c``, decay
   rates and floors with Theorem 1.
6. :mod:`.laws` -- what is measured from the curves: Result 3's constants and Result 2's fits
   (:mod:`.laws.scaling`), the saturation regime and Figure 1 (:mod:`.laws.saturation`), the
   best finite depth inside saturation (:mod:`.laws.stopping`), and where the curve turns up
   at any ridge (:mod:`.laws.upturn`).
7. The faces and checks: :mod:`.curve` (:func:`error_curve`), :mod:`.overview` (one point at a
   glance, :func:`summary`: what ``python -m cotbook theory`` prints), :mod:`.numerics`
   (Appendix D: the fast engine against the paper's recursion) and :mod:`.finite_d` (the
   finite-D correction ``c_t`` where it is derived, :func:`finite_d_correction`: the first step
   at finite ``tau``, every step as ``tau -> infinity``; measured beyond, in the simulations).

A newcomer reads :mod:`.curve`, then :mod:`.phases` (the regimes), then the sub-package faces
(:mod:`.exact`, :mod:`.ridge`, :mod:`.laws`), each of which says how its own modules fit.
"""

from __future__ import annotations

from .. import _lazy

#: Every public name of the theory wing, with the module that defines it (imported on first use).
_LAZY = {
    "error_curve": "cotbook.theory.curve",
    "LAM_RTOL": "cotbook.theory.curve",
    "error_at": "cotbook.theory.exact.closed_form",
    "errors_at": "cotbook.theory.exact.closed_form",
    "error_grid": "cotbook.theory.exact.closed_form",
    "RTOL_DEFAULT": "cotbook.theory.exact.closed_form",
    "TINY": "cotbook.theory.exact.closed_form",
    "AccuracyError": "cotbook.theory.domain",
    "summary": "cotbook.theory.overview",
    "finite_d_correction": "cotbook.theory.finite_d",
    "Summary": "cotbook.theory.overview",
    "g": "cotbook.theory.exact.result1",
    "m13": "cotbook.theory.exact.result1",
    "h_coefficients": "cotbook.theory.exact.result1",
    "derivative_formula": "cotbook.theory.exact.result1",
    "negative_singular_root": "cotbook.theory.exact.result1",
    "exact": "cotbook.theory.exact",
    "ridge": "cotbook.theory.ridge",
    "laws": "cotbook.theory.laws",
    "asymptotics": "cotbook.theory.asymptotics",
    "ball": "cotbook.theory.exact.ball",
    "closed_form": "cotbook.theory.exact.closed_form",
    "contour": "cotbook.theory.exact.contour",
    "curve": "cotbook.theory.curve",
    "derivation": "cotbook.theory.derivation",
    "finite_d": "cotbook.theory.finite_d",
    "domain": "cotbook.theory.domain",
    "lagrange": "cotbook.theory.exact.lagrange",
    "numerics": "cotbook.theory.numerics",
    "overview": "cotbook.theory.overview",
    "phases": "cotbook.theory.phases",
    "result1": "cotbook.theory.exact.result1",
    "saturation": "cotbook.theory.laws.saturation",
    "scaling": "cotbook.theory.laws.scaling",
    "stopping": "cotbook.theory.laws.stopping",
    "upturn": "cotbook.theory.laws.upturn",
}

__all__ = [
    "error_curve",
    "error_at",
    "errors_at",
    "error_grid",
    "summary",
    "Summary",
    "finite_d_correction",
    "AccuracyError",
    "LAM_RTOL",
    "RTOL_DEFAULT",
    "TINY",
    "g",
    "m13",
    "h_coefficients",
    "derivative_formula",
    "negative_singular_root",
    "exact",
    "ridge",
    "laws",
    "asymptotics",
    "closed_form",
    "result1",
    "lagrange",
    "derivation",
    "finite_d",
    "numerics",
    "overview",
    "phases",
    "saturation",
    "scaling",
]

__getattr__, __dir__ = _lazy.face(globals(), _LAZY)
