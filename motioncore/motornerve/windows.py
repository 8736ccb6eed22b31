"""The windows MotorNerve trains on (seed 001 §3.3): where they start, how often each is
drawn, and the rotation augmentation of one.

A window is :data:`~motioncore.motornerve.network.HISTORY` states at 30 Hz (every other
60 Hz frame, :data:`motioncore.motornerve.state.STEP_FRAMES`) and the next ``steps``
states, inside one sequence of a :class:`~motioncore.motornerve.dataset.Dataset`; it is
named by its first 60 Hz frame in the dataset's concatenated arrays.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from motioncore import quat
from motioncore.motornerve import intent, state
from motioncore.motornerve.dataset import Dataset
from motioncore.motornerve.network import HISTORY
from motioncore.skeleton.facing import yaw


def starts(data: Dataset, split: str, steps: int) -> NDArray[np.int64]:
    """Every 60 Hz frame that starts a window of ``HISTORY + steps`` states inside one
    sequence of ``split``."""
    span = state.STEP_FRAMES * (HISTORY + steps - 1)
    out = [
        np.arange(data.starts[i], data.starts[i + 1] - span)
        for i in data.sequences(split)
        if data.starts[i + 1] - data.starts[i] > span
    ]
    return np.concatenate(out).astype(np.int64) if out else np.zeros(0, np.int64)


def probabilities(
    data: Dataset, starts: NDArray[np.int64], min_share: float
) -> NDArray[np.float64]:
    """``[N]`` the probability of drawing each window of ``starts``: the windows of an
    action (of the intent its first step is given, :data:`motioncore.motornerve.intent.ACTIONS`)
    share its part of the draws equally; an action the data has gets at least
    ``min_share`` (interactions and running are rare), the others theirs scaled down
    to make room."""
    first = starts + state.STEP_FRAMES * (HISTORY - 1)
    kinds = np.argmax(data.intents[first, intent.ACTION], axis=-1)
    counts = np.bincount(kinds, minlength=len(intent.ACTIONS)).astype(np.float64)
    natural = counts / counts.sum()
    lifted = (counts > 0) & (natural < min_share)
    rest = (counts > 0) & ~lifted
    share = np.where(lifted, min_share, 0.0)
    room = max(1.0 - float(share.sum()), 0.0)
    share[rest] = natural[rest] / natural[rest].sum() * room if rest.any() else 0.0
    share /= share.sum()
    out: NDArray[np.float64] = share[kinds] / counts[kinds]
    return out


def turned(
    states: NDArray[np.float64], intents: NDArray[np.float64], angle: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Windows ``[B, T, …]`` with their heading frame turned by ``angle [B]`` radians."""
    states, intents = states.copy(), intents.copy()
    b, t = states.shape[:2]
    turn = np.broadcast_to(angle[:, None], (b, t))
    back = quat.conjugate(yaw(turn))
    for column in (slice(0, 3), slice(3, 6)):  # the hips' 6-D rotation: two world vectors
        states[..., column] = quat.rotate(back, states[..., column])
    states[..., state.VELOCITY] = state.rotate_ground(states[..., state.VELOCITY], -turn)
    intents[..., intent.DIRECTION] = state.rotate_ground(intents[..., intent.DIRECTION], -turn)
    facing = np.arctan2(intents[..., 3], intents[..., 4]) - turn
    intents[..., intent.FACING] = np.stack([np.sin(facing), np.cos(facing)], axis=-1)
    return states, intents
