"""Foot-skate cleanup: lock contacts, solve the legs, blend in and out."""

from __future__ import annotations

import numpy as np

from motioncore import contacts, fk, footskate, quat
from motioncore.clip import Clip, Skeleton
from motioncore.skeleton import JointRoles

FPS = 60.0
NAMES = (
    "Hips", "Spine", "Head",
    "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToe",
    "RightUpLeg", "RightLeg", "RightFoot", "RightToe",
)  # fmt: skip
PARENTS = np.array([-1, 0, 1, 0, 3, 4, 5, 0, 7, 8, 9])
OFFSETS = np.array(
    [
        [0.0, 0.9, 0.0], [0.0, 0.2, 0.0], [0.0, 0.4, 0.0],
        [0.1, 0.0, 0.0], [0.0, -0.42, 0.0], [0.0, -0.42, 0.0], [0.0, -0.06, 0.12],
        [-0.1, 0.0, 0.0], [0.0, -0.42, 0.0], [0.0, -0.42, 0.0], [0.0, -0.06, 0.12],
    ]
)  # fmt: skip
ROLES = JointRoles(
    joints={
        "hips": 0, "spine": 1, "head": 2,
        "left_upper_leg": 3, "left_lower_leg": 4, "left_foot": 5, "left_toe": 6,
        "right_upper_leg": 7, "right_lower_leg": 8, "right_foot": 9, "right_toe": 10,
    },
    spine_chain=(1,),
    unresolved=(),
)  # fmt: skip
LEGS = [4, 5, 6, 8, 9, 10]  # below the upper legs
NON_LEGS = [0, 1, 2, 3, 7]


def _skating_clip(seconds: float = 2.0) -> Clip:
    """Hips gliding forward at 0.05 m/s over rigid, slightly bent legs (both feet skate);
    the left foot steps (lifts and swings) between 0.8 s and 1.3 s."""
    frames = int(seconds * FPS)
    t = np.arange(frames) / FPS
    lift = np.where((t > 0.8) & (t < 1.3), np.sin(np.pi * (t - 0.8) / 0.5), 0.0)
    translations = np.repeat(OFFSETS[None], frames, axis=0)
    translations[:, 0, 2] = 0.05 * t
    rotations = quat.identity((frames, len(NAMES)))
    x = np.array([1.0, 0.0, 0.0])
    rotations[:, 3] = quat.from_axis_angle(x, -0.15 - 0.5 * lift)
    rotations[:, 4] = quat.from_axis_angle(x, 0.3 + 1.0 * lift)
    rotations[:, 5] = quat.from_axis_angle(x, -0.15 - 0.2 * lift)
    rotations[:, 7] = quat.from_axis_angle(x, -0.15)
    rotations[:, 8] = quat.from_axis_angle(x, 0.3)
    rotations[:, 9] = quat.from_axis_angle(x, -0.15)
    rotations[:, 1] = quat.from_axis_angle([0.0, 1.0, 0.0], 0.1 * np.sin(3 * t))
    skeleton = Skeleton(
        names=NAMES,
        parents=PARENTS,
        offsets=OFFSETS,
        channels=(("Xposition", "Yposition", "Zposition", "Xrotation"),) + (("Xrotation",),) * 10,
        kinds=("ROOT",) + ("JOINT",) * 10,
    )
    return Clip(skeleton, rotations, translations, FPS)


