"""Tests of cotbook.theory.derivation: each step of Appendix C against an independent one.

Finite-D matrices (exact algebra, to round-off), the closed order-parameter system (solved
numerically), the printed lambda = 0 solution and the lambda = 0 closed form of cotbook.theory
are cross-checked; cavity relations are checked at a tolerance far below the size of the
quantities they predict (a wrong coefficient or sign moves them by O(0.1)).
"""

import re

import numpy as np
import pytest

from cotbook import theory
from cotbook.simulation import simulate
from cotbook.theory import derivation as dv

U, V = -0.4, -0.7  # distinct, so that a u <-> v swap in a formula is caught


@pytest.fixture(scope="module")
def small():
    return dv.sample_problem(80, 2.0, 3.0, 0.01, 0.1, np.random.default_rng(7))


@pytest.fixture(scope="module")
def large():
    """D = 400: the cavity relations hold to O(1/D)."""
    return dv.sample_problem(400, 2.0, 3.0, 0.01, 0.1, np.random.default_rng(3))


# ---- step 1: reduction ---------------------------------------------------------------------
def test_error_from_moments_equals_direct_error(small):
    mu = dv.mixed_moments(small.A, small.S, 6)
    direct = simulate.design_errors(small.A, small.X[None], 6)[0]
    got = [dv.error_from_moments(mu, small.alpha, t) for t in range(7)]
    np.testing.assert_allclose(got, direct, rtol=1e-10, atol=0)
    # the 1/alpha normalisation of the CoT step matters: without it the number is different
    assert abs(dv.error_from_moments(mu, 1.0, 3) - direct[3]) > 1e-2


def test_moments_are_taylor_coefficients_of_F(small):
    mu = dv.mixed_moments(small.A, small.S, 40)
    u, v = -0.05, -0.08
    op = dv.order_parameters(small, dv.resolvent_blocks(small, u, v))
    assert dv.series_F(mu, u, v) == pytest.approx(op["m13"], rel=1e-12)
    assert mu[0, 0] == pytest.approx(1.0, rel=1e-14)


# ---- step 2: extended matrix ---------------------------------------------------------------
def test_G13_is_product_of_resolvents(small):
    G = dv.resolvent_blocks(small, U, V, method="full")
    eye = np.eye(small.D)
    target = np.linalg.inv(eye - U * small.A @ small.S) @ np.linalg.inv(
        eye - V * small.S @ small.A.T
    )
    assert np.max(np.abs(G[0][2] - target)) < 1e-12 * np.max(np.abs(target))
    for a in (2, 3):
        for b in (0, 1):
            assert np.max(np.abs(G[a][b])) < 1e-13


def test_schur_blocks_equal_full_inverse(small):
    full = dv.resolvent_blocks(small, U, V, method="full")
    schur = dv.resolvent_blocks(small, U, V, method="schur")
    for a in range(4):
        for b in range(4):
            np.testing.assert_allclose(schur[a][b], full[a][b], atol=1e-12)


# ---- step 3: order parameters, exact identities, cavity relations --------------------------
@pytest.mark.parametrize("lam,tau", [(0.1, 3.0), (0.0, 3.0), (1.0, 0.6)])
def test_twelve_exact_identities(lam, tau):
    prob = dv.sample_problem(60, 2.0, tau, 0.01, lam, np.random.default_rng(1))
    op = dv.order_parameters(prob, dv.resolvent_blocks(prob, U, V, method="full"))
    res = dv.exact_identities(op, U, V)
    assert set(res) == set(dv.IDENTITIES)
    for name, r in res.items():
        assert abs(r) < 1e-12, name
    # each identity is non-trivial: its terms are O(0.1) or larger
    assert abs(op["s12"]) > 0.1 and abs(op["beta14"]) > 0.05 and abs(op["c44"]) > 0.5


def test_cavity_relations_hold_at_large_D(large):
    op = dv.order_parameters(large, dv.resolvent_blocks(large, U, V))
    res = dv.cavity_residuals(large, op, U, V)
    assert len(res) == 18
    for name, r in res.items():
        assert abs(r) < 0.008, (name, r)
        assert abs(op[name]) > 0.05, name  # the predicted quantity is much larger than that


