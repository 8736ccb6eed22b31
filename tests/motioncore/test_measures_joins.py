"""The join measures catch the defects they name: a velocity jump at a join, a shove
inside the blend, a limb swung round the long way (:mod:`motioncore.measures.joins`)."""

from __future__ import annotations

import numpy as np
import pytest

from motioncore import measures, quat
from motioncore.clip import Clip
from motioncore.skeleton import infer
from support.humanoid import tiny_humanoid

FPS = 60.0
SKELETON = tiny_humanoid()
ROLES = infer(SKELETON)
LEFT_ARM = SKELETON.names.index("LeftArm")


def carried(x: np.ndarray, z: np.ndarray, *, arm_rad: np.ndarray | None = None) -> Clip:
    """The rest pose with its hips at ``(x, 1, z)`` per frame, the left arm turned about Z."""
    frames = z.shape[0]
    translations = np.broadcast_to(SKELETON.offsets, (frames, SKELETON.num_joints, 3)).copy()
    translations[:, 0, 0], translations[:, 0, 2] = x, z
    rotations = quat.identity((frames, SKELETON.num_joints))
    if arm_rad is not None:
        axis = np.broadcast_to(np.array([0.0, 0.0, 1.0]), (frames, 3))
        rotations[:, LEFT_ARM] = quat.from_axis_angle(axis, arm_rad)
    return Clip(SKELETON, rotations, translations, FPS)


def swaying_walk(
    frames: int = 180, speed: float = 1.2, sway_m: float = 0.005
) -> tuple[np.ndarray, np.ndarray]:
    """Hips going forward at ``speed`` m/s with a 2 Hz side sway of ``sway_m``."""
    t = np.arange(frames) / FPS
    return sway_m * np.sin(2 * np.pi * 2.0 * t), speed * t


def test_a_steady_walk_has_no_velocity_jump_and_a_hard_turn_has_one() -> None:
    x, z = swaying_walk()
    steady = measures.measure_join(carried(x, z), ROLES, 90, 97)
    assert steady.velocity_jump is not None and steady.velocity_jump < 0.1
    assert steady.speed_before_m_per_s == pytest.approx(1.2, abs=0.05)
    turned_x = np.where(np.arange(x.size) >= 90, x + 1.2 * (np.arange(x.size) - 90) / FPS, x)
    turned_z = np.where(np.arange(z.size) >= 90, z[90], z)  # forward, then sideways
    turn = measures.measure_join(carried(turned_x, turned_z), ROLES, 90, 90)
    assert turn.velocity_jump == pytest.approx(np.sqrt(2.0), abs=0.1)


def test_a_shove_inside_the_blend_reads_as_excess_acceleration() -> None:
    x, z = swaying_walk(sway_m=0.01)
    smooth = measures.measure_join(carried(x, z), ROLES, 90, 102)
    assert smooth.excess_acceleration is not None and smooth.excess_acceleration < 1.2
    shoved = x.copy()
    shoved[90:102] += 0.05 * np.sin(np.pi * np.arange(12) / 12)  # a 5 cm sideways shove
    shove = measures.measure_join(carried(shoved, z), ROLES, 90, 102)
    assert shove.excess_acceleration is not None and shove.excess_acceleration > 2.0


def test_a_limb_swung_the_long_way_reads_as_excess_joint_speed() -> None:
    x, z = swaying_walk()
    t = np.arange(x.size) / FPS
    swing = 0.4 * np.sin(2 * np.pi * 1.0 * t)  # the arm swings ±23° at 1 Hz
    calm = measures.measure_join(carried(x, z, arm_rad=swing), ROLES, 90, 102)
    assert calm.excess_joint_speed is not None and calm.excess_joint_speed < 1.2
    long_way = swing.copy()
    long_way[90:102] += np.linspace(0.0, 2 * np.pi, 12, endpoint=False)  # a full turn
    wild = measures.measure_join(carried(x, z, arm_rad=long_way), ROLES, 90, 102)
    assert wild.excess_joint_speed is not None and wild.excess_joint_speed > 3.0


def test_a_join_at_the_clip_s_edge_has_no_velocity_jump_and_bad_frames_are_refused() -> None:
    x, z = swaying_walk(60)
    edge = measures.measure_join(carried(x, z), ROLES, 0, 5)
    assert edge.velocity_jump is None and edge.speed_before_m_per_s is None
    with pytest.raises(ValueError, match="do not fit"):
        measures.measure_join(carried(x, z), ROLES, 50, 70)
