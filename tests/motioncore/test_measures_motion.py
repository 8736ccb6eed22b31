"""The measures of motion itself (joint speed, rotation KL, reaction, pose drift): each
catches the defect it names and reads clean motion as clean."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, quat
from motioncore.clip import Clip
from motioncore.measures import (
    max_joint_speed_degps,
    pose_drift_m,
    reaction_frames,
    rotation_histograms,
    rotation_kl,
    rotation_kl_per_joint,
)
from motioncore.skeleton import canonical, retarget

CORPUS = Path("bvh") / "cmu-3dsmax-jinny42"
X_AXIS, Y_AXIS, Z_AXIS = np.eye(3)
# every joint with a rotation of its own but the root, whose local rotation is the heading
BODY = [j for j in range(canonical.skeleton().num_joints) if not canonical.skeleton().end_site[j]][
    1:
]


def _joint(role: str) -> int:
    return canonical.JOINT_OF_ROLE[role]


def _still(frames: int, fps: float = 60.0) -> Clip:
    """The canonical rest pose, standing still."""
    skeleton = canonical.skeleton()
    rotations = quat.identity((frames, skeleton.num_joints))
    translations = np.broadcast_to(skeleton.offsets, (frames, skeleton.num_joints, 3)).copy()
    translations[:, 0] = (0.0, canonical.HIPS_HEIGHT_M, 0.0)
    return Clip(skeleton, rotations, translations, fps)


def _turn(clip: Clip, joint: int, axis: np.ndarray, angle: np.ndarray) -> None:
    """Add a rotation by ``angle [F]`` radians about ``axis`` to ``joint``'s local rotation."""
    extra = quat.from_axis_angle(axis, np.asarray(angle, dtype=np.float64))
    clip.rotations[:, joint] = quat.mul(clip.rotations[:, joint], extra)


def _walk(
    duration_s: float,
    fps: float = 30.0,
    *,
    cycle_s: float = 1.1,
    speed_mps: float = 1.2,
    turn_degps: float = 10.0,
    arm_sink_deg: float = 0.0,
) -> Clip:
    """A periodic synthetic walk on the canonical skeleton, walking forward and turning.

    Legs, arms and spine swing with the cycle, the hips bob and sway about the heading;
    the arms hang 70° down from the T-pose and sink ``arm_sink_deg`` more by the end.
    """
    clip = _still(round(duration_s * fps), fps)
    t = np.arange(clip.num_frames) / fps
    phase = 2.0 * np.pi * t / cycle_s
    heading = np.radians(turn_degps) * t
    for side, sign in (("left", 1.0), ("right", -1.0)):
        swing = sign * np.sin(phase)
        _turn(clip, _joint(f"{side}_upper_leg"), X_AXIS, np.radians(25.0) * swing)
        _turn(clip, _joint(f"{side}_lower_leg"), X_AXIS, np.radians(30.0) * (1 + swing) / 2)
        _turn(clip, _joint(f"{side}_foot"), X_AXIS, -np.radians(10.0) * swing)
        down = np.radians(70.0) + np.radians(arm_sink_deg) * t / t[-1]
        _turn(clip, _joint(f"{side}_upper_arm"), X_AXIS, -np.radians(20.0) * swing)
        _turn(clip, _joint(f"{side}_upper_arm"), Z_AXIS, -sign * down)
        _turn(clip, _joint(f"{side}_forearm"), Y_AXIS, sign * np.radians(15.0) * (1 - swing))
    _turn(clip, _joint("chest"), Y_AXIS, np.radians(6.0) * np.sin(phase))
    _turn(clip, 0, Y_AXIS, heading + np.radians(5.0) * np.sin(phase))
    forward = np.stack([np.sin(heading), np.zeros_like(t), np.cos(heading)], axis=-1)
    path = np.cumsum(forward * speed_mps / fps, axis=0) - forward[0] * speed_mps / fps
    clip.translations[:, 0] = path
    clip.translations[:, 0, 1] = canonical.HIPS_HEIGHT_M + 0.02 * np.cos(2.0 * phase)
    return clip


def _copy(clip: Clip) -> Clip:
    return clip.with_arrays(rotations=clip.rotations.copy(), translations=clip.translations.copy())


@pytest.fixture(scope="module")
def corpus_dir(shared_data: Path) -> Path:
    return shared_data / CORPUS


def _canonical(corpus_dir: Path, name: str) -> Clip:
    path = corpus_dir / name
    if not path.is_file():
        pytest.skip(f"{path} is absent from the shared corpus")
    return retarget.to_canonical(bvh.load(path))


# --- joint speed ---------------------------------------------------------------------------


