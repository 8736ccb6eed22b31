"""Tests of motioncore.analysis.gait: phase from contacts (seed 002 §2.1), cycles, periodicity
and phase-aligned cut points (seed 000 §6.2).

The analytic gait: 100 Hz, a 100-frame cycle, each foot down 60 frames; the left
foot is down on frames [100k, 100k + 60), the right foot half a cycle later. So
left strikes are 100, 200, 300, 400 (frame 0 is already in contact), right strikes
50, 150, 250, 350, and each half cycle opens with 10 frames of double support
followed by 40 of single support. With rates 1 and 2 a half cycle weighs
10 · 1 + 40 · 2 = 90, so a double-support frame advances φ by π/90 and a
single-support frame by 2π/90.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, quat
from motioncore.analysis import gait, momentum, phases
from motioncore.clip import Clip, Skeleton
from motioncore.contacts import Contacts, FootContacts
from motioncore.errors import MotionCoreError
from motioncore.skeleton import JointRoles
from support.corpus import manifest_rows
from support.paths import SAMPLE_DIR

FPS = 100.0
FRAMES = 450
LEFT_STRIKES = [100, 200, 300, 400]
RIGHT_STRIKES = [50, 150, 250, 350]
# hips, left upper leg, left foot, right upper leg, right foot
ROLES = JointRoles(
    joints={"hips": 0, "left_upper_leg": 1, "left_foot": 2, "right_upper_leg": 3, "right_foot": 4},
    spine_chain=(),
    unresolved=(),
)


def analytic_masks(frames: int = FRAMES) -> tuple[np.ndarray, np.ndarray]:
    f = np.arange(frames)
    return (f % 100) < 60, ((f - 50) % 100) < 60


def masks_from_strikes(
    left: list[int], right: list[int], stance: int, frames: int
) -> tuple[np.ndarray, np.ndarray]:
    """``[F]`` masks with a ``stance``-frame contact run from each strike."""
    masks = np.zeros((2, frames), dtype=bool)
    for mask, strikes in zip(masks, (left, right), strict=True):
        for s in strikes:
            mask[s : s + stance] = True
    return masks[0], masks[1]


def _clip(frames: int) -> Clip:
    skeleton = Skeleton(
        names=("Hips", "LeftUpLeg", "LeftFoot", "RightUpLeg", "RightFoot"),
        parents=np.array([-1, 0, 1, 0, 3]),
        offsets=np.zeros((5, 3)),
        channels=(("Xposition",),) + ((),) * 4,
        kinds=("ROOT", "JOINT", "JOINT", "JOINT", "JOINT"),
    )
    return Clip(skeleton, quat.identity((frames, 5)), np.zeros((frames, 5, 3)), FPS)


def walking_positions(frames: int, cycle_frames: float = 100.0) -> np.ndarray:
    """``[F, 5, 3]``: hips forward at 1 m/s, feet swinging with the given cycle."""
    t = np.arange(frames) / FPS
    w = 2 * np.pi * t * FPS / cycle_frames
    pos = np.zeros((frames, 5, 3))
    pos[:, 0] = np.stack([np.zeros_like(t), np.full_like(t, 0.9), t], axis=-1)
    pos[:, 1] = pos[:, 0] + [0.1, 0.0, 0.0]
    pos[:, 3] = pos[:, 0] + [-0.1, 0.0, 0.0]
    for foot, shift in ((2, 0.0), (4, np.pi)):
        pos[:, foot, 0] = pos[:, 0, 0] + (0.1 if foot == 2 else -0.1)
        pos[:, foot, 1] = 0.08 + 0.1 * np.maximum(np.sin(w + shift), 0.0)
        pos[:, foot, 2] = pos[:, 0, 2] + 0.3 * np.cos(w + shift)
    return pos


def contacts_of(left: np.ndarray, right: np.ndarray) -> Contacts:
    return Contacts(
        (FootContacts("left", 2, None, left), FootContacts("right", 4, None, right)),
        floor_m=0.0,
        leg_m=0.84,
        clearance_m={},
        fps=FPS,
    )


def test_phase_is_zero_at_left_and_pi_at_right_strikes() -> None:
    left, right = analytic_masks()
    phi = gait.phase_from_contacts(left, right, FPS)
    np.testing.assert_array_equal(gait.strikes(left, FPS), LEFT_STRIKES)
    np.testing.assert_array_equal(gait.strikes(right, FPS), RIGHT_STRIKES)
    assert np.all(phi[LEFT_STRIKES] == 0.0)
    assert np.all(phi[RIGHT_STRIKES] == np.pi)
    assert np.isnan(phi[:50]).all() and np.isnan(phi[401:]).all()
    defined = phi[50:401]
    assert np.all((defined >= 0.0) & (defined < 2 * np.pi))
    step = np.diff(defined)
    wraps = np.flatnonzero(step < 0) + 50 + 1
    np.testing.assert_array_equal(wraps, LEFT_STRIKES)  # only decreases at left strikes


def test_phase_advances_twice_as_fast_in_swing_as_in_double_support() -> None:
    left, right = analytic_masks()
    phi = gait.phase_from_contacts(left, right, FPS, stance_rate=1.0, swing_rate=2.0)
    step = np.diff(phi[50:401])  # the step from each frame 50..399 to the next
    step[step < 0] += 2 * np.pi
    both = (left & right)[50:400]
    np.testing.assert_allclose(step[both], np.pi / 90, rtol=1e-12)
    np.testing.assert_allclose(step[~both], 2 * np.pi / 90, rtol=1e-12)
    assert both.sum() == 70 and (~both).sum() == 280  # 7 half cycles of 10 + 40 frames
    np.testing.assert_allclose(phi[100:111], np.pi * np.arange(11) / 90, rtol=1e-12)


def test_equal_rates_give_a_linear_phase() -> None:
    left, right = analytic_masks()
    phi = gait.phase_from_contacts(left, right, FPS, stance_rate=1.0, swing_rate=1.0)
    np.testing.assert_allclose(phi[100:150], np.pi * np.arange(50) / 50, rtol=1e-12)
    np.testing.assert_allclose(phi[150:200], np.pi + np.pi * np.arange(50) / 50, rtol=1e-12)


def test_same_foot_twice_is_a_gap_and_a_two_footed_landing_breaks_the_chain() -> None:
    left, right = masks_from_strikes([100, 200, 300], [50, 250, 300], 30, 400)
    phi = gait.phase_from_contacts(left, right, FPS)
    assert phi[50] == np.pi and np.all(np.diff(phi[50:100]) > 0)  # R 50 -> L 100
    assert phi[100] == 0.0 and np.isnan(phi[101:200]).all()  # L 100 -> L 200: a gap
    assert phi[200] == 0.0 and phi[250] == np.pi  # L 200 -> R 250: a half cycle
    assert np.isnan(phi[251:]).all()  # R 250 -> both at 300: not a gait event
    assert np.isnan(phi[300])
    np.testing.assert_array_equal(gait.aligned_frames(phi, 0.0), [100, 200])
    np.testing.assert_array_equal(gait.aligned_frames(phi, np.pi), [50, 250])
    # Only L 200 -> R 250 holds 1 rad; nobody is in double support there, so φ is
    # linear, π·i/50, and first reaches 1 rad at i = ceil(50/π) = 16.
    assert gait.aligned_frames(phi, 1.0).tolist() == [216]


def test_a_short_lift_is_not_a_strike_nor_a_run_at_frame_zero() -> None:
    mask = np.zeros(100, dtype=bool)
    mask[[*range(0, 10), *range(40, 50), *range(55, 60), *range(61, 70)]] = True
    np.testing.assert_array_equal(gait.strikes(mask, FPS), [40])  # off 30 frames before 40
    np.testing.assert_array_equal(gait.strikes(mask, FPS, min_swing_s=0.0), [40, 55, 61])
    early = np.zeros(100, dtype=bool)
    early[5:20] = True  # off only 5 frames since the clip began
    assert gait.strikes(early, FPS).size == 0
    assert gait.strikes(early, FPS, min_swing_s=0.05).tolist() == [5]


def test_aligned_frames_cross_the_target_once_per_cycle() -> None:
    left, right = analytic_masks()
    clip = _clip(FRAMES)
    result = gait.analyze(
        clip, roles=ROLES, contacts=contacts_of(left, right), positions=walking_positions(FRAMES)
    )
    np.testing.assert_array_equal(result.aligned_frames(0.0), LEFT_STRIKES)
    np.testing.assert_array_equal(result.aligned_frames(np.pi), RIGHT_STRIKES)
    np.testing.assert_array_equal(result.aligned_frames(-np.pi), RIGHT_STRIKES)
    # φ = 1 rad: 10 double-support frames (10π/90) then single support (2π/90 each):
    # 10 + (90/π - 10) / 2 = 19.3 frames after the left strike -> the next frame, 20.
    np.testing.assert_array_equal(result.aligned_frames(1.0), [120, 220, 320])
    np.testing.assert_array_equal(result.aligned_frames(1.0 + 2 * np.pi), [120, 220, 320])
    assert np.all(result.phase[result.aligned_frames(1.0)] >= 1.0)
    assert np.all(result.phase[result.aligned_frames(1.0) - 1] < 1.0)


def test_analytic_walk_is_periodic_with_exact_cycles() -> None:
    left, right = analytic_masks()
    result = gait.analyze(
        _clip(FRAMES),
        roles=ROLES,
        contacts=contacts_of(left, right),
        positions=walking_positions(FRAMES),
    )
    assert result.periodic and result.reason is None
    assert [(c.start, c.stop, c.duration_s) for c in result.cycles] == [
        (100, 200, 1.0),
        (200, 300, 1.0),
        (300, 400, 1.0),
    ]
    assert result.cycles_covered == 3.5  # 7 half cycles from R 50 to L 400
    assert result.cycle_s == 1.0 and result.cycle_cv == 0.0 and result.alternation == 1.0
    assert result.cadence_steps_per_min == pytest.approx(120.0)
    assert result.autocorrelation > 0.9 and result.score == pytest.approx(result.autocorrelation)
    data = json.loads(json.dumps(result.as_dict(), allow_nan=False))
    assert data["phase_rad"][:50] == [None] * 50 and data["phase_rad"][100] == 0.0
    assert data["cycles"][0] == {
        "start_frame": 100,
        "stop_frame": 200,
        "start_s": 1.0,
        "stop_s": 2.0,
        "duration_s": 1.0,
    }


def test_irregular_strides_are_not_periodic_and_say_by_how_much() -> None:
    left_at, right_at = [20, 100, 240, 300, 460], [60, 170, 270, 380]
    left, right = masks_from_strikes(left_at, right_at, 30, 500)
    result = gait.analyze(
        _clip(500), roles=ROLES, contacts=contacts_of(left, right), positions=walking_positions(500)
    )
    strides = np.array([80, 140, 60, 160, 110, 100, 110]) / FPS  # left, then right strides
    cv = strides.std() / strides.mean()
    assert result.cycle_cv == pytest.approx(cv) and cv > 0.25
    assert result.cycle_s == pytest.approx(np.median(strides))
    assert not result.periodic
    assert result.reason == f"cycle durations vary by {cv:.0%} (more than 25%)"


def test_feet_that_do_not_repeat_are_not_periodic() -> None:
    left, right = analytic_masks()
    noise = np.random.default_rng(7).normal(size=(FRAMES, 5, 3))
    result = gait.analyze(
        _clip(FRAMES), roles=ROLES, contacts=contacts_of(left, right), positions=noise
    )
    assert not result.periodic
    assert result.reason is not None and result.reason.startswith(
        "the feet's motion does not repeat"
    )
    assert abs(result.autocorrelation) < 0.3 and result.score < 0.3


def test_single_step_is_not_periodic() -> None:
    left, right = masks_from_strikes([40], [90], 30, 150)
    result = gait.analyze(
        _clip(150), roles=ROLES, contacts=contacts_of(left, right), positions=walking_positions(150)
    )
    assert not result.periodic and result.cycles == ()
    assert result.reason == "fewer than 2 complete cycles (the phase covers 0.5)"
    assert np.isnan(result.phase[:40]).all() and np.isnan(result.phase[91:]).all()
    assert result.phase[40] == 0.0 and result.phase[90] == np.pi
    assert np.isnan(result.cycle_s) and np.isnan(result.cadence_steps_per_min)
    assert result.aligned_frames(0.5).size == 1


def test_no_strikes_and_missing_feet_are_reported_not_raised() -> None:
    still = np.zeros(FRAMES, dtype=bool)
    quiet = gait.analyze(
        _clip(FRAMES),
        roles=ROLES,
        contacts=contacts_of(still, still),
        positions=walking_positions(FRAMES),
    )
    assert quiet.reason == "no foot contacts: no foot strikes the ground" and quiet.score == 0.0
    footless = JointRoles(joints={"hips": 0}, spine_chain=(), unresolved=())
    result = gait.analyze(_clip(FRAMES), roles=footless)
    assert not result.periodic and result.reason == "the rig has no left and right foot roles"
    assert result.phase.shape == (FRAMES,) and np.isnan(result.phase).all()
    assert result.aligned_frames(0.0).size == 0
    json.dumps(result.as_dict(), allow_nan=False)
    one_foot = Contacts((FootContacts("left", 2, None, still),), 0.0, 0.84, {}, FPS)
    assert gait.analyze(_clip(FRAMES), roles=ROLES, contacts=one_foot).reason == (
        "the contacts lack a left or a right foot"
    )


@pytest.mark.parametrize(
    ("left", "right", "fps", "kwargs"),
    [
        (np.zeros(5, bool), np.zeros(6, bool), 30.0, {}),
        (np.zeros((5, 2), bool), np.zeros((5, 2), bool), 30.0, {}),
        (np.zeros(5, bool), np.zeros(5, bool), 0.0, {}),
        (np.zeros(5, bool), np.zeros(5, bool), 30.0, {"swing_rate": 0.0}),
    ],
)
def test_bad_masks_raise(
    left: np.ndarray, right: np.ndarray, fps: float, kwargs: dict[str, float]
) -> None:
    with pytest.raises(MotionCoreError):
        gait.phase_from_contacts(left, right, fps, **kwargs)


def test_inputs_are_untouched() -> None:
    left, right = analytic_masks()
    before = left.copy(), right.copy()
    gait.phase_from_contacts(left, right, FPS)
    np.testing.assert_array_equal(left, before[0])
    np.testing.assert_array_equal(right, before[1])


def test_games105_walk_is_periodic_with_a_plausible_cycle() -> None:
    """walk60: strikes R 21, L 58, R 93, L 130, R 165 (60 Hz) — 2 cycles covered."""
    clip = bvh.load(SAMPLE_DIR / "games105" / "walk60.bvh")
    result = gait.analyze(clip)
    assert result.periodic, result.reason
    assert 0.8 <= result.cycle_s <= 1.5
    assert 80.0 <= result.cadence_steps_per_min <= 150.0
    assert result.autocorrelation > 0.9
    np.testing.assert_array_equal(result.aligned_frames(0.0), result.left_strikes)
    assert np.all(result.phase[result.left_strikes] == 0.0)
    # The momentum units of phases are the steps: two per gait cycle.
    units = phases.units(momentum.measure(clip).speed, clip.fps)
    step_s = np.median(np.diff([u.peak for u in units])) / clip.fps
    assert step_s == pytest.approx(result.cycle_s / 2, rel=0.1)


def test_walk_truncated_below_two_cycles_is_not_periodic() -> None:
    clip = bvh.load(SAMPLE_DIR / "games105" / "walk60.bvh")
    short = clip.with_arrays(clip.rotations[:100], clip.translations[:100])
    result = gait.analyze(short)
    assert not result.periodic
    assert result.reason is not None and result.reason.startswith("fewer than 2 complete cycles")


@pytest.mark.parametrize(
    "path", ["cmu-pybvh/bvh_test1.bvh", "cmu-pybvh/bvh_test3.bvh", "makehuman/tpose.bvh"]
)
def test_non_locomotion_samples_are_not_periodic(path: str) -> None:
    result = gait.analyze(bvh.load(SAMPLE_DIR / path))
    assert not result.periodic and result.reason


def _corpus_rows(prefix: str) -> list[dict[str, str]]:
    rows = manifest_rows()
    return [
        r for r in rows if r["relative_path"].endswith(".bvh") and r["category"].startswith(prefix)
    ]


def test_corpus_locomotion_is_mostly_periodic(shared_data: Path) -> None:
    """Observed: 100 of the 163 ``locomotion*`` clips are periodic, with median strides
    of 0.57 s (Bandai runs) to 1.54 s (CMU 69's slow sideways steps). Of the others, 45
    are shorter than 2 cycles (1-3 s CMU, Xia and Bandai takes), 4 turn in place (the
    feet pivot and never leave the ground for a swing), and the rest walk backwards
    or sideways with turns, whose strides vary by more than 25 % or whose steps do
    not alternate through the turns; none of the 21 ``momentum`` clips (dance, kicks,
    punches, jumps) is periodic. The floors leave a little room for detection changes."""
    periodic = []
    for row in _corpus_rows("locomotion"):
        result = gait.analyze(bvh.load(shared_data / row["relative_path"]))
        if result.periodic:
            periodic.append(result.cycle_s)
    assert len(periodic) >= 95
    assert min(periodic) >= 0.5 and max(periodic) <= 1.6
    others = _corpus_rows("momentum")
    assert len(others) >= 20
    assert (
        sum(gait.analyze(bvh.load(shared_data / r["relative_path"])).periodic for r in others) <= 2
    )
