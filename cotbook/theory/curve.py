"""E_t of Result 1 for any ridge: the face that dispatches ``lam = 0`` to the certified closed
form (:mod:`.exact.closed_form`) and ``lam > 0`` to the closed order-parameter system of
Appendix C.9 (:mod:`.ridge`).  Readers call it as :func:`cotbook.theory.error_curve`.
"""

from __future__ import annotations

from .._checks import nonnegative
from . import domain, ridge
from .exact import closed_form

__all__ = ["error_curve", "LAM_RTOL"]

LAM_RTOL = ridge.RIDGE_RTOL
"""Default accuracy of the ``lam > 0`` curve, ``error_t <= LAM_RTOL |E_t| + 1e-12`` at every
depth (:func:`~cotbook.theory.ridge.ridge_curve`; its bound is ``2 nu r^-2t`` from the FFT's
upper bins, so deep depths on a small torus cannot be certified to many digits)."""


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
        algorithm), ``"lagrange"`` or ``"lagrange_mp"``; see
        :mod:`cotbook.theory.exact.closed_form`.
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
    rtol = LAM_RTOL if rtol is None else domain.rtol(rtol)
    return ridge.ridge_curve(alpha, tau, sigma2, t_max, lam=lam, rtol=rtol).E
