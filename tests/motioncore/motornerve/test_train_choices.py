"""Two choices of MotorNerve's training (motioncore.motornerve.train): where a played
character starts (standing_state: the standing of a performer who also moves, not of
one who only stands) and how windows are drawn (window_probabilities: rare actions
get their share)."""

from __future__ import annotations

import numpy as np
import pytest

from motioncore.motornerve import intent, state
from motioncore.motornerve.dataset import Dataset

pytest.importorskip("torch", reason="torch is not installed (pip install torch==2.13.0)")
from motioncore.motornerve.network import HISTORY
from motioncore.motornerve.train import standing_state
from motioncore.motornerve.windows import probabilities as window_probabilities

FRAMES = 40


def _sequence(height_m: float, walks: bool) -> tuple[np.ndarray, np.ndarray]:
    """States standing still at ``height_m`` (their hips' height tells them apart), and
    intents idle throughout or idle then walking (moving at 1.3 m/s) from frame 20."""
    states = np.zeros((FRAMES, state.SIZE))
    states[:, state.HEIGHT] = height_m
    kinds = np.zeros(FRAMES, dtype=np.int64)
    speeds = np.zeros(FRAMES)
    if walks:
        kinds[FRAMES // 2 :] = intent.ACTIONS.index("walk")
        speeds[FRAMES // 2 :] = 1.3
        states[FRAMES // 2 :, state.VELOCITY] = (0.0, 1.3)
    intents = intent.make(np.tile([0.0, 1.0], (FRAMES, 1)), speeds, 0.0, kinds)
    return states, intents


def _dataset(*parts: tuple[float, bool]) -> Dataset:
    made = [_sequence(h, w) for h, w in parts]
    states = np.concatenate([s for s, _ in made])
    intents = np.concatenate([i for _, i in made])
    starts = np.arange(len(parts) + 1, dtype=np.int64) * FRAMES
    std = np.ones(state.SIZE)
    return Dataset(
        states,
        intents,
        np.zeros((len(states), 2)),
        starts,
        tuple(f"clip{i}" for i in range(len(parts))),
        ("train",) * len(parts),
        states.mean(axis=0),
        std,
        intents.mean(axis=0),
        np.ones(intent.SIZE),
    )


def test_the_start_is_the_standing_of_a_performer_who_also_walks() -> None:
    # Two performers only stand (0.90 m), one stands and then walks (0.95 m): the
    # standing mean is nearer the first, but a start there carries their carriage
    # into every walk.
    data = _dataset((0.90, False), (0.90, False), (0.95, True))
    assert standing_state(data)[state.HEIGHT] == pytest.approx(0.95)


def test_with_no_performer_who_moves_the_start_is_any_standing() -> None:
    data = _dataset((0.90, False), (0.92, False))
    assert standing_state(data)[state.HEIGHT] in (pytest.approx(0.90), pytest.approx(0.92))
    assert np.linalg.norm(standing_state(data)[state.VELOCITY]) == 0.0


def test_rare_actions_are_drawn_at_least_their_share_and_common_ones_keep_their_ratio() -> None:
    # 1,000 windows: 700 walking, 280 standing, 20 interacting
    kinds = np.array([1] * 700 + [0] * 280 + [3] * 20)
    first = np.arange(len(kinds)) * 4
    intents = np.zeros((first[-1] + 1, intent.SIZE))
    intents[first, intent.ACTION.start + kinds] = 1.0
    data = _dataset((0.9, False))
    data = Dataset(
        data.states[:1].repeat(len(intents), axis=0), intents, *_rest_of(data, len(intents))
    )
    starts = first - state.STEP_FRAMES * (HISTORY - 1)
    p = window_probabilities(data, starts, 0.1)
    assert p.sum() == pytest.approx(1.0)
    by_kind = {k: p[kinds == k].sum() for k in (0, 1, 3)}
    assert by_kind[3] == pytest.approx(0.1)  # 2 % of the windows, a tenth of the draws
    assert by_kind[1] / by_kind[0] == pytest.approx(700 / 280)
    assert np.ptp(p[kinds == 3]) == 0.0  # one action's windows alike
    assert np.all(window_probabilities(data, starts, 0.0) == pytest.approx(1 / len(kinds)))


def _rest_of(data: Dataset, frames: int) -> tuple:
    """The other fields of a one-sequence Dataset of ``frames`` frames."""
    return (
        np.zeros((frames, 2)),
        np.array([0, frames], dtype=np.int64),
        ("clip",),
        ("train",),
        data.state_mean,
        data.state_std,
        data.intent_mean,
        data.intent_std,
    )
