"""The lambda >= 0 engine: E_t of the closed system (App. C.9), read off a torus, certified.

``E_t = [x^t y^t] B(x, y)`` with ``B = m13(u(x), v(y)) / ((1-x)(1-y))``: :func:`ridge_curve`
reads the diagonal Taylor coefficients off a 2-D FFT of B on a torus ``|x| = |y| = r`` and
certifies every depth it returns (a :class:`RidgeCurve`, or a :class:`RidgeAccuracyError`
that names the deepest depth certified).  The parts, from the bottom up:

- :mod:`._nodes` -- the closed system at a set of nodes: the sectors from
  :mod:`cotbook.theory.derivation`, continued to the nodes, and ``m13`` from the compiled
  mixed sector (:mod:`cotbook.theory._torus`); :mod:`._cut` -- where the sectors' cut lies
  and the loops round it; :mod:`._residues`, :mod:`._loop_pole` and :mod:`._loop_sums` --
  the sums over a contour's nodes that the deep paths share.
- :mod:`.torus` -- one torus: ``E_t`` off the FFT, inside ``|x| = 1`` or beyond it with B's
  poles at 1 taken out, with its analyticity check and error bound.
- :mod:`.pole`, :mod:`.loop`, :mod:`.cross` -- the deep depths no torus holds: the mixed
  sector's pole through the saddle (a growing curve), a circle and a loop round the cut (a
  cut that starts just beyond 1), and two loops where a pole crosses every loop.
- :mod:`._certify` -- the output and its rule: :class:`RidgeCurve`,
  :class:`RidgeAccuracyError`, the accuracy defaults :data:`RIDGE_RTOL`, :data:`RIDGE_ATOL`.
- :mod:`.beyond` -- the paths past one torus's refusal, joined to its certified depths where
  the two agree: a second torus, the pole, the loop round the cut.
- :mod:`.engine` -- :func:`ridge_curve`, the search: the ladder of radii, the bisection in
  ``r``, the doubling of the points per circle, and the order in which the paths are tried;
  :func:`depth_map`, the ridge chapter's best depth over ``tau`` and ``lam``.
- :mod:`.coverage` -- how deep the engine certifies at random points of the domain (a long
  run with its own record; imported by name, not on this face).

Each module imports only those listed before it.  Every name here is imported on first use
(``_LAZY``; see :mod:`cotbook.theory`).
"""

from __future__ import annotations

from ... import _lazy

#: The public names of the lambda >= 0 engine, with the module that defines each.
_LAZY = {
    "ridge_curve": "cotbook.theory.ridge.engine",
    "depth_map": "cotbook.theory.ridge.engine",
    "RIDGE_T_MAX": "cotbook.theory.ridge.engine",
    "RIDGE_N_MAX": "cotbook.theory.ridge.engine",
    "R_ABOVE": "cotbook.theory.ridge.engine",
    "RIDGE_RTOL": "cotbook.theory.ridge._certify",
    "RIDGE_ATOL": "cotbook.theory.ridge._certify",
    "RidgeCurve": "cotbook.theory.ridge._certify",
    "RidgeAccuracyError": "cotbook.theory.ridge._certify",
}

__all__ = list(_LAZY)

__getattr__, __dir__ = _lazy.face(globals(), _LAZY)
