"""The live foot lock (:mod:`motioncore.motornerve.foot_lock`), graded by
:mod:`motioncore.measures` (its own planted test, none of the lock's thresholds): a real
walk made to skate is put back on its feet, feet under the floor come up, a released
foot goes back to the network's, the hips come down only as far as a held foot needs,
and the pass is causal (what the live page needs)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, contacts, fk, measures, quat
from motioncore.clip import Clip
from motioncore.motornerve import dataset, foot_lock
from motioncore.skeleton import canonical

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "games105" / "walk_forward.bvh"
DRIFT_MPS = 0.1
"""Extra root speed the test gives the walk: its planted feet then slide at that speed
(6 cm a stance: within what the legs can reach from the held feet; the lock drags a
foot the leg cannot reach, so it cannot undo any drift)."""


@pytest.fixture(scope="module")
def walk() -> Clip:
    return dataset.prepare(bvh.load(SAMPLE))


@pytest.fixture(scope="module")
def labels(walk: Clip) -> np.ndarray:
    """``[F, 2]`` the contact detector's labels of the clean walk, as probabilities (what
    the network's contact head is trained on)."""
    found = contacts.detect(walk, canonical.roles(), floor_m=0.0)
    feet = {f.side: f.contact for f in found.feet}
    return np.stack([feet["left"], feet["right"]], axis=-1).astype(np.float64)


def _drifting(clip: Clip, mps: float) -> Clip:
    """``clip`` with its root pushed forward (+Z in the heading it walks) ``mps`` faster."""
    translations = clip.translations.copy()
    hips = translations[:, 0]
    heading = hips[-1, [0, 2]] - hips[0, [0, 2]]
    heading /= np.linalg.norm(heading)
    seconds = np.arange(clip.num_frames)[:, None] / clip.fps
    hips[:, [0, 2]] += seconds * mps * heading
    return clip.with_arrays(translations=translations)


def _sliding_stand(walk: Clip, frames: int = 120) -> Clip:
    """The walk's first pose held still while the whole body slides aside at 24 cm/s
    from frame 20 on (the network's feet sliding along with it)."""
    rotations = np.repeat(walk.rotations[:1], frames, axis=0)
    translations = np.repeat(walk.translations[:1], frames, axis=0)
    translations[:, 0, 0] += np.clip(np.arange(frames) - 20, 0, None) * 0.004
    return walk.with_arrays(rotations, translations)


def _skate(clip: Clip) -> float:
    found = measures.measure(clip, canonical.roles(), floor_m=0.0)
    steps = [f.slide_per_step_m for f in found.feet if f.slide_per_step_m is not None]
    assert steps, "no planted step measured"
    return max(steps)


def test_a_skating_walk_is_put_back_on_its_feet(walk: Clip, labels: np.ndarray) -> None:
    skating = _drifting(walk, DRIFT_MPS)
    before, clean = _skate(skating), _skate(walk)
    after = _skate(foot_lock.lock(skating, labels, canonical.roles()))
    assert before > clean + 0.025, (before, clean)  # the defect is there to catch
    assert after < 0.015, (before, after, clean)


def test_a_foot_on_the_floor_is_held_before_the_head_is_sure(
    walk: Clip, labels: np.ndarray
) -> None:
    """The contact head rises through 0.5 for the first frames a foot is down (the
    shipped network: a foot landing toe first slid 4 cm a step before it passed
    LOCK_ON): a foot past LOCK_OFF with a sole point on the floor is held from then."""
    skating = _drifting(walk, DRIFT_MPS)
    unsure = labels.copy()
    for side in range(2):
        for start, stop in contacts.segments(labels[:, side] > 0.5):
            unsure[start : min(start + 12, stop), side] = 0.5
    assert _skate(foot_lock.lock(skating, unsure, canonical.roles())) < 0.015


def test_without_contact_nothing_moves_but_feet_under_the_floor(walk: Clip) -> None:
    free = np.zeros((walk.num_frames, 2))
    out = foot_lock.lock(walk, free, canonical.roles())
    above = fk.positions(walk)
    assert np.allclose(fk.positions(out)[:, :16], above[:, :16], atol=1e-9)
    assert measures.measure(out, canonical.roles(), floor_m=0.0).penetration_worst_m <= max(
        measures.measure(walk, canonical.roles(), floor_m=0.0).penetration_worst_m, 1e-6
    )