def test_cavity_relations_catch_a_wrong_formula(large):
    """Replace (c m12 - u m11) by (m12 - u m11) in c12: the residual exceeds the tolerance above."""
    op = dv.order_parameters(large, dv.resolvent_blocks(large, U, V))
    m = op
    D1 = large.tau - U * m["m21"] + large.c * m["m22"]
    wrong = (large.lam / 2 + large.c) * m["m12"] - large.c * m["m22"] * (
        m["m12"] - U * m["m11"]
    ) / D1
    assert abs(op["c12"] - wrong) > 0.015


@pytest.mark.slow
def test_cavity_residual_shrinks_with_D():
    def rms(D, seeds):
        out = []
        for seed in seeds:
            prob = dv.sample_problem(D, 2.0, 3.0, 0.01, 0.1, np.random.default_rng(seed))
            op = dv.order_parameters(prob, dv.resolvent_blocks(prob, U, V))
            res = list(dv.cavity_residuals(prob, op, U, V).values())
            out.append(np.sqrt(np.mean(np.square(res))))
        return np.mean(out)

    assert rms(400, range(2)) < 0.5 * rms(100, range(6))


# ---- step 4: closed system -----------------------------------------------------------------
@pytest.mark.parametrize("lam,tau", [(0.0, 3.0), (0.1, 3.0), (1.0, 0.6)])
def test_closed_system_matches_finite_D(lam, tau):
    prob = dv.sample_problem(400, 2.0, tau, 0.01, lam, np.random.default_rng(11))
    op = dv.order_parameters(prob, dv.resolvent_blocks(prob, U, V))
    th = dv.closed_system(U, V, prob.alpha, prob.tau, prob.sigma2, lam)
    for name in dv.M_NAMES:
        assert th[name] == pytest.approx(op[name], rel=0.01, abs=0.01), name


@pytest.mark.parametrize("lam,tau", [(0.0, 3.0), (0.3, 3.0), (1.0, 0.6)])
def test_closed_system_solves_identities_with_cavity(lam, tau):
    """The closed system is exactly 'identities of G M = I' with the cavity predictions."""
    c = 1 + 1.01 / 2.0
    th = dv.closed_system(U, V, 2.0, tau, 0.01, lam)
    pred = dv.cavity_predictions(th, U, V, 2.0, tau, c, lam)
    res = dv.exact_identities({**th, **pred}, U, V)
    for name, r in res.items():
        assert abs(r) < 1e-11, name


def test_closed_system_transposition_symmetry():
    """Tr(I - z S A^T)^{-1} = Tr(I - z A S)^{-1}: m33(z) = m11(z) for every lam."""
    z = np.array([-0.8, -0.2, 0.05, 0.1 + 0.3j])
    for lam in (0.0, 0.5):
        us = dv.solve_u_sector(z, 2.0, 3.0, 0.01, lam)
        vs = dv.solve_v_sector(z, 2.0, 3.0, 0.01, lam)
        np.testing.assert_allclose(vs["m33"], us["m11"], rtol=1e-12)
        np.testing.assert_allclose(vs["m43"], z * 0 + us["m12"] / z, rtol=1e-10)


@pytest.mark.parametrize("alpha,tau,sigma2", [(2.0, 3.0, 0.01), (0.5, 1.5, 0.1), (4.0, 20.0, 0.0)])
def test_explicit_lambda0_solution(alpha, tau, sigma2):
    th = dv.closed_system(U, V, alpha, tau, sigma2, 0.0)
    ex = dv.explicit_solution(U, V, alpha, tau, sigma2)
    for name in dv.M_NAMES:
        assert ex[name] == pytest.approx(th[name], rel=1e-10), name
    assert ex["m13"] == pytest.approx(theory.m13(U, V, alpha, tau, sigma2), rel=1e-12)


def test_validation():
    with pytest.raises(ValueError, match="tau must be > 1 when lam = 0"):
        dv.closed_system(U, V, 2.0, 0.5, 0.01, 0.0)
    with pytest.raises(ValueError, match=r"lam must be a finite number in \[0, 1e\+12\]"):
        dv.closed_system(U, V, 2.0, 3.0, 0.01, -1.0)
    with pytest.raises(ValueError, match=r"alpha must be a finite number in \[1e-12, 1e\+12\]"):
        dv.sample_problem(10, 0.0, 3.0, 0.01, 0.1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="method must be"):
        dv.resolvent_blocks(
            dv.sample_problem(10, 2.0, 3.0, 0.0, 0.1, np.random.default_rng(0)), U, V, method="lu"
        )
    with pytest.raises(ValueError, match="u and v must be nonzero"):
        dv.explicit_solution(0.0, V, 2.0, 3.0, 0.01)


