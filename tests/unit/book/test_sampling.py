"""cotbook.book.sampling: the one-sided Clopper–Pearson bound against the binomial sum it
inverts (exact integers, no scipy), its closed form at no hits, and its input checks."""

import math

import pytest

from cotbook.book import sampling


def _at_most(count, total, p) -> float:
    """P(Binomial(total, p) <= count), summed term by term."""
    return math.fsum(math.comb(total, k) * p**k * (1 - p) ** (total - k) for k in range(count + 1))


@pytest.mark.parametrize(("count", "total", "level"), [(1, 120, 0.95), (5, 50, 0.9), (3, 7, 0.99)])
def test_the_bound_is_where_the_binomial_tail_falls_to_one_minus_the_level(count, total, level):
    p = sampling.share_upper(count, total, level)
    assert _at_most(count, total, p) == pytest.approx(1 - level, rel=1e-9)
    above, below = p * (1 + 1e-6), p * (1 - 1e-6)
    assert _at_most(count, total, above) < 1 - level < _at_most(count, total, below)


def test_no_hits_has_a_closed_form_and_all_hits_bound_nothing():
    assert sampling.share_upper(0, 120) == pytest.approx(1 - 0.05 ** (1 / 120), rel=1e-12)
    assert sampling.share_upper(4, 4) == 1.0


@pytest.mark.parametrize(
    ("count", "total", "level", "name"),
    [(-1, 10, 0.95, "count"), (11, 10, 0.95, "count"), (1.5, 10, 0.95, "count"),
     (True, 10, 0.95, "count"), (1, 0, 0.95, "total"), (1, 10, 1.0, "level"),
     (1, 10, 0.0, "level"), (1, 10, float("nan"), "level"), (1, 10, "0.9", "level")],
)  # fmt: skip
def test_bad_input_names_the_parameter(count, total, level, name):
    with pytest.raises(ValueError, match=name):
        sampling.share_upper(count, total, level)
