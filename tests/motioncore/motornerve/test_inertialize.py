"""Springs and inertialization of the motion-matching baseline
(motioncore.motornerve.inertialize), on tiny hand-made values."""

from __future__ import annotations

import numpy as np
import pytest

from motioncore import quat
from motioncore.motornerve import inertialize

HALFLIFE_S = 0.2
DT_S = 1.0 / 60.0


def test_a_spring_step_is_exact_at_any_time_step() -> None:
    start = (np.array([0.3, -1.0]), np.array([1.0, 0.5]), np.array([-2.0, 4.0]))
    goal = np.array([1.5, -0.5])
    once = inertialize.track_velocity(*start, goal, HALFLIFE_S, 2 * DT_S)
    halves = inertialize.track_velocity(*start, goal, HALFLIFE_S, DT_S)
    halves = inertialize.track_velocity(*halves, goal, HALFLIFE_S, DT_S)
    for a, b in zip(once, halves, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_the_velocity_reaches_its_goal_without_overshoot() -> None:
    value, velocity, acceleration = np.zeros(1), np.zeros(1), np.zeros(1)
    seen = []
    for _ in range(240):
        value, velocity, acceleration = inertialize.track_velocity(
            value, velocity, acceleration, np.array([1.3]), HALFLIFE_S, DT_S
        )
        seen.append(velocity[0])
    assert np.all(np.diff(seen) >= 0.0) and max(seen) <= 1.3
    assert seen[-1] == pytest.approx(1.3, abs=1e-4)
    # the gap closes as (1 + y t) e^{-y t}: half of it after about 1.2 half-lives
    half = int(np.argmax(np.array(seen) >= 0.65)) * DT_S
    assert half == pytest.approx(1.21 * HALFLIFE_S, abs=2 * DT_S)


def test_an_offset_decays_to_nothing() -> None:
    offset, velocity = np.array([0.5, -0.2]), np.array([3.0, 0.0])
    for _ in range(120):
        offset, velocity = inertialize.decay(offset, velocity, 0.1, DT_S)
    np.testing.assert_allclose(offset, 0.0, atol=1e-4)


def test_a_switch_shows_the_pose_that_played() -> None:
    rng = np.random.default_rng(7)
    source, target = (
        inertialize.Pose(
            quat.normalize(rng.normal(size=(3, 4))), rng.normal(size=(3, 3)), h, np.zeros(1)
        )
        for h in (np.array([0.9]), np.array([0.8]))
    )
    before = inertialize.Offset(
        rng.normal(size=(3, 3)) * 0.3, np.zeros((3, 3)), np.zeros(1), np.zeros(1)
    )
    after = before.switched(source, target)
    shown = inertialize.apply(before.rotations, source.rotations)
    np.testing.assert_allclose(
        quat.angle_between(inertialize.apply(after.rotations, target.rotations), shown),
        0.0,
        atol=1e-7,
    )
    np.testing.assert_allclose(after.channels + target.channels, source.channels)
    np.testing.assert_allclose(
        after.angular_velocities + target.angular_velocities, source.angular_velocities
    )


def test_a_simulated_root_turning_left_curves_left() -> None:
    root = inertialize.SimulatedRoot(np.zeros(3), np.array([0.0, 1.0, 0.0]), np.zeros(3))
    turn = np.pi / 2  # rad/s, left
    ahead = root.future(np.array([0.0, 1.0, turn]), (60, 120), HALFLIFE_S, DT_S)
    # from rest the turn rate lags its goal by ∫(1 + y t) e^{-y t} dt = half-life / ln 2
    lag_s = HALFLIFE_S / np.log(2.0)
    assert ahead[1, 2] == pytest.approx(turn * (2.0 - lag_s), rel=1e-3)
    assert ahead[1, 0] > 0.5  # left is +X
