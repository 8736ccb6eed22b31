"""Joint roles: hand-made rigs, name rules, and the expected roles of every corpus rig."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from motioncore import bvh, skeleton
from motioncore.clip import JointKind, Skeleton
from motioncore.errors import SkeletonError
from motioncore.skeleton.names import classify
from support.corpus import corpus_bvh_params
from support.paths import SAMPLE_DIR

# --------------------------------------------------------------------------- helpers

Vec = tuple[float, float, float]
Rows = list[tuple[str, str | None, Vec]]
Spec = Sequence[tuple[str, str | None, Vec]]


def _make(spec: Spec) -> Skeleton:
    """A skeleton from ``(name, parent name, offset)`` rows; each leaf gets an End Site."""
    names = [n for n, _, _ in spec]
    parents = [-1 if p is None else names.index(p) for _, p, _ in spec]
    offsets = [o for _, _, o in spec]
    kinds: list[JointKind] = ["ROOT" if p < 0 else "JOINT" for p in parents]
    for j in [j for j in range(len(spec)) if j not in parents]:
        names.append(f"{names[j]}_End")
        parents.append(j)
        x, y, z = offsets[j]
        offsets.append((0.5 * x, 0.5 * y, 0.5 * z))
        kinds.append("End Site")
    rot = ("Zrotation", "Xrotation", "Yrotation")
    channels = tuple(
        () if k == "End Site" else (("Xposition", "Yposition", "Zposition", *rot) if p < 0 else rot)
        for k, p in zip(kinds, parents, strict=True)
    )
    return Skeleton(
        names=tuple(names),
        parents=np.array(parents, dtype=np.int64),
        offsets=np.array(offsets, dtype=np.float64),
        channels=channels,
        kinds=tuple(kinds),
    )


def _humanoid(
    names: Mapping[str, str] | None = None, facing: float = 1.0, toes: bool = True
) -> Skeleton:
    """A T-posed humanoid in metres, Y up, facing ``facing`` * +Z (its left is ``facing`` * +X).

    Joints are keyed by role; ``names`` renames them (default: ``j0``, ``j1``, ...).
    """
    f = facing
    rows: Rows = [
        ("hips", None, (0, 1.0, 0)),
        ("spine", "hips", (0, 0.1, 0)),
        ("chest", "spine", (0, 0.2, 0)),
        ("neck", "chest", (0, 0.2, 0)),
        ("head", "neck", (0, 0.1, 0)),
    ]
    for side, s in (("left", f), ("right", -f)):
        rows += [
            (f"{side}_shoulder", "chest", (0.05 * s, 0.15, 0)),
            (f"{side}_upper_arm", f"{side}_shoulder", (0.12 * s, 0, 0)),
            (f"{side}_forearm", f"{side}_upper_arm", (0.28 * s, 0, 0)),
            (f"{side}_hand", f"{side}_forearm", (0.25 * s, 0, 0)),
            (f"{side}_upper_leg", "hips", (0.1 * s, -0.05, 0)),
            (f"{side}_lower_leg", f"{side}_upper_leg", (0, -0.42, 0)),
            (f"{side}_foot", f"{side}_lower_leg", (0, -0.40, 0)),
        ]
        rows += [(f"{side}_toe", f"{side}_foot", (0, -0.05, 0.12 * f))] if toes else []
    keys = [r for r, _, _ in rows]
    rename = dict(names) if names is not None else {k: f"j{i}" for i, k in enumerate(keys)}
    return _make([(rename[r], None if p is None else rename[p], o) for r, p, o in rows])


CMU_NAMES = {
    "hips": "Hips",
    "spine": "Spine",
    "chest": "Spine1",
    "neck": "Neck",
    "head": "Head",
    **{
        f"{side}_{part}": f"{side.title()}{name}"
        for side in ("left", "right")
        for part, name in (
            ("shoulder", "Shoulder"),
            ("upper_arm", "Arm"),
            ("forearm", "ForeArm"),
            ("hand", "Hand"),
            ("upper_leg", "UpLeg"),
            ("lower_leg", "Leg"),
            ("foot", "Foot"),
            ("toe", "ToeBase"),
        )
    },
}


def _humanoid_keys() -> list[str]:
    sk = _humanoid({r: r for r in CMU_NAMES})
    return [n for n in sk.names if not n.endswith("_End")]


def _rows_of(sk: Skeleton) -> Rows:
    """The ``(name, parent, offset)`` rows of ``sk`` without its end sites."""
    return [
        (n, None if p < 0 else sk.names[p], (float(o[0]), float(o[1]), float(o[2])))
        for n, p, o, k in zip(sk.names, sk.parents.tolist(), sk.offsets, sk.kinds, strict=True)
        if k != "End Site"
    ]


def _insert_above(rows: Rows, child: str, name: str, offset: Vec) -> Rows:
    """``rows`` with joint ``name`` inserted between ``child`` and its parent."""
    at = [n for n, _, _ in rows].index(child)
    parent = rows[at][1]
    moved = [(n, name if n == child else p, o) for n, p, o in rows]
    return [*moved[:at], (name, parent, offset), *moved[at:]]


def _roles(sk: Skeleton, **overrides: str) -> dict[str, str]:
    """role -> joint name of ``skeleton.infer``."""
    roles = skeleton.infer(sk, overrides or None)
    return {r: sk.names[j] for r, j in roles.joints.items()}


# --------------------------------------------------------------------------- unit tests


def test_roles_constant_lists_every_role_once_in_report_order() -> None:
    assert skeleton.ROLES[:5] == ("hips", "spine", "chest", "neck", "head")
    assert len(set(skeleton.ROLES)) == len(skeleton.ROLES) == 21
    assert skeleton.ROLES.index("left_hand") < skeleton.ROLES.index("right_shoulder")
    assert skeleton.ROLES[-1] == "right_toe"


def test_named_rig_resolves_every_role_by_name() -> None:
    sk = _humanoid(CMU_NAMES)
    roles = skeleton.infer(sk)
    assert {r: sk.names[j] for r, j in roles.joints.items()} == CMU_NAMES
    assert roles.unresolved == ()
    assert [sk.names[j] for j in roles.spine_chain] == ["Spine", "Spine1"]
    assert roles.how["left_foot"] == "name"
    # "Spine1" names a spine joint; the arms branching there make it the chest
    assert roles.how["chest"] == "topology"
    assert roles.is_humanoid


@pytest.mark.parametrize("facing", [1.0, -1.0])
def test_nameless_rig_is_resolved_by_topology_with_sides_from_the_toes(facing: float) -> None:
    sk = _humanoid(facing=facing)
    expected = {r: f"j{i}" for i, r in enumerate(_humanoid_keys())}
    roles = skeleton.infer(sk)
    assert {r: sk.names[j] for r, j in roles.joints.items()} == expected
    assert set(roles.how.values()) == {"topology"}


def test_nameless_rig_without_toes_assumes_it_faces_plus_z() -> None:
    sk = _humanoid(toes=False)
    roles = _roles(sk)
    keys = [k for k in _humanoid_keys() if not k.endswith("_toe")]
    assert roles["left_foot"] == f"j{keys.index('left_foot')}"
    assert roles["right_hand"] == f"j{keys.index('right_hand')}"
    assert skeleton.infer(sk).unresolved == ("left_toe", "right_toe")


def test_override_wins_and_is_reported() -> None:
    sk = _humanoid(CMU_NAMES)
    roles = skeleton.infer(sk, {"left_foot": "LeftToeBase", "head": "Neck"})
    found = {r: sk.names[j] for r, j in roles.joints.items()}
    assert found["left_foot"] == "LeftToeBase" and found["head"] == "Neck"
    assert roles.how["left_foot"] == roles.how["head"] == "override"
    assert found["left_lower_leg"] == "LeftLeg"  # names still place the rest of the chain
    assert "left_toe" in roles.unresolved  # nothing below the overridden foot
    assert "neck" in roles.unresolved  # nothing between chest and the overridden head
    assert "Head" not in found.values() and roles.how["right_toe"] == "name"


def test_overrides_may_share_a_joint_which_then_takes_no_other_role() -> None:
    sk = _humanoid(CMU_NAMES)
    roles = skeleton.infer(sk, {"left_foot": "LeftFoot", "left_toe": "LeftFoot"})
    assert roles.joints["left_foot"] == roles.joints["left_toe"] == sk.names.index("LeftFoot")
    roles = skeleton.infer(sk, {"left_toe": "LeftFoot"})
    assert "left_foot" in roles.unresolved


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"left_tail": "Hips"}, "unknown joint role"),
        ({"left_foot": "NoSuchJoint"}, "no joint"),
        ({"left_foot": "LeftToeBase_End"}, "end site"),
    ],
)
def test_bad_override_raises_skeleton_error(overrides: dict[str, str], message: str) -> None:
    with pytest.raises(SkeletonError, match=message):
        skeleton.infer(_humanoid(CMU_NAMES), overrides)


def test_override_with_an_ambiguous_name_raises() -> None:
    sk = _make(
        [("Hips", None, (0, 1, 0)), ("Site", "Hips", (0, 1, 0)), ("Site", "Hips", (0, -1, 0))]
    )
    with pytest.raises(SkeletonError, match="2 joints"):
        skeleton.infer(sk, {"head": "Site"})


def test_require_names_every_missing_role_and_get_rejects_unknown_roles() -> None:
    roles = skeleton.infer(_humanoid(CMU_NAMES, toes=False))
    with pytest.raises(SkeletonError, match="left_toe, right_toe"):
        roles.require("hips", "left_toe", "right_toe")
    with pytest.raises(SkeletonError, match="unknown"):
        roles.get("tail")
    assert roles.require("hips", "head") == (0, 4)


def test_as_dict_is_a_json_report() -> None:
    sk = _humanoid(CMU_NAMES, toes=False)
    report = json.loads(json.dumps(skeleton.infer(sk).as_dict(sk.names)))
    assert report["joints"]["left_foot"] == "LeftFoot"
    assert report["unresolved"] == ["left_toe", "right_toe"]
    assert report["spine_chain"] == ["Spine", "Spine1"]
    assert report["how"]["hips"] == "name"
    assert report["is_humanoid"] is True


def test_upper_body_rig_is_not_humanoid_and_keeps_a_named_hips() -> None:
    rows = [(n, p, o) for n, p, o in _rows_of(_humanoid(CMU_NAMES)) if "Leg" not in n]
    rows = [
        r for r in rows if not r[0].startswith(("LeftFoot", "RightFoot", "LeftToe", "RightToe"))
    ]
    roles = skeleton.infer(_make(rows))
    assert not roles.is_humanoid
    assert roles.get("hips") == 0
    assert "left_foot" in roles.unresolved and "right_upper_leg" in roles.unresolved


def test_floor_root_and_leg_only_pelvis_are_not_the_hips() -> None:
    """iClone: RL_BoneRoot (floor) -> CC_Base_Hip -> {CC_Base_Pelvis -> legs, CC_Base_Waist}."""
    rows = _rows_of(_humanoid(CMU_NAMES))
    rows = [("RL_BoneRoot", None, (0.0, 0.0, 0.0))] + [
        (n, "RL_BoneRoot" if p is None else "Pelvis" if "UpLeg" in n else p, o) for n, p, o in rows
    ]
    rows.insert(2, ("Pelvis", "Hips", (0.0, 0.0, 0.0)))
    roles = _roles(_make(rows))
    assert roles["hips"] == "Hips"
    assert roles["left_upper_leg"] == "LeftUpLeg"
    assert "Pelvis" not in roles.values() and "RL_BoneRoot" not in roles.values()


def test_weak_shoulder_is_the_upper_arm_below_a_collar() -> None:
    """CMU 3ds Max / Perfume: LeftCollar -> LeftShoulder -> LeftElbow -> LeftWrist."""
    names = dict(CMU_NAMES)
    for side in ("Left", "Right"):
        low = side.lower()
        names |= {
            f"{low}_shoulder": f"{side}Collar",
            f"{low}_upper_arm": f"{side}Shoulder",
            f"{low}_forearm": f"{side}Elbow",
            f"{low}_hand": f"{side}Wrist",
        }
    assert _roles(_humanoid(names)) == names


def test_a_shoulder_joint_between_clavicle_and_upper_arm_takes_no_role() -> None:
    """MakeHuman: clavicle.L -> shoulder01.L -> upperarm01.L -> upperarm02.L -> lowerarm01.L."""
    names = {r: n for r, n in CMU_NAMES.items() if not r.startswith("left_")}
    names |= {"left_shoulder": "clavicle.L", "left_upper_arm": "upperarm01.L"}
    names |= {"left_forearm": "lowerarm01.L", "left_hand": "wrist.L"}
    names |= {"left_upper_leg": "LeftUpLeg", "left_lower_leg": "LeftLeg"}
    names |= {"left_foot": "LeftFoot", "left_toe": "LeftToeBase"}
    rows = _rows_of(_humanoid(names))
    rows = _insert_above(rows, "upperarm01.L", "shoulder01.L", (0.05, 0.0, 0.0))
    rows = _insert_above(rows, "lowerarm01.L", "upperarm02.L", (0.1, 0.0, 0.0))
    assert _roles(_make(rows)) == names


def _handless_rigify_arms() -> Skeleton:
    """CMU-named body whose arms are Rigify's shoulder/upper_arm/forearm .L/.R, no hands
    (the forearm ends in an End Site at the wrist, as in ReActIdle)."""
    names = dict(CMU_NAMES)
    for side, tag in (("left", "L"), ("right", "R")):
        for part in ("shoulder", "upper_arm", "forearm"):
            names[f"{side}_{part}"] = f"{part}.{tag}"
    rows = _rows_of(_humanoid(names))
    return _make([r for r in rows if r[0] not in ("LeftHand", "RightHand")])


def test_handless_arm_keeps_its_named_chain_and_its_forearm_is_no_hand() -> None:
    sk = _handless_rigify_arms()
    roles = skeleton.infer(sk)
    found = {r: sk.names[j] for r, j in roles.joints.items()}
    for side, tag in (("left", "L"), ("right", "R")):
        assert found[f"{side}_shoulder"] == f"shoulder.{tag}"
        assert found[f"{side}_upper_arm"] == f"upper_arm.{tag}"
        assert found[f"{side}_forearm"] == f"forearm.{tag}"
        assert roles.how[f"{side}_forearm"] == "name"
    assert {"left_hand", "right_hand"} <= set(roles.unresolved)
    assert not roles.is_humanoid
    assert found["hips"] == "Hips" and found["chest"] == "Spine1" and found["head"] == "Head"
    assert found["left_foot"] == "LeftFoot" and found["right_toe"] == "RightToeBase"


def test_handless_arm_with_an_overridden_forearm_still_names_its_upper_joints() -> None:
    roles = _roles(_handless_rigify_arms(), left_forearm="forearm.L")
    assert roles["left_forearm"] == "forearm.L"
    assert roles["left_upper_arm"] == "upper_arm.L" and roles["left_shoulder"] == "shoulder.L"
    assert "left_hand" not in roles


def test_a_footless_leg_keeps_its_named_upper_and_lower_leg() -> None:
    rows = _rows_of(_humanoid(CMU_NAMES))
    sk = _make([r for r in rows if r[0] not in ("LeftFoot", "LeftToeBase")])
    roles = skeleton.infer(sk)
    found = {r: sk.names[j] for r, j in roles.joints.items()}
    assert found["left_upper_leg"] == "LeftUpLeg" and found["left_lower_leg"] == "LeftLeg"
    assert {"left_foot", "left_toe"} <= set(roles.unresolved)
    assert found["hips"] == "Hips" and found["right_foot"] == "RightFoot"
    assert not roles.is_humanoid


def test_twist_bones_are_never_limb_joints() -> None:
    """A twist bone on the chain between upper arm and hand leaves the forearm unresolved."""
    names = dict(CMU_NAMES, left_forearm="LeftForeArmTwist01")
    roles = _roles(_humanoid(names))
    assert "left_forearm" not in roles and "LeftForeArmTwist01" not in roles.values()
    assert roles["left_hand"] == "LeftHand" and roles["left_upper_arm"] == "LeftArm"


def test_infer_does_not_mutate_the_skeleton() -> None:
    sk = _humanoid(CMU_NAMES)
    parents, offsets = sk.parents.copy(), sk.offsets.copy()
    skeleton.infer(sk, {"left_toe": "LeftToeBase"})
    np.testing.assert_array_equal(sk.parents, parents)
    np.testing.assert_array_equal(sk.offsets, offsets)


@given(st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}:", fullmatch=True))
def test_a_namespace_never_changes_the_roles(namespace: str) -> None:
    sk = _humanoid({r: namespace + n for r, n in CMU_NAMES.items()})
    assert {r: n.split(":")[-1] for r, n in _roles(sk).items()} == CMU_NAMES


@pytest.mark.parametrize(
    ("name", "side", "kinds"),
    [
        ("mixamorig:LeftUpLeg", "left", ("upper_leg",)),
        ("Beta:RightToeBase", "right", ("toe",)),
        ("CC_Base_L_Thigh", "left", ("upper_leg",)),
        ("CC_Base_NeckTwist01", None, ("neck",)),
        ("CC_Base_L_UpperarmTwist01", "left", ()),
        ("CC_Base_R_ToeBaseShareBone", "right", ()),
        ("upperleg01.L", "left", ("upper_leg",)),
        ("toe1-1.R", "right", ("toe",)),
        ("__UpLeg_L", "left", ()),
        ("lShldr", "left", ("upper_arm",)),
        ("rToeJoint", "right", ("toe",)),
        ("LHipJoint", "left", ()),
        ("LeftHip", "left", ("upper_leg",)),
        ("LeftShoulder", "left", ("shoulder", "upper_arm")),
        ("RightHandIndex1", "right", ()),
        ("lhand", "left", ("hand",)),
        ("lowerback", None, ("spine",)),
        ("torso_head", None, ("head",)),
        ("joint_Root", None, ()),
        ("Bip01 L Calf", "left", ("lower_leg",)),
        ("mixamorig:HeadTop_End", None, ()),
    ],
)
def test_name_rules(name: str, side: str | None, kinds: tuple[str, ...]) -> None:
    cls = classify(name)
    assert (cls.side, cls.kinds()) == (side, kinds)


# --------------------------------------------------------------------------- corpus table

L, R = ("Left", "Right"), ("L", "R")


def _rig(
    central: Mapping[str, str | None],
    limbs: Mapping[str, str | None],
    sides: tuple[str, str] = L,
    prefix: str = "",
) -> dict[str, str | None]:
    """Expected role -> joint name; ``{S}`` in a limb name is the side tag; None = unresolved."""
    out = {r: None if n is None else prefix + n for r, n in central.items()}
    for side, tag in zip(("left", "right"), sides, strict=True):
        for part, name in limbs.items():
            out[f"{side}_{part}"] = None if name is None else prefix + name.format(S=tag)
    return out


def _words(spec: str, size: int) -> list[str | None]:
    words: list[str | None] = [None if w == "-" else w for w in spec.split()]
    assert len(words) == size, spec
    return words


def _limbs(arm: str, leg: str) -> dict[str, str | None]:
    """Limb names, arm then leg, top to bottom (``-`` = the rig has none)."""
    parts = ("shoulder", "upper_arm", "forearm", "hand", "upper_leg", "lower_leg", "foot", "toe")
    return dict(zip(parts, _words(arm, 4) + _words(leg, 4), strict=True))


def _central(spec: str) -> dict[str, str | None]:
    """Hips, spine, chest, neck and head names (``-`` = the rig has none)."""
    return dict(zip(("hips", "spine", "chest", "neck", "head"), _words(spec, 5), strict=True))


CMU_LIMBS = _limbs("{S}Shoulder {S}Arm {S}ForeArm {S}Hand", "{S}UpLeg {S}Leg {S}Foot {S}ToeBase")
MAX_LIMBS = _limbs("{S}Collar {S}Shoulder {S}Elbow {S}Wrist", "{S}Hip {S}Knee {S}Ankle {S}Toe")

EXPECTED: dict[str, dict[str, str | None]] = {
    # CMU, cgspeed MotionBuilder-friendly release (fairmotion, creativeinquiry -mb,
    # deep-motion-editing, mb-motionviewer)
    "cmu-cgspeed": _rig(_central("Hips LowerBack Spine1 Neck Head"), CMU_LIMBS),
    # CMU, 3ds Max-friendly release (bvh11, 3dsmax-jinny42, 3dsmax-blendercli):
    # Collar/Shoulder/Elbow/Wrist, Hip/Knee/Ankle/Toe
    "cmu-3dsmax": _rig(_central("Hips lowerback Chest2 lowerneck Head"), MAX_LIMBS),
    # CMU, Daz-friendly release (creativeinquiry, makehuman-legacy 02_02, daz-przestr):
    # no toe joints
    "cmu-daz": _rig(
        _central("hip abdomen chest neck head"),
        _limbs("{S}Collar {S}Shldr {S}ForeArm {S}Hand", "{S}Thigh {S}Shin {S}Foot -"),
        ("l", "r"),
    ),
    # CMU with the original ASF bone names (daz-przestr 16_01 and 16_02, unlike the Daz rig
    # of the rest of that folder): the 3ds Max topology, lwrist the wrist with lhand below
    "cmu-asf": _rig(
        _central("hip lowerback thorax lowerneck head"),
        _limbs("{S}clavicle {S}humerus {S}radius {S}wrist", "{S}femur {S}tibia {S}foot {S}toes"),
        ("l", "r"),
    ),
    # iClone CC_Base_ (some files rooted at RL_BoneRoot); twist and ShareBone joints skipped
    "iclone": _rig(
        _central("Hip Waist Spine02 NeckTwist01 Head"),
        _limbs(
            "{S}_Clavicle {S}_Upperarm {S}_Forearm {S}_Hand",
            "{S}_Thigh {S}_Calf {S}_Foot {S}_ToeBase",
        ),
        R,
        prefix="CC_Base_",
    ),
    # Bandai Namco: joint_Root (floor) -> Hips
    "bandai-namco": _rig(
        _central("Hips Spine Chest Neck Head"),
        _limbs(
            "Shoulder_{S} UpperArm_{S} LowerArm_{S} Hand_{S}",
            "UpperLeg_{S} LowerLeg_{S} Foot_{S} Toes_{S}",
        ),
        R,
    ),
    "mixamo": _rig(_central("Hips Spine Spine2 Neck Head"), CMU_LIMBS, prefix="mixamorig:"),
    "mixamo-beta": _rig(_central("Hips Spine Spine2 Neck Head"), CMU_LIMBS, prefix="Beta:"),
    # GAMES-105 / LAFAN-style: the head joint "torso_head" sits on the chest, no neck joint
    "games105": _rig(
        _central("RootJoint pelvis_lowerback lowerback_torso - torso_head"),
        _limbs(
            "{S}Torso_Clavicle {S}Shoulder {S}Elbow {S}Wrist", "{S}Hip {S}Knee {S}Ankle {S}ToeJoint"
        ),
        ("l", "r"),
    ),
    # Perfume (and pybvh bvh_test2, the same rig): Chest..Chest4, 3ds Max-style limbs
    "perfume": _rig(_central("Hips Chest Chest4 Neck Head"), MAX_LIMBS),
    "pybvh-spine3": _rig(_central("Hips Spine Spine3 Neck Head"), CMU_LIMBS),
    "pybvh-fingers": _rig(
        _central("Hips Spine Spine3 Neck Head"), dict(CMU_LIMBS, toe="{S}ForeFoot")
    ),
    # MakeHuman default rig (173 joints with face and toes; face-poseunits uses it too):
    # segmented limbs (upperleg01/02 ...) take their first segment; the big toe is the toe
    "makehuman-default": _rig(
        _central("root spine05 spine01 neck01 head"),
        _limbs(
            "clavicle.{S} upperarm01.{S} lowerarm01.{S} wrist.{S}",
            "upperleg01.{S} lowerleg01.{S} foot.{S} toe1-1.{S}",
        ),
        R,
    ),
    # MakeHuman 75-joint rig: Root -> {Spine1.., Hips -> legs}; the hips are Root
    "makehuman-75": _rig(
        _central("Root Spine1 Spine3 Neck Head"),
        _limbs("Clavicle_{S} UpArm_{S} LoArm_{S} Hand_{S}", "UpLeg_{S} LoLeg_{S} Foot_{S} Toe_{S}"),
        R,
    ),
    # 3ds Max Character Studio export: Chest -> CS_BVH (arms and neck), no toes
    "character-studio": _rig(_central("Hips Chest CS_BVH Neck Head"), dict(MAX_LIMBS, toe=None)),
    # the classic Biovision example: a single torso joint (Chest), no toes
    "biovision": _rig(
        _central("Hips - Chest Neck Head"),
        _limbs("{S}Collar {S}UpArm {S}LowArm {S}Hand", "{S}UpLeg {S}LowLeg {S}Foot -"),
    ),
    # ReActIdle, a Blender/Rigify-style 19-joint rig: pelvis -> spine, spine.001 (arms and
    # neck), neck, face (the head); upper_arm/forearm .L/.R end in End Sites (no hand
    # joints), thigh/shin/foot .L/.R too (no toes); the pelvis.L/.R leaves take no role
    "blender-idle": _rig(
        _central("pelvis spine spine.001 neck face"),
        _limbs("shoulder.{S} upper_arm.{S} forearm.{S} -", "thigh.{S} shin.{S} foot.{S} -"),
        R,
    ),
}

RIG_OF_SOURCE = {
    "bandai-namco": "bandai-namco",
    "bvh-python-20tab": "mixamo",
    "bvh-python-alinen": "mixamo-beta",
    "cmu-3dsmax-blendercli": "cmu-3dsmax",
    "cmu-3dsmax-jinny42": "cmu-3dsmax",
    "cmu-bvh11": "cmu-3dsmax",
    "cmu-creativeinquiry": "cmu-daz",
    "cmu-daz-przestr": "cmu-daz",
    "cmu-fairmotion": "cmu-cgspeed",
    "cmu-iclone": "iclone",
    "cmu-mb-motionviewer": "cmu-cgspeed",
    "cmu-pybvh": "pybvh-spine3",
    "deep-motion-editing": "cmu-cgspeed",
    "games105": "games105",
    "makehuman": "makehuman-default",
    "makehuman-legacy": "cmu-daz",
    "perfume": "perfume",
    "reactidle": "blender-idle",
}
RIG_OF_FILE = {
    "cmu-creativeinquiry/05_20-mb.bvh": "cmu-cgspeed",
    "cmu-daz-przestr/16_01.bvh": "cmu-asf",
    "cmu-daz-przestr/16_02.bvh": "cmu-asf",
    "cmu-pybvh/bvh_test2.bvh": "perfume",
    "cmu-pybvh/bvh_test3.bvh": "pybvh-fingers",
    "games105/motion.bvh": "mixamo",
    "makehuman/walk1.bvh": "makehuman-75",
    "makehuman/dance1.bvh": "makehuman-75",
    "makehuman-legacy/10_01.bvh": "character-studio",
    "makehuman-legacy/example1.bvh": "biovision",
}
NOT_HUMANOID: dict[str, str] = {}
"""relative path -> why it is left out. Empty: every corpus rig is checked,
makehuman/face-poseunits.bvh included (its frames move only the face, but its hierarchy
is the complete 163-joint default rig), and so is ReActIdle, whose rig has no hand joints
and so is not humanoid (its expected roles say so)."""


HUMANOID_ROLES = ("hips", "left_foot", "right_foot", "left_hand", "right_hand")
"""The roles :attr:`JointRoles.is_humanoid` asks for."""


def _rig_of(relative: str) -> str:
    return RIG_OF_FILE.get(relative, RIG_OF_SOURCE.get(relative.split("/")[0], "?"))


def _bvh_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.glob("*/*.bvh"))


def _check_expected_roles(path: Path, relative: str) -> None:
    if relative in NOT_HUMANOID:
        pytest.skip(NOT_HUMANOID[relative])
    expected = EXPECTED[_rig_of(relative)]
    sk = bvh.load(path).skeleton
    roles = skeleton.infer(sk)
    found = {r: sk.names[j] for r, j in roles.joints.items()}
    assert found == {r: n for r, n in expected.items() if n is not None}
    assert set(roles.unresolved) == {r for r, n in expected.items() if n is None}
    assert roles.is_humanoid == all(expected[r] is not None for r in HUMANOID_ROLES)
    if expected["left_toe"] is not None:
        roles.require("left_toe", "right_toe")


@pytest.mark.parametrize(("path", "row"), corpus_bvh_params())
def test_every_corpus_rig_has_its_expected_roles(path: Path, row: dict[str, str]) -> None:
    _check_expected_roles(path, row["relative_path"].removeprefix("bvh/"))


@pytest.mark.parametrize("relative", _bvh_files(SAMPLE_DIR))
def test_every_sample_clip_has_its_expected_roles(relative: str) -> None:
    _check_expected_roles(SAMPLE_DIR / relative, relative)


def test_every_corpus_file_has_an_expected_rig(shared_data: Path) -> None:
    files = _bvh_files(shared_data / "bvh")
    assert len(files) == 237
    assert [f for f in files if _rig_of(f) not in EXPECTED] == []
    assert set(RIG_OF_FILE) <= set(files)
