"""The evaluation of a controller (motioncore.motornerve.evaluate): a player that
answers its commands (the motion-matching baseline over a few real clips) against one
that ignores them (a recording replayed whatever it is told), on short scripted
streams. What it grades comes from motioncore.measures; here, that the evaluation
tells the two apart."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, quat
from motioncore.clip import Clip
from motioncore.motornerve import dataset, evaluate, network, state, streams
from motioncore.skeleton import extremities

CLIPS = (
    ("bvh/cmu-3dsmax-jinny42/69_01.bvh", False),  # walk forward
    ("bvh/cmu-3dsmax-jinny42/69_06.bvh", False),  # walk and turn
    ("bvh/reactidle/000_genuine.bvh", False),  # standing idle
    ("bvh/cmu-3dsmax-jinny42/69_68.bvh", True),  # walk, pick up, set down
)


@pytest.fixture(scope="module")
def recordings(shared_data: Path) -> list[evaluate.Recording]:
    out = []
    for path, interact in CLIPS:
        clip = dataset.prepare(extremities.with_hands(bvh.load(shared_data / path)))
        recorded = dataset.sequence(path, clip, interact)
        out.append(evaluate.Recording(path, clip, recorded.intents, state.facing(clip)))
    return out


def _deaf(recording: evaluate.Recording) -> evaluate.Player:
    """Replays the idle recording from its start whatever the commands (looped)."""

    def play(commands: np.ndarray, opening: Clip | None) -> Clip:
        clip = recording.clip
        frames = np.arange(len(commands)) % clip.num_frames
        return clip.with_arrays(clip.rotations[frames], clip.translations[frames])

    return play


def test_a_player_that_answers_reacts_and_one_that_does_not_never_does(
    recordings: list[evaluate.Recording],
) -> None:
    scripted = [streams.stop_go(), streams.interactions(3)]
    reference = [r.clip.rotations for r in recordings]
    answering = evaluate.evaluate(evaluate.matching_player(recordings), scripted, reference)
    deaf = evaluate.evaluate(_deaf(recordings[2]), scripted, reference)

    heard = answering.summary
    assert heard["reaction_frames_median"] is not None
    assert heard["reaction_frames_median"] < 30  # half a second at 60 Hz
    assert deaf.summary["reaction_frames_median"] == float("inf")
    assert deaf.summary["interactions_answered"] == 0
    assert deaf.summary["interactions"] == heard["interactions"] == 3
    # the idle replay stays where it stands; matching walks at about the commanded speed
    go = answering.streams[0]
    assert go.mean_speed_mps > 0.4
    assert deaf.streams[0].mean_speed_mps < 0.2
    assert answering.as_dict()["targets"] == evaluate.TARGETS


def test_a_held_out_play_continues_from_the_recordings_own_first_frame(
    recordings: list[evaluate.Recording],
) -> None:
    """Both players, given a recording's opening, play on from its last pose: MotorNerve
    with the opening as its history (the network's own frame, before the foot lock bends
    its legs), the baseline on the database frame nearest it (here the very frame: the
    recording is in its database). The held-out mocap compared is what follows."""
    stream = evaluate.recording_streams(recordings[2:3])[0]
    opening = stream.opening
    assert opening is not None and opening.num_frames == evaluate.OPENING_FRAMES
    commands = stream.commands[:30]
    weights = network.random_weights(network.Shape(channels=16, gru=8), seed=3)
    raw = evaluate.motornerve_player(weights, lock_feet=False)
    for player in (evaluate.matching_player(recordings), raw):
        first = player(commands, opening).rotations[0]
        apart = quat.angle_between(first[1:], opening.rotations[-1, 1:])  # below the hips
        assert np.degrees(apart).max() < 0.01
    baseline = evaluate.matching_player(recordings)
    assert not np.allclose(baseline(commands, None).rotations[0], opening.rotations[-1])
    last = evaluate.OPENING_FRAMES - 1
    followed = evaluate.reference(recordings[2:3])[0]
    np.testing.assert_array_equal(followed, recordings[2].clip.rotations[last:])
    assert len(stream.commands) == len(followed)


def test_one_recorded_take_reads_far_from_the_others_and_a_copy_of_them_does_not(
    recordings: list[evaluate.Recording],
) -> None:
    """The scale a single stream's KL is read on: a take against the other takes (leave
    one out) reads far more than 0.5, two copies of one take read nothing, and each
    stream's own KL is kept beside the pooled one."""
    reference = [r.clip.rotations for r in recordings]
    takes = evaluate.mocap_take_kl(reference)
    assert len(takes) == len(reference)
    assert min(takes) > evaluate.TARGETS["rotation_kl"]
    same = evaluate.mocap_take_kl([reference[0], reference[0]])
    assert same == pytest.approx((0.0, 0.0), abs=1e-12)
    assert evaluate.mocap_take_kl(reference[:1]) == ()

    played = evaluate.evaluate(_deaf(recordings[2]), [streams.stop_go()], reference)
    own = played.streams[0].rotation_kl
    assert own is not None and own == pytest.approx(played.rotation_kl)  # one stream: the pool
    assert played.summary["mocap_take_rotation_kl_median"] == pytest.approx(np.median(takes))


def test_the_recorded_takes_are_measured_as_a_play_is(
    recordings: list[evaluate.Recording],
) -> None:
    """The held-out takes themselves, after their openings, graded like a play (what the
    targets read on recorded motion): a walk made to skate (its whole body drifting
    aside at 0.5 m/s) reads it, the walk itself does not."""
    walk = recordings[0]
    drift = np.zeros_like(walk.clip.translations)
    drift[:, 0, 0] = 0.5 * np.arange(walk.clip.num_frames) / walk.clip.fps
    skating = evaluate.Recording(
        "skating",
        walk.clip.with_arrays(walk.clip.rotations, walk.clip.translations + drift),
        walk.intents,
        walk.facing,
    )
    found = evaluate.recorded([walk, skating])
    streams_found = found["streams"]
    assert isinstance(streams_found, list) and len(streams_found) == 2
    clean, skated = (s["foot_skate_per_step_m"] for s in streams_found)
    assert clean < evaluate.TARGETS["foot_skate_per_step_m"] < skated
    summary = found["summary"]
    assert isinstance(summary, dict)
    assert summary["foot_skate_per_step_m"] == skated
    assert summary["takes_within_skate_target"] == 1 and summary["takes"] == 2
    assert streams_found[0]["rotation_kl"] == pytest.approx(
        evaluate.mocap_take_kl(evaluate.reference([walk, skating]))[0]
    )
