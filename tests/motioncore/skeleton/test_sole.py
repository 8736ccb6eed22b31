"""Where a foot stands flat (motioncore.skeleton.sole) and retargeting onto the canonical
sole: synthetic rigs whose flat foot is another pitch, and every folder of the corpus
graded by the measures' own planted test (motioncore.measures.feet.planted)."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from motioncore import bvh, fk, quat
from motioncore.clip import Clip
from motioncore.measures import feet as measured_feet
from motioncore.skeleton import canonical, extremities, infer, retarget, sole
from support.corpus import manifest_rows
from support.paths import SHARED_DATA_ABSENT, shared_data_dir

NAMES = canonical.NAMES
CANONICAL_FOOT_DEG = float(np.degrees(np.arctan2(0.06, 0.13)))  # the rest pose's offsets


def _pitch_deg(v: np.ndarray) -> np.ndarray:
    return np.asarray(np.degrees(np.arctan2(-v[..., 1], np.linalg.norm(v[..., [0, 2]], axis=-1))))


def _turns(clip: Clip) -> dict[str, float]:
    """The turns the retarget gave ``clip``'s bones, degrees (its meta)."""
    retargeted: dict[str, dict[str, float]] = clip.meta["retarget"]  # type: ignore[assignment]
    return retargeted["sole_turns_deg"]


def test_the_canonical_sole_is_the_rest_pose() -> None:
    pitches = sole.canonical_pitches()
    for side in ("left", "right"):
        assert np.degrees(pitches[f"{side}_foot"]) == pytest.approx(CANONICAL_FOOT_DEG, abs=1e-9)
        assert pitches[f"{side}_toe"] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("down_deg", [-15.0, 0.0, 10.0])
def test_a_turned_bone_gains_the_turn_in_pitch_about_its_own_side(down_deg: float) -> None:
    heading = np.linspace(0.0, 2.0 * np.pi, 9)
    pitch = np.radians(20.0)
    primary = np.stack(
        [
            np.cos(pitch) * np.sin(heading),
            -np.sin(pitch) * np.ones(9),
            np.cos(pitch) * np.cos(heading),
        ],
        axis=-1,
    )
    up = np.broadcast_to([0.0, 1.0, 0.0], primary.shape)
    out = sole.turned(primary, up, np.radians(down_deg))
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(_pitch_deg(out), 20.0 + down_deg, atol=1e-9)
    # the heading is kept: the turn is about the bone's own side
    np.testing.assert_allclose(
        np.arctan2(out[:, 0], out[:, 2]), np.arctan2(primary[:, 0], primary[:, 2]), atol=1e-9
    )


def test_only_a_resting_ankle_and_ball_are_flat() -> None:
    fps = 60.0
    t = np.arange(120) / fps
    ankle = np.zeros((120, 3))
    ankle[:, 1] = 0.08
    ball = np.zeros((120, 3))
    ball[:, 1] = 0.03
    ball[:, 2] = 0.12
    ankle[60:, 1] += 0.2 * np.sin(np.pi * (t[60:] - 1.0))  # the heel comes up and swings
    ball[90:, 2] += 0.5 * (t[90:] - 1.5)  # the ball slides away half a second later
    flat = sole.flat_frames(ankle, ball, fps)
    assert flat[:58].all() and not flat[62:].any()


def _rig_with_flat_foot(foot_deg: float, frames: int = 60) -> Clip:
    """The canonical skeleton with its balls ``foot_deg`` below the ankles (12.9 cm ahead),
    standing still for ``frames`` frames with every rotation the identity: its soles flat
    (ball and tip level)."""
    skeleton = canonical.skeleton()
    offsets = skeleton.offsets.copy()
    drop = 0.13 * np.tan(np.radians(foot_deg))
    for side in ("Left", "Right"):
        offsets[NAMES.index(f"{side}Toe")] = (0.0, -drop, 0.13)
    rig = dataclasses.replace(skeleton, offsets=offsets)
    translations = np.broadcast_to(offsets, (frames, *offsets.shape)).copy()
    translations[:, 0] = (0.0, 0.9 + drop, 0.0)
    return Clip(rig, quat.identity((frames, rig.num_joints)), translations, 60.0)


