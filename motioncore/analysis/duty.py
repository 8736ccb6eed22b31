"""Duty factor: the share of each stride a foot spends on the ground, where a clip is steady.

A walking foot is on the ground 55-65 % of each stride, a running one 20-45 %: the
duty factor tells a contact detector's output from biomechanics, so the corpus
checks of :mod:`motioncore.contacts` grade it with this. Definitions (ours):

* **steady frames**: the hips' horizontal speed, averaged over
  :data:`SPEED_WINDOW_S`, is above :data:`MOVING_MPS` and within
  :data:`STEADY_SHARE` of the clip's median moving speed, and the direction of
  travel, averaged over :data:`HEADING_WINDOW_S`, turns slower than
  :data:`MAX_TURN_DEG_S` (a turning stride is not a steady one);
* a **stride** of a foot runs from one of its strikes (:func:`motioncore.analysis.gait.strikes`
  with :data:`MIN_SWING_S`) to the next, no longer than :data:`MAX_STRIDE_S`; a
  foot's duty factor is the median of its steady strides' contact shares, and it
  needs :data:`MIN_STRIDES` of them (one stride cannot show a steady gait);
* the **Froude number** ``v² / (g · leg)`` tells a walk from a run by speed:
  people change gait near 0.5;
* the **expected band** (:func:`expected_band`): a walking foot is on the ground
  0.50-0.72 of each stride, a running one 0.20-0.45. The gait is read from the
  clip's own words (``run``, ``dash``, ``jog``; ``sideways``) and from its speed;
  where the two disagree (a "tired run" at walking speed, a dribble no word calls
  a run at 2.6 m/s) or the speed lies between the gaits (Froude 0.4-0.6), either
  band; side-stepping is neither gait (its double support runs long at a shuffle,
  a fast side shuffle has flights): 0.20-0.90.

Conventions: ``F`` frames, ``fps`` Hz; metres, seconds, Y up.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.ndimage import uniform_filter1d

from motioncore.analysis.gait import strikes

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

SPEED_WINDOW_S = 1.0
HEADING_WINDOW_S = 1.5
MOVING_MPS = 0.3
STEADY_SHARE = 0.3
MAX_TURN_DEG_S = 30.0
MIN_SWING_S = 0.1
MAX_STRIDE_S = 2.5
MIN_STRIDES = 2
GRAVITY_M_S2 = 9.81


WALK_BAND, RUN_BAND, EITHER_BAND, SIDEWAYS_BAND = (
    (0.50, 0.72),
    (0.20, 0.45),
    (0.20, 0.72),
    (0.20, 0.90),
)


def expected_band(words: str, froude: float) -> tuple[float, float]:
    """The duty-factor band (min, max) of a clip described by ``words`` moving at
    Froude number ``froude`` (see the module docstring)."""
    words = words.lower()
    if "sideways" in words:
        return SIDEWAYS_BAND
    if froude > 0.6:
        return RUN_BAND
    says_run = re.search(r"\b(run|runs|dash|jog)\b", words) is not None
    if froude < 0.4 and not says_run:
        return WALK_BAND
    return EITHER_BAND


@dataclass(frozen=True)
class Steady:
    """The steady part of a clip: ``frames [F]`` and the median moving speed (m/s)."""

    frames: BoolArray
    speed_mps: float

    def froude(self, leg_m: float) -> float:
        """``v² / (g · leg)`` at the steady speed (0 when the clip does not move)."""
        return self.speed_mps**2 / (GRAVITY_M_S2 * leg_m) if leg_m > 0 else 0.0


def steady(hips: FloatArray, fps: float) -> Steady:
    """The steady frames of a clip from its hips' world positions ``[F, 3]`` (metres)."""
    velocity = (
        np.gradient(hips[:, [0, 2]], axis=0) * fps if len(hips) > 1 else np.zeros((len(hips), 2))
    )
    speed = uniform_filter1d(np.linalg.norm(velocity, axis=-1), max(round(SPEED_WINDOW_S * fps), 1))
    moving = speed > MOVING_MPS
    if moving.sum() < fps * SPEED_WINDOW_S:
        return Steady(np.zeros(len(hips), dtype=bool), 0.0)
    median = float(np.median(speed[moving]))
    smooth = uniform_filter1d(velocity, max(round(HEADING_WINDOW_S * fps), 1), axis=0)
    heading = np.unwrap(np.arctan2(smooth[:, 1], smooth[:, 0]))
    turn = np.degrees(np.abs(np.gradient(heading))) * fps
    keep = moving & (np.abs(speed - median) <= STEADY_SHARE * median) & (turn < MAX_TURN_DEG_S)
    return Steady(np.asarray(keep, dtype=bool), median)


def stride_shares(contact: BoolArray, fps: float, frames: BoolArray) -> FloatArray:
    """The contact share of each of a foot's strides that lies wholly in ``frames``."""
    hits = strikes(contact, fps, min_swing_s=MIN_SWING_S)
    shares = [
        float(contact[a:b].mean())
        for a, b in itertools.pairwise(hits)
        if frames[a:b].all() and b - a < MAX_STRIDE_S * fps
    ]
    return np.asarray(shares, dtype=np.float64)


def duty_factor(contact: BoolArray, fps: float, frames: BoolArray) -> tuple[float, int]:
    """A foot's duty factor over its steady strides (nan with fewer than
    :data:`MIN_STRIDES`) and how many strides it rests on."""
    shares = stride_shares(contact, fps, frames)
    value = float(np.median(shares)) if shares.size >= MIN_STRIDES else float("nan")
    return value, int(shares.size)


def alternation(left: BoolArray, right: BoolArray, fps: float, frames: BoolArray) -> float:
    """Share (0-1) of consecutive strike pairs made by opposite feet, over the pairs
    wholly inside ``frames`` (nan without such a pair)."""
    hits = [(int(f), 0) for f in strikes(left, fps, min_swing_s=MIN_SWING_S)]
    hits += [(int(f), 1) for f in strikes(right, fps, min_swing_s=MIN_SWING_S)]
    hits.sort()
    pairs = [a[1] != b[1] for a, b in itertools.pairwise(hits) if frames[a[0] : b[0] + 1].all()]
    return float(np.mean(pairs)) if pairs else float("nan")
