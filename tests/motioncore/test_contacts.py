"""Foot contacts from foot/toe speed and height, closed over short gaps."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from motioncore import contacts, quat
from motioncore.clip import Clip, Skeleton
from motioncore.skeleton import JointRoles

FPS = 60.0
# hips, then per side: foot, toe (positions are given directly, not by FK).
ROLES = JointRoles(
    joints={"hips": 0, "left_foot": 1, "left_toe": 2, "right_foot": 3, "right_toe": 4},
    spine_chain=(),
    unresolved=(),
)


def _clip(frames: int) -> Clip:
    skeleton = Skeleton(
        names=("Hips", "LeftFoot", "LeftToe", "RightFoot", "RightToe"),
        parents=np.array([-1, 0, 1, 0, 3]),
        offsets=np.zeros((5, 3)),
        channels=(("Xposition",),) + ((),) * 4,
        kinds=("ROOT", "JOINT", "JOINT", "JOINT", "JOINT"),
    )
    return Clip(skeleton, quat.identity((frames, 5)), np.zeros((frames, 5, 3)), FPS)


def _gait(frames: int = 240) -> tuple[np.ndarray, np.ndarray]:
    """World positions ``[F, 5, 3]`` of a stepping pattern and the true left stance ``[F]``."""
    t = np.arange(frames) / FPS
    phase = (t % 1.0) < 0.6  # 1 s cycle, 60 % stance, left foot
    swing = np.where(phase, 0.0, np.sin(np.pi * ((t % 1.0) - 0.6) / 0.4))
    steps = np.floor(t) + np.where(phase, 0.0, ((t % 1.0) - 0.6) / 0.4)  # 1 m per cycle
    pos = np.zeros((frames, 5, 3))
    pos[:, 0] = np.stack([np.zeros_like(t), np.full_like(t, 0.9), t], axis=-1)
    pos[:, 1] = np.stack([np.full_like(t, 0.1), 0.08 + 0.15 * swing, steps], axis=-1)
    pos[:, 2] = pos[:, 1] + [0.0, -0.05, 0.15]
    pos[:, 3] = pos[:, 1] * [-1.0, 1.0, 1.0] + [0.0, 0.0, 0.5]  # out of phase, never mind
    pos[:, 4] = pos[:, 3] + [0.0, -0.05, 0.15]
    return pos, phase


def test_close_fills_short_gaps_and_keeps_contacts_at_the_ends() -> None:
    mask = np.array([1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1], dtype=bool)
    closed = contacts.close(mask, 3)
    np.testing.assert_array_equal(closed, [1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1])
    assert contacts.close(np.ones(5, dtype=bool), 7).all()  # scipy's border would erode this


@given(st.lists(st.booleans(), max_size=60), st.integers(1, 9))
def test_closing_only_adds_frames_and_segments_round_trip(bits: list[bool], frames: int) -> None:
    mask = np.array(bits, dtype=bool)
    closed = contacts.close(mask, frames)
    assert closed.shape == mask.shape
    assert not np.any(mask & ~closed)
    rebuilt = np.zeros_like(closed)
    for start, stop in contacts.segments(closed):
        assert stop > start
        rebuilt[start:stop] = True
    np.testing.assert_array_equal(rebuilt, closed)


def test_stance_is_found_from_speed_and_height() -> None:
    pos, stance = _gait()
    found = contacts.detect(_clip(len(stance)), ROLES, positions=pos)
    left = found.get("left")
    assert left is not None and left.foot == 1 and left.toe == 2
    # The only misses are the frames where the central-difference speed straddles a lift.
    assert np.mean(left.contact == stance) > 0.95
    assert not np.any(left.contact & ~stance)
    assert found.stance_heights_m["foot"] == np.float64(0.08)
    assert len(contacts.segments(left.contact)) == 4


def test_a_slow_but_lifted_foot_and_a_low_but_fast_foot_are_not_in_contact() -> None:
    pos, _ = _gait()
    lifted = pos.copy()
    lifted[:, 1:3, 1] += 0.2 * (np.arange(len(pos)) > 120)[:, None]
    sliding = pos.copy()
    sliding[:, 1:3, 0] += 0.2 * np.arange(len(pos))[:, None] / FPS  # 0.2 m/s sideways
    lifted_contact = contacts.detect(_clip(len(pos)), ROLES, positions=lifted).feet[0].contact
    assert not lifted_contact[125:].any()
    assert not contacts.detect(_clip(len(pos)), ROLES, positions=sliding).feet[0].contact.any()
    tolerant = contacts.detect(_clip(len(pos)), ROLES, positions=sliding, speed_threshold_mps=0.3)
    assert tolerant.feet[0].contact.any()


def test_toe_only_contact_counts_but_is_not_an_ankle_contact() -> None:
    pos, stance = _gait()
    heel_off = pos.copy()
    late = (np.arange(len(pos)) % 60 >= 24) & stance  # last third of each stance
    heel_off[late, 1, 1] += 0.06  # the ankle rises, the toe stays
    left = contacts.detect(_clip(len(pos)), ROLES, positions=heel_off).feet[0]
    assert np.mean(left.contact[late]) > 0.9
    assert np.mean(left.ankle[late]) < 0.1
    assert not np.any(left.ankle & ~left.contact)


def test_a_rig_without_feet_has_no_contacts() -> None:
    roles = JointRoles(joints={"hips": 0}, spine_chain=(), unresolved=("left_foot", "right_foot"))
    pos, _ = _gait(30)
    found = contacts.detect(_clip(30), roles, positions=pos)
    assert found.feet == ()
    assert found.get("left") is None
