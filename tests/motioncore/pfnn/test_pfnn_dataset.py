"""PFNN training data (motioncore.pfnn.dataset): the licence rule, canonical 60 Hz
clips, mirrors, the gait phase and the feature layout, on shipped sample walks."""

from __future__ import annotations

import numpy as np
import pytest

from motioncore import bvh, fk
from motioncore.clip import Clip
from motioncore.pfnn import dataset as data
from motioncore.skeleton import canonical
from support.corpus import manifest_rows
from support.paths import SAMPLE_DIR, shared_data_dir

WALK = SAMPLE_DIR / "games105" / "walk60.bvh"
TRAJ = data.POSE_SIZE + 2  # where the trajectory block starts in the inputs


@pytest.fixture(scope="module")
def walk() -> tuple[Clip, data.Gait]:
    clip = data.prepare(bvh.load(WALK))
    return clip, data.gait_of(clip)


@pytest.mark.parametrize(
    ("row", "allowed"),
    [
        ({"license_flags": "NON-COMMERCIAL", "license": "CC BY-NC 4.0"}, False),
        ({"license_flags": "copyleft", "license": "AGPL-3.0"}, False),
        ({"license_flags": "", "license": "BSD-3-Clause (repository LICENSE)"}, True),
        ({"license_flags": "", "license": "CC0 1.0"}, True),
        (
            {
                "license_flags": "upstream-license-only",
                "license": "CMU terms: free for research and commercial use; not resold",
            },
            True,
        ),
        ({"license_flags": "upstream-license-only", "license": "ask the author"}, False),
        ({"license_flags": "", "license": "all rights reserved"}, False),
    ],
)
def test_only_licences_that_allow_shipping_weights_pass(row: dict[str, str], allowed: bool) -> None:
    ok, reason = data.licence_allows_shipping(row)
    assert ok is allowed and reason


def test_no_bandai_namco_clip_can_train_shipped_weights() -> None:
    if not shared_data_dir().is_dir():
        pytest.skip("../shared/data is absent")
    rows = [r for r in manifest_rows() if "bandai-namco" in r["relative_path"]]
    assert rows and not any(data.licence_allows_shipping(r)[0] for r in rows)


def test_prepared_clips_are_canonical_at_60_hz_on_the_ground(
    walk: tuple[Clip, data.Gait],
) -> None:
    clip, _ = walk
    assert clip.skeleton.names == canonical.NAMES and clip.fps == data.FPS
    toes = [canonical.JOINT_OF_ROLE["left_toe"], canonical.JOINT_OF_ROLE["right_toe"]]
    assert float(np.percentile(fk.positions(clip)[:, toes, 1], 2.0)) == pytest.approx(0.0)


def test_a_mirror_reflects_the_body_and_swaps_the_feet(walk: tuple[Clip, data.Gait]) -> None:
    clip, walked = walk
    mirrored = data.mirror(clip)
    reflected = fk.positions(mirrored)[:, list(data._MIRROR)] * np.array([-1.0, 1.0, 1.0])
    np.testing.assert_allclose(reflected, fk.positions(clip), atol=1e-9)
    np.testing.assert_allclose(fk.positions(data.mirror(mirrored)), fk.positions(clip), atol=1e-9)
    np.testing.assert_array_equal(data.gait_of(mirrored).contacts, walked.contacts[:, ::-1])


def test_features_have_the_documented_layout(walk: tuple[Clip, data.Gait]) -> None:
    clip, walked = walk
    inputs, outputs, phase = data.features(clip, walked)
    assert inputs.shape[1] == data.INPUT_SIZE == 124 and outputs.shape[1] == data.OUTPUT_SIZE == 133
    assert len(inputs) == len(outputs) == len(phase) > 60
    assert np.isfinite(inputs).all() and np.isfinite(outputs).all()
    assert np.all((phase >= 0.0) & (phase < 2.0 * np.pi))
    now = TRAJ + 4 * data.TRAJECTORY_OFFSETS.index(0)
    np.testing.assert_allclose(inputs[:, now : now + 2], 0.0, atol=1e-12)  # root at the origin
    np.testing.assert_allclose(inputs[:, now + 2 : now + 4], [[0.0, 1.0]] * len(inputs), atol=1e-12)
    # Walking forwards: the future samples lie ahead (+Z), the past ones behind.
    ahead = TRAJ + 4 * (len(data.TRAJECTORY_OFFSETS) - 1) + 1
    behind = TRAJ + 1
    assert np.median(inputs[:, ahead]) > 0.4 and np.median(inputs[:, behind]) < -0.8
    # The residual and the absolute next pose agree.
    np.testing.assert_allclose(
        outputs[:, : data.POSE_SIZE] + inputs[:, : data.POSE_SIZE],
        outputs[:, data.POSE_SIZE : 2 * data.POSE_SIZE],
        atol=1e-12,
    )
    # The phase advances by a step a walk takes (about 2π per second-ish cycle at 60 Hz).
    step = outputs[:, 2 * data.POSE_SIZE + 3]
    assert 0.02 < float(np.median(step)) < 0.3
    # sin/cos φ are the phase's.
    sin_cos = inputs[:, TRAJ + 4 * len(data.TRAJECTORY_OFFSETS) + len(data.TERRAIN_RING) :][:, :2]
    np.testing.assert_allclose(sin_cos, np.stack([np.sin(phase), np.cos(phase)], -1), atol=1e-12)


def test_splits_are_by_clip_deterministic_and_never_empty() -> None:
    clips = [f"bvh/set/clip_{i:02d}.bvh" for i in range(25)]
    splits = data.assign_splits(clips)
    assert splits == data.assign_splits(list(reversed(clips)))  # order does not matter
    counts = {s: sum(1 for v in splits.values() if v == s) for s in data.SPLITS}
    assert counts == {"train": 19, "validation": 3, "test": 3}
    assert set(data.assign_splits(clips[:3]).values()) == set(data.SPLITS)


def test_a_dataset_of_real_walks_holds_out_whole_clips_and_saves(tmp_path: object) -> None:
    # Two shipped walks long enough for a 1.5 s trajectory window, under four names (CMU
    # 131_02's Michael Jackson glide slides on its toes: no strike, no phase, no sample).
    walk60, xia = (
        bvh.load(WALK),
        bvh.load(SAMPLE_DIR / "deep-motion-editing" / "xia_angry_13_000.bvh"),
    )
    built = data.build({"a": walk60, "b": xia, "c": walk60, "d": xia})
    assert set(built.split) == set(data.SPLITS)
    for i, name in enumerate(built.clips):  # a mirror is in its clip's split
        original = built.clips.index(name.removesuffix("#mirror"))
        assert built.split[i] == built.split[original]
    train = built.rows("train")
    assert 0 < train.sum() < len(train)
    np.testing.assert_allclose(built.input_mean, built.inputs[train].mean(axis=0))
    terrain = slice(TRAJ + 4 * len(data.TRAJECTORY_OFFSETS), None)
    assert np.all(built.input_std[terrain][: len(data.TERRAIN_RING)] == 1.0)  # flat: constant
    path = f"{tmp_path}/walks.npz"
    built.save(path)
    again = data.Dataset.load(path)
    assert again.clips == built.clips and again.split == built.split
    np.testing.assert_array_equal(again.inputs, built.inputs)