@pytest.mark.slow
def test_study_helpers():
    assert dv.fit_order([100, 200, 400], [1e-2, 5e-3, 2.5e-3]) == pytest.approx(-1.0, abs=1e-12)
    scaling = dv.cavity_scaling((60, 120), (1, 1), 2.0, 3.0, 0.01, 0.1, U, V)
    assert set(scaling) == set(dv.FAMILIES) and all(np.all(v < 0.05) for v in scaling.values())
    with pytest.raises(ValueError, match="dims and seeds"):
        dv.cavity_scaling((60,), (1, 2), 2.0, 3.0, 0.01, 0.1, U, V)


def test_tex_names_every_trace_of_the_identities():
    assert dv.tex("-m11 + m13 - beta14 = 0") == r"-m_{11} + m_{13} - \beta_{14} = 0"
    assert dv.tex("-u b21 + c22 = 1") == r"-u b_{21} + c_{22} = 1"
    assert [dv.tex(k) for k in ("s43", "c", "m123", "beta1")] == ["s_{43}", "c", "m123", "beta1"]
    # every order parameter and every inserted trace of the cavity families is converted
    names = set(dv.M_NAMES) | {n for f in dv.FAMILIES.values() for n in f}
    assert len(names) == 30
    for name in names:
        assert re.fullmatch(r"(\\beta|[msbc])_\{[1-4][1-4]\}", dv.tex(name)), name
    assert dv.tex("m11 - s12 = 1") == "m_{11} - s_{12} = 1"
    with pytest.raises(ValueError, match="text must be a string"):
        dv.tex(11)


@pytest.mark.parametrize("system", ["u_system", "v_system"])
def test_sector_jacobians_are_the_derivatives_of_the_residuals(system):
    """Newton's analytic Jacobian (cotbook.theory._torus) against central differences of the
    residuals (they are holomorphic, so a real step gives the complex derivative), at complex
    points, at tau > 1 and at tau < 1 with a small ridge."""
    from cotbook.theory import _torus

    rng = np.random.default_rng(11)
    fun = getattr(_torus, system)
    for point in ((2.0, 3.0, 0.01, 0.1), (0.5, 0.8, 0.2, 1e-3)):
        constants = dv.Point.of(*point).system
        for z, a, b in rng.normal(size=(8, 3)) + 1j * rng.normal(size=(8, 3)):
            jac = fun(z, a, b, *constants)[2:6]
            h = 1e-6
            for k, (da, db) in enumerate(((h, 0), (0, h))):
                plus = fun(z, a + da, b + db, *constants)[:2]
                minus = fun(z, a - da, b - db, *constants)[:2]
                for row in range(2):
                    want = (plus[row] - minus[row]) / (2 * h)
                    assert abs(jac[2 * row + k] - want) / (1 + abs(want)) < 1e-6


