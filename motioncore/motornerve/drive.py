"""A MotorNerve play on the canonical skeleton or on a user's rig, with its measures.

The network drives the canonical skeleton. On a rig
(:func:`motioncore.skeleton.retarget.to_rig`, the rig's first frame the reference
pose), strides scale with the rig's legs, so the commanded speeds are asked of the
canonical character divided by that ratio: the rig moves at the speeds as given, in
m/s (as :mod:`motioncore.pfnn.on_rig` walks a path in metres). The runtime locks the
feet its contact head plants as it plays (:mod:`motioncore.motornerve.foot_lock`, what
the Drive page shows); feet planted by the contact detector are then locked again on
the result's own skeleton, whose legs the retarget changed
(:func:`motioncore.pfnn.generate.foot_lock`). ``foot_lock=False`` leaves the network's
feet as they are. Everything is measured there by :mod:`motioncore.measures`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore import fk, measures
from motioncore import skeleton as roles_mod
from motioncore.clip import Clip
from motioncore.motornerve import intent, runtime
from motioncore.motornerve.network import Weights
from motioncore.pfnn import generate, on_rig
from motioncore.skeleton import canonical, retarget

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Drive:
    """The result: the clip (on the rig when one was given), the canonical play, the
    leg ``scale`` (rig / canonical, 1 without a rig) and the measures."""

    clip: Clip
    played: runtime.Played
    scale: float
    measured: dict[str, object]

    def as_dict(self) -> dict[str, object]:
        return {
            "frames": self.clip.num_frames,
            "fps": self.clip.fps,
            "scale": self.scale,
            **self.measured,
        }


def _measured(clip: Clip, played: runtime.Played) -> dict[str, object]:
    roles = roles_mod.infer(clip.skeleton)
    found = measures.measure(clip, roles, floor_m=0.0)
    steps = [f.slide_per_step_m for f in found.feet if f.slide_per_step_m is not None]
    hips = fk.positions(clip)[:, roles.require("hips")[0]]
    speed = np.linalg.norm(np.diff(hips[:, [0, 2]], axis=0), axis=-1) * clip.fps
    return {
        "duration_s": clip.duration_s,
        "foot_skate_per_step_m": max(steps) if steps else None,
        "foot_slide_mean_mps": found.slide_mean_mps,
        "penetration_worst_m": found.penetration_worst_m,
        "max_joint_speed_degps": measures.max_joint_speed_degps(clip),
        "mean_speed_mps": float(speed.mean()) if speed.size else 0.0,
        "interactions_queued_s": float(played.queued.sum()) / clip.fps,
    }


def drive(
    weights: Weights,
    commands: FloatArray,
    rig: Clip | None = None,
    *,
    foot_lock: bool = True,
    progress: Callable[[float], None] | None = None,
) -> Drive:
    """Play world ``commands [F, 12]`` (60 Hz) on the canonical skeleton or on ``rig``'s
    (module docstring)."""
    scale = 1.0
    if rig is not None:
        scale = retarget.rig_leg_m(rig, roles_mod.infer(rig.skeleton)) / on_rig.canonical_leg_m()
    asked = np.array(commands, dtype=np.float64, copy=True)
    asked[:, intent.SPEED] /= scale
    played = runtime.play(weights, asked, progress=progress, lock_feet=foot_lock)
    clip = played.clip if rig is None else retarget.to_rig(played.clip, rig)
    if foot_lock:
        roles = canonical.roles() if rig is None else roles_mod.infer(rig.skeleton)
        clip = generate.foot_lock(clip, 0.0, roles)
    return Drive(clip, played, scale, _measured(clip, played))