def test_a_joint_that_snaps_90_degrees_in_one_frame_reads_5400_degps() -> None:
    clip = _still(30, fps=60.0)
    assert max_joint_speed_degps(clip) == 0.0
    # an elbow swinging 90° over a second reads 90 °/s
    smooth = _copy(clip)
    _turn(smooth, _joint("left_forearm"), Y_AXIS, np.radians(90.0) * np.arange(30) / 60.0)
    assert max_joint_speed_degps(smooth) == pytest.approx(90.0, rel=1e-6)
    # the same elbow snapping 90° between two frames
    snap = _copy(clip)
    _turn(snap, _joint("left_forearm"), Y_AXIS, np.where(np.arange(30) >= 10, np.pi / 2, 0.0))
    assert max_joint_speed_degps(snap) >= 5400.0 - 1e-6
    # end sites have no rotation of their own: spinning one is not a joint speed
    spun = _copy(clip)
    _turn(spun, canonical.NAMES.index("Head_End"), Y_AXIS, np.pi * (np.arange(30) % 2))
    assert max_joint_speed_degps(spun) == 0.0
    assert max_joint_speed_degps(_still(1)) == 0.0


def test_smooth_mocap_reads_under_1800_degps_and_a_snapped_elbow_over(corpus_dir: Path) -> None:
    # a walk with a turn (most of this take's neighbours have toe glitches over 1800 °/s)
    clip = _canonical(corpus_dir, "69_55.bvh")
    assert max_joint_speed_degps(clip) < 1800.0
    snapped = _copy(clip)
    elbow = np.zeros(clip.num_frames)
    elbow[200] = np.pi / 2  # one frame bent 90° further
    _turn(snapped, _joint("right_forearm"), Y_AXIS, elbow)
    assert max_joint_speed_degps(snapped) > 1800.0


# --- rotation distribution -----------------------------------------------------------------


def test_rotation_histograms_bin_the_angle_from_identity_in_5_degree_bins() -> None:
    degrees = np.array([0.0, 2.0, 7.0, 92.0, 180.0])
    rotations = quat.identity((5, 2))
    rotations[:, 1] = quat.from_axis_angle(X_AXIS, np.radians(degrees))
    rotations[1, 1] *= -1.0  # q and -q are the same rotation
    hist = rotation_histograms(rotations, [0, 1])
    assert hist.shape == (2, 36)
    np.testing.assert_allclose(hist.sum(axis=1), 1.0)
    assert hist[0, 0] == 1.0
    np.testing.assert_allclose(hist[1, [0, 1, 18, 35]], [0.4, 0.2, 0.2, 0.2])
    with pytest.raises(ValueError, match="frame"):
        rotation_histograms(rotations[:0], [0, 1])


