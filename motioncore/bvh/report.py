"""The validation report of a loaded clip: a JSON-able summary a user can read.

It says what the file declared (joints, channels, rotation orders, position
channels, fps, frames), what was detected and how sure we are (unit, up axis,
position-channel conventions, joint roles), and every warning. Lengths are in
metres, times in seconds.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from motioncore import fk, skeleton
from motioncore.bvh import units
from motioncore.clip import Clip
from motioncore.skeleton import JointRoles


def validation_report(clip: Clip, roles: JointRoles | None = None) -> dict[str, Any]:
    """JSON-able validation report of ``clip`` (as returned by :func:`motioncore.bvh.load`)."""
    sk = clip.skeleton
    roles = roles if roles is not None else skeleton.infer(sk)
    real = [j for j in range(sk.num_joints) if not sk.end_site[j]]
    orders = Counter(sk.rotation_order(j) or "none" for j in real)
    meta = clip.meta
    return {
        "joints": len(real),
        "end_sites": int(sk.end_site.sum()),
        "roots": [sk.names[r] for r in sk.roots],
        "channels": sum(len(c) for c in sk.channels),
        "rotation_orders": dict(sorted(orders.items())),
        "root_channels": {sk.names[r]: list(sk.channels[r]) for r in sk.roots},
        "non_root_position_channels": [
            sk.names[j] for j in real if sk.parents[j] >= 0 and sk.position_axes(j)
        ],
        "fps": round(clip.fps, 6),
        "frame_time_s": meta.get("frame_time_s", 1.0 / clip.fps),
        "frames": clip.num_frames,
        "duration_s": round(clip.duration_s, 6),
        "conventions": meta.get("conventions", {}),
        "body": _body_summary(clip, roles),
        "roles": roles.as_dict(sk.names),
        "line_endings": meta.get("line_endings"),
        "warnings": _warnings(meta) + _role_warnings(roles),
        "joint_list": [
            {
                "name": sk.names[j],
                "parent": sk.names[sk.parents[j]] if sk.parents[j] >= 0 else None,
                "channels": list(sk.channels[j]),
                "rotation_order": sk.rotation_order(j),
            }
            for j in real
        ],
    }


def _body_summary(clip: Clip, roles: JointRoles) -> dict[str, float | None]:
    """Height of the posed body and lowest foot, metres (median over up to 64 frames)."""
    frames = np.unique(np.linspace(0, clip.num_frames - 1, min(clip.num_frames, 64)).astype(int))
    positions = fk.forward_matrices(
        clip.rotations[frames], clip.translations[frames], clip.skeleton.parents
    )[1]
    body = positions[:, units.body_joints(clip.skeleton.parents)]
    feet = [roles.get(r) for r in ("left_foot", "right_foot", "left_toe", "right_toe")]
    foot_joints = [j for j in feet if j is not None]
    lowest = float(positions[:, foot_joints, 1].min()) if foot_joints else None
    return {
        "height_m": round(float(units.median_extents(body)[1]), 4),
        "lowest_foot_m": None if lowest is None else round(lowest, 4),
    }


def _warnings(meta: dict[str, object]) -> list[str]:
    found = meta.get("warnings", [])
    return [str(w) for w in found] if isinstance(found, list | tuple) else []


def _role_warnings(roles: JointRoles) -> list[str]:
    if roles.is_humanoid:
        return []
    missing = ", ".join(roles.unresolved) or "none"
    return [
        f"Not a complete humanoid: unresolved joint roles ({missing}); "
        "analyses that need feet or hands will ask for a role mapping."
    ]
