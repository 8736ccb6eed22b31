"""Steps for the footprints (:mod:`motioncore.laban.footprints`, seed 003 §7.2): how
far a step moves the body, body-frame vectors in the world, the turn of a curved path and
the five jump forms.

Units: metres on the ground (x, z), headings in radians about +Y (0 = +Z), beats.
"""

from __future__ import annotations

import math

import numpy as np

from motioncore.laban.score import Symbol

FORWARD_STEP_LEGS = 0.85
"""A middle-level forward step, in leg lengths (0.85 × 0.84 m ≈ 0.71 m for the
canonical skeleton: an ordinary walking step)."""
DIRECTION_SCALE = {
    "place": 0.0,
    "forward": 1.0,
    "backward": 0.7,
    "left": 0.55,
    "right": 0.55,
    "left_forward": 0.8,
    "right_forward": 0.8,
    "left_backward": 0.65,
    "right_backward": 0.65,
}
"""Step length by direction relative to forward: forward longer than sideways (§7.2)."""
LEVEL_SCALE = {"low": 1.1, "middle": 1.0, "high": 0.75}
"""Bent legs reach further; on the toes the steps are short."""
SIZE_SCALE = 0.2
"""Each step-size unit (-3 … 3) lengthens or shortens the step by this share."""
FLIGHT_SPEED_MPS = 2.5
"""Horizontal speed carried through a flight phase (a run's), per second of air time."""
FORM_SHARE = {"hop": 0.5}
"""The step after a flight of this jump form (:func:`jump_form`), as a share of a run's
(a ``leap``) with the same direction, level, size and air time; forms not listed take
a run's step. §7.2: "如果實驗對象在跑步或單腳跳, 步長也會增加, 這在舞譜中以空中時間表示。
實驗對象在空中的時間越長, 步長…就越大, 單腳跳躍產生的步長比跑步小得多" (running or
hopping, the step grows, shown in the score as time in the air; the longer in the air,
the longer the step; a hop gives a much smaller step than a run). The seed gives no
number (its stride rule was tuned by trial and error), so the half is ours: a run's
flight is carried by two legs, the one pushing off behind the body and the free one
swinging through to land ahead of it, while a hop takes off and lands on the same leg,
which alone must push, fly and catch the body, so it goes about half as far per
flight. Both the ground term and the flight term are halved: halving only the flight
term would leave a hop with little air (a short gap) nearly as long as a run's step."""


def step_length_m(
    direction: str,
    level: str,
    leg_length_m: float,
    size: int = 0,
    air_s: float = 0.0,
    form: str | None = None,
) -> float:
    """How far a step in ``direction`` at ``level`` moves the body (metres): forward
    :data:`FORWARD_STEP_LEGS` leg lengths, scaled by direction, level and step size,
    plus :data:`FLIGHT_SPEED_MPS` × the time in the air before it; after a flight of
    jump form ``form`` (``hop``, ``leap``, … or ``None`` for a step) all of it times
    that form's :data:`FORM_SHARE` (a hop's step is half a run's, §7.2)."""
    if direction == "place":
        return 0.0
    base = FORWARD_STEP_LEGS * leg_length_m * DIRECTION_SCALE[direction] * LEVEL_SCALE[level]
    share = FORM_SHARE.get(form, 1.0) if form is not None else 1.0
    return share * (base * (1.0 + SIZE_SCALE * size) + FLIGHT_SPEED_MPS * air_s)


def rotate(vector: tuple[float, float], heading: float) -> np.ndarray:
    """A body-frame (x, z) vector in the world, for a body facing ``heading``."""
    c, s = math.cos(heading), math.sin(heading)
    x, z = vector
    return np.array([c * x + s * z, -s * x + c * z])


def path_turn(paths: list[Symbol], a: float, b: float) -> float:
    """Heading change (radians, positive to the right) the path signs ask for between
    beats ``a`` and ``b``."""
    total = 0.0
    for p in paths:
        if p.path != "curved" or p.amount_deg is None:
            continue
        overlap = max(0.0, min(b, p.end) - max(a, p.beat))
        total += math.radians(p.amount_deg) * overlap / p.duration
    return total


def jump_form(takeoff_feet: int, landing_feet: int, same_foot: bool) -> str:
    """The five basic jump forms: hop (one foot to the same), leap (one to the other),
    jump (two to two), assemble (one to two), sissonne (two to one)."""
    if landing_feet >= 2:
        return "jump" if takeoff_feet >= 2 else "assemble"
    if takeoff_feet >= 2:
        return "sissonne"
    return "hop" if same_foot else "leap"
