"""A PFNN walk on a user's rig, along a path given in metres.

The network walks the canonical skeleton (legs of :func:`canonical_leg_m`), and
:func:`motioncore.skeleton.retarget.to_rig` scales strides, and so the root's path, by the
rig's legs over the canonical ones. To walk *the path as given*, the canonical walk
is asked for the path and the speed scaled down by that ratio (the same cadence, a
proportionally longer stride on a taller rig); the walk is then put on the rig,
its planted feet locked and kept on the ground (y = 0) on the rig's own feet, and
measured there by :mod:`motioncore.measures`.

Distances in metres, speeds in m/s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np

from motioncore import fk, measures
from motioncore import skeleton as roles_mod
from motioncore.clip import Clip
from motioncore.pfnn import generate
from motioncore.pfnn.network import Mode, Weights
from motioncore.skeleton import canonical, retarget


@dataclass(frozen=True, eq=False)
class RigWalk:
    """The walk on the rig and what was measured on it (the canonical walk in ``made``)."""

    clip: Clip
    made: generate.Generated
    scale: float
    path_rms_m: float
    foot_slide_mps: float | None
    penetration_worst_m: float
    penetration_share: float

    def as_dict(self) -> dict[str, object]:
        """The canonical walk's measures (:meth:`motioncore.pfnn.generate.Generated.as_dict`)
        with the rig's own path RMS, foot slide and penetration in their place, the
        ``scale`` (rig leg / canonical leg) and the canonical ones under ``canonical``."""
        made = self.made.as_dict()
        return {
            **made,
            "scale": self.scale,
            "path_rms_m": self.path_rms_m,
            "foot_slide_mps": self.foot_slide_mps,
            "penetration_worst_m": self.penetration_worst_m,
            "penetration_share": self.penetration_share,
            "canonical": made,
        }


@cache
def canonical_leg_m() -> float:
    """Thigh + shin of the canonical skeleton, metres."""
    rest = Clip(
        canonical.skeleton(),
        np.tile([1.0, 0.0, 0.0, 0.0], (1, canonical.skeleton().num_joints, 1)),
        canonical.skeleton().offsets[None].copy(),
        60.0,
    )
    return retarget.rig_leg_m(rest, canonical.roles())


def walk(
    weights: Weights,
    path: generate.Path,
    speed_mps: float,
    rig_clip: Clip,
    *,
    seconds: float | None = None,
    mode: Mode = "constant",
    foot_lock: bool = True,
    progress: Callable[[float], None] | None = None,
) -> RigWalk:
    """Walk ``path`` (metres) at ``speed_mps`` on ``rig_clip``'s skeleton (its first frame
    the reference pose); see the module docstring."""
    roles = roles_mod.infer(rig_clip.skeleton)
    scale = retarget.rig_leg_m(rig_clip, roles) / canonical_leg_m()
    made = generate.generate(
        weights,
        generate.Path.of(path.points / scale),
        speed_mps / scale,
        seconds=seconds,
        mode=mode,
        foot_lock=foot_lock,
        progress=progress,
    )
    clip = retarget.to_rig(made.clip, rig_clip, roles)
    if foot_lock:
        clip = generate.foot_lock(clip, 0.0, roles)
    measured = measures.measure(clip, roles, floor_m=0.0)
    hips = fk.positions(clip)[:, roles.require("hips")[0]][:, [0, 2]]
    return RigWalk(
        clip,
        made,
        scale,
        path.rms_m(hips),
        measured.slide_mean_mps,
        measured.penetration_worst_m,
        measured.penetration_share,
    )