def test_feet_under_the_floor_come_up(walk: Clip, labels: np.ndarray) -> None:
    translations = walk.translations.copy()
    translations[:, 0, 1] -= 0.03
    sunk = walk.with_arrays(translations=translations)
    assert measures.measure(sunk, canonical.roles(), floor_m=0.0).penetration_worst_m > 0.025
    for probabilities in (labels, np.zeros_like(labels)):
        out = foot_lock.lock(sunk, probabilities, canonical.roles())
        depth = measures.measure(out, canonical.roles(), floor_m=0.0).penetration_worst_m
        assert depth < 0.002, depth


def test_a_released_foot_goes_back_to_the_network_s_smoothly(
    walk: Clip, labels: np.ndarray
) -> None:
    skating = _drifting(walk, DRIFT_MPS)
    out = fk.positions(foot_lock.lock(skating, labels, canonical.roles()))
    raw = fk.positions(foot_lock.lock(skating, np.zeros_like(labels), canonical.roles()))
    fade = int(np.ceil(foot_lock.RELEASE_S * walk.fps))
    released, held_away = 0, 0.0
    for side, name in enumerate(("left_foot", "right_foot")):
        ankle = canonical.roles().require(name)[0]
        # relative to the hips, which may still be coming back up from a drop
        gap = np.linalg.norm((out[:, ankle] - out[:, 0]) - (raw[:, ankle] - raw[:, 0]), axis=-1)
        jumps = np.linalg.norm(np.diff(out[:, ankle], axis=0), axis=-1)
        raw_jumps = np.linalg.norm(np.diff(raw[:, ankle], axis=0), axis=-1)
        for f in np.flatnonzero((labels[:-1, side] == 1.0) & (labels[1:, side] == 0.0)) + 1:
            if f < fade or f + fade + 1 >= walk.num_frames:  # whole holds and fades only
                continue
            released += 1
            held_away = max(held_away, float(gap[f - 1]))
            assert gap[f + fade + 1] < 1e-9  # the network's again (kept above the floor)
            # no snap back: no frame of the fade takes a quarter of the correction (the
            # step crosses the ground in the middle half of the fade's 15 frames,
            # smoothstep: a fifth at most)
            window = slice(f - 1, f + fade + 1)
            extra = float(np.max(jumps[window] - raw_jumps[window]))
            assert extra < 0.25 * gap[f - 1] + 1e-3, (f, extra, gap[f - 1])
    assert released >= 1
    assert held_away > 0.01  # a foot was held away from where the network put it


def test_the_hips_come_down_only_as_far_as_a_held_foot_needs(walk: Clip) -> None:
    sliding = _sliding_stand(walk)
    held = np.ones((sliding.num_frames, 2))
    world, positions = fk.forward(sliding.rotations, sliding.translations, sliding.skeleton.parents)
    legs = foot_lock.legs(sliding.skeleton, canonical.roles())
    wanted = foot_lock.targets(positions, world, held, legs, sliding.fps)
    drop = wanted.drop
    assert drop[:40].max() < 0.005  # none while the feet are in reach
    assert 0.02 < drop.max() <= foot_lock.MAX_DROP_M
    # until the body has slid UNLOCK_M away, the held ankles stay where they were held
    # (the hips lowered to keep them in reach)
    kept = 20 + int(foot_lock.UNLOCK_M / 0.004) - 2
    for side in (0, 1):
        ankle = wanted.ankles[:kept, side]
        assert np.linalg.norm(ankle - ankle[0], axis=-1).max() < 1e-3
    assert np.all(np.diff(drop) >= -foot_lock.DROP_RECOVER_MPS / sliding.fps - 1e-12)
    free = foot_lock.targets(positions, world, np.zeros_like(held), legs, sliding.fps).drop
    assert np.all(free == 0.0)


