"""The foot term of MotorNerve's contact loss (seed 001 §2.3) in torch: where the
ankles and toes of predicted states are, and how fast a planted foot slides between
two steps.

Forward kinematics of the canonical legs only (hips → upper leg → lower leg → foot →
toe; :mod:`motioncore.skeleton.canonical`), from 6-D rotations
(:mod:`motioncore.motornerve.state`), positions relative to the hips in the heading
frame, metres; speeds m/s over one network step (:data:`~motioncore.motornerve.state.STEP_S`).
"""

from __future__ import annotations

import torch

from motioncore.motornerve import state
from motioncore.pfnn.dataset import JOINTS
from motioncore.skeleton import canonical


class LegKinematics:
    """Forward kinematics of the canonical legs in torch: ankle and toe positions
    relative to the hips, heading frame, from states ``[..., S]``."""

    def __init__(self) -> None:
        names = canonical.NAMES
        skeleton = canonical.skeleton()
        self.chains = []
        for side in ("Left", "Right"):
            joints = [names.index(f"{side}{n}") for n in ("UpLeg", "Leg", "Foot", "Toe")]
            slots = [0, *(JOINTS.index(j) for j in joints[:3])]
            offsets = torch.tensor(skeleton.offsets[[*joints, joints[3]]], dtype=torch.float32)
            self.chains.append((slots, offsets))

    @staticmethod
    def _matrix(r: torch.Tensor) -> torch.Tensor:
        """Rotation matrices ``[..., 3, 3]`` of 6-D rotations ``[..., 6]``."""
        a = r[..., 0:3] / torch.linalg.norm(r[..., 0:3], dim=-1, keepdim=True).clamp_min(1e-6)
        b = r[..., 3:6] - torch.sum(a * r[..., 3:6], dim=-1, keepdim=True) * a
        b = b / torch.linalg.norm(b, dim=-1, keepdim=True).clamp_min(1e-6)
        return torch.stack([a, b, torch.linalg.cross(a, b)], dim=-1)

    def points(self, states: torch.Tensor) -> torch.Tensor:
        """``[..., 4, 3]``: left ankle, left toe, right ankle, right toe."""
        out = []
        for slots, offsets in self.chains:
            rotation = self._matrix(states[..., 0:6])
            position = (rotation @ offsets[0].unsqueeze(-1)).squeeze(-1)
            for i, slot in enumerate(slots[1:], start=1):
                rotation = rotation @ self._matrix(states[..., 6 * slot : 6 * slot + 6])
                position = position + (rotation @ offsets[i].unsqueeze(-1)).squeeze(-1)
                if i == 2:
                    ankle = position
            toe = position + (rotation @ offsets[3].unsqueeze(-1)).squeeze(-1)
            out += [ankle, toe]
        return torch.stack(out, dim=-2)


def foot_speed_sq(leg: LegKinematics, before: torch.Tensor, after: torch.Tensor) -> torch.Tensor:
    """``[B, 4]`` squared horizontal speed (m/s)² of the foot points over one step."""
    a, b = leg.points(before), leg.points(after)
    angle = after[..., state.TURN] * state.STEP_S
    c, s = torch.cos(angle)[..., None], torch.sin(angle)[..., None]
    bx, bz = b[..., 0], b[..., 2]
    moved_x = c * bx + s * bz + after[..., state.VELOCITY.start, None] * state.STEP_S
    moved_z = -s * bx + c * bz + after[..., state.VELOCITY.start + 1, None] * state.STEP_S
    dx, dz = moved_x - a[..., 0], moved_z - a[..., 2]
    return (dx * dx + dz * dz) / state.STEP_S**2
