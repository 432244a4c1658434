"""The exact D -> infinity theory of the paper (Results 1-3, Theorem 1, Appendices C and D).

The face readers use is :func:`error_curve`: ``E_0 .. E_{t_max}`` of Result 1 for any ridge
``lam >= 0``.  It dispatches ``lam = 0`` to the closed form (:mod:`.closed_form`, certified to
``rtol``) and ``lam > 0`` to the closed order-parameter system of Appendix C.9
(:mod:`.ridge`).

Every name here is imported on first use (``_LAZY``), so that importing one theory module runs
only the modules it imports itself: a record computed with :mod:`.phases` does not depend on
the closed system's code (:func:`cotbook.book.results.import_closure` reads ``_LAZY``, so a
module that binds this package counts every name in it).

Modules (each has one job):

- :mod:`.result1`     -- Result 1 at lambda = 0 in closed form: g, F = m13, the h_n series, the
  paper's own recursion (the reference) and the literal derivative formula.
- :mod:`.lagrange`    -- the same E_t as a finite quadratic form with a-priori rounding bounds.
- :mod:`.closed_form` -- the certified lambda = 0 engine: its entry points (:func:`error_grid`,
  :func:`error_at`, :func:`errors_at`), their arguments and limits.
- :mod:`.route`       -- which evaluation answers each lambda = 0 depth: the ordered list of
  tiers and the one walk over it.  Each tier is a module (``tier_curve``, ``tier_stream``,
  ``tier_contour``, ``tier_mp``); ``_tier`` is their interface and the rule of when a value is
  certified.
- :mod:`.contour`     -- deep depths: contour integrals through the saddle points.
- :mod:`.ball`        -- an independent rigorous reference: the finite sum in ball arithmetic.
- :mod:`.domain`      -- the parameter domain every public function checks, and the accuracy
  arguments with :class:`AccuracyError`.
- :mod:`.derivation`  -- Appendix C executed step by step, to the closed system (App. C.9).
- :mod:`.ridge`       -- the lambda >= 0 curve: the closed system read off a torus (imported
  by name).
- :mod:`.ridge_torus` -- one torus of it: E_t off a 2-D FFT of B, inside the unit polydisc or
  beyond it with B's poles at 1 taken out, with its check and bound (used by :mod:`.ridge`).
- :mod:`.ridge_pole`  -- deep depths of a growing lambda > 0 curve: the mixed sector's pole,
  through the saddle (used by :mod:`.ridge`).
- :mod:`.ridge_loop`  -- deep depths where the sectors' cut starts just beyond 1: a circle in x,
  a loop round the cut in y (used by :mod:`.ridge`).
- :mod:`.ridge_cross` -- the same where a pole of B crosses every loop: two loops chosen node by
  node, the pole's share through its saddle (used by :mod:`.ridge`).
- :mod:`.ridge_coverage` -- how deep the lambda > 0 curve is certified at random points of the
  domain (a long run, imported by name).
- :mod:`.numerics`    -- Appendix D: the fast engine against the paper's recursion.
- :mod:`.phases`      -- Result 2's regimes, tau_c, decay rates, floors; Theorem 1.
- :mod:`.asymptotics` -- the law of E_t - E_inf as t -> infinity in every regime, from the
  singularities of the contour integrals, and fits of it at deep depths.
- :mod:`.scaling`     -- Result 3's constants and Result 2's asymptotic fits.
- :mod:`.saturation`  -- the saturation regime and the claims of Figure 1.
- :mod:`.stopping`    -- the best finite depth inside saturation and the last crossing of the
  floor.
- :mod:`.upturn`      -- where the curve turns up within a horizon: the overthinking boundary
  at any ridge.
- :mod:`.curve`       -- :func:`error_curve`, the face: ``lam = 0`` to the closed form, ``lam > 0``
  to the closed system.
- :mod:`.overview`    -- one point at a glance (:func:`summary`): E_t at chosen depths with
  Results 2 and 3, what ``python -m cotbook theory`` prints.
- :mod:`.finite_d`    -- the first finite-D correction: c_1, and every c_t as tau -> infinity
  (imported by name, not on this face until every c_t is derived).
"""

from __future__ import annotations

import importlib

#: Every public name of the theory wing, with the module that defines it (imported on first use).
_LAZY = {
    "error_curve": "cotbook.theory.curve",
    "LAM_RTOL": "cotbook.theory.curve",
    "error_at": "cotbook.theory.closed_form",
    "errors_at": "cotbook.theory.closed_form",
    "error_grid": "cotbook.theory.closed_form",
    "RTOL_DEFAULT": "cotbook.theory.closed_form",
    "TINY": "cotbook.theory.closed_form",
    "AccuracyError": "cotbook.theory.domain",
    "summary": "cotbook.theory.overview",
    "Summary": "cotbook.theory.overview",
    "g": "cotbook.theory.result1",
    "m13": "cotbook.theory.result1",
    "h_coefficients": "cotbook.theory.result1",
    "derivative_formula": "cotbook.theory.result1",
    "negative_singular_root": "cotbook.theory.result1",
    "asymptotics": "cotbook.theory.asymptotics",
    "ball": "cotbook.theory.ball",
    "closed_form": "cotbook.theory.closed_form",
    "contour": "cotbook.theory.contour",
    "curve": "cotbook.theory.curve",
    "derivation": "cotbook.theory.derivation",
    "domain": "cotbook.theory.domain",
    "lagrange": "cotbook.theory.lagrange",
    "numerics": "cotbook.theory.numerics",
    "overview": "cotbook.theory.overview",
    "phases": "cotbook.theory.phases",
    "result1": "cotbook.theory.result1",
    "saturation": "cotbook.theory.saturation",
    "scaling": "cotbook.theory.scaling",
    "stopping": "cotbook.theory.stopping",
    "upturn": "cotbook.theory.upturn",
}

__all__ = [
    "error_curve",
    "error_at",
    "errors_at",
    "error_grid",
    "summary",
    "Summary",
    "AccuracyError",
    "LAM_RTOL",
    "RTOL_DEFAULT",
    "TINY",
    "g",
    "m13",
    "h_coefficients",
    "derivative_formula",
    "negative_singular_root",
    "asymptotics",
    "closed_form",
    "result1",
    "lagrange",
    "derivation",
    "numerics",
    "overview",
    "phases",
    "saturation",
    "scaling",
]


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(_LAZY[name])
    value = module if _LAZY[name] == f"{__name__}.{name}" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted([*globals(), *_LAZY])
