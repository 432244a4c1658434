import numpy as np
import pytest

from cotbook.attention import grid, regimes, versus_theory


def test_regime_of_curve():
    t = np.arange(41)
    assert regimes.regime_of_curve(2.0 * 0.8**t) == "decay"
    assert regimes.regime_of_curve(0.5 + 1.5 * 0.8**t) == "saturation"
    assert regimes.regime_of_curve(2.0 * 0.8**t + 1e-3 * 1.2**t) == "overthinking"
    with pytest.raises(ValueError, match="finite 1-d array"):
        regimes.regime_of_curve([1.0, np.inf, 2.0])


def test_regime_of_curve_at_the_threshold_edges():
    """Overthinking needs E_T > rise * min (strictly); decay needs E_T < floor * E_0 (strictly);
    the horizon cuts the curve first.  Thresholds and levels are exact binary fractions."""
    rule = regimes.Rule(rise=1.25, floor=0.125)
    # falls to 0.5 at t = 10, then ends at exactly 1.25 * 0.5 = 0.625 or just above it
    base = np.concatenate([np.linspace(2.0, 0.5, 11), np.full(10, 0.5)])
    edge, over = base.copy(), base.copy()
    edge[-1], over[-1] = 0.625, 0.625 * (1 + 1e-9)
    assert regimes.regime_of_curve(edge, rule) == "saturation"
    assert regimes.regime_of_curve(over, rule) == "overthinking"
    # ends at exactly floor * E_0 = 0.25: saturation; a hair below: decay
    flat = np.concatenate([np.linspace(2.0, 0.25, 11), np.full(10, 0.25)])
    assert regimes.regime_of_curve(flat, rule) == "saturation"
    assert regimes.regime_of_curve(flat * np.r_[np.ones(20), 1 - 1e-9], rule) == "decay"
    assert regimes.regime_of_curve(flat, rule._replace(floor=0.125 * (1 + 1e-9))) == "decay"
    # a rise after t = 15 is invisible with the horizon at 10 or 15
    late = np.concatenate([np.linspace(2.0, 0.1, 16), np.linspace(0.1, 1.0, 5)])
    assert regimes.regime_of_curve(late, rule) == "overthinking"
    assert regimes.regime_of_curve(late, rule._replace(horizon=10)) == "saturation"  # 0.73
    assert regimes.regime_of_curve(late, rule._replace(horizon=15)) == "decay"  # 0.1 < 0.25
    assert regimes.RULE == (regimes.RISE, regimes.FLOOR, None) == (1.1, 0.1, None)


@pytest.mark.parametrize(
    "rule, message",
    [
        (regimes.Rule(rise=0.9), r"rule.rise must be a finite number >= 1"),
        (regimes.Rule(floor=1.0), r"rule.floor must be a finite number in \(0, 1\)"),
        (regimes.Rule(floor=0.0), r"rule.floor must be a finite number in \(0, 1\)"),
        (regimes.Rule(horizon=1), r"rule.horizon must be an integer >= 2"),
        (regimes.Rule(horizon=2.5), r"rule.horizon must be an integer >= 1"),
        (regimes.Rule(horizon=50), r"rule.horizon must be in \[2, 40\]"),
        ((1.1, 0.1, None), r"rule must be a regimes.Rule"),
    ],
)
def test_rule_is_validated(rule, message):
    with pytest.raises(ValueError, match=message):
        regimes.regime_of_curve(2.0 * 0.8 ** np.arange(41), rule)


def test_rule_variants():
    rules = regimes.rule_variants()
    assert len(rules) == 4 * 4 * 3 == len(set(rules))
    assert {r.rise for r in rules} == {1.05, 1.1, 1.5, 2.0}
    assert {r.floor for r in rules} == {0.025, 0.05, 0.1, 0.2}
    assert {r.horizon for r in rules} == {20, 30, 40}
    assert regimes.rule_variants([1.5], [0.1], [20]) == [regimes.Rule(1.5, 0.1, 20)]
    with pytest.raises(ValueError, match="at least one value"):
        regimes.rule_variants([], [0.1], [20])
    with pytest.raises(ValueError, match="rule.floor"):
        regimes.rule_variants([1.5], [2.0], [20])


