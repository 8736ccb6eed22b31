"""Sequences: N clips joined in order by MTP, each join measured, hand-set joins kept
(:mod:`motioncore.transition.sequence`). Real GAMES-105 clips of one skeleton."""

from __future__ import annotations

import pytest

from motioncore import bvh
from motioncore.clip import Clip
from motioncore.errors import MotionCoreError
from motioncore.transition import sequence as seq
from support.paths import SAMPLE_DIR

WALK = SAMPLE_DIR / "games105" / "walk60.bvh"  # 3 s at 60 Hz
RUN = SAMPLE_DIR / "games105" / "run_forward.bvh"  # 0.75 s at 60 Hz


@pytest.fixture(scope="module")
def clips() -> list[Clip]:
    return [bvh.load(RUN), bvh.load(WALK), bvh.load(WALK)]


def test_three_clips_play_in_order_with_every_middle_clip_between_its_joins(
    clips: list[Clip],
) -> None:
    made = seq.sequence(clips)
    assert len(made.joins) == 2 and [s.index for s in made.segments] == [0, 1, 2]
    fps = made.clip.fps
    first, second = made.joins
    # The second join cuts after the first blend ended plus the least play of the walk.
    assert second.cut.frame >= first.result.blend_stop + round(seq.MIN_PLAY_S * fps)
    # Segments tile the output: each starts where the previous join cut.
    for before, after in zip(made.segments, made.segments[1:], strict=False):
        assert after.start == before.start + (before.last - before.first)
    last = made.segments[-1]
    assert made.clip.num_frames == last.start + last.last - last.first + 1
    report = made.as_dict()
    assert report["frames"] == made.clip.num_frames
    assert [(j["from_clip"], j["to_clip"]) for j in report["joins"]] == [(0, 1), (1, 2)]
    assert all(set(j["verdict"]) == {"good", "misses", "limits"} for j in report["joins"])
    # The cut of join 2 is reported in the middle clip's own frames.
    assert report["joins"][1]["cut"]["frame"] == made.segments[1].last
    assert bvh.load(bvh.dump(made.clip).encode()).num_frames == made.clip.num_frames


def test_a_join_set_by_hand_is_kept_and_the_others_are_searched(clips: list[Clip]) -> None:
    searched = seq.sequence(clips)
    cut = searched.segments[0].last - 10
    edited = seq.sequence(clips, edits=[seq.JoinEdit(cut=cut, entry=5), None])
    assert edited.segments[0].last == cut and edited.segments[1].first == 5
    assert edited.joins[0].cut.reason == "set by hand"
    assert edited.as_dict()["joins"][0]["cut"]["frame"] == cut
    assert edited.joins[1].cut.reason != "set by hand"


def test_bad_sequences_are_refused(clips: list[Clip]) -> None:
    with pytest.raises(MotionCoreError, match="2 to 32 clips"):
        seq.sequence(clips[:1])
    with pytest.raises(MotionCoreError, match="have 2 joins"):
        seq.sequence(clips, edits=[None])
    first = seq.sequence(clips[:2])
    entry = first.segments[1].first
    too_early = seq.JoinEdit(cut=entry + 1)
    with pytest.raises(MotionCoreError, match="join 2: cut frame"):
        seq.sequence(clips, edits=[None, too_early])
    with pytest.raises(MotionCoreError, match="entry frame 100000"):
        seq.sequence(clips, edits=[seq.JoinEdit(entry=100_000), None])
    other = bvh.load(SAMPLE_DIR / "cmu-bvh11" / "131_02.bvh")
    with pytest.raises(MotionCoreError, match="skeleton"):
        seq.sequence([clips[0], other])


def test_a_middle_clip_too_short_to_play_after_its_entry_is_left_at_its_end(
    clips: list[Clip],
) -> None:
    run, walk = clips[0], clips[1]
    made = seq.sequence([walk, run, walk])
    second = made.joins[1]
    assert (
        second.cut.frame == made.segments[1].start + made.segments[1].last - made.segments[1].first
    )
    assert second.cut.reason is not None and "no MTP candidate after frame" in second.cut.reason