def _printed_m13(u, v, point, start):
    """m13(u, v) from App. C.9's equations as printed (``k = c + lam/2`` multiplying the
    unknowns; ``1 - W/D2`` and ``1 - Y/D1`` formed as differences), in 40-digit arithmetic,
    from a starting guess ``((m12, m22), (m34, m44))``."""
    import mpmath as mp

    with mp.workdps(40):
        alpha, tau, sigma2, lam = (mp.mpf(x) for x in point)
        u, v = mp.mpc(u), mp.mpc(v)
        c = 1 + (1 + sigma2) / alpha
        k = c + lam / 2

        def u_res(a, b):
            m11, m21 = 1 + alpha * a / (1 - a), alpha * b / (1 - a)
            P = u * m21 - c * b
            R = P / (tau - P)
            return [
                -u * m11 + k * a + R * (c * a - u * m11),
                -u * m21 + k * b + R * (c * b - u * m21) - 1,
            ]

        def v_res(a, b):
            W = c * b - a
            S = W / (tau + W)
            g = v * alpha / (1 - v * b * (1 - S))
            return [
                -g * (1 + a * (1 - S)) + k * a - c * a * S,
                -g * b * (1 - S) + k * b - c * b * S - 1,
            ]

        m12, m22 = mp.findroot(u_res, [mp.mpc(z) for z in start[0]])
        m34, m44 = mp.findroot(v_res, [mp.mpc(z) for z in start[1]])
        m11, m21 = 1 + alpha * m12 / (1 - m12), alpha * m22 / (1 - m12)
        W = c * m44 - m34
        D2 = tau + W
        m43 = m44 - m44 * W / D2
        D1 = tau - u * m21 + c * m22
        t2 = tau / D2
        e12, e43 = 1 - m12, 1 - v * m43
        M = mp.matrix(4, 4)
        M[0, 0], M[0, 1], M[0, 3] = 1, -t2, t2 * c * (m12 - u * m11) / D1
        M[1, 2], M[1, 3] = 1, -t2 + t2 * c * (m22 - u * m21) / D1
        M[2, 0] = v * alpha / (e12 * e43)
        M[2, 1], M[2, 3] = -lam / 2 - c * t2, c * t2 * (c * m12 - u * m11) / D1
        M[3, 0], M[3, 2] = v * alpha * m22 / (e12 * e43), v * alpha / e43
        M[3, 3] = -lam / 2 - c * t2 * (1 - (c * m22 - u * m21) / D1)
        return complex(mp.lu_solve(M, mp.matrix([m11, m21, 0, 0]))[0])


@pytest.mark.parametrize("point", [(2.0, 0.2, 0.01, 1e-8), (0.5, 0.8, 0.2, 1e-6)])
def test_closed_system_keeps_its_digits_at_tau_below_1_and_a_tiny_ridge(point):
    """tau < 1, lam -> 0: Tr C^-1/D ~ 2 (1 - tau)/lam (1.6e8 at the first point).  The printed
    equations cancel terms of that size (``k m22`` against ``c m22 W/D2``), which cost
    ``log10(1/lam)`` digits in double precision (1e-10 to 4e-9 of m13 before); the solvers
    evaluate the same functions without the cancellation.  m13 at complex (u, v) against the
    printed equations in 40 digits."""
    alpha = point[0]
    for x, y in ((0.5, -0.3), (0.4j, 0.6 * np.exp(2.5j)), (-0.7 + 0.1j, 0.2)):
        u, v = -x / (alpha * (1 - x)), -y / (alpha * (1 - y))
        us, vs = dv.solve_u_sector(u, *point), dv.solve_v_sector(v, *point)
        got = dv.solve_mixed_sector(us, vs, u, v, *point)["m13"]
        want = _printed_m13(u, v, point, ((us["m12"], us["m22"]), (vs["m34"], vs["m44"])))
        assert abs(got - want) <= 4e-15 * abs(want)


def test_a_sector_far_along_the_ray_stays_on_its_branch():
    """Near y = 1 the sectors' argument z = -y/(alpha (1 - y)) is large (657 at y = 0.999):
    sixteen uniform steps along the ray jumped to another root there (m22 = -5.3e5 instead of
    0.0033); the ray's geometric steps beyond |z| = 8 stay on the branch that goes to 0 like
    1/z, i.e. like 1 - y.  Each value solves the printed equations (40 digits, Newton from
    it moves it by < 1e-12), and m22/(1 - y), m44/(1 - y) change by < 7 % from y = 0.995 to
    0.99999."""
    point = (1.5219, 7.8562, 0.021019, 2.59e-05)
    ys = np.array([0.995, 0.999, 0.9999, 0.99999])
    z = -ys / (point[0] * (1 - ys))
    us, vs = dv.solve_u_sector(z, *point), dv.solve_v_sector(z, *point)
    for name, sector in (("m22", us), ("m44", vs)):
        slope = sector[name].real / (1 - ys)
        assert np.all(np.abs(slope / slope[0] - 1) < 0.07), (name, slope)
    v = z[1]
    start = ((us["m12"][1], us["m22"][1]), (vs["m34"][1], vs["m44"][1]))
    want = _printed_m13(v, v, point, start)
    got = dv.solve_mixed_sector({k: us[k][1] for k in us}, {k: vs[k][1] for k in vs}, v, v, *point)[
        "m13"
    ]
    assert abs(got - want) <= 1e-12 * abs(want)