def test_skating_feet_are_locked_and_nothing_else_moves() -> None:
    clip = _skating_clip()
    before_arrays = (clip.rotations.copy(), clip.translations.copy())
    found = contacts.detect(clip, ROLES)
    left, right = found.feet
    assert right.contact.all()  # 0.05 m/s < 0.08 m/s: one long skating contact
    assert 2 <= len(contacts.segments(left.contact)) <= 3
    cleaned = footskate.cleanup(clip, found, ROLES, blend_s=0.1)
    np.testing.assert_array_equal(clip.rotations, before_arrays[0])
    np.testing.assert_array_equal(clip.translations, before_arrays[1])
    pos0, pos1 = fk.positions(clip), fk.positions(cleaned)
    for foot in (left, right):
        skate0 = footskate.skate_cm_per_frame(pos0, foot)
        skate1 = footskate.skate_cm_per_frame(pos1, foot)
        np.testing.assert_allclose(skate0, 5.0 / FPS, rtol=0.05)  # 0.05 m/s in cm per frame
        assert skate1 < 0.01 * skate0
    np.testing.assert_array_equal(pos1[:, NON_LEGS], pos0[:, NON_LEGS])
    np.testing.assert_array_equal(
        cleaned.rotations[:, [0, 1, 2, 6, 10]], clip.rotations[:, [0, 1, 2, 6, 10]]
    )


def test_planted_feet_keep_their_world_orientation_and_the_legs_stay_smooth() -> None:
    clip = _skating_clip()
    found = contacts.detect(clip, ROLES)
    cleaned = footskate.cleanup(clip, found, ROLES, blend_s=0.1)
    rot0, pos0 = fk.forward(clip.rotations, clip.translations, PARENTS)
    rot1, pos1 = fk.forward(cleaned.rotations, cleaned.translations, PARENTS)
    for foot in found.feet:
        turned = quat.angle_between(rot0[:, foot.foot], rot1[:, foot.foot])
        np.testing.assert_allclose(turned[foot.contact], 0.0, atol=1e-6)
        assert np.max(turned) < 0.05
        # Blending in and out adds no jump bigger than what the step itself has.
        jump0 = np.linalg.norm(np.diff(pos0[:, foot.foot], axis=0), axis=-1).max()
        jump1 = np.linalg.norm(np.diff(pos1[:, foot.foot], axis=0), axis=-1).max()
        assert jump1 < jump0 + 0.01
        # The correction fades in and out over the blend instead of snapping.
        correction = np.linalg.norm(pos1[:, foot.foot] - pos0[:, foot.foot], axis=-1)
        assert np.max(np.abs(np.diff(correction))) < 0.35 * np.max(correction)
    lengths = np.linalg.norm(pos1[:, LEGS] - pos1[:, PARENTS[LEGS]], axis=-1)
    np.testing.assert_allclose(
        lengths, np.linalg.norm(OFFSETS[LEGS], axis=-1)[None].repeat(len(pos1), 0)
    )


def test_a_heel_off_locks_the_toe_where_the_ankle_lock_put_it() -> None:
    clip = _skating_clip()
    found = contacts.detect(clip, ROLES)
    right = found.feet[1]
    heel_off = np.arange(clip.num_frames) >= 90  # the right heel lifts for the last half second
    ankle_only = contacts.FootContacts("right", right.foot, right.toe, right.contact, ~heel_off)
    tweaked = contacts.Contacts((found.feet[0], ankle_only), found.stance_heights_m)
    assert np.array_equal(footskate.planted_joint(ankle_only)[[0, 89, 90, -1]], [9, 9, 10, 10])
    pos1 = fk.positions(footskate.cleanup(clip, tweaked, ROLES))
    np.testing.assert_allclose(pos1[:90, 9, [0, 2]], pos1[:1, 9, [0, 2]].repeat(90, 0), atol=1e-9)
    np.testing.assert_allclose(
        pos1[89:, 10, [0, 2]], pos1[89:90, 10, [0, 2]].repeat(31, 0), atol=1e-9
    )


def test_no_contacts_means_no_change() -> None:
    clip = _skating_clip()
    none = contacts.Contacts((), {})
    np.testing.assert_array_equal(footskate.cleanup(clip, none, ROLES).rotations, clip.rotations)
    found = contacts.detect(clip, ROLES)
    assert np.isnan(
        footskate.skate_cm_per_frame(fk.positions(clip), _without_contacts(found.feet[0]))
    )


def _without_contacts(foot: contacts.FootContacts) -> contacts.FootContacts:
    empty = np.zeros_like(foot.contact)
    return contacts.FootContacts(foot.side, foot.foot, foot.toe, empty, empty)