def test_theory_regime_and_mean_sem():
    assert regimes.theory_regime(10, 3200, 50) == "saturation"  # alpha = 0.2 < 1
    assert regimes.theory_regime(160, 3200, 50) == "decay"  # alpha = 3.2, tau = 64 > tau_c
    assert regimes.theory_regime(160, 75, 50) == "overthinking"  # tau = 1.5 < tau_c ~ 1.9
    assert regimes.theory_regime(50, 3200, 50) == "overthinking"  # alpha = 1: tau_c = inf
    assert regimes.theory_regime(100, 50, 50) is None  # tau = 1
    E = np.array([[[1.0, 2.0], [3.0, 6.0]]])  # one point, two trials, two depths
    mean, sem = regimes.mean_sem(E)
    np.testing.assert_allclose(mean, [[2.0, 4.0]])
    np.testing.assert_allclose(sem, [[1.0, 2.0]])  # std (ddof 1) / sqrt(2)


def test_regime_map_reads_the_grid():
    t = np.arange(41)
    curves = {(0, 0): 2.0 * 0.8**t, (0, 1): 0.5 + 1.5 * 0.8**t, (1, 0): 2 * 0.8**t + 1.2**t / 1e3}
    E = np.zeros((2, 2, 2, 41))
    for (i, j), c in curves.items():
        E[i, j] = c
    E[1, 1] = 2.0 * 0.8**t
    config = grid.GridSpec(Ls=(10, 160), Ms=(3200, 50), trials=2, settings={"D": 50})
    data = {"E": {"linear": {"history": E.tolist()}}}
    measured, theory = regimes.regime_map(config, data, "linear")
    assert measured == [["decay", "saturation"], ["overthinking", "decay"]]
    assert theory == [["saturation", None], ["decay", None]]  # M = D: no ridgeless theory
    assert regimes.regime_agreement(measured, theory) == (0, 2)  # None cells not compared
    assert regimes.regime_agreement(theory, theory) == (2, 2)


def _synthetic_grid():
    """L = (10, 160), M = (60, 3200): small M overthinks (rising after t = 10 and 20), large M
    saturates at small L and decays at large L; two identical trials."""
    t = np.arange(41)
    return _two_by_two(
        2 * 0.8**t + 2.0 * 1.3 ** (t - 30),
        0.5 + 1.5 * 0.8**t,
        2 * 0.8**t + 1e-3 * 1.3 ** (t - 10),
        2.0 * 0.8**t,
    )


