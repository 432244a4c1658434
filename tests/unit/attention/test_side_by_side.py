"""The preregistered comparison's own runs: fresh seeds, the authors' settings, and the book's
computation on the authors' draws."""

import numpy as np
import pytest
import torch

from cotbook import cli
from cotbook.attention import layer, protocol, recheck, side_by_side, their_draws
from cotbook.book import records, studies
from cotbook.book.authors import floors


def test_the_book_trials_repeat_no_earlier_trial_and_use_their_settings():
    spec = side_by_side.SCALES["paper"]
    assert spec.cells["linear"] == side_by_side.CELLS and spec.trials == side_by_side.TRIALS >= 10
    assert {k: v for k, v in spec.settings.items() if k != "seed"} == {
        k: v for k, v in protocol.SCALES["paper"].settings.items() if k != "seed"
    }
    earlier = [protocol.SCALES["paper"], recheck.SCALES["paper"]]
    used = {
        k: {layer.config_seeds(c)[k] for s in earlier for c in s.configs()}
        for k in ("data", "test")
    }
    for c in spec.configs():
        mine = layer.config_seeds(c)
        assert all(mine[k] not in used[k] for k in used)


def test_a_private_generator_replays_the_global_one():
    """their_draws draws from its own generator what their script draws from torch's global
    one after torch.manual_seed: the same numbers, call for call."""
    torch.manual_seed(11)
    expected = (torch.randn(3, 4, 5), torch.randint(0, 7, (6,)), torch.randn(6, 4))
    gen = torch.Generator().manual_seed(11)
    got = (
        torch.randn(3, 4, 5, generator=gen),
        torch.randint(0, 7, (6,), generator=gen),
        torch.randn(6, 4, generator=gen),
    )
    for a, b in zip(expected, got, strict=True):
        assert torch.equal(a, b)


def test_their_draws_are_their_model_only():
    with pytest.raises(ValueError, match="their model"):
        their_draws.train(layer.Config(model="softmax", L=6, M=5, D=4, steps=2, merged=True), 3)
    with pytest.raises(ValueError, match="their model"):
        their_draws.train(layer.Config(model="linear", L=6, M=5, D=4, steps=2), 3)


def test_the_tiny_study_runs_and_its_first_error_is_their_test_tasks(tmp_path):
    assert (
        cli.main(
            ["experiments", "--scale", "tiny", "--only", "their_draws", "--out", str(tmp_path)]
        )
        == 0
    )
    record = records.load("authors_draws", directory=tmp_path)
    spec = their_draws.DrawsSpec.from_dict(record.config)
    assert spec == their_draws.SCALES["tiny"]
    L, M, seed = 6, 5, 3
    E = np.asarray(record.data["runs"][f"L={L}/M={M}/seed={seed}"])
    # E_0 is the error of the first estimates on their test tasks, drawn after training
    config = spec.config(L, M)
    gen, *_ = their_draws.draws(config, seed)
    for _ in range(config.steps):
        torch.randint(0, M, (config.batch,), generator=gen)
        torch.randn(config.batch, config.D, generator=gen)
    torch.randn(their_draws.EVAL_TASKS, config.D, L, generator=gen)  # their test inputs
    w = torch.randn(their_draws.EVAL_TASKS, config.D, generator=gen)
    est0 = torch.randn(their_draws.EVAL_TASKS, config.D, generator=gen)
    assert E[0] == pytest.approx(float(((est0.double() - w.double()) ** 2).mean()), rel=1e-12)
    assert E.shape == (32,) and np.all(np.isfinite(E))


@pytest.fixture(scope="module")
def committed():
    side, reruns, draws = studies.side_by_side(), studies.reruns(), studies.their_draws()
    assert None not in (side, reruns, draws), "the three records must be committed"
    return side, reruns, draws


def test_the_book_computation_on_their_draws_gives_their_scripts_curves(committed):
    """The cross-check of the two implementations: wherever their script and the book's
    computation ran on the same draws, every E_t agrees to 1e-4 relative."""
    side, reruns, draws = committed
    shared = 0
    for L, M, s in reruns.spec.runs:
        if (L, M) in draws.spec.cells and s in draws.spec.seeds:
            ours = draws.data["runs"][f"L={L}/M={M}/seed={s}"]
            theirs = reruns.data["runs"][f"L={L}/M={M}/seed={s}"]["E"]
            assert floors.deviation(ours, theirs) <= 1e-4, (L, M, s)
            shared += 1
    assert shared >= len(side_by_side.CELLS)
