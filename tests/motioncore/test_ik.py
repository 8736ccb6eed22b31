"""Analytic two-bone IK with a pole (swivel) control."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from motioncore import fk, ik, quat


def _apply(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, da: np.ndarray, db: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """New middle and end positions after the world delta rotations."""
    b_new = a + quat.rotate(da, b - a)
    return b_new, b_new + quat.rotate(db, quat.rotate(da, c - b))


def _chains(seed: int, n: int = 500) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, 3))
    b = a + rng.normal(size=(n, 3))
    c = b + rng.normal(size=(n, 3))
    return a, b, c, a + 1.5 * rng.normal(size=(n, 3)), a + 3.0 * rng.normal(size=(n, 3))


def _off_axis(point: np.ndarray, a: np.ndarray, direction: np.ndarray) -> np.ndarray:
    u = direction / np.linalg.norm(direction, axis=-1, keepdims=True)
    rel = point - a
    return rel - np.sum(rel * u, axis=-1, keepdims=True) * u


def test_reachable_targets_are_reached_exactly_with_bone_lengths_kept() -> None:
    a, b, c, target, pole = _chains(0)
    l1, l2 = np.linalg.norm(b - a, axis=-1), np.linalg.norm(c - b, axis=-1)
    reach = np.linalg.norm(target - a, axis=-1)
    ok = (reach < l1 + l2) & (reach > np.abs(l1 - l2))
    assert ok.sum() > 200
    b_new, c_new = _apply(a, b, c, *ik.two_bone(a, b, c, target, pole))
    np.testing.assert_allclose(c_new[ok], target[ok], atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(b_new - a, axis=-1), l1, atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(c_new - b_new, axis=-1), l2, atol=1e-9)


def test_unreachable_targets_straighten_the_chain_towards_them() -> None:
    a, b, c, _, pole = _chains(1)
    l1, l2 = np.linalg.norm(b - a, axis=-1), np.linalg.norm(c - b, axis=-1)
    direction = np.random.default_rng(5).normal(size=a.shape)
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    target = a + 1.5 * (l1 + l2)[:, None] * direction
    b_new, c_new = _apply(a, b, c, *ik.two_bone(a, b, c, target, pole))
    np.testing.assert_allclose(c_new, a + (l1 + l2)[:, None] * direction, atol=1e-7)
    np.testing.assert_allclose(b_new, a + l1[:, None] * direction, atol=1e-7)


def test_the_pole_decides_where_the_middle_joint_bends() -> None:
    a, b, c, target, pole = _chains(2)
    b_new, _ = _apply(a, b, c, *ik.two_bone(a, b, c, target, pole))
    bend = _off_axis(b_new, a, target - a)
    wanted = _off_axis(pole, a, target - a)
    cosine = np.sum(bend * wanted, axis=-1) / (
        np.linalg.norm(bend, axis=-1) * np.linalg.norm(wanted, axis=-1) + 1e-300
    )
    bent = np.linalg.norm(bend, axis=-1) > 1e-6
    np.testing.assert_allclose(cosine[bent], 1.0, atol=1e-9)
    # Swinging the pole around swings the knee with it.
    flipped, _ = _apply(a, b, c, *ik.two_bone(a, b, c, target, 2 * a - pole + 0 * target))
    assert np.mean(np.sum(_off_axis(flipped, a, target - a) * bend, axis=-1) < 0) > 0.5


@settings(max_examples=60, deadline=None)
@given(st.floats(0.05, 3.0), st.floats(-np.pi, np.pi))
def test_a_straight_leg_bends_towards_the_pole(bend_target: float, swivel: float) -> None:
    a = np.zeros(3)
    b = np.array([0.0, -0.45, 0.0])
    c = np.array([0.0, -0.9, 0.0])  # fully straight: the current bend axis is undefined
    target = np.array([0.0, -0.9 + 0.3 * bend_target / 3.0, 0.0])
    pole = np.array([np.sin(swivel), -0.45, np.cos(swivel)])
    b_new, c_new = _apply(a, b, c, *ik.two_bone(a, b, c, target, pole))
    np.testing.assert_allclose(c_new, target, atol=1e-9)
    side = b_new - np.array([0.0, b_new[1], 0.0])
    assert np.dot(side, [np.sin(swivel), 0.0, np.cos(swivel)]) > 0.0


def _leg() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A hips-thigh-twist-shin-foot-toe chain over 50 frames (rotations, translations, parents)."""
    parents = np.array([-1, 0, 1, 1, 3, 4])  # 2 = a thigh twist bone beside the knee
    frames = 50
    t = np.linspace(0.0, 1.0, frames)
    offsets = np.array(
        [
            [0.0, 0.95, 0.0],
            [0.1, -0.05, 0.0],
            [0.0, -0.2, 0.0],
            [0.0, -0.45, 0.0],
            [0.0, -0.42, 0.0],
            [0.0, -0.05, 0.14],
        ]
    )
    translations = np.repeat(offsets[None], frames, axis=0)
    translations[:, 0] += np.stack([0.12 * t, 0.02 * np.sin(6 * t), 0.0 * t], axis=-1)
    rotations = quat.identity((frames, 6))
    rotations[:, 0] = quat.from_axis_angle([0.0, 1.0, 0.0], 0.4 * t)
    rotations[:, 1] = quat.from_axis_angle([1.0, 0.0, 0.0], -0.5 + 0.3 * t)
    rotations[:, 2] = quat.from_axis_angle([0.0, 1.0, 0.0], 0.3 * t)
    rotations[:, 3] = quat.from_axis_angle([1.0, 0.0, 0.0], 0.6 - 0.2 * t)
    rotations[:, 4] = quat.from_axis_angle([0.2, 1.0, 0.0], 0.3 * t)
    return rotations, translations, parents