@pytest.mark.parametrize("foot_deg", [12.0, 19.0, 29.0])
def test_a_rig_standing_flat_stands_flat_on_the_canonical_sole(foot_deg: float) -> None:
    rig = _rig_with_flat_foot(foot_deg)
    out = retarget.to_canonical(rig)
    turns = _turns(out)
    assert turns["left_foot"] == pytest.approx(CANONICAL_FOOT_DEG - foot_deg, abs=0.01)
    pos = fk.positions(out)
    for side in ("Left", "Right"):
        ankle, ball, tip = (
            pos[:, NAMES.index(n)] for n in (f"{side}Foot", f"{side}Toe", f"{side}Toe_End")
        )
        np.testing.assert_allclose(tip[:, 1], ball[:, 1], atol=1e-6)  # the toes level
        np.testing.assert_allclose(ankle[:, 1] - ball[:, 1], 0.06, atol=1e-6)  # the sole flat
    back = fk.positions(retarget.to_rig(out, rig))
    np.testing.assert_allclose(
        back - back[:, :1], fk.positions(rig) - fk.positions(rig)[:, :1], atol=1e-6
    )


def test_a_rig_never_flat_keeps_its_feet() -> None:
    rig = _rig_with_flat_foot(12.0, frames=10)  # a sixth of a second: too little to read
    out = retarget.to_canonical(rig)
    assert _turns(out) == {}


def test_a_flat_foot_far_from_the_canonical_one_is_not_trusted() -> None:
    out = retarget.to_canonical(_rig_with_flat_foot(CANONICAL_FOOT_DEG + 25.0))
    assert _turns(out) == {}


def _folders() -> list[Any]:
    rows = [
        r
        for r in manifest_rows()
        if r["relative_path"].endswith(".bvh")
        and r["category"].startswith(("locomotion", "interaction", "other (idle)"))
    ]
    if not rows:
        return [pytest.param(None, marks=pytest.mark.skip(reason=SHARED_DATA_ABSENT))]
    by_folder: dict[str, list[Path]] = defaultdict(list)
    for r in rows:
        by_folder[r["relative_path"].split("/")[1]].append(shared_data_dir() / r["relative_path"])
    return [
        pytest.param(paths, id=f, marks=pytest.mark.corpus)
        for f, paths in sorted(by_folder.items())
    ]


FOLDER_MEDIAN_DEG = 1.5
"""How far from the canonical sole's 24.8° the median, over a folder's turned takes, of
each take's planted-foot pitch may be (measured: 23.9-25.2° in every folder of at least
:data:`FOLDER_TAKES` takes)."""
TOE_DEG = 15.0
"""How far from level one turned take's planted toes may be (measured: -5-13°; a rig
without a toe tip, its toe read along the foot, stood on toes 23-40° down)."""
FOLDER_TAKES = 3
"""The takes a folder's median needs (one take's is a take's: :data:`TAKE_DEG`)."""
TAKE_DEG = 7.0
"""How far one turned take's may be (measured: 18.3-28.5°; a planted test that also
holds the heel strikes and push-offs of a walk reads a few degrees either side)."""


@pytest.mark.parametrize("paths", _folders())
def test_every_folder_s_planted_feet_stand_on_the_canonical_sole(paths: list[Path]) -> None:
    """On the canonical skeleton, a retargeted take's planted left foot (the measures'
    planted test: the ankle low and slow) has the ankle-to-ball line at the canonical
    flat pitch and its toes level; a take the retarget did not turn (no flat frames:
    runs, jumps) is not graded. A take's planted test also holds a walk's heel strikes
    and push-offs, which read a few degrees either side, so one take is graded loosely
    and a folder's median closely."""
    turned: list[float] = []
    toes: list[float] = []
    for path in paths:
        clip = extremities.with_hands(bvh.load(path))
        if not infer(clip.skeleton).is_humanoid:
            continue
        out = retarget.to_canonical(clip)
        if "left_foot" not in _turns(out):
            continue
        pos = fk.positions(out)
        ankle, ball = pos[:, NAMES.index("LeftFoot")], pos[:, NAMES.index("LeftToe")]
        planted = measured_feet.planted(ankle, out.fps)
        if planted.sum() < 5:
            continue
        turned.append(float(np.median(_pitch_deg(ball - ankle)[planted])))
        assert abs(turned[-1] - CANONICAL_FOOT_DEG) < TAKE_DEG, path.name
        tip = pos[:, NAMES.index("LeftToe_End")]
        toes.append(float(np.median(_pitch_deg(tip - ball)[planted])))
        assert abs(toes[-1]) < TOE_DEG, path.name
    if not turned:
        pytest.skip("no take of this folder rests its feet flat (or none is a humanoid)")
    if len(turned) >= FOLDER_TAKES:
        assert abs(np.median(turned) - CANONICAL_FOOT_DEG) < FOLDER_MEDIAN_DEG
