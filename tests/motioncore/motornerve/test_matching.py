"""The motion-matching baseline (motioncore.motornerve.matching) on a small database of
real corpus clips: a walk, two walk-and-turn takes, a standing idle and a tagged
pick-up, prepared as MotorNerve's data is.

Heading frame: +Z ahead, +X the character's *left*, so a right turn goes towards -X and
lowers the facing angle."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, fk, quat
from motioncore.clip import Clip
from motioncore.motornerve import dataset, intent, matching, state
from motioncore.skeleton import canonical, extremities

CLIPS = (
    ("bvh/cmu-3dsmax-jinny42/69_01.bvh", False),  # walk forward
    ("bvh/cmu-3dsmax-jinny42/69_06.bvh", False),  # walk and turn (mostly right)
    ("bvh/cmu-3dsmax-jinny42/69_10.bvh", False),  # walk and turn (mostly left)
    ("bvh/reactidle/000_genuine.bvh", False),  # standing idle (needs hands)
    ("bvh/cmu-3dsmax-jinny42/69_68.bvh", True),  # walk, pick up, set down
)
FPS = 60
INTERACT = intent.ACTIONS.index("interact")
MAX_SWITCH_JUMP_DEG = 30.0


@pytest.fixture(scope="module")
def database(shared_data: Path) -> matching.Database:
    entries = []
    for path, interact in CLIPS:
        clip = dataset.prepare(extremities.with_hands(bvh.load(shared_data / path)))
        entries.append((path, clip, dataset.sequence(path, clip, interact).intents))
    return matching.Database.build(entries)


def _held(seconds: float, direction: tuple[float, float], speed: float, **kw: float) -> np.ndarray:
    frames = round(seconds * FPS)
    return intent.make(np.tile(direction, (frames, 1)), np.full(frames, speed), **kw)


def _idle(seconds: float) -> np.ndarray:
    return _held(seconds, (0.0, 0.0), 0.0)


def _interact(seconds: float) -> np.ndarray:
    return _held(seconds, (0.0, 0.0), 0.0, action=INTERACT, strength=0.8)


def _turn(seconds: float, sign: float) -> np.ndarray:
    """Walking at 1 m/s while turning at 90°/s (sign -1: right), as ``intent.from_motion``
    writes such a turn: moving 22.5° off ahead, facing 45° off in 0.5 s."""
    off = np.radians(22.5)
    return _held(seconds, (sign * np.sin(off), np.cos(off)), 1.0, facing_rad=sign * np.pi / 4)


def _mixed() -> np.ndarray:
    return np.concatenate(
        [_held(3.0, (0.0, 1.0), 1.3), _idle(3.0), _interact(3.0), _turn(2.0, -1.0)]
    )


def _ground(clip: Clip) -> np.ndarray:
    return fk.positions(clip)[:, 0][:, [0, 2]]


def _switch_jumps_deg(clip: Clip) -> np.ndarray:
    """Per switch, the largest change of any joint's local rotation into and out of the
    switch frame, degrees."""
    steps = np.degrees(quat.angle_between(clip.rotations[1:], clip.rotations[:-1])).max(axis=1)
    at = np.array(clip.meta["switch_frames"])
    at = at[at < clip.num_frames - 1]
    return np.maximum(steps[at - 1], steps[at])


def test_walking_straight_holds_the_speed_and_heading(database: matching.Database) -> None:
    clip = matching.drive(database, _held(10.0, (0.0, 1.0), 1.3))
    ground = _ground(clip)
    last = ground[-5 * FPS :]
    speed = np.linalg.norm(last[-1] - last[0]) / ((len(last) - 1) / FPS)
    assert speed == pytest.approx(1.3, abs=0.3)
    assert np.all(np.abs(np.degrees(state.facing(clip))) < 20.0)
    travel = last[-1] - last[0]
    assert abs(np.degrees(np.arctan2(travel[0], travel[1]))) < 20.0


@pytest.mark.parametrize("sign", [-1.0, 1.0], ids=["right", "left"])
def test_a_turning_intent_curves_the_path_its_way(database: matching.Database, sign: float) -> None:
    clip = matching.drive(database, _turn(2.0, sign))
    ground, facing = _ground(clip), state.facing(clip)
    quarter = FPS // 4
    travel = ground[quarter:] - ground[:-quarter]
    bearing = np.unwrap(np.arctan2(travel[:, 0], travel[:, 1]))  # of the path, 0 along +Z
    assert sign * np.degrees(bearing[-1] - bearing[0]) > 90.0
    assert sign * np.degrees(facing[-1] - facing[0]) > 90.0
    assert sign * ground[-1, 0] > 0.5  # right is -X


def test_an_idle_intent_stops_the_character(database: matching.Database) -> None:
    clip = matching.drive(database, np.concatenate([_held(1.0, (0.0, 1.0), 1.3), _idle(4.0)]))
    ground = _ground(clip)
    span = FPS // 10
    speed = np.linalg.norm(ground[span:] - ground[:-span], axis=-1) * FPS / span
    assert speed[: FPS - span].mean() > 0.6  # it was walking
    assert np.all(speed[3 * FPS :] < 0.3)  # 2 s into the idle, it stands


def test_an_interact_intent_plays_interaction_frames(database: matching.Database) -> None:
    clip = matching.drive(database, np.concatenate([_idle(1.0), _interact(4.0)]))
    played = np.array(clip.meta["database_frames"])[2 * FPS :]
    kinds = np.argmax(database.intents[played, intent.ACTION], axis=-1)
    assert np.mean(kinds == INTERACT) > 0.5


def test_the_drive_is_deterministic(database: matching.Database) -> None:
    a, b = (matching.drive(database, _mixed()) for _ in range(2))
    np.testing.assert_array_equal(a.rotations, b.rotations)
    np.testing.assert_array_equal(a.translations, b.translations)
    assert a.meta == b.meta


def test_inertialization_smooths_the_switches(database: matching.Database) -> None:
    smooth = matching.drive(database, _mixed())
    cut = matching.drive(database, _mixed(), inertialization=False)
    assert smooth.meta["database_frames"] == cut.meta["database_frames"]
    assert len(smooth.meta["switch_frames"]) > 5
    assert _switch_jumps_deg(smooth).max() < MAX_SWITCH_JUMP_DEG
    assert _switch_jumps_deg(cut).max() > _switch_jumps_deg(smooth).max()


def test_the_output_is_a_canonical_clip_from_the_origin(database: matching.Database) -> None:
    intents = _mixed()
    clip = matching.drive(database, intents)
    played = np.array(clip.meta["database_frames"])
    assert clip.num_frames == len(intents) == len(played)
    assert clip.fps == FPS
    assert clip.skeleton.names == canonical.NAMES
    np.testing.assert_allclose(clip.translations[0, 0, [0, 2]], 0.0, atol=1e-12)
    assert state.facing(clip)[0] == pytest.approx(0.0, abs=1e-9)
    assert clip.translations[0, 0, 1] == database.poses.channels[played[0], 0]
    assert database.is_candidate[played].all()  # never a frame without a future


def test_the_database_takes_only_canonical_60_hz_clips(database: matching.Database) -> None:
    wants = _idle(2.0)
    clip = matching.drive(database, wants)
    with pytest.raises(ValueError, match="fps"):
        matching.Database.build([("slow", clip.with_arrays(fps=30.0), wants)])
    with pytest.raises(ValueError, match="intents"):
        matching.Database.build([("short", clip, wants[:-1])])
    with pytest.raises(ValueError, match="candidate"):
        matching.drive(database, wants, start=database.num_frames - 1)
