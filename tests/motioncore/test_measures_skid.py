"""Contact skid (motioncore.measures.skid): how far each sole point travels while it
touches the floor. Each test shows it catches the defect it names (a stance that drifts,
a landing that skids at speed, a one-frame touch at speed) and leaves clean contacts
(a still stance with jitter, a foot rolling onto its ball) near zero."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from motioncore import contacts, measures, quat
from motioncore.clip import Clip, Skeleton
from motioncore.contacts import detection
from support import synthetic_gait

FloatArray = NDArray[np.float64]
FPS = 60.0
TO_ANKLE = np.array([0.0, 0.07, -0.14])
"""The ankle from the ball in the foot's frame, metres: the heel lies under it, on the
sole with the ball."""
TO_TIP = np.array([0.0, 0.0, 0.06])
"""The toe tip from the ball, toes flat, metres."""
STRIDE_M = 1.2
CYCLE_S = 1.0
LIFT_M = 0.12
_X = np.array([1.0, 0.0, 0.0])
_Y = np.array([0.0, 1.0, 0.0])


def _biped(
    balls: dict[str, FloatArray],
    pitches: dict[str, FloatArray],
    fps: float,
    yaws: dict[str, FloatArray] | None = None,
) -> Clip:
    """A clip with :mod:`support.synthetic_gait`'s joints whose feet turn about their
    ball: ``balls[side]`` ``[F, 3]`` where the ball is, ``pitches[side]`` ``[F]`` how far
    the heel is raised about it (radians), ``yaws[side]`` ``[F]`` how far the foot has
    turned about the vertical through it (radians, none by default); the toes stay
    flat, the hips ride above."""
    frames = next(iter(balls.values())).shape[0]
    names, parents = synthetic_gait.NAMES, synthetic_gait.PARENTS
    world_rot = np.tile(quat.identity(), (frames, len(names), 1))
    world_pos = np.zeros((frames, len(names), 3))
    for side, ankle in (("left", 3), ("right", 8)):
        yaw = quat.from_axis_angle(_Y, yaws[side] if yaws else np.zeros(frames))
        turn = quat.mul(yaw, quat.from_axis_angle(_X, pitches[side]))
        world_rot[:, ankle] = turn
        world_pos[:, ankle] = balls[side] + quat.rotate(
            turn, np.broadcast_to(TO_ANKLE, (frames, 3))
        )
        world_pos[:, ankle + 1] = balls[side]
        world_pos[:, ankle + 2] = balls[side] + quat.rotate(
            yaw, np.broadcast_to(TO_TIP, (frames, 3))
        )
    hips = (world_pos[:, 3] + world_pos[:, 8]) / 2.0 + np.array([0.0, 0.85, 0.0])
    world_pos[:, 0] = hips
    for up, ankle, x in ((1, 3, 0.1), (6, 8, -0.1)):
        world_pos[:, up] = hips + np.array([x, -0.05, 0.0])
        world_pos[:, up + 1] = (world_pos[:, up] + world_pos[:, ankle]) / 2.0 + [0.0, 0.0, 0.1]
    for joint, offset in ((11, (0.0, 0.25, 0.0)), (12, (0.0, 0.7, 0.0)), (13, (0.3, 0.4, 0.0))):
        world_pos[:, joint] = hips + np.array(offset)
    world_pos[:, 14] = hips + np.array([-0.3, 0.4, 0.0])
    above = np.maximum(parents, 0)
    inverse = quat.conjugate(world_rot[:, above])
    local_rot = quat.mul(inverse, world_rot)
    local_pos = quat.rotate(inverse, world_pos - world_pos[:, above])
    local_rot[:, 0], local_pos[:, 0] = world_rot[:, 0], world_pos[:, 0]
    skeleton = Skeleton(
        names=names,
        parents=parents,
        offsets=local_pos[0].copy(),
        channels=tuple(
            ()
            if n.endswith("_End")
            else ("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation")
            for n in names
        ),
        kinds=tuple(
            "ROOT" if p < 0 else ("End Site" if n.endswith("_End") else "JOINT")
            for n, p in zip(names, parents, strict=True)
        ),
    )
    return Clip(skeleton, quat.normalize(local_rot), local_pos, fps)


def _walk(
    fps: float,
    *,
    duration_s: float = 4.0,
    stance_s: float = 0.6,
    drift_mps: float = 0.0,
    noise_m: float = 0.0,
) -> Clip:
    """A clean walk along +Z: each foot stands flat for ``stance_s`` less 0.2 s, rolls
    onto its ball over 0.2 s (the heel rising 30°), then lifts, flies a stride and sets
    down flat, its ball going straight up and coming straight down. ``drift_mps``
    makes the left foot's ball slide forward while it stands; ``noise_m`` adds uniform
    jitter of that size to every ball position."""
    t = np.arange(round(duration_s * fps)) / fps
    rng = np.random.default_rng(7)
    balls, pitches = {}, {}
    for side, shift, x in (("left", 0.0, 0.1), ("right", 0.5, -0.1)):
        u = (t / CYCLE_S - shift) % 1.0
        cycle = np.floor(t / CYCLE_S - shift)
        stand = u < stance_s
        swing = np.clip((u - stance_s) / (1.0 - stance_s), 0.0, 1.0)
        # the ball moves on only once it is well up, and is down before it stops
        fly = np.clip((swing - 0.1) / 0.8, 0.0, 1.0)
        reach = fly**3 * (10.0 - 15.0 * fly + 6.0 * fly**2)  # smootherstep
        ball = np.stack([np.full_like(u, x), LIFT_M * np.sin(np.pi * swing), cycle + reach], axis=1)
        ball[:, 2] *= STRIDE_M
        if side == "left":
            ball[:, 2] += drift_mps * np.where(stand, u, stance_s) * CYCLE_S
        roll = np.clip((u - (stance_s - 0.2)) / 0.2, 0.0, 1.0)
        lift = np.radians(30.0)
        pitches[side] = np.where(
            stand, lift * roll * roll * (3.0 - 2.0 * roll), lift * (1.0 - reach)
        )
        balls[side] = ball + rng.uniform(-noise_m, noise_m, ball.shape)
    return _biped(balls, pitches, fps)


@pytest.mark.parametrize("fps", (30.0, 60.0, 120.0))
def test_a_still_stance_with_millimetre_jitter_reads_under_3_mm(fps: float) -> None:
    got = measures.contact_skid(_walk(fps, noise_m=0.001), floor_m=0.0)
    # every stance is a heel, a ball and a tip contact: 4 steps a foot in 4 s
    for side in ("left", "right"):
        for point in ("heel", "ball", "tip"):
            ours = [c for c in got.contacts if (c.side, c.point) == (side, point)]
            assert 4 <= len(ours) <= 5, (side, point, len(ours))
    assert 0.0005 < got.worst_m < 0.003  # the jitter reads, nothing more


@pytest.mark.parametrize("fps", (30.0, 60.0, 120.0))
def test_a_stance_that_drifts_3_cm_in_half_a_second_reads_it(fps: float) -> None:
    got = measures.contact_skid(_walk(fps, stance_s=0.5, drift_mps=0.06), floor_m=0.0)
    worst = got.worst
    assert worst is not None and worst.side == "left" and worst.point in ("ball", "tip")
    assert worst.skid_m == pytest.approx(0.03, abs=0.002)
    assert (worst.last_frame - worst.first_frame + 1) / fps == pytest.approx(0.5, abs=0.05)
    assert got.per_foot_m["right"] < 0.001  # the right foot stands still
    assert got.per_foot_m["left"] == got.worst_m


def test_a_rolling_foot_is_judged_point_by_point_and_reads_no_skid() -> None:
    """The heel lifts about the ball while the ball and toes stay: the foot's lowest
    point moves from heel to ball, but no point slides; the same roll with a ball that
    slides 2 cm reads 2 cm on the ball and the tip, not on the heel that left."""
    frames = 60
    roll = np.clip((np.arange(frames) - 20) / 30.0, 0.0, 1.0) * np.radians(40.0)
    still = np.tile([0.1, 0.0, 0.0], (frames, 1))
    sliding = still + np.linspace(0.0, 0.02, frames)[:, None] * [0.0, 0.0, 1.0]
    other = np.tile([-0.1, 0.0, 0.3], (frames, 1))
    pitch = {"left": roll, "right": np.zeros(frames)}
    clean = measures.contact_skid(_biped({"left": still, "right": other}, pitch, FPS), floor_m=0.0)
    skids = measures.contact_skid(
        _biped({"left": sliding, "right": other}, pitch, FPS), floor_m=0.0
    )
    left = {c.point: c for c in clean.contacts if c.side == "left"}
    # the heel is down until it has risen 1 cm (sin θ = 1/14: 3 frames into the roll)
    assert left["heel"].last_frame == 23 and left["ball"].last_frame == frames - 1
    assert clean.worst_m < 0.001
    moved = {c.point: c.skid_m for c in skids.contacts if c.side == "left"}
    assert moved["ball"] == pytest.approx(0.02, abs=0.001) and moved["tip"] == pytest.approx(
        moved["ball"]
    )
    assert moved["heel"] < 0.01


def test_a_landing_at_4_mps_that_skids_12_cm_in_2_frames_reads_it() -> None:
    """The foot comes down steeply (5 cm a frame) while it moves 4 m/s, lands, slides
    7 then 5 cm and stops: foot slide, which grades only feet slower than 1 m/s, sees
    almost nothing of it."""
    frames, land = 40, 20
    track = np.zeros((frames, 3))
    track[:land, 2] = -(land - np.arange(land)) * 4.0 / FPS
    track[:land, 1] = (land - np.arange(land)) * 0.05
    track[land:, 2] = np.minimum(np.arange(frames - land), 2) * 0.06
    track[land + 1, 2] = 0.07
    balls = {
        "left": track + np.array([0.1, 0.0, 0.0]),
        "right": np.tile([-0.1, 0.0, 0.0], (frames, 1)),
    }
    clip = _biped(balls, {"left": np.zeros(frames), "right": np.zeros(frames)}, FPS)
    got = measures.contact_skid(clip, floor_m=0.0)
    worst = got.worst
    assert worst is not None and worst.side == "left" and worst.first_frame == land
    assert 0.12 <= worst.skid_m < 0.15  # 12 cm, and the 1 cm of the approach in the band
    assert worst.peak_speed_mps > 3.5
    slide = measures.measure(clip, floor_m=0.0).get("left")
    assert slide is not None and (slide.slide_per_step_m or 0.0) < 0.01


def test_a_one_frame_touch_at_speed_reads_the_distance_it_travels_in_the_band() -> None:
    """A trailing foot that stays down for one frame while it moves 3 m/s: zero
    displacement between its frames in contact, but the path crosses the band (3 cm
    above, on the floor, 3 cm above: 1/3 of each frame either side is in the band)."""
    frames = 21
    track = np.zeros((frames, 3))
    track[:, 2] = np.arange(frames) * 3.0 / FPS
    track[:, 1] = np.abs(np.arange(frames) - 10) * 0.03
    (contact,) = measures.point_skids(track, 0.0, FPS)
    first, last, skid, peak = contact
    assert first == last == 10
    assert skid == pytest.approx(2.0 / 3.0 * 3.0 / FPS, rel=1e-6)  # 3.3 cm
    assert peak == pytest.approx(3.0, rel=1e-6)


def test_a_floor_at_5_cm_is_the_floor_the_contacts_stand_on() -> None:
    clip = _walk(FPS, stance_s=0.5, drift_mps=0.06)
    moved = clip.translations.copy()
    moved[:, 0, 1] += 0.05  # the root: the whole body 5 cm up
    raised = clip.with_arrays(translations=moved)
    on_zero = measures.contact_skid(clip, floor_m=0.0)
    assert on_zero.worst_m > 0.025
    for got in (measures.contact_skid(raised), measures.contact_skid(raised, floor_m=0.05)):
        assert got.floor_m == pytest.approx(0.05, abs=1e-3)
        assert got.worst_m == pytest.approx(on_zero.worst_m, abs=1e-4)
        assert len(got.contacts) == len(on_zero.contacts)
    # measured against y = 0, the raised feet never touch
    assert measures.contact_skid(raised, floor_m=0.0).contacts == ()


def test_as_dict_names_the_worst_contact() -> None:
    import json

    got = measures.contact_skid(_walk(30.0, stance_s=0.5, drift_mps=0.06), floor_m=0.0)
    data = json.loads(json.dumps(got.as_dict()))
    assert data["worst"]["side"] == "left" and data["worst_m"] == data["per_foot_m"]["left"]
    assert data["worst_m"] > 0.025
    assert len(data["contacts"]) == len(got.contacts)


def test_contact_skid_does_not_use_the_contact_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("contact_skid called contacts.detect")

    monkeypatch.setattr(contacts, "detect", refuse)
    monkeypatch.setattr(detection, "detect", refuse)
    assert measures.contact_skid(_walk(30.0, drift_mps=0.06), floor_m=0.0).worst_m > 0.02


def _pivot(ball_slide_m: float) -> Clip:
    """Both feet flat; over 1 s the left foot turns a half turn on its ball (the tip
    sweeps its arc), the ball sliding ``ball_slide_m`` along +X meanwhile."""
    frames = 90
    share = np.clip((np.arange(frames) - 15) / 60.0, 0.0, 1.0)
    balls = {
        "left": np.stack([0.1 + ball_slide_m * share, np.zeros(frames), np.zeros(frames)], 1),
        "right": np.tile([-0.1, 0.0, 0.0], (frames, 1)),
    }
    pitches = {"left": np.zeros(frames), "right": np.zeros(frames)}
    yaws = {"left": np.pi * share, "right": np.zeros(frames)}
    return _biped(balls, pitches, FPS, yaws=yaws)


def test_a_foot_turning_on_its_still_ball_is_a_turn_not_a_skid() -> None:
    got = measures.contact_skid(_pivot(0.0), floor_m=0.0)
    tip = next(c for c in got.contacts if (c.side, c.point) == ("left", "tip"))
    assert tip.skid_m == pytest.approx(0.12, abs=0.005)  # across the arc
    assert tip.turned_about == "ball"
    assert got.worst_m < 0.003
    assert tip not in got.skids


def test_a_foot_turning_while_its_ball_slides_2_cm_skids() -> None:
    got = measures.contact_skid(_pivot(0.02), floor_m=0.0)
    assert all(c.turned_about is None for c in got.contacts if c.side == "left")
    assert got.worst is not None and got.worst.side == "left"
    assert got.worst_m > 0.1  # the tip's sweep counts: nothing held still
