"""The exact D -> infinity theory of the paper (Results 1-3, Theorem 1, Appendices C and D).

The face readers use is :func:`error_curve`: ``E_0 .. E_{t_max}`` of Result 1 for any ridge
``lam >= 0``.  It dispatches ``lam = 0`` to the closed form (:mod:`.closed_form`, certified to
``rtol``) and ``lam > 0`` to the closed order-parameter system of Appendix C.9
(:mod:`.derivation`).

Modules (each has one job):

- :mod:`.closed_form` -- Result 1 at lambda = 0: g, F = m13, the paper's recursion and the
  certified Lagrange quadratic form (:func:`error_grid`, :func:`error_at`, :func:`errors_at`),
  with contour integrals through the saddle points for deep depths (:mod:`.contour`).
- :mod:`.contour`     -- deep depths: contour integrals through the saddle points.
- :mod:`.ball`        -- an independent rigorous reference: the finite sum in ball arithmetic.
- :mod:`.domain`      -- the parameter domain every public function checks.
- :mod:`.derivation`  -- Appendix C executed step by step; the lambda >= 0 curve.
- :mod:`.numerics`    -- Appendix D: the fast engine against the paper's recursion.
- :mod:`.phases`      -- Result 2's regimes, tau_c, decay rates, floors; Theorem 1.
- :mod:`.asymptotics` -- the law of E_t - E_inf as t -> infinity in every regime, from the
  singularities of the contour integrals, and fits of it at deep depths.
- :mod:`.scaling`     -- Result 3's constants and Result 2's asymptotic fits.
- :mod:`.saturation`  -- the saturation regime and the claims of Figure 1.
- :mod:`.stopping`    -- the best finite depth inside saturation and the last crossing of the
  floor (imported on demand, like :mod:`.upturn`).
- :mod:`.upturn`      -- where the curve turns up within a horizon: the overthinking boundary
  at any ridge.
- :mod:`.overview`    -- one point at a glance (:func:`summary`): E_t at chosen depths with
  Results 2 and 3, what ``python -m cotbook theory`` prints.
"""

from __future__ import annotations

import functools

from .._checks import nonnegative
from . import (
    asymptotics,
    closed_form,
    derivation,
    numerics,
    overview,
    phases,
    saturation,
    scaling,
)
from .closed_form import (
    RTOL_DEFAULT,
    TINY,
    AccuracyError,
    derivative_formula,
    g,
    h_coefficients,
    m13,
    negative_singular_root,
)
from .overview import Summary

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
    "derivation",
    "numerics",
    "overview",
    "phases",
    "saturation",
    "scaling",
]

@functools.cache
def _blas_pools():
    """The process's BLAS thread pools (threadpoolctl), found once, at the first call."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _one_blas_thread():
    """BLAS on one thread for the duration of a call.

    The engine's BLAS calls are small: on 2 idle cores a second BLAS thread gains nothing even
    for a 200 x 200 ``error_grid`` (1.16 s either way), while on a busy machine a BLAS pool
    that waits for cores held by other processes made ``error_curve(2, 3, 0.01, 80)`` take
    9.8 ms (median) instead of 1.0 ms; on one thread it took 0.94 ms there (issue 32). The
    pools found once make the limit cost about 20 microseconds (``threadpool_limits``, which
    looks for them on every call, 2.2 ms). numba's kernels keep their threads."""
    return _blas_pools().limit(limits=1, user_api="blas")


def _on_one_blas_thread(fn):
    """``fn`` (a public entry point of the engine) run under :func:`_one_blas_thread`."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        with _one_blas_thread():
            return fn(*args, **kwargs)

    return call


error_at = _on_one_blas_thread(closed_form.error_at)
errors_at = _on_one_blas_thread(closed_form.errors_at)
error_grid = _on_one_blas_thread(closed_form.error_grid)
summary = _on_one_blas_thread(overview.summary)

LAM_RTOL = derivation.RIDGE_RTOL
"""Default accuracy of the ``lam > 0`` curve, ``error_t <= LAM_RTOL |E_t| + 1e-12`` at every
depth (:func:`~cotbook.theory.derivation.ridge_curve`; its bound is ``2 nu r^-2t`` from the FFT's
upper bins, so deep depths on a small torus cannot be certified to many digits)."""


@_on_one_blas_thread
def error_curve(alpha, tau, sigma2, t_max, *, lam=0.0, method="auto", dps=None, rtol=None):
    """E_0, ..., E_{t_max} of Result 1 as a float64 array of length ``t_max + 1``.

    Parameters
    ----------
    alpha : float
        ``L/D > 0``.
    tau : float
        ``M/D``; ``> 1`` when ``lam = 0`` (the ridgeless formula needs ``tau > 1``), ``> 0``
        otherwise.
    sigma2 : float
        Noise variance ``sigma^2 >= 0``.
    t_max : int
        Deepest CoT step, ``>= 0``.
    lam : float
        Ridge ``lambda >= 0`` of the pretraining loss (``lam/2 |A|^2``).
    method : str
        ``lam = 0`` only: ``"auto"`` (certified), ``"recursion"`` (the paper's Appendix D
        algorithm), ``"lagrange"`` or ``"lagrange_mp"``; see :mod:`cotbook.theory.closed_form`.
    dps : int, optional
        Decimal digits of the mpmath methods (``lam = 0`` only).
    rtol : float, optional
        Accuracy certified: default 1e-10 for ``lam = 0``, :data:`LAM_RTOL` for ``lam > 0``
        (there ``error_t <= rtol |E_t| + 1e-12``).  A depth that cannot be certified raises
        :class:`AccuracyError`.

    Returns
    -------
    numpy.ndarray
        ``E_t`` for ``t = 0 .. t_max`` (``E_0 = 1``).

    Examples
    --------
    >>> from cotbook import theory
    >>> E = theory.error_curve(2.0, 3.0, 0.01, 3)
    >>> [round(float(x), 6) for x in E]
    [1.0, 0.500557, 0.281083, 0.199459]
    """
    lam = nonnegative("lam", lam)
    if lam == 0:
        return closed_form.ridgeless_curve(
            alpha, tau, sigma2, t_max, method=method, dps=dps, rtol=rtol
        )
    if method != "auto":
        raise ValueError(f"method must be 'auto' when lam > 0, got {method!r}")
    if dps is not None:
        raise ValueError(f"dps must be None when lam > 0 (no mpmath path), got {dps!r}")
    rtol = LAM_RTOL if rtol is None else closed_form._rtol(rtol)
    return derivation.ridge_curve(alpha, tau, sigma2, t_max, lam=lam, rtol=rtol).E
