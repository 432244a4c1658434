import json

import numpy as np
import pytest
import torch

from cotbook.attention import layer, lottery


def test_carriers():
    assert lottery.carriers([100.0, 1.0, 1.0, 1.0]) == 1
    assert lottery.carriers(np.ones(10)) == 5
    assert lottery.carriers([3.0, 2.0, 3.0, 2.0]) == 2  # 3 < 5 <= 3 + 3
    assert lottery.carriers([5.0, 5.0]) == 1  # exactly half
    assert lottery.carriers(np.ones(10), share=1.0) == 10
    with pytest.raises(ValueError, match="share"):
        lottery.carriers([1.0], share=0.0)
    with pytest.raises(ValueError, match=">= 0"):
        lottery.carriers([1.0, -1.0])


def test_summarise_and_pick_depths():
    errors = np.zeros((2, 4, 3))
    errors[0, :, 2] = [100.0, 1.0, 1.0, 1.0]
    errors[1, :, 2] = [1.0, 2.0, 3.0, 4.0]
    errors[:, :, 1] = 1.0
    errors[:, :, 0] = 2.0
    s = lottery.from_record(lottery.summarise(errors), [1, 2], 2)
    np.testing.assert_allclose(s.mean, [[1.0, 103 / 4], [1.0, 2.5]])
    np.testing.assert_allclose(s.median, [[1.0, 1.0], [1.0, 2.5]])
    assert s.carriers.tolist() == [1, 2]
    with pytest.raises(ValueError, match="depths and carry_depth"):
        lottery.from_record(lottery.summarise(errors), [1, 3], 2)
    with pytest.raises(ValueError, match="no NaN"):
        lottery.summarise(np.full((1, 2, 2), np.nan))


def test_fresh_sets_are_independent_and_evaluated_as_layer_evaluates():
    """Sets differ from each other and from layer.test_set, repeat with their seed, and the
    per-task errors average to layer.evaluate's mean on the same tasks."""
    config = layer.Config(model="linear", L=12, M=40, D=6, steps=30, **{"merged": True})
    a = lottery.fresh_test_sets(config, 3, tasks=256, seed=4)
    b = lottery.fresh_test_sets(config, 3, tasks=256, seed=4)
    for (Za, wa, ea), (Zb, wb, eb) in zip(a, b, strict=True):
        assert torch.equal(Za, Zb) and torch.equal(wa, wb) and torch.equal(ea, eb)
    assert not torch.equal(a[0][1], a[1][1]) and not torch.equal(a[0][2], a[1][2])
    assert not torch.equal(a[0][1], layer.test_set(config, 256)[1])
    assert abs(float(a[2][2].std()) - 1) < 0.05 and a[0][2].dtype == torch.float64
    params = lottery.train_one(config)
    trained, _ = layer.train([config])
    for k in params:
        assert torch.equal(params[k], trained[k])
    errors = lottery.per_task_errors(config, params, [layer.test_set(config, 256), *a], 5)
    assert errors.shape == (4, 256, 6)
    mean = layer.evaluate(config, params, 5, tasks=256, masks=("examples",))["examples"]
    np.testing.assert_allclose(errors[0].mean(axis=0), mean, rtol=1e-12)
    assert np.all(errors[1:, :, 0].mean(axis=1) > 1.5)  # E_0 ~ 2: w and w_hat_0 independent
    with pytest.raises(ValueError, match="mask"):
        lottery.per_task_errors(config, params, a, 5, mask="data_only")


def test_a_unit_summarises_each_set_as_the_per_task_errors_do():
    """run_unit's per-set mean, median and carriers are those of per_task_errors on the same
    sets and the same trained model; the record's summary picks them back out."""
    spec = lottery.SCALES["tiny"]
    (unit,) = spec.units()
    done = json.loads(json.dumps(lottery.run_unit(spec, unit)))
    config = spec.config()
    params = lottery.train_one(config)
    sets = lottery.fresh_test_sets(config, spec.sets, tasks=spec.tasks, seed=config.seed)
    errors = lottery.per_task_errors(config, params, sets, spec.t_max)
    want = lottery.from_record(lottery.summarise(errors), [1, 4], 3)
    data, timings = lottery.assemble(spec, {unit: done})
    got = lottery.from_record(data, [1, 4], 3)
    # the same sums over a differently strided array: equal to the last bits
    np.testing.assert_allclose(got.mean, want.mean, rtol=1e-14)
    np.testing.assert_allclose(got.median, want.median, rtol=1e-14)
    np.testing.assert_array_equal(got.carriers, want.carriers)
    assert np.asarray(data["mean"]).shape == (spec.sets, spec.t_max + 1)
    assert list(timings) == [unit] and timings[unit] > 0
    assert len(set(np.asarray(data["mean"])[:, -1])) == spec.sets  # the sets differ
    with pytest.raises(ValueError, match="depths and carry_depth"):
        lottery.from_record(data, [1, 5], 3)


def test_bad_specs_and_units_are_refused_by_name():
    with pytest.raises(ValueError, match="sets"):
        lottery.LotterySpec(L=6, M=12, sets=1)
    with pytest.raises(ValueError, match="L"):
        lottery.LotterySpec(L=0, M=12, sets=2)
    with pytest.raises(ValueError, match="settings"):
        lottery.LotterySpec(L=6, M=12, sets=2, settings={"bogus": 1})
    with pytest.raises(ValueError, match="unit"):
        lottery.run_unit(lottery.SCALES["tiny"], "linear/L=7/M=12")
    with pytest.raises(ValueError, match="LotterySpec"):
        lottery.run_unit(object(), "linear/L=6/M=12")
