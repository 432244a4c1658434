"""What a uniform random sample of a domain says about the share of it with some property: the
exact one-sided (Clopper–Pearson) upper bound, used for the share of the parameter box that the
lambda > 0 search refuses (``book/ridge_depth.md``)."""

from __future__ import annotations

from .. import _checks

__all__ = ["share_upper"]


def share_upper(count, total, level=0.95) -> float:
    """The largest share ``p`` of a domain for which ``count`` or fewer of ``total``
    independent uniform draws falling in it still has probability ``1 - level``: the
    one-sided Clopper–Pearson bound, the ``level`` quantile of Beta(count + 1, total - count)
    (``1`` where ``count = total``).  ``count`` in ``[0, total]``, ``level`` in ``(0, 1)``."""
    total = _checks.positive_int("total", total)
    count = _checks.nonneg_int("count", count)
    if count > total:
        raise ValueError(f"count must be an integer in [0, {total}], got {count}")
    level = _checks.real("level", level, "a number in (0, 1)")
    if not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    if count == total:
        return 1.0
    from scipy.stats import beta

    return float(beta.ppf(level, count + 1, total - count))
