import numpy as np
import pytest

from cotbook import structure


def test_block_report_on_the_theory_structure():
    """W_13 = c I, W_24 = -c, V_31 = -A / c (features of variance 1): everything is in the kept
    blocks and A_eff recovers A; noise in another block lowers the kept fractions."""
    D, c = 4, 0.5
    A = np.diag([1.0, 2.0, 3.0, 2.0]) + 0.1
    W, V = np.zeros((10, 10)), np.zeros((10, 10))
    b = structure.block_slices(D)
    W[b["W_13"]] = c * np.eye(D)
    W[b["W_24"]] = -c
    V[b["V_31"]] = -A / c
    r = structure.block_report(W, V, D)
    assert r["W_kept"] == pytest.approx(1.0) and r["V_kept"] == pytest.approx(1.0)
    assert r["c"] == pytest.approx(c) and r["W_13_offdiag"] == pytest.approx(0.0, abs=1e-15)
    assert r["W_24_over_c"] == pytest.approx(-1.0)
    assert r["A_eff_identity"] == pytest.approx(np.trace(A) / D)
    off = A - np.trace(A) / D * np.eye(D)
    assert r["A_eff_offdiag"] == pytest.approx(np.linalg.norm(off) / np.linalg.norm(A))
    W[b["W_14"]] = 1.0  # mass outside the kept blocks
    assert structure.block_report(W, V, D)["W_kept"] == pytest.approx(1.25 / 5.25)
    with pytest.raises(ValueError, match="W and V must have shape"):
        structure.block_report(W[:-1], V, D)