def test_a_collapsed_generator_reads_a_high_rotation_kl_and_a_faithful_one_a_low() -> None:
    reference = _walk(20.0).rotations
    # the same walk, played from another phase and for another length
    faithful = _walk(13.0, cycle_s=1.1).rotations[7:]
    frozen = reference[100:101]  # mode collapse: one pose, every frame
    assert rotation_kl([reference], [reference], BODY) == pytest.approx(0.0, abs=1e-12)
    assert rotation_kl([reference], [faithful], BODY) < 0.1
    assert rotation_kl([reference], [frozen], BODY) > 0.5
    # the frames of every array are pooled: a set of two halves reads as the whole
    halves = [faithful[: len(faithful) // 2], faithful[len(faithful) // 2 :]]
    assert rotation_kl([reference], halves, BODY) == pytest.approx(
        rotation_kl([reference], [faithful], BODY), rel=1e-12
    )
    per_joint = rotation_kl_per_joint([reference], [frozen], BODY)
    assert per_joint.shape == (len(BODY),)
    assert float(per_joint.mean()) == pytest.approx(rotation_kl([reference], [frozen], BODY))


def test_mocap_halves_read_under_half_a_nat_and_a_frozen_pose_over(corpus_dir: Path) -> None:
    # a 43 s walk about the room (69_01 opens standing still, so its halves differ)
    rotations = _canonical(corpus_dir, "69_06.bvh").rotations
    half = len(rotations) // 2
    assert rotation_kl([rotations[:half]], [rotations[half:]], BODY) < 0.5
    for frame in (0, half):
        assert rotation_kl([rotations], [rotations[frame : frame + 1]], BODY) > 0.5


# --- reaction ------------------------------------------------------------------------------


def _gain_velocity(clip: Clip, from_frame: int, gain_mps: tuple[float, float]) -> Clip:
    """``clip`` whose hips move ``gain_mps`` (x, z) faster from ``from_frame`` on (the hips
    leave the old path at the next frame)."""
    out = _copy(clip)
    moved = np.maximum(np.arange(clip.num_frames) - from_frame, 0) / clip.fps
    out.translations[:, 0, 0] += gain_mps[0] * moved
    out.translations[:, 0, 2] += gain_mps[1] * moved
    return out


@pytest.mark.parametrize("fps", [30.0, 60.0, 120.0])
def test_a_velocity_command_reads_the_frames_until_the_hips_answer(fps: float) -> None:
    roles = canonical.roles()
    unchanged = _walk(3.0, fps)
    at = 30
    changed = _gain_velocity(unchanged, at + 4, (0.5, 0.0))
    assert reaction_frames(changed, unchanged, at, roles, (1.0, 0.0)) == 4
    assert reaction_frames(changed, unchanged, at, roles, (3.0, 0.0)) == 4  # any length
    # a command that never reaches the hips, or moves them the other way, is no reaction
    assert reaction_frames(_copy(unchanged), unchanged, at, roles, (1.0, 0.0)) is None
    assert reaction_frames(changed, unchanged, at, roles, (-1.0, 0.0)) is None
    assert reaction_frames(changed, unchanged, at, roles, (0.0, 1.0)) is None
    slow = _gain_velocity(unchanged, at + 4, (0.04, 0.0))  # under 5 cm/s
    assert reaction_frames(slow, unchanged, at, roles, (1.0, 0.0)) is None
    # frames are compared up to the shorter clip: a reaction after its end is not seen
    short = unchanged.with_arrays(unchanged.rotations[: at + 4], unchanged.translations[: at + 4])
    assert reaction_frames(changed, short, at, roles, (1.0, 0.0)) is None
    with pytest.raises(ValueError, match="direction"):
        reaction_frames(changed, unchanged, at, roles, (0.0, 0.0))


def test_a_pose_command_reads_the_frames_until_a_joint_moves_a_centimetre() -> None:
    roles = canonical.roles()
    unchanged = _walk(3.0, 60.0)
    at = 40
    # the changed play also walks another path from the command on: the ground point
    # of the hips is taken out, only the pose counts
    elsewhere = _gain_velocity(unchanged, at, (0.3, -0.2))
    after = np.arange(unchanged.num_frames) >= at + 3
    hand_m = 0.25 + 0.08  # the elbow to the hand's end site
    for moved_m, expected in ((0.02, 3), (0.005, None)):
        changed = _copy(elsewhere)
        bend = 2.0 * np.arcsin(moved_m / (2.0 * hand_m))
        _turn(changed, _joint("right_forearm"), Z_AXIS, np.where(after, bend, 0.0))
        assert reaction_frames(changed, unchanged, at, roles) == expected
    assert reaction_frames(elsewhere, unchanged, at, roles) is None
    # a crouch of 2 cm is a pose change too
    crouch = _copy(unchanged)
    crouch.translations[after, 0, 1] -= 0.02
    assert reaction_frames(crouch, unchanged, at, roles) == 3


# --- pose drift ----------------------------------------------------------------------------


def test_a_steady_walk_does_not_drift_and_sinking_arms_do() -> None:
    roles = canonical.roles()
    # turning 10 °/s, a 1.1 s cycle: the 10 s windows hold no whole number of cycles
    assert pose_drift_m(_walk(60.0), roles) < 0.01
    assert pose_drift_m(_walk(60.0, turn_degps=-25.0, cycle_s=0.93), roles) < 0.01
    # the arms sink 15° over the minute
    assert pose_drift_m(_walk(60.0, arm_sink_deg=15.0), roles) > 0.05
    with pytest.raises(ValueError, match="windows"):
        pose_drift_m(_walk(15.0), roles)


def test_the_hips_sinking_is_drift() -> None:
    clip = _walk(40.0)
    clip.translations[:, 0, 1] -= np.linspace(0.0, 0.08, clip.num_frames)
    assert pose_drift_m(clip, canonical.roles()) > 0.05


def test_a_tiled_mocap_walking_cycle_does_not_drift(corpus_dir: Path) -> None:
    clip = _canonical(corpus_dir, "69_01.bvh")
    start, stop = 240, 382  # one walking cycle of this take (120 Hz)
    frames = round(30.0 * clip.fps)
    index = start + np.arange(frames) % (stop - start)
    tiled = clip.with_arrays(clip.rotations[index].copy(), clip.translations[index].copy())
    # and turning 12 °/s about the origin on top of the take's own path
    turn = quat.from_axis_angle(Y_AXIS, np.radians(12.0) * np.arange(frames) / clip.fps)
    tiled.rotations[:, 0] = quat.mul(turn, tiled.rotations[:, 0])
    tiled.translations[:, 0] = quat.rotate(turn, tiled.translations[:, 0])
    assert pose_drift_m(tiled, canonical.roles()) < 0.01
    sinking = _copy(tiled)
    sink = np.radians(15.0) * np.arange(frames) / frames
    for side, sign in (("left", 1.0), ("right", -1.0)):
        _turn(sinking, _joint(f"{side}_upper_arm"), Z_AXIS, -sign * sink)
    assert pose_drift_m(sinking, canonical.roles()) > 0.05
