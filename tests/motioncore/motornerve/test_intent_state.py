"""The intent vector (seed 001 §2.2), world commands, and the state encoding: layout,
heading frames, 6-D rotations and the root path round trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, fk, quat
from motioncore.motornerve import dataset, intent, state
from motioncore.skeleton import retarget


def test_an_intent_has_twelve_numbers_in_the_seed_layout() -> None:
    walk = intent.make((0.0, 2.0), 1.3)
    assert walk.shape == (intent.SIZE,) == (12,)
    np.testing.assert_allclose(walk[intent.DIRECTION], (0.0, 1.0))
    assert walk[intent.SPEED] == 1.3
    np.testing.assert_allclose(walk[intent.FACING], (0.0, 1.0))
    assert intent.describe(walk)["action"] == "walk"
    assert intent.describe(intent.make((1.0, 0.0), 3.5))["action"] == "run"
    still = intent.make((0.0, 0.0), 0.0)
    assert intent.describe(still)["action"] == "idle"
    assert np.all(still[intent.DIRECTION] == 0.0)
    assert np.all(walk[10:] == 0.0)  # the two reserved numbers


def test_strength_is_kept_only_for_an_interaction() -> None:
    interact = intent.ACTIONS.index("interact")
    assert intent.make((0, 0), 0.0, 0.0, interact, 0.7)[intent.STRENGTH] == pytest.approx(0.7)
    assert intent.make((0, 1), 1.3, 0.0, None, 0.7)[intent.STRENGTH] == 0.0
    assert intent.make((0, 0), 0.0, 0.0, interact, 3.0)[intent.STRENGTH] == 1.0


def test_a_world_command_is_read_in_the_characters_heading_frame() -> None:
    east = intent.command((1.0, 0.0), 1.3)  # +X, the left of a character facing +Z
    facing_z = intent.localise(east, 0.0)
    np.testing.assert_allclose(facing_z[intent.DIRECTION], (1.0, 0.0), atol=1e-12)
    # Facing +X already, +X is straight ahead.
    facing_x = intent.localise(east, np.pi / 2)
    np.testing.assert_allclose(facing_x[intent.DIRECTION], (0.0, 1.0), atol=1e-12)
    # With no facing asked, the character wants to face where it moves: 90° to its left.
    assert np.degrees(np.arctan2(*facing_z[intent.FACING])) == pytest.approx(90.0)
    # An explicit facing (strafing: keep facing +Z while moving +X).
    strafe = intent.localise(intent.command((1.0, 0.0), 1.3, facing_rad=0.0), 0.0)
    assert np.degrees(np.arctan2(*strafe[intent.FACING])) == pytest.approx(0.0, abs=1e-9)


def test_recorded_motion_gives_its_own_intents() -> None:
    fps, frames = 60.0, 240
    t = np.arange(frames) / fps
    ground = np.stack([np.zeros(frames), 1.2 * t], axis=-1)  # walking along +Z
    facing = np.zeros(frames)
    out = intent.from_motion(ground, facing, fps)
    np.testing.assert_allclose(out[:200, intent.SPEED], 1.2, atol=1e-9)
    np.testing.assert_allclose(out[:200, intent.DIRECTION], [[0.0, 1.0]] * 200, atol=1e-9)
    assert intent.describe(out[0])["action"] == "walk"
    assert intent.describe(out[-1])["action"] == "idle"  # the last frame wants to stand
    # Turned: the same walk by a character facing +X reads as moving to its right.
    turned = intent.from_motion(ground, np.full(frames, np.pi / 2), fps)
    np.testing.assert_allclose(turned[0, intent.DIRECTION], (-1.0, 0.0), atol=1e-9)


def test_six_d_rotations_round_trip_and_have_no_seam_near_180_degrees() -> None:
    rng = np.random.default_rng(3)
    q = quat.normalize(rng.normal(size=(500, 4)))
    back = state.from_6d(state.to_6d(q))
    np.testing.assert_allclose(np.abs(np.sum(back * q, axis=-1)), 1.0, atol=1e-9)
    # A rotation passing through 180°: its quaternion's w changes sign (a w ≥ 0
    # convention jumps), its 6-D form moves smoothly.
    angles = np.radians(np.linspace(170.0, 190.0, 41))
    passing = quat.from_axis_angle(np.tile([0.0, 0.0, 1.0], (41, 1)), angles)
    six = state.to_6d(passing)
    assert np.abs(np.diff(six, axis=0)).max() < 0.02
    canonical_w = np.where(passing[:, :1] < 0, -passing, passing)
    assert np.abs(np.diff(canonical_w, axis=0)).max() > 1.0


def test_states_integrate_back_to_the_clips_root_path(shared_data: Path) -> None:
    clip = retarget.to_canonical(bvh.load(shared_data / "bvh/cmu-3dsmax-jinny42/69_06.bvh"))
    clip = dataset.at_speed(dataset.prepare(clip), 1.0)
    states, face = state.encode(clip)
    assert states.shape == (clip.num_frames, state.SIZE)
    ground = fk.positions(clip)[:, 0][:, [0, 2]]
    # Every other frame (30 Hz), integrated from the first: the path comes back.
    steps = states[2::2]
    path, turned = state.root_path(steps, ground[0], face[0], state.STEP_S)
    np.testing.assert_allclose(path, ground[2::2], atol=1e-9)
    np.testing.assert_allclose(turned, face[2::2], atol=1e-9)
    rebuilt = state.to_clip(states, ground, face)
    np.testing.assert_allclose(fk.positions(rebuilt), fk.positions(clip), atol=1e-6)