def test_a_foot_held_while_the_hips_are_down_is_not_lifted_by_them(walk: Clip) -> None:
    """The right foot held while the body slides away from it (the hips come down to keep
    it in reach); the left one, free until then, is planted with the hips down: its ankle
    stays where it was, where lifting it by the drop in one frame flipped a straight
    knee 32° at once (1,915 °/s in the 50 interactions). It then rises to the network's
    own ankle within the stance, not held low all of it (let go that low, it was dragged
    along the ground: walking streams' skate went from 0.3 to 2.7 cm a step)."""
    sliding = _sliding_stand(walk)
    world, positions = fk.forward(sliding.rotations, sliding.translations, sliding.skeleton.parents)
    legs = foot_lock.legs(sliding.skeleton, canonical.roles())
    right_only = np.zeros((sliding.num_frames, 2))
    right_only[:, 1] = 1.0
    drop = foot_lock.targets(positions, world, right_only, legs, sliding.fps).drop
    planted = int(np.argmax(drop))
    assert drop[planted] > 0.02
    both = right_only.copy()
    both[planted:, 0] = 1.0
    left = foot_lock.targets(positions, world, both, legs, sliding.fps).ankles[:, 0]
    rises = np.abs(np.diff(left[planted - 5 : planted + 5, 1]))
    assert rises.max() < 0.1 * drop[planted]  # it rose 1 cm of a 2.9 cm drop at once
    own = positions[:, legs[0].ankle, 1]
    assert own[planted] - left[planted, 1] > 0.005  # on the floor, 1 cm under it
    later = planted + int(0.5 * sliding.fps)
    assert later < sliding.num_frames
    assert abs(left[later, 1] - own[later]) < 1e-3  # it stayed there, 1 cm under it


def test_a_held_foot_rolls_onto_its_toes_and_they_stay(walk: Clip) -> None:
    """Heel off: the network points the feet down about the ankles (30° over half a
    second, the ankles where they are; the toes rigid). Held, each foot turns about its
    lowest sole point, first the heel and then the toes' tip once that is lower: the tip
    stays where it came down, where the network's own sweeps back along the floor."""
    skeleton = canonical.skeleton()
    frames = 90
    rotations = np.zeros((frames, skeleton.num_joints, 4))
    rotations[..., 0] = 1.0
    angle = np.radians(30.0) * np.clip((np.arange(frames) - 20) / 30, 0.0, 1.0)
    for side in ("left_foot", "right_foot"):
        ankle = canonical.roles().require(side)[0]
        rotations[:, ankle, 0], rotations[:, ankle, 1] = np.cos(angle / 2), np.sin(angle / 2)
    translations = np.broadcast_to(skeleton.offsets, (frames, skeleton.num_joints, 3)).copy()
    translations[:, 0] = [0.0, 0.95, 0.0]  # the rest pose, flat on the floor
    rolling = Clip(skeleton, rotations, translations, 60.0)
    out = fk.positions(foot_lock.lock(rolling, np.ones((frames, 2)), canonical.roles()))
    raw = fk.positions(rolling)
    for side in ("left_toe", "right_toe"):
        tip = canonical.roles().require(side)[0] + 1  # the toes' end site
        assert skeleton.names[tip].endswith("Toe_End")
        late = slice(30, frames)  # the tip lower than the heel, the pivot since
        assert np.ptp(raw[late, tip, 2]) > 0.02  # the network's tip sweeps back
        assert np.ptp(out[late, tip][:, [0, 2]], axis=0).max() < 1e-3
        assert out[:, tip, 1].min() > -1e-6  # on the floor, not under it


def test_a_foot_the_network_moves_away_is_let_go(walk: Clip) -> None:
    """Called planted throughout while the body slides 40 cm aside: a held foot lets go
    once the network's ankle is UNLOCK_M away on the ground (rather than stretch and
    twist the leg after it) and fades back to it before it is held again."""
    sliding = _sliding_stand(walk)
    held = np.ones((sliding.num_frames, 2))
    out = fk.positions(foot_lock.lock(sliding, held, canonical.roles()))
    raw = fk.positions(sliding)
    for side in ("left_foot", "right_foot"):
        ankle = canonical.roles().require(side)[0]
        apart = np.linalg.norm((out[:, ankle] - raw[:, ankle])[:, [0, 2]], axis=-1)
        assert 0.2 < apart.max() < foot_lock.UNLOCK_M + 0.01, apart.max()
        assert apart[-1] < 0.1  # let go, faded back and held again near the network's


def test_it_is_causal(walk: Clip, labels: np.ndarray) -> None:
    skating = _drifting(walk, DRIFT_MPS)
    whole = foot_lock.lock(skating, labels, canonical.roles())
    cut = 70
    prefix = foot_lock.lock(
        skating.with_arrays(skating.rotations[:cut], skating.translations[:cut]),
        labels[:cut],
        canonical.roles(),
    )
    assert np.allclose(fk.positions(prefix), fk.positions(whole)[:cut], atol=1e-9)


