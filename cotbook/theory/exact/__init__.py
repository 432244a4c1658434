"""The lambda = 0 engine: E_t of Result 1, certified to ``rtol``, and its references.

Result 1 at ``lam = 0`` has closed forms that are exact in exact arithmetic; the modules here
evaluate them in different ways, at different costs and with different control of rounding:

- :mod:`.result1` -- the functions the curve is made of (``g``, ``F = m13``, the ``h_n``
  series) and the paper's own recursion in mpmath, the reference every other evaluation is
  checked against (O(T^4)).
- :mod:`.lagrange` -- the same ``E_t`` as a finite quadratic form with a-priori rounding
  bounds: the whole curve in float64, one depth streamed in float64 or long double, or mpmath;
  its two inner loops are compiled in :mod:`._recurrences` (numba).
- :mod:`.contour` -- deep depths by contour integrals through the saddle points, well
  conditioned at any depth (and ``E_t - E_inf`` for the asymptotic laws).
- :mod:`.ball` -- an independent rigorous reference for single depths: the quadratic form in
  ball arithmetic (python-flint); used by the tests, the benchmarks and the chapters, never
  as a tier.
- The tiers: each of these evaluations as one tier of the certified engine, with one
  interface (:mod:`._tier`: which depths a tier is asked, its values and certified bounds,
  and the rule of when a value counts as certified): the float64 curve
  (:mod:`.tier_curve`), the streamed single depth in float64 or long double
  (:mod:`.tier_stream`), the contours (:mod:`.tier_contour`) and mpmath at two precisions
  (:mod:`.tier_mp`).
- :mod:`.route` -- which tier answers each depth: the one ordered list of tiers
  (:data:`.route.TIERS`) and the one function that walks it; a depth no tier certifies is
  refused by name.
- :mod:`.closed_form` -- the certified engine's entry points (:func:`ridgeless_curve`,
  :func:`error_at`, :func:`errors_at`, :func:`error_grid`): their arguments and limits; each
  asks the route.

Order of imports: ``result1``, ``_recurrences``, ``contour`` and ``_tier`` import none of the
others; ``lagrange`` and ``ball`` build on ``result1``; the tiers on ``_tier`` and the engine
they wrap; ``route`` on the tiers, ``closed_form`` on ``route`` (no tier calls back into
either).  Every name here is imported on first use (``_LAZY``; see :mod:`cotbook.theory`).
"""

from __future__ import annotations

from ... import _lazy

#: The public names of the lambda = 0 engine, with the module that defines each.
_LAZY = {
    "ridgeless_curve": "cotbook.theory.exact.closed_form",
    "error_at": "cotbook.theory.exact.closed_form",
    "errors_at": "cotbook.theory.exact.closed_form",
    "error_grid": "cotbook.theory.exact.closed_form",
    "RTOL_DEFAULT": "cotbook.theory.exact.closed_form",
    "TINY": "cotbook.theory.exact.closed_form",
    "MP_T_MAX": "cotbook.theory.exact.closed_form",
    "CURVE_T_MAX": "cotbook.theory.exact.closed_form",
    "DEPTH_T_MAX": "cotbook.theory.exact.closed_form",
    "STREAM_T_MAX": "cotbook.theory.exact.closed_form",
    "recursion_curve": "cotbook.theory.exact.result1",
    "ball_error_at": "cotbook.theory.exact.ball",
    "ball": "cotbook.theory.exact.ball",
    "closed_form": "cotbook.theory.exact.closed_form",
    "contour": "cotbook.theory.exact.contour",
    "lagrange": "cotbook.theory.exact.lagrange",
    "result1": "cotbook.theory.exact.result1",
}

__all__ = list(_LAZY)

__getattr__, __dir__ = _lazy.face(globals(), _LAZY)
