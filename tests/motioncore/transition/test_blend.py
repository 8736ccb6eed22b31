"""Root alignment, crossfade and inertialization on a tiny humanoid with known motions."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.spatial.distance import pdist

from motioncore import fk, quat
from motioncore.clip import Clip, Skeleton
from motioncore.errors import MotionCoreError
from motioncore.skeleton import facing
from motioncore.transition import alignment, blend
from support.humanoid import TINY_HUMANOID_JOINTS, tiny_humanoid

FPS = 60.0


SKELETON = tiny_humanoid()
X, Y = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])


def walking(
    frames: int = 90, *, turn_rad: float = 0.0, start=(0.0, 0.0), phase: float = 0.0
) -> Clip:
    """A clip that walks along a curve, turns, bobs and swings its legs and arms."""
    t = np.arange(frames) / FPS
    rotations = quat.identity((frames, SKELETON.num_joints))
    head = turn_rad + 0.4 * t
    rotations[:, 0] = quat.mul(facing.yaw(head), quat.from_axis_angle(X, 0.1 * np.sin(3 * t)))
    swing = 0.5 * np.sin(2 * np.pi * t + phase)
    for joint, sign in ((13, 1.0), (17, -1.0), (6, -0.5), (10, 0.5)):
        rotations[:, joint] = quat.from_axis_angle(X, sign * swing)
    rotations[:, 14] = quat.from_axis_angle(X, 0.3 + 0.3 * np.cos(2 * np.pi * t))
    translations = np.broadcast_to(SKELETON.offsets, (frames, SKELETON.num_joints, 3)).copy()
    forward = np.stack([np.sin(head), np.zeros(frames), np.cos(head)], axis=1)
    translations[:, 0] = np.cumsum(1.2 * forward / FPS, axis=0) + np.array(
        [start[0], 1.0, start[1]]
    )
    translations[:, 0, 1] += 0.03 * np.sin(4 * np.pi * t)
    return Clip(SKELETON, rotations, translations, FPS)


def moving(frames: int, fps: float, velocity: tuple[float, float, float]) -> Clip:
    """The rest pose carried at a constant root ``velocity`` (m/s) from (0, 1, 0)."""
    translations = np.broadcast_to(SKELETON.offsets, (frames, SKELETON.num_joints, 3)).copy()
    translations[:, 0] += np.arange(frames)[:, None] / fps * np.asarray(velocity)
    return Clip(SKELETON, quat.identity((frames, SKELETON.num_joints)), translations, fps)


def same_rotations(p: np.ndarray, q: np.ndarray, atol: float = 1e-12) -> None:
    """Equal rotations (``q`` and ``-q`` are the same rotation)."""
    sign = np.where(np.sum(p * q, axis=-1, keepdims=True) < 0.0, -1.0, 1.0)
    np.testing.assert_allclose(p, sign * q, atol=atol)


def test_forward_axis_heading_and_yaw() -> None:
    np.testing.assert_allclose(facing.forward_axis(SKELETON), [0.0, 0.0, 1.0], atol=1e-12)
    angles = np.linspace(-3.0, 3.0, 13)
    np.testing.assert_allclose(facing.heading(facing.yaw(angles)), angles, atol=1e-12)
    np.testing.assert_allclose(quat.rotate(facing.yaw(np.pi / 2), [0.0, 0.0, 1.0]), X, atol=1e-12)
    # pitch does not change heading
    tilted = quat.mul(facing.yaw(0.7), quat.from_axis_angle(X, 0.5))
    assert facing.heading(tilted) == pytest.approx(0.7, abs=1e-12)


def test_crossfade_and_inertialization_of_a_clip_with_itself_reproduce_it() -> None:
    clip = walking()
    before = clip.rotations.copy(), clip.translations.copy()
    for join in (blend.crossfade, blend.inertialize):
        out = join(clip, 40, clip, 40, 0.12)
        assert out.clip.num_frames == clip.num_frames
        assert (out.cut, out.entry, out.blend_start, out.blend_stop) == (40, 40, 40, 47)
        same_rotations(out.clip.rotations, clip.rotations)
        np.testing.assert_allclose(out.clip.translations, clip.translations, atol=1e-12)
    np.testing.assert_array_equal(clip.rotations, before[0])  # inputs untouched
    np.testing.assert_array_equal(clip.translations, before[1])


def test_alignment_puts_b_where_a_stands_and_keeps_b_rigid() -> None:
    a = walking(turn_rad=0.3, start=(2.0, -1.0))
    b = walking(turn_rad=-2.5, start=(-4.0, 7.0), phase=1.0)
    aligned = alignment.align(b, 25, a, 60)
    g_a, p_a = fk.forward(a.rotations, a.translations, SKELETON.parents)
    g_m, p_m = fk.forward(aligned.rotations, aligned.translations, SKELETON.parents)
    p_b = fk.positions(b)
    np.testing.assert_allclose(p_m[25, 0, [0, 2]], p_a[60, 0, [0, 2]], atol=1e-9)
    np.testing.assert_allclose(facing.heading(g_m[25, 0]), facing.heading(g_a[60, 0]), atol=1e-9)
    np.testing.assert_allclose(p_m[..., 1], p_b[..., 1], atol=1e-12)  # heights untouched
    points_b, points_m = p_b.reshape(-1, 3), p_m.reshape(-1, 3)
    np.testing.assert_allclose(pdist(points_m), pdist(points_b), atol=1e-9)
    np.testing.assert_array_equal(aligned.rotations[:, 1:], b.rotations[:, 1:])


def test_smoothstep_weights_and_where_the_crossfade_sits() -> None:
    w = blend.smoothstep(7)
    assert w[0] == 0.0 and w[-1] == 1.0 and np.all(np.diff(w) > 0)
    np.testing.assert_allclose(w[3] + w[4], 1.0)  # symmetric about the middle
    np.testing.assert_allclose(blend.smoothstep(4), [0.0, 0.15625, 0.5, 0.84375, 1.0])
    a = walking()
    b = walking(turn_rad=1.0, start=(3.0, 3.0), phase=2.0)
    out = blend.crossfade(a, 50, b, 10, 0.12)
    moved = alignment.align(b, 10, a, 50)
    n = out.blend_stop - out.blend_start
    assert n == 7 and out.clip.num_frames == 50 + b.num_frames - 10
    same_rotations(out.clip.rotations[:50], a.rotations[:50], atol=0)
    same_rotations(out.clip.rotations[50], a.rotations[50])  # weight 0 at the cut
    same_rotations(out.clip.rotations[57:], moved.rotations[17:])  # weight 1 after
    np.testing.assert_allclose(out.clip.translations[57:], moved.translations[17:], atol=1e-12)
    k = 3  # inside: A advances from the cut, B from the entry
    lerp = a.translations[53, 0] + w[k] * (moved.translations[13, 0] - a.translations[53, 0])
    np.testing.assert_allclose(out.clip.translations[53, 0], lerp, atol=1e-12)
    same_rotations(out.clip.rotations[53], quat.slerp(a.rotations[53], moved.rotations[13], w[k]))


def test_crossfade_holds_a_at_its_last_frame_and_shortens_to_what_b_has() -> None:
    a, b = walking(60), walking(30, phase=1.0)
    out = blend.crossfade(a, 57, b, 25, 0.12)
    assert out.blend_stop - out.blend_start == 4  # B has only frames 25..29
    assert out.clip.num_frames == 57 + 5
    hard = blend.crossfade(a, 20, b, 5, 0.0)
    same_rotations(hard.clip.rotations[20:], alignment.align(b, 5, a, 20).rotations[5:])


def test_quintic_decay_bases_start_and_end_as_bollo_requires() -> None:
    frames = 4000
    p, q = blend.quintic_decay(frames)
    ds = 1.0 / frames
    assert p[0] == 1.0 and q[0] == 0.0 and p[-1] == 0.0 and q[-1] == 0.0
    assert (p[1] - p[0]) / ds == pytest.approx(0.0, abs=1e-2)  # x0 term: no velocity
    assert (q[1] - q[0]) / ds == pytest.approx(1.0, abs=1e-2)  # v0 term: unit slope
    for basis in (p, q):  # x, x', x'' and jerk vanish at the end (fourfold root)
        assert abs(basis[-2]) < 1e-12 and abs(basis[-10]) < 1e-8
    assert np.all(np.diff(p) <= 0.0)  # no overshoot from a pure offset


def test_inertialization_is_continuous_at_the_cut_and_decays_fully() -> None:
    a = walking(90)
    b = walking(90, turn_rad=0.5, phase=2.5)
    out = blend.inertialize(a, 45, b, 12, 0.15)
    moved = alignment.align(b, 12, a, 45)
    n = out.blend_stop - out.blend_start
    assert n == 9
    same_rotations(out.clip.rotations[:46], a.rotations[:46])  # A's pose at the cut
    np.testing.assert_allclose(out.clip.translations[:46], a.translations[:46], atol=1e-12)
    same_rotations(out.clip.rotations[54:], moved.rotations[21:])  # offset gone after blend_s
    np.testing.assert_allclose(out.clip.translations[54:], moved.translations[21:], atol=1e-12)


def test_inertialization_leaves_the_cut_with_a_velocity() -> None:
    fps = 1200.0  # fine steps: one frame's difference is the velocity to O(a0 dt)
    a, b = moving(600, fps, (0.0, 0.0, 1.0)), moving(600, fps, (0.0, 0.5, 2.0))
    for join, expected in ((blend.inertialize, (0.0, 0.0, 1.0)), (blend.crossfade, None)):
        out = join(a, 300, b, 100, 0.2).clip.translations[:, 0]
        v_out = (out[301] - out[300]) * fps
        v_end = (out[300 + 241] - out[300 + 240]) * fps
        np.testing.assert_allclose(v_end, [0.0, 0.5, 2.0], atol=1e-9)  # pure B after the blend
        if expected is not None:
            np.testing.assert_allclose(v_out, expected, atol=0.02)
    # a hard cut would jump to B's velocity at once
    hard = blend.inertialize(a, 300, b, 100, 0.0).clip.translations[:, 0]
    np.testing.assert_allclose((hard[301] - hard[300]) * fps, [0.0, 0.5, 2.0], atol=1e-9)


def test_clips_must_share_skeleton_and_frame_rate() -> None:
    a = walking(30)
    renamed = replace(SKELETON, names=("Pelvis", *SKELETON.names[1:]))
    reparented = replace(
        SKELETON,
        parents=np.array([-1, 0, 1, 2, 3, 2, 5, 6, 7, 2, 9, 10, 11, 0, 13, 14, 15, 0, 17, 18, 17]),
    )
    fewer = Skeleton(
        SKELETON.names[:-1],
        SKELETON.parents[:-1],
        SKELETON.offsets[:-1],
        SKELETON.channels[:-1],
        SKELETON.kinds[:-1],
    )
    cases = [
        (replace(a, skeleton=renamed), "joint 0 is 'Hips' vs 'Pelvis'"),
        (replace(a, skeleton=reparented), "parents"),
        (Clip(fewer, a.rotations[:, :-1], a.translations[:, :-1], FPS), "21 vs 20 joints"),
        (a.with_arrays(fps=30.0), "frame rates"),
    ]
    for other, message in cases:
        for join in (blend.crossfade, blend.inertialize):
            with pytest.raises(MotionCoreError, match=message):
                join(a, 10, other, 0)
    with pytest.raises(MotionCoreError, match="outside the clip"):
        blend.crossfade(a, 30, a, 0)
    with pytest.raises(MotionCoreError, match="blend_s"):
        blend.crossfade(a, 10, a, 0, -0.1)


def _carried(start: np.ndarray, direction: np.ndarray, yaw_rad: float, frames: int) -> Clip:
    """The rig under a static ``joint_Root`` at the origin (Bandai Namco's layout): the
    hips' own position channels carry the walk, 1 m/s along ``direction`` from ``start``,
    facing it (``yaw_rad`` about +Y)."""
    names = ("joint_Root", *(n for n, _, _ in TINY_HUMANOID_JOINTS))
    parents = np.array([-1, *(p + 1 for _, p, _ in TINY_HUMANOID_JOINTS)])
    parents[1] = 0
    offsets = np.array([(0.0, 0.0, 0.0), *(o for _, _, o in TINY_HUMANOID_JOINTS)])
    skeleton = Skeleton(
        names=names,
        parents=parents,
        offsets=offsets,
        channels=(("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation"),)
        * 2
        + (("Zrotation", "Xrotation", "Yrotation"),) * (len(names) - 2),
        kinds=("ROOT", *("JOINT",) * (len(names) - 1)),
    )
    t = np.arange(frames) / FPS
    translations = np.broadcast_to(offsets, (frames, len(names), 3)).copy()
    translations[:, 1] = start + np.outer(t, direction)
    rotations = quat.identity((frames, len(names)))
    rotations[:, 1] = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.full(frames, yaw_rad))
    return Clip(skeleton, rotations, translations, FPS)


@pytest.mark.parametrize("join", [blend.crossfade, blend.inertialize])
def test_a_carrier_root_does_not_swing_the_body_through_the_blend(join: object) -> None:
    """A walks along +Z four metres from its static root; B walks along +X, turned 90°.
    The alignment turns B's root by -90°: lerping the hips' local translation under
    that turning root would swing the pelvis metres sideways. The pelvis must keep
    walking at about 1 m/s through the blend."""
    a = _carried(np.array([0.0, 1.0, 4.0]), np.array([0.0, 0.0, 1.0]), 0.0, 121)
    b = _carried(np.array([-3.0, 1.0, 0.5]), np.array([1.0, 0.0, 0.0]), np.pi / 2, 121)
    res = join(a, 60, b, 10, 0.12)  # type: ignore[operator]
    assert res.alignment.yaw_rad == pytest.approx(-np.pi / 2)
    hips = fk.positions(res.clip)[:, 1]
    step_m = np.linalg.norm(np.diff(hips[55:75], axis=0), axis=-1)
    assert step_m.max() < 1.5 / FPS  # never faster than 1.5 m/s
    assert step_m.min() > 0.5 / FPS  # and never stalls
    direction = hips[74] - hips[56]
    assert direction[2] > 0.9 * np.linalg.norm(direction)  # still walking along +Z