def test_a_far_release_fades_no_faster_than_its_speed_limit(
    walk: Clip, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Let go UNLOCK_M from the network's ankle, the correction takes its length over
    RELEASE_MPS, not RELEASE_S, and the foot steps back rather than skid: raised by
    STEP_LIFT_SHARE of the way, most at the middle, and across the ground only while up
    (the middle half of the fade, up by half the lift less a frame's rise; smoothstep
    across: 3 x RELEASE_MPS at its fastest)."""
    sliding = _sliding_stand(walk)
    world, positions = fk.forward(sliding.rotations, sliding.translations, sliding.skeleton.parents)
    legs = foot_lock.legs(sliding.skeleton, canonical.roles())
    held = np.ones((sliding.num_frames, 2))
    ankles = foot_lock.targets(positions, world, held, legs, sliding.fps).ankles
    lift = foot_lock.STEP_LIFT_SHARE
    monkeypatch.setattr(foot_lock, "STEP_LIFT_SHARE", 0.0)
    skid = foot_lock.targets(positions, world, held, legs, sliding.fps).ankles
    for side, leg in enumerate(legs):
        correction = ankles[:, side] - positions[:, leg.ankle]
        size = np.linalg.norm(correction[:, [0, 2]], axis=-1)
        # the step's first frames (its lift is 0 as it starts)
        release = int(np.argmax(np.abs(ankles[:, side, 1] - skid[:, side, 1]) > 1e-9)) - 1
        held_away = float(size[:release].max())
        assert held_away > max(0.2, 1.5 * foot_lock.RELEASE_MPS * foot_lock.RELEASE_S)
        ground = np.linalg.norm(np.diff(correction[:, [0, 2]], axis=0), axis=-1) * sliding.fps
        assert ground[release - 1 :].max() < 3.0 * foot_lock.RELEASE_MPS * 1.05
        whole = np.linalg.norm(correction, axis=-1)
        back = release + int(np.argmax(whole[release:] < 1e-6))
        assert (back - release) / sliding.fps >= held_away / foot_lock.RELEASE_MPS - 0.05
        rise = ankles[release:back, side, 1] - skid[release:back, side, 1]
        assert rise.max() == pytest.approx(lift * held_away, rel=0.05)
        assert abs(int(np.argmax(rise)) - (back - release) / 2) <= 2
        # frame to frame within the step: where it goes across, it is up at both ends
        crossing = ground[release : back - 1] > 1e-3
        up = np.minimum(rise[:-1], rise[1:])
        assert crossing.any() and up[crossing].min() > 0.4 * rise.max()
        assert np.allclose(ankles[:release, side], skid[:release, side])


def test_release_step() -> None:
    fps = 60.0
    short = foot_lock.release_step(np.array([0.05, 0.0, 0.0]), fps)
    assert short == pytest.approx(1.0 / (foot_lock.RELEASE_S * fps))
    far = foot_lock.release_step(np.array([0.3, 0.0, 0.4]), fps)  # 0.5 m
    assert far == pytest.approx(1.0 / (0.5 / foot_lock.RELEASE_MPS * fps))


def test_a_knee_held_aside_bends_to_the_network_s_side(walk: Clip) -> None:
    """Wherever within UNLOCK_M a foot is held, the IK bends the knee to the side the
    network bends it (its bend direction carried by the turn of the hip-ankle line onto
    the hip-target line), not across the leg. The network's knee where it stood, as the
    pole, bent it up to 127° away on this walk (ReActIdle 002: the knee swung across
    at 1,764 °/s); the leg turned onto the line, within 38°."""
    positions = fk.positions(walk)
    for leg in foot_lock.legs(walk.skeleton, canonical.roles()):
        hip, ankle = positions[:, leg.hip], positions[:, leg.ankle]
        own = _off_line(positions[:, leg.knee], hip, ankle)
        bent = np.linalg.norm(own, axis=-1) > 0.02  # a straight leg has no side
        for radius in (0.5 * foot_lock.UNLOCK_M, foot_lock.UNLOCK_M):
            for angle in np.radians(np.arange(0.0, 360.0, 30.0)):
                target = ankle + radius * np.array([np.cos(angle), 0.0, np.sin(angle)])
                side = quat.rotate(quat.between(ankle - hip, target - hip), own)
                bends = _off_line(foot_lock.poles(positions, leg, target), hip, target)
                assert np.all(np.sum(side * bends, axis=-1)[bent] > 0.0), (radius, angle)


def _off_line(point: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """``[F, 3]`` the part of ``point - start`` normal to the line from ``start`` to
    ``end`` (all ``[F, 3]``)."""
    axis = (end - start) / np.linalg.norm(end - start, axis=-1, keepdims=True)
    rel = point - start
    return np.asarray(rel - np.sum(rel * axis, axis=-1, keepdims=True) * axis)
