import math

import numpy as np
import pytest

from cotbook import _checks


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, -math.inf, "1", None, True])
def test_positive_rejects(bad):
    with pytest.raises(ValueError, match=r"alpha must be a finite number > 0"):
        _checks.positive("alpha", bad)


def test_positive_accepts_numpy_scalars():
    assert _checks.positive("alpha", np.float32(0.5)) == 0.5
    assert isinstance(_checks.positive("alpha", np.int64(2)), float)


@pytest.mark.parametrize("bad", [-1e-12, math.nan, math.inf])
def test_nonnegative_rejects(bad):
    with pytest.raises(ValueError, match=r"sigma2 must be a finite number >= 0"):
        _checks.nonnegative("sigma2", bad)


def test_nonnegative_accepts_zero():
    assert _checks.nonnegative("sigma2", 0) == 0.0


@pytest.mark.parametrize("bad", [1.0, 0.5, math.nan, math.inf])
def test_greater_than_rejects(bad):
    with pytest.raises(ValueError, match=r"tau must be a finite number > 1"):
        _checks.greater_than("tau", bad, 1.0)


@pytest.mark.parametrize("bad", [-1, 2.0, 2.5, math.nan, "3", True])
def test_nonneg_int_rejects(bad):
    with pytest.raises(ValueError, match=r"t must be an integer >= 0"):
        _checks.nonneg_int("t", bad)


def test_nonneg_int_accepts_numpy_integers():
    assert _checks.nonneg_int("t", np.int32(3)) == 3
    assert _checks.nonneg_int("t", 0) == 0


@pytest.mark.parametrize("bad", [0, -3, 1.0])
def test_positive_int_rejects(bad):
    with pytest.raises(ValueError, match=r"D must be an integer >= 1"):
        _checks.positive_int("D", bad)


def test_array_rejects_nan_and_wrong_ndim():
    with pytest.raises(ValueError, match=r"X must contain only finite numbers"):
        _checks.array("X", [1.0, np.nan])
    with pytest.raises(ValueError, match=r"X must be a 2-dimensional array"):
        _checks.array("X", [1.0, 2.0], ndim=2)
    assert _checks.array("X", [[1, 2]], ndim=2).dtype == float


def test_arrays_are_refused_by_name_not_as_bad_numbers():
    from cotbook.theory import phases

    with pytest.raises(ValueError, match=r"alpha must be a single number .* shape \(2,\)"):
        phases.tau_c(np.array([2.0, 3.0]), 0.01)
    with pytest.raises(ValueError, match=r"sigma2 must be a single number .* shape \(3,\)"):
        phases.tau_c(2.0, [0.0, 0.1, 0.2])
    assert phases.tau_c(np.float64(2.0), np.asarray(0.01)) == phases.tau_c(2.0, 0.01)
