"""The theory's public entry points run BLAS on one thread (issue 32, item 3: on a busy machine
a BLAS pool waiting for cores made a 1 ms call take 10 ms), and give the same numbers."""

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from cotbook import theory
from cotbook.theory import closed_form, domain


def _blas_threads():
    return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


@pytest.mark.parametrize(
    "call",
    [
        lambda: theory.error_curve(2.0, 3.0, 0.01, 5),
        lambda: theory.error_curve(2.0, 3.0, 0.01, 5, lam=1e-3),
        lambda: theory.error_at(2.0, 3.0, 0.01, 5),
        lambda: theory.errors_at(2.0, 3.0, 0.01, [5]),
        lambda: theory.error_grid([1.0], [3.0], 0.01, 5),
        lambda: theory.summary(2.0, 3.0, 0.01, [5]),
    ],
)
def test_entry_points_run_blas_on_one_thread(monkeypatch, call):
    """Every entry point checks tau through domain.tau inside the call: a spy there sees the
    BLAS thread count the engine computes with."""
    seen = []
    check = domain.tau

    def spy(tau, **kwargs):
        seen.append(_blas_threads())
        return check(tau, **kwargs)

    monkeypatch.setattr(domain, "tau", spy)
    before = _blas_threads()
    call()
    assert seen and all(s == {1} for s in seen), seen
    assert _blas_threads() == before  # put back after the call


def test_the_limit_changes_no_number():
    E = theory.error_curve(2.0, 3.0, 0.01, 80)
    np.testing.assert_array_equal(E, closed_form.ridgeless_curve(2.0, 3.0, 0.01, 80))
    assert theory.error_at(2.0, 3.0, 0.01, 80) == closed_form.error_at(2.0, 3.0, 0.01, 80)
