"""Timings: ``python -m cotbook bench {theory,simulate,attention}`` (nothing imports this module
but the command line).

``theory_benchmark()`` and ``simulate_benchmark()`` return dicts of plain floats, ints and
strings and print nothing.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time

import numpy as np

from . import tasks, theory
from ._checks import nonneg_int, positive, positive_int
from .simulation import finite_size, pretrain, simulate
from .theory import ball, lagrange, phases

__all__ = [
    "ATTENTION_SETTINGS",
    "attention_benchmark",
    "theory_benchmark",
    "simulate_benchmark",
]


def _best_of(fn, repeats):
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def theory_benchmark(
    *,
    point=(2.0, 3.0, 0.01),
    t_max=80,
    recursion_t_max=80,
    grid_n=200,
    grid_sigma2=0.01,
    grid_t=80,
    deep_t=5000,
    deep_rtol=1e-8,
    deep_sigma2=0.01,
    repeats=5,
):
    """Measure the theory engine in one run.

    * ``speed_ratio``: time of ``error_curve(method="recursion")`` (the paper's O(T^4) mpmath
      recursion, default precision) divided by the time of ``error_curve(method="auto")``
      (certified to 1e-10) for E_0..E_{t_max} at ``point``.  If ``recursion_t_max < t_max`` the
      recursion time is extrapolated as (t_max/recursion_t_max)^4 and ``recursion_extrapolated``
      is 1 (the default measures it directly).
    * ``max_rel_diff_fast_vs_recursion``: max_t |E_fast - E_rec| / E_rec over the same depths.
    * ``grid_seconds``: ``error_grid`` of E_{grid_t} on grid_n x grid_n points, alpha in
      [0.1, 10] (log), tau in 1 + [0.01, 100] (log), sigma2 = grid_sigma2;
      ``grid_max_rel_err_sampled`` against ``lagrange_mp`` (50 digits) at 5 grid points.
    * deep depths at ``deep_sigma2`` (default the paper's 0.01) on ``tau_c(2, deep_sigma2)``,
      certified to ``deep_rtol``: ``deep_curve_seconds`` for E_0..E_{deep_t} (``error_curve``),
      ``deep_1e4_seconds`` and ``deep_1e5_seconds`` for single depths (``error_at``), and
      ``deep_ball_rel_diff``: E_3000 against the ball-arithmetic enclosure
      (:func:`cotbook.theory.exact.ball.ball_error_at`, rigorous, independent of the contours).
    * ``longdouble_rel_diff``: E_10^4 at 1.05 tau_c(2, 1e-4), sigma2 = 1e-4, against the
      streamed quadratic form in x87 long double (certified there, a second independent check).
    """
    t_max = nonneg_int("t_max", t_max)
    recursion_t_max = positive_int("recursion_t_max", recursion_t_max)
    grid_n = positive_int("grid_n", grid_n)
    grid_t = nonneg_int("grid_t", grid_t)
    deep_t = nonneg_int("deep_t", deep_t)
    deep_rtol = positive("deep_rtol", deep_rtol)
    repeats = positive_int("repeats", repeats)
    a, tau, s = point
    out = {
        "point": f"alpha={a}, tau={tau}, sigma2={s}",
        "t_max": t_max,
        "cpu_count": os.cpu_count() or 0,
        "machine": platform.processor() or platform.machine(),
    }
    # ---- one point: fast vs recursion
    t_fast, E_fast = _best_of(lambda: theory.error_curve(a, tau, s, t_max), repeats)
    t0 = time.perf_counter()
    E_rec = theory.error_curve(a, tau, s, min(recursion_t_max, t_max), method="recursion")
    t_rec = time.perf_counter() - t0
    extrap = recursion_t_max < t_max
    if extrap:
        t_rec *= (t_max / recursion_t_max) ** 4
    n = E_rec.size
    rel = np.abs(E_fast[:n] - E_rec) / np.maximum(np.abs(E_rec), theory.TINY)
    out.update(
        fast_seconds=float(t_fast),
        recursion_seconds=float(t_rec),
        recursion_extrapolated=int(extrap),
        speed_ratio=float(t_rec / t_fast),
        max_rel_diff_fast_vs_recursion=float(rel.max()),
    )
    # ---- grid
    al = np.logspace(-1, 1, grid_n)
    ta = 1.0 + np.logspace(-2, 2, grid_n)
    t0 = time.perf_counter()
    G = theory.error_grid(al, ta, grid_sigma2, grid_t)
    out["grid_seconds"] = float(time.perf_counter() - t0)
    out["grid_shape"] = f"{grid_n}x{grid_n}"
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(5):
        i, j = rng.integers(grid_n, size=2)
        ref = theory.error_curve(al[i], ta[j], grid_sigma2, grid_t, method="lagrange_mp", dps=50)
        worst = max(worst, abs(G[i, j] - ref[-1]) / abs(ref[-1]))
    out["grid_max_rel_err_sampled"] = float(worst)
    # ---- deep depths
    da, ds = 2.0, deep_sigma2
    dtau = phases.tau_c(da, ds)
    t0 = time.perf_counter()
    Ed = theory.error_curve(da, dtau, ds, deep_t, rtol=deep_rtol)
    out["deep_curve_seconds"] = float(time.perf_counter() - t0)
    for name, t in (("deep_1e4_seconds", 10_000), ("deep_1e5_seconds", 100_000)):
        t0 = time.perf_counter()
        out[name.replace("seconds", "E")] = theory.error_at(da, dtau, ds, t, rtol=deep_rtol)
        out[name] = float(time.perf_counter() - t0)
    enclosure = ball.ball_error_at(da, dtau, ds, 3000)
    fast = theory.error_at(da, dtau, ds, 3000, rtol=deep_rtol)
    out.update(
        deep_point=f"alpha={da}, tau={dtau:.6f} (tau_c), sigma2={ds}",
        deep_t=deep_t,
        deep_E_last=float(Ed[-1]),
        deep_certified_rtol=float(deep_rtol),
        deep_ball_rel_diff=float(abs(fast / float(enclosure.mid) - 1)),
    )
    la, ls = 2.0, 1e-4
    ltau = 1.05 * phases.tau_c(la, ls)
    El, _ = lagrange.stream_depth(np.array([la]), np.array([ltau]), ls, 10_000, dtype=np.longdouble)
    out["longdouble_rel_diff"] = float(
        abs(theory.error_at(la, ltau, ls, 10_000) / float(El[0]) - 1)
    )
    return out


def simulate_benchmark(*, seed=0) -> dict:
    """Timings of the simulation engine, measured in one run.

    - ``four_panel_D500_s``: all four panels at ``D = 500``, ``t <= 30``, 5 trials, 2 designs;
    - ``pretrain_literal_s`` / ``pretrain_fast_s``: the pretraining statistics of one trial of
      the overthinking panel at ``D = 500`` (M = L = 1000), drawn literally (every ``X_mu``, as
      the paper's public code does) or with the exact O(D + L) sampler;
    - ``D3200_one_trial_s``: one trial (one design, ``t <= 30``) of the exponential panel at
      ``D = 3200``.
    """
    out = {}
    start = time.perf_counter()
    spec = finite_size.SimulationSpec(dims=(500,), trials=5, test_designs=2, t_max=30, seed=seed)
    for unit in spec.units():
        if unit.split("/")[0] in finite_size.MAIN_PANELS:
            finite_size.run_unit(spec, unit)
    out["four_panel_D500_s"] = round(time.perf_counter() - start, 2)

    D, L, M = 500, 1000, 1000
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    for first in range(0, M, 50):
        X, y, _ = tasks.sample_tasks(D, L, min(50, M - first), finite_size.SIGMA2, rng)
        pretrain.features(X, y)
    out["pretrain_literal_s"] = round(time.perf_counter() - start, 2)
    start = time.perf_counter()
    pretrain.sampled_solution(D, L, M, finite_size.SIGMA2, finite_size.LAM, rng)
    out["pretrain_fast_s"] = round(time.perf_counter() - start, 3)

    start = time.perf_counter()
    simulate.simulated_curve(
        4.0,
        4.0,
        finite_size.SIGMA2,
        30,
        D=3200,
        lam=finite_size.LAM,
        trials=2,
        test_designs=1,
        seed=seed,
    )
    out["D3200_one_trial_s"] = round((time.perf_counter() - start) / 2, 1)
    return out


_LITERAL_RUN = """
import time
from cotbook import attention
config = attention.Config(**{config!r})
start = time.perf_counter()
attention.train_literal(config)
print(time.perf_counter() - start)
"""


ATTENTION_SETTINGS = {
    "L": 100,
    "M": 100,
    "steps": 3000,
}  # one configuration of the Figure 2 grid's size


def attention_benchmark(L=100, M=100, steps=3000) -> dict:
    """One configuration (paper settings, ``L``, ``M``, ``steps``) trained by
    :func:`cotbook.attention.train` and by the literal baseline
    :func:`cotbook.attention.train_literal` in a process of its own, for both models, side by
    side in one run: ``<model>_fast_s``, ``<model>_literal_s`` and ``<model>_speedup``.
    Both use torch's default number of threads and flush denormals (without that the literal
    baseline slows down several-fold as penalty-only entries decay), and both are timed after
    their imports: the fast path after a two-step warm-up run (loading its compiled kernels)."""
    from . import attention

    L, M, steps = (positive_int(k, v) for k, v in (("L", L), ("M", M), ("steps", steps)))
    out = {}
    for model in attention.MODELS:
        config = attention.Config(model=model, L=L, M=M, steps=steps)
        attention.train([attention.Config(model=model, L=L, M=M, steps=2)])
        start = time.perf_counter()
        attention.train([config])
        fast = time.perf_counter() - start
        code = _LITERAL_RUN.format(config=config.as_dict())
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        literal = float(done.stdout.split()[-1])
        # Four significant digits: a tiny run takes well under the 10 ms a fixed rounding kept.
        out[f"{model}_fast_s"] = float(f"{fast:.4g}")
        out[f"{model}_literal_s"] = float(f"{literal:.4g}")
        out[f"{model}_speedup"] = round(literal / fast, 1)
    return out
