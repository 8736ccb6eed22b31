"""The canonical skeleton and retargeting onto it and back (motioncore.skeleton.canonical,
motioncore.skeleton.retarget), on the shipped samples and on every humanoid of the corpus."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, fk, quat
from motioncore.clip import Clip
from motioncore.errors import SkeletonError
from motioncore.skeleton import ROLES, canonical, infer, landmarks, retarget
from support.corpus import corpus_bvh_params
from support.paths import SAMPLE_DIR

SAMPLES = [
    SAMPLE_DIR / "games105" / "walk60.bvh",
    SAMPLE_DIR / "cmu-bvh11" / "131_02.bvh",
    SAMPLE_DIR / "deep-motion-editing" / "xia_angry_13_000.bvh",
    SAMPLE_DIR / "makehuman" / "walk1.bvh",
]


def _landmarks(clip: Clip) -> dict[str, np.ndarray]:
    positions = fk.positions(clip)
    return landmarks.landmarks(landmarks.Rig.of(clip.skeleton, positions[0]), positions)


def _angles_deg(a: dict[str, np.ndarray], b: dict[str, np.ndarray], role: str) -> np.ndarray:
    """``[F]`` the angle between the two motions' bone ``role`` (to the landmark it
    points at), degrees."""
    toward = retarget.SEGMENTS[role][0]
    u = a[toward] - a[role]
    v = b[toward] - b[role]
    cos = np.sum(u * v, axis=-1) / (np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1))
    return np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


def _direction_error_deg(
    a: dict[str, np.ndarray], b: dict[str, np.ndarray], turns_deg: dict[str, float]
) -> float:
    """Largest angle, over frames, between the two motions' bones (every solved role to
    the landmark it points at) less the turn the retarget gave the role (the feet and
    toes: ``turns_deg``, from the output's meta)."""
    worst = 0.0
    for role, (toward, _) in retarget.SEGMENTS.items():
        if toward not in a:
            continue
        error = np.abs(_angles_deg(a, b, role) - abs(turns_deg.get(role, 0.0)))
        worst = max(worst, float(error.max()))
    return worst


def _turns(clip: Clip) -> dict[str, float]:
    retargeted: dict[str, dict[str, float]] = clip.meta["retarget"]  # type: ignore[assignment]
    return retargeted["sole_turns_deg"]


def test_the_canonical_skeleton_has_every_role_by_name_and_stands_on_the_ground() -> None:
    skeleton = canonical.skeleton()
    assert skeleton.num_joints == 26 and int(skeleton.end_site.sum()) == 5
    found = canonical.roles()
    assert found.unresolved == () and set(found.joints) == set(ROLES)
    assert {role: skeleton.names[j] for role, j in found.joints.items()} == {
        role: name for name, role in canonical.ROLE_OF.items()
    }
    rest = canonical.rest_positions()
    assert rest[canonical.NAMES.index("LeftToe_End"), 1] == pytest.approx(0.0)
    assert rest[canonical.NAMES.index("Head_End"), 1] == pytest.approx(1.75)
    left, right = rest[canonical.NAMES.index("LeftHand")], rest[canonical.NAMES.index("RightHand")]
    assert left[0] > 0.5 and right[0] == pytest.approx(-left[0])  # T-pose, left is +X


def test_a_canonical_clip_comes_back_unchanged() -> None:
    source = retarget.to_canonical(bvh.load(SAMPLES[0]))
    again = retarget.to_canonical(source)
    assert again.meta["retarget"]["scale"] == pytest.approx(1.0)
    np.testing.assert_allclose(fk.positions(again), fk.positions(source), atol=1e-4)  # 0.1 mm


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_retargeting_keeps_every_bone_direction_and_comes_back(path: Path) -> None:
    clip = bvh.load(path)
    out = retarget.to_canonical(clip)
    assert out.skeleton.names == canonical.NAMES and out.num_frames == clip.num_frames
    assert out.fps == clip.fps
    source, moved = _landmarks(clip), _landmarks(out)
    assert _direction_error_deg(source, moved, _turns(out)) < 0.01
    # Bones are rigid: the canonical lengths on every frame.
    pos = fk.positions(out)
    bone = np.linalg.norm(pos[:, 1:] - pos[:, canonical.skeleton().parents[1:]], axis=-1)
    np.testing.assert_allclose(bone, bone[:1].repeat(len(bone), axis=0), atol=1e-9)
    # Strides scale with the legs: the hips travel (scale × the source's) metres.
    scale = out.meta["retarget"]["scale"]
    np.testing.assert_allclose(moved["hips"], source["hips"] * scale, atol=1e-9)

    back = retarget.to_rig(out, clip)
    assert back.skeleton is clip.skeleton
    returned = _landmarks(back)
    for role in landmarks.LANDMARKS:
        rel = (returned[role] - returned["hips"]) - (source[role] - source["hips"])
        assert np.linalg.norm(rel, axis=-1).max() < 0.02, role  # within 2 cm of the source
    np.testing.assert_allclose(returned["hips"], source["hips"], atol=1e-9)


def _standing_rig(upper_leg: tuple[float, float, float], knee: tuple[float, float, float]) -> Clip:
    """A canonical-like rig standing in its rest pose (one frame, identity rotations):
    the hip joints at ``upper_leg`` from the hips (x for the left, mirrored), each knee
    at ``knee`` from the hip joint (x outwards), the ankle straight below the hip."""
    skeleton = canonical.skeleton()
    offsets = skeleton.offsets.copy()
    names = skeleton.names
    for side, sign in (("Left", 1.0), ("Right", -1.0)):
        offsets[names.index(f"{side}UpLeg")] = (sign * upper_leg[0], upper_leg[1], upper_leg[2])
        kx, ky, kz = knee
        offsets[names.index(f"{side}Leg")] = (sign * kx, ky, kz)
        offsets[names.index(f"{side}Foot")] = (-sign * kx, -0.84 - ky, -kz)
    rig = dataclasses.replace(skeleton, offsets=offsets)
    translations = offsets[None].copy()
    translations[0, 0] = (0.0, 1.0, 0.0)
    return Clip(rig, quat.identity((1, rig.num_joints)), translations, 60.0)


def _tilt_deg(q: np.ndarray, axis: tuple[float, float, float]) -> float:
    """How far the unit quaternion ``q [4]`` turns ``axis`` from itself, degrees."""
    v = np.asarray(axis, dtype=np.float64)
    return float(np.degrees(np.arccos(np.clip(quat.rotate(q, v) @ v, -1.0, 1.0))))


def _twist_deg(q: np.ndarray, axis: tuple[float, float, float]) -> float:
    """The magnitude of the twist of ``q [4]`` about the unit ``axis``, degrees."""
    along = float(np.asarray(q[1:]) @ np.asarray(axis))
    return float(np.degrees(2.0 * np.arctan2(abs(along), abs(float(q[0])))))


def test_a_rig_whose_hips_joint_sits_below_its_hip_joints_keeps_the_pelvis_up() -> None:
    # The Daz release of CMU: the root 2.6 cm under the buttock joints that carry the
    # legs; the pelvis's own geometry then points down, and it was turned over (the
    # canonical pelvis 131° from upright, the spine and thighs bent back to make up).
    out = retarget.to_canonical(_standing_rig((0.09, 0.026, 0.0), (0.0, -0.42, 0.0)))
    hips, spine = out.rotations[0, 0], out.rotations[0, canonical.NAMES.index("Spine")]
    assert _tilt_deg(hips, (0.0, 1.0, 0.0)) < 5.0
    assert _tilt_deg(spine, (0.0, 1.0, 0.0)) < 5.0
    for side in ("Left", "Right"):
        assert _tilt_deg(out.rotations[0, canonical.NAMES.index(f"{side}UpLeg")], (0, -1, 0)) < 5


@pytest.mark.parametrize("inwards_m", [-0.02, 0.0, 0.02])
def test_a_locked_knee_behind_its_leg_does_not_twist_the_thigh(inwards_m: float) -> None:
    # ReActIdle's standing performers: the knee 3 cm behind the hip-ankle line and a
    # little to the side; the part behind cancelled the foot's forward and left the
    # thigh's twist to the sideways wobble (up to 100° over a take).
    out = retarget.to_canonical(_standing_rig((0.09, -0.05, 0.0), (-inwards_m, -0.42, -0.03)))
    for side in ("Left", "Right"):
        thigh = out.rotations[0, canonical.NAMES.index(f"{side}UpLeg")]
        assert _twist_deg(thigh, (0.0, -1.0, 0.0)) < 45.0, side


def test_a_rig_without_legs_is_refused_with_the_missing_roles() -> None:
    clip = bvh.load(SAMPLES[0])
    roles = infer(clip.skeleton)
    legless = type(roles)(
        {r: j for r, j in roles.joints.items() if "leg" not in r},
        roles.spine_chain,
        roles.unresolved,
    )
    with pytest.raises(SkeletonError, match="left_upper_leg"):
        retarget.to_canonical(clip, legless)
    with pytest.raises(SkeletonError, match="canonical skeleton"):
        retarget.to_rig(clip, clip)


@pytest.mark.parametrize(
    ("path", "row"),
    corpus_bvh_params(lambda row: row["category"].startswith("locomotion")),
)
def test_every_corpus_locomotion_clip_retargets_exactly(path: Path, row: dict[str, str]) -> None:
    clip = bvh.load(path)
    if not infer(clip.skeleton).is_humanoid:
        pytest.skip(f"{row['relative_path']}: not a complete humanoid")
    out = retarget.to_canonical(clip)
    assert _direction_error_deg(_landmarks(clip), _landmarks(out), _turns(out)) < 0.01
    rotations = out.rotations.reshape(-1, 4)
    assert np.all(np.isfinite(rotations))
    np.testing.assert_allclose(np.linalg.norm(rotations, axis=-1), 1.0, atol=1e-9)
    assert quat.to_rotvec(out.rotations).shape == (
        clip.num_frames,
        canonical.skeleton().num_joints,
        3,
    )


PELVIS_UPRIGHT_DEG = 45.0
"""A retargeted pelvis's median tilt from upright over a clip, at most (the corpus's
walks and stands: 4-23°; the Daz release's pelvis turned over read 131°)."""
THIGH_TWIST_DEG = 45.0
"""A retargeted thigh's median twist about itself over a clip, at most (at most 22°; a
locked knee's sideways wobble read up to 98°)."""


@pytest.mark.parametrize(
    ("path", "row"),
    corpus_bvh_params(
        lambda row: row["category"].startswith(("locomotion", "interaction", "other (idle)"))
    ),
)
def test_a_retargeted_walk_or_stand_keeps_its_pelvis_up_and_its_thighs_untwisted(
    path: Path, row: dict[str, str]
) -> None:
    clip = bvh.load(path)
    if not infer(clip.skeleton).is_humanoid:
        pytest.skip(f"{row['relative_path']}: not a complete humanoid")
    out = retarget.to_canonical(clip)
    up = quat.rotate(out.rotations[:, 0], np.array([0.0, 1.0, 0.0]))
    tilt = np.degrees(np.arccos(np.clip(up[:, 1], -1.0, 1.0)))
    assert np.median(tilt) < PELVIS_UPRIGHT_DEG
    for side in ("Left", "Right"):
        thigh = out.rotations[:, canonical.NAMES.index(f"{side}UpLeg")]
        twist = [_twist_deg(q, (0.0, -1.0, 0.0)) for q in thigh]
        assert np.median(twist) < THIGH_TWIST_DEG, side
