"""Momentum measures on analytic motions of a tiny humanoid, and on one real walk."""

from __future__ import annotations

import json

import numpy as np
import pytest

from motioncore import bvh, quat
from motioncore.analysis import momentum
from motioncore.clip import Clip
from motioncore.skeleton import JointRoles, infer
from support.humanoid import tiny_humanoid
from support.paths import SAMPLE_DIR

FPS = 60.0


SKELETON = tiny_humanoid()


def _clip(root_pos: np.ndarray, root_rot: np.ndarray | None = None) -> Clip:
    """The rest pose carried by a root trajectory ``[F, 3]`` and rotation ``[F, 4]``."""
    frames = root_pos.shape[0]
    translations = np.broadcast_to(SKELETON.offsets, (frames, *SKELETON.offsets.shape)).copy()
    translations[:, 0] = root_pos
    rotations = quat.identity((frames, SKELETON.num_joints))
    if root_rot is not None:
        rotations[:, 0] = root_rot
    return Clip(SKELETON, rotations, translations, FPS)


def _time(frames: int = 120) -> np.ndarray:
    return np.arange(frames)[:, None] / FPS


def test_every_role_of_the_tiny_skeleton_resolves() -> None:
    roles = infer(SKELETON)
    assert roles.unresolved == ()
    table = momentum.mass_table(SKELETON, roles)
    assert table.dropped == () and table.approximated == ()
    assert table.segments.count("trunk") == 3  # hips-spine, spine-chest, chest-neck


def test_mass_fractions_sum_to_one_and_are_renormalised_when_a_role_is_missing() -> None:
    assert sum(s.mass_fraction for s in momentum.SEGMENTS) == pytest.approx(1.0, abs=1e-12)
    full = momentum.mass_table(SKELETON)
    np.testing.assert_allclose(full.weights.sum(), 1.0)
    np.testing.assert_allclose(full.matrix.sum(axis=1), 1.0)
    thigh = full.weights[full.segments.index("left_thigh")]
    np.testing.assert_allclose(thigh, 0.1416)

    roles = infer(SKELETON)
    joints = {r: j for r, j in roles.joints.items() if r not in ("left_forearm", "right_toe")}
    unresolved = (*roles.unresolved, "left_forearm", "right_toe")
    partial = momentum.mass_table(SKELETON, JointRoles(joints, roles.spine_chain, unresolved))
    assert partial.dropped == ("left_forearm",)
    assert set(partial.approximated) == {"left_upper_arm", "right_foot"}
    np.testing.assert_allclose(partial.weights.sum(), 1.0)
    np.testing.assert_allclose(
        partial.weights[partial.segments.index("left_thigh")], 0.1416 / (1.0 - 0.0162)
    )


def test_constant_root_velocity_gives_constant_speed_and_zero_acceleration() -> None:
    v = np.array([0.5, 0.0, 1.2])
    clip = _clip(np.array([0.0, 1.0, 0.0]) + _time() * v)
    before = clip.translations.copy()
    m = momentum.measure(clip)
    np.testing.assert_array_equal(clip.translations, before)  # inputs untouched
    np.testing.assert_allclose(m.root_velocity, np.broadcast_to(v, (120, 3)), atol=1e-9)
    np.testing.assert_allclose(m.com_velocity, np.broadcast_to(v, (120, 3)), atol=1e-9)
    np.testing.assert_allclose(m.speed, np.linalg.norm(v), atol=1e-9)
    np.testing.assert_allclose(m.tangential_acceleration, 0.0, atol=1e-7)
    np.testing.assert_allclose(m.angular_velocity, 0.0, atol=1e-9)
    # A rigid translation: kinetic energy per kg is ½ v² because the masses sum to 1.
    np.testing.assert_allclose(m.kinetic_energy, 0.5 * v @ v, atol=1e-9)


@pytest.mark.parametrize("method", ["savgol", "central"])
def test_constant_acceleration_is_the_tangential_acceleration(method: momentum.Derivative) -> None:
    v0, a = 0.5, 2.0
    t = _time()
    x = v0 * t + 0.5 * a * t**2
    clip = _clip(np.concatenate([x, np.ones_like(t), np.zeros_like(t)], axis=1))
    m = momentum.measure(clip, method=method, speed_of="root")
    # Central differences are exact for quadratics inside the clip, one-sided ones are not.
    inner = slice(2, -2)
    np.testing.assert_allclose(m.tangential_acceleration[inner], a, atol=1e-6)
    np.testing.assert_allclose(m.speed[inner], (v0 + a * t[:, 0])[inner], atol=1e-6)


def test_pure_yaw_rotation_gives_angular_velocity_about_y() -> None:
    omega = 1.5
    angle = omega * _time()[:, 0]
    rot = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), angle)
    clip = _clip(np.tile([0.0, 1.0, 0.0], (len(angle), 1)), rot)
    methods: tuple[momentum.Derivative, ...] = ("savgol", "central")
    for method in methods:
        m = momentum.measure(clip, method=method)
        expected = np.broadcast_to([0.0, omega, 0.0], m.angular_velocity.shape)
        np.testing.assert_allclose(m.angular_velocity[2:-2], expected[2:-2], atol=1e-3)
    # Spinning in place: the COM (on the yaw axis only for a symmetric body) barely moves.
    assert np.max(m.speed) < 0.1
    assert np.min(m.kinetic_energy) > 0.0


def test_pca_curve_follows_speed_and_curve_returns_each_measure() -> None:
    t = _time(240)
    z = t + 0.1 * np.sin(2 * np.pi * t)  # forward speed 1 + 0.2π cos(2πt) > 0
    clip = _clip(np.concatenate([np.zeros_like(t), np.ones_like(t), z], axis=1))
    m = momentum.measure(clip)
    assert np.corrcoef(momentum.curve(m, "pca"), m.speed)[0, 1] > 0.99
    assert m.pca_explained > 0.99
    np.testing.assert_allclose(momentum.curve(m, "pca"), m.speed, rtol=1e-6)  # all joints alike
    np.testing.assert_array_equal(momentum.curve(m, "speed"), m.speed)
    np.testing.assert_array_equal(momentum.curve(m, "energy"), m.kinetic_energy)
    with pytest.raises(ValueError, match="unknown momentum measure"):
        momentum.curve(m, "jerk")  # type: ignore[arg-type]
    report = json.loads(json.dumps(m.as_dict()))
    assert len(report["speed_m_per_s"]) == 240 and report["mass_dropped"] == []


def test_a_real_walk_has_a_plausible_com_speed() -> None:
    clip = bvh.load(SAMPLE_DIR / "games105" / "walk60.bvh")
    m = momentum.measure(clip)
    assert m.mass.dropped == ()
    assert 1.0 < float(np.mean(m.speed)) < 2.0
    assert m.speed.shape == m.kinetic_energy.shape == m.pca.shape == (clip.num_frames,)
    # Walking energy is mostly the forward translation: ½ v̄² is its bulk.
    assert 0.5 * np.mean(m.speed) ** 2 < np.mean(m.kinetic_energy) < 2.0 * np.mean(m.speed) ** 2
    assert np.corrcoef(m.pca, m.speed)[0, 1] > 0.0
