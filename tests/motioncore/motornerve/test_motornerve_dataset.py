"""MotorNerve's training data: which corpus files go in (every folder accounted for),
takes, glitches, interaction frames, augmentation, and a user's clips refused with a
reason."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, contacts, fk
from motioncore.clip import Clip
from motioncore.errors import MotionCoreError
from motioncore.motornerve import dataset, evaluate, intent, interaction, state
from motioncore.skeleton import infer
from support.humanoid import chain_skeleton
from support.paths import SAMPLE_DIR


@pytest.fixture(scope="module")
def corpus(shared_data: Path) -> tuple[list[dataset.Source], list[object]]:
    return dataset.corpus_sources(shared_data)  # type: ignore[return-value]


def test_every_corpus_folder_is_accounted_for(shared_data: Path, corpus: tuple) -> None:
    sources, report = corpus
    with (shared_data / "MANIFEST.csv").open(newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["relative_path"].startswith("bvh/")]
    assert sorted(f.path for f in report) == sorted(r["relative_path"] for r in rows)
    assert all(f.reason for f in report)
    folders = {r["relative_path"].split("/")[1] for r in rows}
    used = {s.path.split("/")[1] for s in sources}
    # Non-commercial and copyleft data never trains shipped weights.
    assert "bandai-namco" not in used
    assert not any(s.path.startswith("bvh/makehuman-legacy/") for s in sources)
    # The new permissive folders are in (walks, runs, reaches, pick-ups and idle).
    for folder in ("cmu-3dsmax-jinny42", "cmu-mb-motionviewer", "cmu-daz-przestr", "reactidle"):
        assert folder in used, folder
    left = folders - used
    reasons = {f.path.split("/")[1]: f.reason for f in report if not f.used}
    assert all(reasons[folder] for folder in left)
    minutes = sum(s.clip.duration_s for s in sources) / 60.0
    assert minutes > 30.0  # about 23 min of walking and 9 of idle


def test_interaction_clips_are_tagged_and_reaches_and_pick_ups_are_among_them(
    corpus: tuple,
) -> None:
    sources, _ = corpus
    tagged = {s.path for s in sources if s.interact}
    assert {"bvh/cmu-3dsmax-jinny42/69_68.bvh", "bvh/cmu-iclone/002_06.bvh"} <= tagged
    assert any(p.startswith("bvh/cmu-daz-przestr/13_") for p in tagged)
    assert not any("walk" in p for p in tagged)


def test_two_releases_of_one_take_share_a_take_key() -> None:
    assert dataset.take_of("bvh/cmu-daz-przestr/08_03.bvh") == "cmu:08_03"
    assert dataset.take_of("bvh/cmu-iclone/002_06.bvh") == "cmu:02_06"
    assert dataset.take_of("bvh/cmu-mb-motionviewer/08_03.bvh") == "cmu:08_03"
    assert dataset.take_of("bvh/games105/walk.bvh") == "bvh/games105/walk.bvh"


def test_idle_rigs_without_hands_get_them(corpus: tuple) -> None:
    sources, _ = corpus
    idle = [s for s in sources if s.path.startswith("bvh/reactidle/")]
    assert len(idle) == 6
    assert all(infer(s.clip.skeleton).is_humanoid for s in idle)


def test_a_glitch_cuts_the_sequence_and_smooth_motion_is_kept(shared_data: Path) -> None:
    clip = dataset.prepare(bvh.load(shared_data / "bvh/cmu-3dsmax-jinny42/69_06.bvh"))
    whole = dataset.sequence("walk", clip, False)
    kept = dataset.glitch_free(whole)
    if len(kept) == 1:
        assert kept[0] is whole
    broken = whole.states.copy()
    rotations = state.joint_rotations(broken)
    rotations[300, 7] = (0.0, 1.0, 0.0, 0.0)  # the left forearm flips 180° for a frame
    glitched = dataset.Sequence(
        "walk", state.with_rotations(broken, rotations), whole.intents, whole.contacts
    )
    pieces = dataset.glitch_free(glitched)
    assert len(pieces) >= 2
    assert all(not (p.name.endswith("/0") and len(p.states) > 300) for p in pieces[:1])
    cut = sum(len(p.states) for p in pieces)
    assert len(whole.states) - cut >= 2 * dataset.GLITCH_MARGIN_FRAMES


def test_a_take_that_opens_on_a_rest_pose_starts_after_it(shared_data: Path) -> None:
    # The Daz release of CMU opens on its rest pose: 2,900 °/s from the next frame.
    for path, opens_clean in (("cmu-daz-przestr/10_04", False), ("cmu-3dsmax-jinny42/69_06", True)):
        clip = dataset.prepare(bvh.load(shared_data / f"bvh/{path}.bvh"))
        whole = dataset.sequence(path, clip, False)
        first = dataset.clean_start(whole)
        assert (first == 0) is opens_clean, (path, first)
        assert not dataset.glitched(whole)[first]
        assert first < 10  # a frame or two and the margin, not the take
        evaluated = [r for r in evaluate.held_out(shared_data) if path in r.name]
        for recording in evaluated:
            assert recording.clip.num_frames == clip.num_frames - first


def test_a_pick_up_marks_interaction_frames_with_strength(shared_data: Path) -> None:
    clip = dataset.prepare(bvh.load(shared_data / "bvh/cmu-3dsmax-jinny42/69_68.bvh"))
    recorded = dataset.sequence("pick", clip, True)
    kinds = np.argmax(recorded.intents[:, intent.ACTION], axis=-1)
    interacting = kinds == intent.ACTIONS.index("interact")
    assert 0.05 < interacting.mean() < 0.8
    assert recorded.intents[interacting, intent.STRENGTH].max() > 0.5
    assert np.all(recorded.intents[~interacting, intent.STRENGTH] == 0.0)
    walked = dataset.sequence("walk", clip, False)
    assert not np.any(
        np.argmax(walked.intents[:, intent.ACTION], axis=-1) == intent.ACTIONS.index("interact")
    )
    # Each pick-up is asked for while the body is still upright, with one strength, and
    # the body then goes down: the label leads the motion as a user's key does.
    hips = fk.positions(clip)[:, 0, 1]
    standing = np.percentile(hips, 90.0)
    for start, stop in contacts.segments(interacting):
        assert standing - hips[start] < interaction.ONSET_FRACTION * interaction.HIPS_DROP_M + 0.01
        assert np.ptp(recorded.intents[start:stop, intent.STRENGTH]) == 0.0
        assert standing - hips[start:stop].min() > interaction.HIPS_DROP_M


def test_augmentation_gives_speeds_and_mirrors(shared_data: Path) -> None:
    source = dataset.Source(
        "walk", "walk", False, bvh.load(shared_data / "bvh/cmu-3dsmax-jinny42/69_06.bvh")
    )
    out = dataset.variants(source)
    names = {s.name.split("/")[0] for s in out}
    assert names == {f"walk@{f:g}{m}" for f in dataset.SPEEDS for m in ("", "#mirror")}
    speed = {
        n: np.median(
            np.concatenate(
                [
                    s.intents[:, intent.SPEED]
                    for s in out
                    if s.name.startswith(n + "/") or s.name == n
                ]
            )
        )
        for n in ("walk@0.9", "walk@1.1")
    }
    assert speed["walk@1.1"] / speed["walk@0.9"] == pytest.approx(1.1 / 0.9, rel=0.05)


def test_a_users_clips_are_refused_with_the_reason() -> None:
    walk = bvh.load(SAMPLE_DIR / "games105" / "walk_forward.bvh")
    with pytest.raises(MotionCoreError, match="at least 3 clips"):
        dataset.user_sources({"a": (walk, False), "b": (walk, False)})
    rig = chain_skeleton()
    offsets = np.broadcast_to(rig.offsets, (walk.num_frames, 3, 3)).copy()
    chain = Clip(rig, walk.rotations[:, :3], offsets, walk.fps)
    with pytest.raises(MotionCoreError, match=r"'chain' has no .*foot"):
        dataset.user_sources({"a": (walk, False), "b": (walk, False), "chain": (chain, False)})
    tiny = walk.with_arrays(walk.rotations[:10], walk.translations[:10])
    with pytest.raises(MotionCoreError, match="s of motion"):
        dataset.user_sources({n: (tiny, False) for n in "abc"})
    long = bvh.load(SAMPLE_DIR / "cmu-bvh11" / "131_02.bvh")
    sources = dataset.user_sources({n: (long, n == "c") for n in "abc"})
    assert [(s.take, s.interact) for s in sources] == [("a", False), ("b", False), ("c", True)]
