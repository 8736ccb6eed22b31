"""Which bones are body parts (motioncore.character.bones): a carrier root's translation
is found whether it stretches (the hips walk away from a carrier on the floor) or not
(a carrier that never moves or turns under hips that sway); a pelvis root pinned in
place that turns is a body part; over the whole corpus, only bones that hang from a
root are ever called translations, and every rig keeps its limbs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, fk
from motioncore.character.bones import translated_bones
from motioncore.character.mannequin import mannequin
from motioncore.clip import Clip, Skeleton
from support.corpus import corpus_bvh_params
from support.three_node import ROOT

SAMPLES = ROOT / "tests" / "data"


def _walk() -> Clip:
    return bvh.load(SAMPLES / "games105" / "walk60.bvh")


def _on_a_carrier(clip: Clip, sway_only: bool) -> Clip:
    """``clip`` hung from a new root on the floor that neither moves nor turns, its old
    root's translation now the child's (all of it, or only the sway about its mean)."""
    sk = clip.skeleton
    offsets = sk.offsets.copy()
    offsets[sk.roots] = clip.translations[0, sk.roots]  # the hips' height at rest: a pole
    skeleton = Skeleton(
        names=("carrier", *sk.names),
        parents=np.concatenate([[-1], np.where(sk.parents >= 0, sk.parents + 1, 0)]),
        offsets=np.concatenate([np.zeros((1, 3)), offsets]),
        channels=(("Xposition", "Yposition", "Zposition"), *sk.channels),
        kinds=("ROOT", *("JOINT" if k == "ROOT" else k for k in sk.kinds)),
    )
    frames = clip.num_frames
    rotations = np.concatenate([np.tile([1.0, 0, 0, 0], (frames, 1, 1)), clip.rotations], axis=1)
    translations = np.concatenate([np.zeros((frames, 1, 3)), clip.translations], axis=1)
    root = int(sk.roots[0]) + 1
    if sway_only:  # the hips stay about where they are: a few centimetres of sway
        moves = translations[:, root] - translations[:, root].mean(axis=0)
        translations[:, root] = (
            translations[:, root].mean(axis=0) + 0.04 * moves / np.abs(moves).max()
        )
    return replace(clip, skeleton=skeleton, rotations=rotations, translations=translations)


def test_a_walking_rig_has_no_translated_bone() -> None:
    assert translated_bones(_walk()) == frozenset()


@pytest.mark.parametrize("sway_only", [False, True], ids=["walks away", "sways"])
def test_a_carrier_roots_bone_is_a_translation(sway_only: bool) -> None:
    clip = _on_a_carrier(_walk(), sway_only)
    hips = clip.skeleton.names.index(_walk().skeleton.names[0])
    assert translated_bones(clip) == {hips}
    with_pole = mannequin(clip.skeleton)
    without = mannequin(clip.skeleton, skip=translated_bones(clip))
    assert len(without.positions) < len(with_pole.positions)  # the pole's limb is gone
    lowest = fk.rest_positions(clip.skeleton.offsets, clip.skeleton.parents)[0, 1]
    assert with_pole.positions[:, 1].min() < lowest  # the pole reaches the carrier


def test_a_pelvis_root_pinned_in_place_that_turns_is_a_body_part() -> None:
    clip = _walk()
    pinned = clip.translations.copy()
    pinned[:, 0] = pinned[0, 0]  # walking in place: the root never moves, only turns
    assert translated_bones(replace(clip, translations=pinned)) == frozenset()


@pytest.mark.parametrize(("path", "row"), corpus_bvh_params())
def test_only_bones_from_a_root_are_ever_translations(path: Path, row: dict[str, str]) -> None:
    clip = bvh.load(path)
    parents = clip.skeleton.parents
    found = translated_bones(clip)
    assert all(parents[parents[j]] < 0 for j in found), sorted(
        clip.skeleton.names[j] for j in found
    )
    # a carrier hangs one body; the body below it keeps all its limbs
    assert len(found) <= len(clip.skeleton.roots)