def _two_by_two(*curves):
    """A grid L = (10, 160), M = (60, 3200) at D = 50 with the four cells' curves (row by row),
    two identical trials each."""
    E = np.zeros((2, 2, 2, 41))
    for k, curve in enumerate(curves):
        E[k // 2, k % 2] = curve
    config = grid.GridSpec(Ls=(10, 160), Ms=(60, 3200), trials=2, settings={"D": 50})
    return config, {"E": {"linear": {"history": E.tolist()}}}


def test_representatives_and_claims_on_a_known_grid():
    config, data = _synthetic_grid()
    assert regimes.representatives(config, data, "linear") == {
        "decay": (1, 1),
        "overthinking": (1, 0),
        "saturation": (0, 1),
    }
    holds = {c.statement: c.holds for c in regimes.claims(config, data, "linear")}
    assert holds["all three regimes appear"]
    assert holds["small M: overthinking more prominent"]  # 100% vs 0%
    assert holds["large M: saturation or decay depending on L"]
    assert not holds["more examples L: faster decay"]  # a single decaying L: not measurable
    assert not holds["more tasks M: longer useful CoT (t* grows with M)"]  # one M per row
    assert holds["overthinking can end worse than saturation with fewer examples"]
    assert holds["decay close to exponential"]  # 2 * 0.8**t: as many decades in each half


def test_a_decay_that_stops_at_a_floor_is_not_close_to_exponential():
    """The trained layer's L > D curves: below a tenth of E_0 (decay by the rule), then flat.
    The statement reads the decades lost over the horizon's second half against those the
    theory's own curve loses there (3.19 at alpha = 3.2, tau = 64)."""
    t = np.arange(41)
    floor = 0.02 + 2.0 * 0.6**t  # loses 2 decades by t = 20, then 0.002 of one
    config, data = _two_by_two(0.5 + 1.5 * 0.8**t, 0.5 + 1.5 * 0.8**t, 2 * 0.8**t, floor)
    assert regimes.regime_map(config, data, "linear")[0][1][1] == "decay"
    found = {c.statement: c for c in regimes.claims(config, data, "linear")}
    straight = found["decay close to exponential"]
    assert not straight.holds
    assert straight.measured == "still falling at no $L$; a floor at $L = 160$"
    ((L, (trained, theory)),) = regimes.late_decades(config, data, "linear").items()
    assert L == 160 and 0 < trained < 0.01 and theory == pytest.approx(3.19, abs=0.01)
    # the theory's own curve passes; one losing a bit under half its late decades does not
    law = versus_theory.theory_curve(160, 3200, 50, 40)
    late = np.log10(law[20] / law[40])
    assert 3.1 < late < 3.3
    slow = np.where(t <= 20, law, law[20] * (law / law[20]) ** (0.99 * regimes.STRAIGHT))
    for curve, holds in ((law, True), (slow, False)):
        config, data = _two_by_two(0.5 + 1.5 * 0.8**t, 0.5 + 1.5 * 0.8**t, 2 * 0.8**t, curve)
        found = {c.statement: c.holds for c in regimes.claims(config, data, "linear")}
        assert found["decay close to exponential"] is holds


def test_sensitivity_table_reads_means_and_regimes():
    t = np.arange(41)
    decay, flat = (2.0 * 0.8**t).tolist(), (0.5 + 1.5 * 0.8**t).tolist()
    rising = (2.0 * 0.8**t + 1e-3 * 1.3**t).tolist()
    mean = {
        "paper": {"linear": {"history": [[decay, decay]], "examples": [[flat, flat]]}},
        "merged W": {"linear": {"history": [[rising, rising]], "examples": [[decay, decay]]}},
    }
    median = {
        "paper": {"linear": {"history": [[decay, decay]], "examples": [[decay, decay]]}},
        "merged W": {"linear": {"history": [[flat, flat]], "examples": [[decay, decay]]}},
    }
    data = {"E": mean, "E_median": median}
    headers, rows = regimes.sensitivity_table(
        grid.SensitivitySpec(points=((25, 3200),), trials=2), data, "linear"
    )
    assert headers == ["variant", "(L, M)", "E_20 history", "E_20 examples", "regimes"]
    assert rows[0][:2] == ["paper", "(25, 3200)"]
    assert rows[0][2] == pytest.approx(decay[20]) and rows[0][3] == pytest.approx(flat[20])
    assert rows[0][4] == "D / S / D / D" and rows[1][4] == "O / D / S / D"


def test_regime_map_by_statistic_and_horizon():
    """The median curves are read from their own key; a horizon cuts the curve before it is
    classified (a late rise is invisible at t <= 20)."""
    t = np.arange(41)
    late = 2.0 * 0.8**t + 1e-6 * 1.5**t  # minimum near t = 24, then rises
    E = np.zeros((1, 1, 2, 41))
    E[0, 0] = late
    M = np.zeros((1, 1, 2, 41))
    M[0, 0] = 0.5 + 1.5 * 0.8**t
    config = grid.GridSpec(Ls=(160,), Ms=(3200,), trials=2, settings={"D": 50})
    data = {"E": {"linear": {"history": E.tolist()}}, "E_median": {"linear": {"history": M}}}
    assert regimes.regime_map(config, data, "linear")[0] == [["overthinking"]]
    assert regimes.regime_map(config, data, "linear", rule=regimes.Rule(horizon=20))[0] == [
        ["decay"]
    ]
    median, _ = regimes.regime_map(config, data, "linear", statistic="median")
    assert median == [["saturation"]]
    assert regimes.regime_counts(median) == {"decay": 0, "overthinking": 0, "saturation": 1}
    data["unstable"] = {"linear": {"history": [[[0.0, 0.5]]]}}
    np.testing.assert_allclose(regimes.unstable_share(data, "linear"), [[0.25]])
    with pytest.raises(ValueError, match="statistic must be one of"):
        regimes.curves(data, "linear", statistic="mode")
    with pytest.raises(ValueError, match=r"rule.horizon must be in \[2, 40\]"):
        regimes.regime_map(config, data, "linear", rule=regimes.Rule(horizon=41))


def test_finite_d_regime_map_matches_the_limit_where_finite_size_is_mild():
    """The simplified model at D = 50: saturation at alpha = 0.2 and decay at alpha = 3.2 (tau =
    64), as Result 2 predicts; at alpha = 1 (the critical line) finite-D fluctuations make the
    task-averaged error turn up by t = 40."""
    config = grid.GridSpec(Ls=(10, 50, 160), Ms=(3200,), trials=1)
    finite = regimes.finite_d_regime_map(config, trials=3)
    assert [row[0] for row in finite] == ["saturation", "overthinking", "decay"]
    assert [regimes.theory_regime(L, 3200, 50) for L in (10, 160)] == ["saturation", "decay"]
    with pytest.raises(ValueError, match="trials"):
        regimes.finite_d_regime_map(config, trials=0)
    with pytest.raises(ValueError, match="statistic"):
        regimes.finite_d_regime_map(config, statistic="mode")


def test_finite_d_regime_map_median_is_the_typical_pretraining_set():
    """At alpha = 0.2, tau = 32 (saturation in the limit) a minority of the pretraining sets is
    unstable at D = 50: the mean over sets overthinks, the median saturates as Result 2 says."""
    config = grid.GridSpec(Ls=(10,), Ms=(1600,), trials=1)
    assert regimes.theory_regime(10, 1600, 50) == "saturation"
    assert regimes.finite_d_regime_map(config)[0][0] == "overthinking"
    assert regimes.finite_d_regime_map(config, statistic="median")[0][0] == "saturation"


def _rule_grid():
    """L = (10, 160), M = (60, 3200): both small-M cells overthink steeply under every rule; the
    large-M cell at L = 10 levels off at 25 % of E_0 (saturation under every floor); the one at
    L = 160 levels off at 7.5 % of E_0 from t = 20 on: decay only for floor 0.1 and 0.2."""
    t = np.arange(41)
    return _two_by_two(
        2 * 0.5**t + 1e-3 * 2.0**t,
        0.5 + 1.5 * 0.5**t,
        2 * 0.5**t + 1e-4 * 2.0**t,
        2 * (0.075 + 0.925 * 0.5**t),
    )


def test_rule_sensitivity_counts_the_rules_under_which_each_statement_holds():
    config, data = _rule_grid()
    robust = regimes.rule_sensitivity(config, data, "linear")
    # decay at L = 160, M = 3200 under 2 of 4 floors x 4 rises x 3 horizons = 24 of 48 rules
    assert [r.holds_in for r in robust] == [24, 48, 24, 0, 0, 48, 0]
    assert {r.variants for r in robust} == {48}
    assert robust[0].statement == "all three regimes appear"
    holds, caveats = regimes.robust_verdict(robust)
    assert holds
    assert list(caveats) == [
        "all three regimes appear: depends on the classification rule, holds in 24 of 48 variants",
        "large M: saturation or decay depending on L: depends on the classification rule, "
        "holds in 24 of 48 variants",
        "more examples L: faster decay: not seen under any rule variant",
        "more tasks M: longer useful CoT (t* grows with M): not seen under any rule variant",
        "decay close to exponential: not seen under any rule variant",
    ]
    assert all(caveats.values())
    assert regimes.robust_summary(robust) == "2 of 7 under all 48 rule variants, 2 more under some"
    assert regimes.count_ranges(config, data, "linear") == {
        "decay": (0, 1),
        "overthinking": (2, 2),
        "saturation": (1, 2),
    }
    only = regimes.rule_sensitivity(config, data, "linear", rules=[regimes.Rule(1.1, 0.2, 30)])
    assert [r.holds_in for r in only] == [1, 1, 1, 0, 0, 1, 0]
    with pytest.raises(ValueError, match="rules must hold at least one Rule"):
        regimes.rule_sensitivity(config, data, "linear", rules=[])


def test_robust_verdict_holds_fails_or_depends():
    def robust(*counts, by_default=True):
        return [regimes.Robustness(f"s{k}", n, 10, by_default) for k, n in enumerate(counts)]

    assert regimes.robust_verdict(robust(10, 10, 10)) == (True, {})
    assert regimes.robust_summary(robust(10, 10, 10)) == "3 of 3 under all 10 rule variants"
    holds, caveats = regimes.robust_verdict(robust(0, 10, 0))
    assert not holds and list(caveats) == ["s2: not seen under any rule variant"]
    holds, caveats = regimes.robust_verdict(robust(3, 10, 10))
    assert holds and list(caveats) == [
        "s0: depends on the classification rule, holds in 3 of 10 variants"
    ]
    # a headline that depends on the rule: the book's rule decides, the caveat says so
    holds, caveats = regimes.robust_verdict(robust(3, 10, 10, by_default=False))
    assert not holds and list(caveats) == [
        "s0: depends on the classification rule, holds in 3 of 10 variants"
    ]
    with pytest.raises(ValueError, match="robustness must be a non-empty list"):
        regimes.robust_verdict([])
    with pytest.raises(ValueError, match="robustness must be a non-empty list"):
        regimes.robust_summary([("s", 1, 2)])


def test_claims_read_the_curves_up_to_the_horizon():
    """Under a horizon the ends and best depths are those of the cut curve."""
    config, data = _rule_grid()
    found = regimes.claims(config, data, "linear", rule=regimes.Rule(horizon=20))
    assert found[5].measured == "1 pair of cells"
    with pytest.raises(ValueError, match=r"t must be in \[0, 40\]"):
        regimes.claims(config, data, "linear", t=41)


def test_claims_say_what_they_measured_in_a_few_words():
    config, data = _synthetic_grid()
    found = regimes.claims(config, data, "linear")
    assert [c.measured for c in found] == [
        "decay, overthinking, saturation",
        "overthinking in 100% of the cells at smaller $M$, 0% at larger",
        "saturation at $L = 10$; decay at $L = 160$",
        r"$\mathcal{E}_{20} = 0.023$ at $L = 160$",  # 2 * 0.8**20 = 0.0231
        "$t^*$ non-decreasing in $M$ at 0 of 0 $L$",
        "1 pair of cells",
        "still falling at $L = 160$; a floor at no $L$",
    ]
    assert set(regimes.STATEMENT_LABELS) == {c.statement for c in found}
    assert max(len(label) for label in regimes.STATEMENT_LABELS.values()) <= 25


def test_best_depths_are_the_minima_of_the_overthinking_cells():
    config, data = _synthetic_grid()
    depths = regimes.best_depths(config, data, "linear")
    # argmin of 2 * 0.8**t + 2 * 1.3**(t - 30) and of 2 * 0.8**t + 1e-3 * 1.3**(t - 10)
    np.testing.assert_array_equal(depths, [[16, np.nan], [21, np.nan]])
    cut = regimes.best_depths(config, data, "linear", rule=regimes.Rule(horizon=18))
    # cut at t = 18 the L = 160 curve still falls: no overthinking, no best depth
    np.testing.assert_array_equal(cut[:, 0], [16, np.nan])