def test_chain_plants_the_foot_and_keeps_its_world_orientation() -> None:
    rotations, translations, parents = _leg()
    g_rot, g_pos = fk.forward(rotations, translations, parents)
    target = np.repeat(g_pos[10:11, 4], 50, axis=0)  # hold the ankle where it was at frame 10
    before = rotations.copy()
    solved = ik.chain(rotations, g_rot, g_pos, parents, (1, 3, 4), target, g_pos[:, 3])
    np.testing.assert_array_equal(rotations, before)
    new_rot, new_pos = fk.forward(solved, translations, parents)
    np.testing.assert_allclose(new_pos[:, 4], target, atol=1e-9)
    np.testing.assert_allclose(quat.angle_between(new_rot[:, 4], g_rot[:, 4]), 0.0, atol=1e-7)
    np.testing.assert_allclose(new_pos[:, :2], g_pos[:, :2], atol=1e-12)  # hips, hip joint
    np.testing.assert_array_equal(solved[:, [0, 2]], rotations[:, [0, 2]])
    shin = np.linalg.norm(new_pos[:, 4] - new_pos[:, 3], axis=-1)
    np.testing.assert_allclose(shin, 0.42, atol=1e-12)
    # The knee bends towards the pole (its old position): same side of the hip-ankle line.
    bend = _off_axis(new_pos[:, 3], new_pos[:, 1], target - new_pos[:, 1])
    wanted = _off_axis(g_pos[:, 3], new_pos[:, 1], target - new_pos[:, 1])
    cosine = (
        np.sum(bend * wanted, axis=-1)
        / np.linalg.norm(bend, axis=-1)
        / np.linalg.norm(wanted, axis=-1)
    )
    np.testing.assert_allclose(cosine, 1.0, atol=1e-9)


def test_a_minimal_solve_of_a_nearly_straight_chain_turns_it_a_little() -> None:
    """A leg 1 mm off straight, its end moved 2 mm: carrying the old bend axis onto the
    new one spins the thigh about itself (its bend axis is ill-defined so near straight);
    the minimal solve turns it by a few degrees and reaches the target all the same."""
    a = np.array([[0.0, 1.0, 0.0]])
    b = np.array([[0.001, 0.5, 0.0]])
    c = np.array([[0.0, 0.0, 0.0]])
    target = np.array([[0.0, 0.002, 0.001]])
    pole = b + np.array([0.0, 0.0, 0.1])
    hinge, _ = ik.two_bone(a, b, c, target, pole)
    least, lower = ik.two_bone(a, b, c, target, pole, minimal=True)
    identity = quat.identity((1,))
    assert np.degrees(quat.angle_between(hinge, identity))[0] > 45.0
    assert np.degrees(quat.angle_between(least, identity))[0] < 5.0
    b_new = a + quat.rotate(least, b - a)
    c_new = b_new + quat.rotate(lower, quat.rotate(least, c - b))
    assert np.allclose(c_new, target, atol=1e-9)
