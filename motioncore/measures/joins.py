"""Join measures: how a clip made of two clips behaves where they meet.

They grade transitions, bridges and sequences from the *output clip alone* (forward
kinematics and joint roles), so that they use nothing of what chose the join: not the
COM velocities, heading frames or costs of :mod:`motioncore.transition.entry`, not
§6.1's continuity as :mod:`motioncore.transition.metrics` computes it.

A join is the output frames ``start … stop`` (the blend window: before ``start`` the
output is the first clip, from ``stop`` on the second).

* **join velocity jump** (dimensionless): the hips' horizontal velocity (displacement
  over ±:data:`SPAN_S`), averaged over the :data:`WINDOW_S` before ``start`` and over
  the :data:`WINDOW_S` from ``stop`` on; the distance between the two means over
  their mean speed (floored at :data:`SPEED_FLOOR_M_PER_S`). Averaging over 0.2 s
  reads the motion either side rather than one frame of it (a velocity matched at a
  single frame mid-step can still jump a step later). Motion changes velocity by
  itself: on the unjoined clips of ``bench/transition_pairs.csv`` (a quarter of them,
  at 30, 50 and 70 % of their length, where they move faster than 0.5 m/s) it reads
  quartiles 0.11 / 0.20 / 0.34, so a join reading about 0.2 carries the velocity as
  well as the capture does (seed 000 §6.1's 0.15 is for the instantaneous ratio).
* **excess acceleration** (dimensionless): the hips' largest horizontal acceleration
  (velocity change over ±:data:`SPAN_S`) inside the window ``start … stop`` widened by
  the differences' reach (2 × :data:`SPAN_S`, which smears the window's edges), over
  the largest in the :data:`CONTEXT_S` either side of that: above 1 the join shoves
  the body harder than either clip does nearby.
* **excess joint speed** (dimensionless): the same ratio for the fastest local
  rotation of any joint (:func:`motioncore.measures.max_joint_speed_degps`): a blend
  that swings a limb round the long way or overshoots reads above 1.

Conventions: ``F`` frames, metres, seconds, Y up.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore import fk, quat
from motioncore.clip import Clip
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
SPAN_S = 1.0 / 30.0
"""Half-span of the finite differences, seconds (the same at any frame rate)."""
WINDOW_S = 0.2
"""How much motion either side of a join its velocity is averaged over, seconds."""
CONTEXT_S = 0.5
"""How much motion either side of a join its accelerations are compared with, seconds."""
SPEED_FLOOR_M_PER_S = 0.05
"""Mean speeds under this divide by it (two near-rests are not a jump)."""


@dataclass(frozen=True)
class JoinMeasures:
    """The measures of one join (module docstring); ``None`` where a side has no frames."""

    velocity_jump: float | None
    speed_before_m_per_s: float | None
    speed_after_m_per_s: float | None
    excess_acceleration: float | None
    excess_joint_speed: float | None

    def as_dict(self) -> dict[str, float | None]:
        """The five fields by name."""
        return dict(self.__dict__)


def _differences(x: FloatArray, fps: float) -> FloatArray:
    """Rate of change of ``x [F, ...]`` per second over ±:data:`SPAN_S` (one-sided at the ends)."""
    frames = x.shape[0]
    span = max(round(SPAN_S * fps), 1)
    index = np.arange(frames)
    ahead, behind = np.minimum(index + span, frames - 1), np.maximum(index - span, 0)
    dt = np.maximum(ahead - behind, 1) / fps
    return np.asarray((x[ahead] - x[behind]) / dt.reshape((-1,) + (1,) * (x.ndim - 1)))


def _joint_speeds_degps(clip: Clip) -> FloatArray:
    """``[F]`` the fastest local rotation of any non-end-site joint into each frame, deg/s."""
    rotations = clip.rotations[:, ~clip.skeleton.end_site]
    out = np.zeros(clip.num_frames)
    if clip.num_frames >= 2 and rotations.shape[1] > 0:
        step = quat.angle_between(rotations[1:], rotations[:-1])
        out[1:] = np.degrees(step.max(axis=1)) * clip.fps
        out[0] = out[1]
    return out


def _ratio(inside: FloatArray, outside: FloatArray) -> float | None:
    if inside.size == 0 or outside.size == 0:
        return None
    return float(inside.max() / max(float(outside.max()), 1e-9))


def measure_join(clip: Clip, roles: JointRoles, start: int, stop: int) -> JoinMeasures:
    """The measures of the join at output frames ``start … stop`` of ``clip``.

    Args:
        clip: the joined clip (metres, Y up).
        roles: its joint roles (``hips`` is used).
        start, stop: the first frame of the blend window and the first frame after it
            (``start == stop`` for a hard cut).

    Raises:
        ValueError: ``start``/``stop`` outside the clip or out of order.
    """
    frames = clip.num_frames
    if not 0 <= start <= stop <= frames:
        raise ValueError(f"join frames {start}..{stop} do not fit a clip of {frames} frames")
    (hips,) = roles.require("hips")
    ground = fk.positions(clip)[:, hips][:, [0, 2]]
    velocity = _differences(ground, clip.fps)
    window = max(round(WINDOW_S * clip.fps), 1)
    before, after = velocity[max(start - window, 0) : start], velocity[stop : stop + window]
    jump, speed_before, speed_after = None, None, None
    if before.size and after.size:
        v_before, v_after = before.mean(axis=0), after.mean(axis=0)
        speed_before, speed_after = float(np.linalg.norm(v_before)), float(np.linalg.norm(v_after))
        mean_speed = max(0.5 * (speed_before + speed_after), SPEED_FLOOR_M_PER_S)
        jump = float(np.linalg.norm(v_after - v_before)) / mean_speed
    context = max(round(CONTEXT_S * clip.fps), 1)
    reach = 2 * max(round(SPAN_S * clip.fps), 1)  # how far the differences smear the join
    inside = slice(max(start - reach, 0), min(max(stop, start + 1) + reach, frames))
    around = np.r_[
        max(start - reach - context, 0) : max(start - reach, 0),
        min(stop + reach, frames) : min(stop + reach + context, frames),
    ]
    acceleration = np.linalg.norm(_differences(velocity, clip.fps), axis=-1)
    joint_speed = _joint_speeds_degps(clip)
    return JoinMeasures(
        velocity_jump=jump,
        speed_before_m_per_s=speed_before,
        speed_after_m_per_s=speed_after,
        excess_acceleration=_ratio(acceleration[inside], acceleration[around]),
        excess_joint_speed=_ratio(joint_speed[inside], joint_speed[around]),
    )
