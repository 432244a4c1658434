"""cotbook.theory.exact._recurrences: the compiled loops do exactly what the NumPy rows do (bit for
bit), so the rounding analysis of the float64 Lagrange form covers them; and the windows made
all at once (_lean_windows) give the same E_t and bound as the depth-by-depth _RPhi."""

import numpy as np
import pytest

from cotbook.theory.exact import _recurrences, lagrange


def _q_numpy(g1, g2, T, sign):
    Q = np.zeros((T + 1, T + 1))
    Q[0, 0] = 1.0
    for n in range(1, T + 1):
        row = Q[n]
        row[1:] = g1 * Q[n - 1, :-1]
        row[2:] += (sign * g2) * Q[n - 1, :-2]
        if n >= 2:
            row[1:] += (sign * g2) * Q[n - 2, :-1]
    return Q


def _rows_numpy(first, p0, p1, p2):
    row, out = first.copy(), []
    for _ in range(first.shape[1]):
        out.append(row.copy())
        new = p0 * row
        if p1 != 0.0:
            new[:, 1:] += p1 * row[:, :-1]
        new[:, 2:] += p2 * row[:, :-2]
        row = new
    return np.array(out)


@pytest.mark.parametrize("g1,g2", [(1.3, 0.4), (0.9, 2.5e-3), (2.0, 0.7)])
def test_q_matrices_are_bit_identical(g1, g2):
    Q = _recurrences.q_matrices(g1, g2, 60, np.array([-1.0, 1.0]))
    assert np.array_equal(Q[0], _q_numpy(g1, g2, 60, -1.0))
    assert np.array_equal(Q[1], _q_numpy(g1, g2, 60, 1.0))


@pytest.mark.parametrize("p1", [0.0, 0.013])
def test_rphi_rows_are_bit_identical(p1):
    first = np.zeros((2, 50))
    first[0, :2] = 1.0, 0.7
    first[1, 2:] = np.power(0.7, np.arange(2, 50, dtype=float))
    got = _recurrences.rphi_rows(first, 0.61, p1, 0.33)
    assert np.array_equal(got, _rows_numpy(first, 0.61, p1, 0.33))


@pytest.mark.parametrize(
    "p", [(2.0, 3.0, 0.01), (0.2, 10.0, 0.01), (0.5, 5.0, 0.1), (4.0, 1.5, 0.0), (0.05, 1.01, 0.0)]
)
def test_lean_windows_agree_with_rphi(p, monkeypatch):
    E, bound = lagrange.float_curve(*p, 80)
    monkeypatch.setattr(lagrange, "_LEAN_N", 0)  # force the depth-by-depth windows
    E_ref, bound_ref = lagrange.float_curve(*p, 80)
    np.testing.assert_allclose(E, E_ref, rtol=1e-14)
    np.testing.assert_allclose(bound, bound_ref, rtol=1e-14)
