"""Foot keys (motioncore.laban.foot_keys, seed 003 §7.3-7.5) on the test scores in
tests/data/scores/ and a few small scores written here: contact points that do not
slide, heel strikes that roll down, the ball under high supports and landings, no foot
point below the floor, flights higher with more air time, crossing feet kept apart,
leg gestures along their symbol's direction, and the cost of a long score."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from scipy.interpolate import PchipInterpolator

from motioncore.laban import foot_keys as fk
from motioncore.laban import footprints, gestures, score
from motioncore.laban.prints import Footprints
from motioncore.skeleton import canonical
from support.paths import SAMPLE_DIR

SCORES = SAMPLE_DIR / "scores"
LEG_M = 0.84  # the canonical skeleton's legs (k = 1)
GEOMETRY = fk.FootGeometry.canonical(1.0)
FPS = 60.0
HIPS_DROP_M = 0.08  # knees a little bent, as a walking body's hips are
GROUND = (fk.HEEL, fk.FLAT, fk.BALL)
FloatArray = NDArray[np.float64]


class Driven:
    """A score's footprints, frame times, hip joints and facing, and its foot tracks."""

    def __init__(self, source: score.Score) -> None:
        self.score = source
        self.prints = footprints.footprints(source, LEG_M)
        duration = source.beats * source.seconds_per_beat
        self.times = np.arange(round(duration * FPS) + 1) / FPS
        centre, self.facing = _centre_path(self.prints, self.times)
        height = np.full(len(self.times), canonical.HIPS_HEIGHT_M - HIPS_DROP_M)
        hips = np.stack([centre[:, 0], height, centre[:, 1]], -1)
        left = np.stack([np.cos(self.facing), 0 * self.facing, -np.sin(self.facing)], -1)
        down = np.array([0.0, 0.05, 0.0])
        self.hips = {"left": hips + 0.09 * left - down, "right": hips - 0.09 * left - down}
        self.tracks = fk.foot_tracks(
            source, self.prints, self.times, self.hips, self.facing, GEOMETRY
        )


def _centre_path(prints: Footprints, times: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The footprints' centre ``[F, 2]`` and facing ``[F]`` keys through a PCHIP."""
    keys = np.unique(prints.times)
    last = np.array([np.flatnonzero(prints.times == t)[-1] for t in keys])
    clipped = np.clip(times, keys[0], keys[-1])
    if len(keys) < 2:  # no steps: standing where it starts
        return np.repeat(prints.centre[last], len(times), 0), np.repeat(
            prints.facing[last], len(times)
        )
    centre = PchipInterpolator(keys, prints.centre[last])(clipped)
    return centre, PchipInterpolator(keys, prints.facing[last])(clipped)


def _load(name: str) -> Driven:
    return Driven(score.load(SCORES / f"{name}.json"))


def _runs(phase: NDArray[np.int8]) -> list[tuple[int, NDArray[np.intp]]]:
    """Runs of equal phase: (code, frame indices)."""
    out, start = [], 0
    for code, group in itertools.groupby(phase.tolist()):
        n = len(list(group))
        out.append((code, np.arange(start, start + n)))
        start += n
    return out


def _pitch_deg(track: fk.FootTrack) -> FloatArray:
    """The sole's angle to the floor (degrees, toes up positive) from ankle and ball."""
    sole = track.ball - track.ankle
    flat = math.atan2(-GEOMETRY.ankle_height_m, GEOMETRY.ball_forward_m)
    return np.degrees(np.arctan2(sole[:, 1], np.hypot(sole[:, 0], sole[:, 2])) - flat)


def _symbol(
    column: str, beat: float, duration: float, direction: str, level: str = "middle"
) -> dict[str, Any]:
    return {
        "column": column,
        "kind": "direction",
        "beat": beat,
        "duration": duration,
        "direction": direction,
        "level": level,
    }


def _score(measures: int, symbols: list[dict[str, Any]], meter: int = 2) -> score.Score:
    return score.load(
        {
            "format": "kinetograph-score/1",
            "tempo_bpm": 120,
            "meter": meter,
            "measures": measures,
            "symbols": symbols,
        }
    )


ALL = sorted(p.stem for p in SCORES.glob("*.json"))


def test_canonical_geometry_is_the_skeletons_foot() -> None:
    rest = canonical.rest_positions()
    j = canonical.JOINT_OF_ROLE
    ankle, ball = rest[j["left_foot"]], rest[j["left_toe"]]
    toe_end = rest[canonical.NAMES.index("LeftToe_End")]
    assert ankle[1] - ball[1] == pytest.approx(GEOMETRY.ankle_height_m)
    assert ball[2] - ankle[2] == pytest.approx(GEOMETRY.ball_forward_m)
    assert toe_end[2] - ball[2] == pytest.approx(GEOMETRY.toe_length_m)
    assert GEOMETRY.leg_m == pytest.approx(LEG_M)


@pytest.mark.parametrize("name", ALL)
def test_ground_phases_keep_their_contact_point(name: str) -> None:
    driven = _load(name)
    for track in driven.tracks.values():
        assert track.ankle.shape == track.ball.shape == (len(driven.times), 3)
        ground = np.isin(track.phase, GROUND)
        assert np.isnan(track.anchor[~ground]).all()
        assert not np.isnan(track.anchor[ground]).any()
        for code, rows in _runs(track.phase):
            if code in GROUND:  # the heel point, ankle projection or ball does not slide
                assert np.abs(track.anchor[rows] - track.anchor[rows[0]]).max() < 1e-3
        # The contact point of the joints themselves, as the caller would measure it.
        measured = fk.anchor_points(track.ankle, track.ball, track.phase, GEOMETRY)
        np.testing.assert_allclose(measured[ground], track.anchor[ground], atol=1e-9)
        assert np.isnan(measured[~ground]).all()
        np.testing.assert_allclose(track.anchor[ground][:, 1], 0.0, atol=1e-9)
        flat = track.phase == fk.FLAT
        np.testing.assert_allclose(track.ankle[flat, 1], GEOMETRY.ankle_height_m, atol=1e-9)


@pytest.mark.parametrize("name", ALL)
def test_no_foot_point_goes_below_the_floor(name: str) -> None:
    for track in _load(name).tracks.values():
        heel_everywhere = np.full(len(track.phase), fk.HEEL, dtype=np.int8)
        heel = fk.anchor_points(track.ankle, track.ball, heel_everywhere, GEOMETRY)
        for point in (track.ankle, track.ball, track.toe_end, heel):
            assert point[:, 1].min() > -1e-3
        gesture = track.phase == fk.GESTURE
        assert (track.ankle[gesture, 1] >= GEOMETRY.ankle_height_m - 1e-9).all()
        # The toes keep their length, bent or not, and lie on the floor on the ball.
        toes = np.linalg.norm(track.toe_end - track.ball, axis=1)
        np.testing.assert_allclose(toes, GEOMETRY.toe_length_m, atol=1e-9)
        np.testing.assert_allclose(track.toe_end[track.phase == fk.BALL, 1], 0.0, atol=1e-9)


@pytest.mark.parametrize("name", ["walk_forward", "walk_diagonal", "curved_path"])
def test_forward_steps_strike_with_the_heel_and_roll_down_to_flat(name: str) -> None:
    driven = _load(name)
    strikes = 0
    for track in driven.tracks.values():
        pitch = _pitch_deg(track)
        for code, rows in _runs(track.phase):
            if code != fk.HEEL or rows[-1] + 1 == len(track.phase):
                continue  # the last print may still be on its heel when the score ends
            strikes += 1
            assert pitch[rows[0]] >= fk.HEEL_STRIKE_PITCH_DEG - 1e-6
            assert (np.diff(pitch[rows]) <= 1e-6).all()  # toes coming down, never up
            assert pitch[rows[-1]] < 10.0
            assert track.phase[rows[-1] + 1] == fk.FLAT
            assert abs(pitch[rows[-1] + 1]) < 1e-6
    steps = [p for p in driven.prints.prints if p.kind == "step" and p.end_s > p.start_s]
    assert strikes >= len(steps) - 2


@pytest.mark.parametrize(("name", "kinds"), [("walk_backward", {"step"}), ("run", {"leap"})])
def test_backward_steps_and_landings_come_down_on_the_ball(name: str, kinds: set[str]) -> None:
    driven = _load(name)
    landings = 0
    for p in driven.prints.prints:
        if p.kind not in kinds or p.end_s - p.start_s < 0.1:
            continue
        track = driven.tracks[p.side]
        first = int(np.searchsorted(driven.times, p.start_s - 1e-9))
        assert track.phase[first] == fk.BALL
        assert _pitch_deg(track)[first] < -10.0  # the heel still up
        landings += 1
    assert landings >= 6
    assert not any((t.phase == fk.HEEL).any() for t in driven.tracks.values()) or name == "run"


def test_high_supports_stay_on_the_ball() -> None:
    driven = _load("levels")
    high = [p for p in driven.prints.prints if p.level == "high"]
    assert len(high) == 2
    for p in high:
        inside = (driven.times >= p.start_s) & (driven.times <= p.end_s)
        track = driven.tracks[p.side]
        assert (track.phase[inside] == fk.BALL).all()
        assert (_pitch_deg(track)[inside] <= -fk.HIGH_PITCH_DEG + 1e-6).all()


WALKS = ["walk_forward", "walk_diagonal", "curved_path", "hold", "levels", "half_turn"]


@pytest.mark.parametrize("name", WALKS)
def test_flat_and_ball_contacts_stay_within_reach(name: str) -> None:
    """Toe rotation (Fig. 6): where the flat foot is out of reach the heel rises until
    the ankle is exactly at the reach (at most the pitch limit). That always helps a
    foot behind the hip; a foot far ahead of it may stay out of reach (the hips'
    business)."""
    driven = _load(name)
    reach = fk.REACH_FACTOR * GEOMETRY.leg_m
    for side, track in driven.tracks.items():
        offset = track.ankle - driven.hips[side]
        sole = (track.ball - track.ankle) * np.array([1.0, 0.0, 1.0])
        behind = np.sum((track.ball - driven.hips[side]) * sole, axis=1) < 0.0
        standing = np.isin(track.phase, (fk.FLAT, fk.BALL)) & behind
        limited = _pitch_deg(track) < -fk.MAX_PITCH_DEG + 1e-6
        assert standing.sum() > 10
        assert (np.linalg.norm(offset, axis=1)[standing & ~limited] <= reach + 1e-9).all()


def test_toe_rotation_lifts_the_heel_of_the_trailing_foot() -> None:
    driven = _load("walk_forward")
    reach = fk.REACH_FACTOR * GEOMETRY.leg_m
    track, hip = driven.tracks["right"], driven.hips["right"]
    lifted = track.phase == fk.BALL
    # Some ball frames are there only for the reach: flat, the ankle would be too far.
    sole = (track.ball - track.ankle) * np.array([1.0, 0.0, 1.0])
    along = sole / np.linalg.norm(sole, axis=1)[:, None]
    flat_ankle = track.ball - GEOMETRY.ball_forward_m * along
    flat_ankle[:, 1] = GEOMETRY.ankle_height_m
    too_far = np.linalg.norm(flat_ankle - hip, axis=1) > reach + 1e-6
    at_reach = np.abs(np.linalg.norm(track.ankle - hip, axis=1) - reach) < 1e-6
    assert (lifted & too_far & at_reach).sum() >= 10


def test_flights_rise_higher_with_more_air_time() -> None:
    def highest(driven: Driven) -> float:
        return max(float(t.ankle[t.phase == fk.AIR, 1].max()) for t in driven.tracks.values())

    def mid_swing(driven: Driven) -> float:
        """The highest ankle halfway through a flight (the walking swing's lifted key;
        just after toe-off the ankle of a foot still pitched heel up may be higher, its
        toe tip clear of the floor)."""
        middles = []
        for t in driven.tracks.values():
            air = np.flatnonzero(t.phase == fk.AIR)
            for run in np.split(air, np.flatnonzero(np.diff(air) > 1) + 1):
                middles.append(float(t.ankle[run[len(run) // 2], 1]))
        return max(middles)

    walk, run = mid_swing(_load("walk_forward")), highest(_load("run"))
    swing = GEOMETRY.ankle_height_m + fk.SWING_LIFT_LEGS * LEG_M
    assert walk == pytest.approx(swing, abs=0.01)
    assert run > highest(_load("walk_forward")) + 0.2
    # The run's kick: at its highest the foot is behind the hip (heel to the buttock).
    driven = _load("run")
    track, hip = driven.tracks["left"], driven.hips["left"]
    air = np.flatnonzero(track.phase == fk.AIR)
    top = air[np.argmax(track.ankle[air, 1])]
    forward = np.array([np.sin(driven.facing[top]), 0.0, np.cos(driven.facing[top])])
    assert np.dot(track.ankle[top] - hip[top], forward) < -0.1


def test_crossing_steps_go_round_the_standing_foot() -> None:
    # Sideways steps to the left, the right foot crossing over the left each time.
    symbols = [_symbol("support_right", 0, 1, "left"), _symbol("support_left", 1, 1, "left")]
    symbols += [_symbol("support_right", 2, 1, "left"), _symbol("support_left", 3, 1, "left")]
    driven = Driven(_score(3, symbols))
    clearance = fk.FOOT_CLEARANCE_LEGS * LEG_M
    crossings = 0
    for side, other in (("left", "right"), ("right", "left")):
        swing, standing = driven.tracks[side], driven.tracks[other]
        for p in driven.prints.of(side):
            if p.kind != "step":
                continue
            before = max(
                (q for q in driven.prints.of(side) if q.end_s < p.start_s), key=lambda q: q.end_s
            )
            stand = [q for q in driven.prints.of(other) if q.start_s <= before.end_s < q.end_s]
            a, b, s = (np.array(x.position) for x in (before, p, stand[0]))
            u = np.clip(np.dot(s - a, b - a) / np.dot(b - a, b - a), 0.0, 1.0)
            assert np.linalg.norm(a + u * (b - a) - s) < 0.05  # straight, it would hit
            flight = (driven.times > before.end_s) & (driven.times < p.start_s)
            gap = np.linalg.norm((swing.ankle - standing.ankle)[flight][:, [0, 2]], axis=1)
            assert gap.min() >= clearance
            closest = np.flatnonzero(flight)[np.argmin(gap)]
            assert swing.ankle[closest, 2] > standing.ankle[closest, 2]  # round in front
            crossings += 1
    assert crossings == 4


def test_straight_walking_needs_no_detour() -> None:
    driven = _load("walk_forward")
    left, right = driven.tracks["left"], driven.tracks["right"]
    x = np.concatenate([left.ankle[left.phase == fk.AIR, 0], right.ankle[right.phase == fk.AIR, 0]])
    np.testing.assert_allclose(np.abs(x), footprints.HIP_WIDTH_LEGS * LEG_M / 2, atol=1e-6)


def test_leg_gestures_point_the_foot_along_the_symbol() -> None:
    driven = _load("leg_gestures")
    track, hip = driven.tracks["left"], driven.hips["left"]
    spb = driven.score.seconds_per_beat
    symbols = [s for s in driven.score.column("leg_left") if s.kind == "direction"]
    landing = min(p.start_s for p in driven.prints.of("left") if p.start_s > 1.0)
    checked = 0
    for symbol, after in itertools.zip_longest(symbols, symbols[1:]):
        until = after.beat * spb if after is not None else landing - fk.GESTURE_RETURN_S
        held = (driven.times >= symbol.end * spb) & (driven.times <= until)
        assert (track.phase[held] == fk.GESTURE).all()
        body = gestures.direction_vector(str(symbol.direction), str(symbol.level))
        f = driven.facing[held]
        world = (
            body[0] * np.stack([np.cos(f), 0 * f, -np.sin(f)], -1)
            + body[1] * np.array([0.0, 1.0, 0.0])
            + body[2] * np.stack([np.sin(f), 0 * f, np.cos(f)], -1)
        )
        offset = track.ankle[held] - hip[held]
        cos = np.sum(offset * world, axis=1) / np.linalg.norm(offset, axis=1)
        assert np.degrees(np.arccos(np.clip(cos, -1, 1))).max() < 5.0
        reach = np.linalg.norm(offset, axis=1)
        np.testing.assert_allclose(reach, fk.GESTURE_REACH * LEG_M, atol=0.01)
        checked += held.sum()
    assert checked > 60
    gesture = track.phase == fk.GESTURE
    assert (track.ankle[gesture, 1] >= GEOMETRY.ankle_height_m - 1e-9).all()
    # The other leg is not gesturing: no gesture keys there.
    assert not (driven.tracks["right"].phase == fk.GESTURE).any()


def test_a_gesture_part_while_the_foot_is_down_is_ignored() -> None:
    # The left leg gestures from beat 1 to 4, but the left foot lands on beat 3.7.
    symbols = [
        _symbol("support_right", 0, 1, "place"),
        {"column": "support_right", "kind": "hold", "beat": 1, "duration": 5},
        _symbol("leg_left", 1, 3, "left_forward"),
        _symbol("support_left", 3, 1, "place"),
    ]
    driven = Driven(_score(3, symbols))
    track = driven.tracks["left"]
    down = next(p for p in driven.prints.of("left") if p.kind == "close")
    gesture_end = 4 * driven.score.seconds_per_beat
    assert down.start_s < gesture_end  # the gesture overlaps the print
    on_print = (driven.times >= down.start_s) & (driven.times <= gesture_end)
    assert np.isin(track.phase[on_print], GROUND).all()
    gesturing = driven.times[track.phase == fk.GESTURE]
    assert len(gesturing) > 0
    assert gesturing.max() <= down.start_s - fk.GESTURE_RETURN_S + 1e-9


def test_a_pivot_turns_the_standing_foot_on_its_ball() -> None:
    driven = _load("quarter_turn")
    turn = next(s for s in driven.score.symbols if s.kind == "turn")
    spb = driven.score.seconds_per_beat
    during = (driven.times > turn.beat * spb) & (driven.times < turn.end * spb)
    track = driven.tracks["left"]  # the supporting foot
    assert (track.phase[during] == fk.BALL).all()
    sole = (track.ball - track.ankle)[:, [0, 2]]
    heading = np.degrees(np.arctan2(sole[:, 0], sole[:, 1]))
    start, end = np.flatnonzero(during)[[0, -1]]
    assert heading[start - 1] == pytest.approx(0.0, abs=1e-6)
    assert heading[end + 1] == pytest.approx(-90.0, abs=1e-6)


def test_anchor_points_by_hand() -> None:
    # A flat foot, a foot on its heel with the toes 20° up, and one on its ball.
    g = GEOMETRY
    ha, b, hb = g.ankle_height_m, g.ball_forward_m, g.heel_back_m
    up = math.radians(20.0)
    heel = np.array([1.0, 0.0, 2.0])
    c, s = math.cos(up), math.sin(up)
    ankle_on_heel = heel + np.array([0.0, hb * s + ha * c, hb * c - ha * s])
    ball_on_heel = heel + np.array([0.0, (hb + b) * s, (hb + b) * c])
    ankle = np.array([[0.5, ha, 0.5], ankle_on_heel, [0.0, 0.2, 0.0]])
    ball = np.array([[0.5, 0.0, 0.5 + b], ball_on_heel, [0.0, 0.0, 0.1]])
    phase = np.array([fk.FLAT, fk.HEEL, fk.BALL], dtype=np.int8)
    out = fk.anchor_points(ankle, ball, phase, g)
    expected = np.array([[0.5, 0.0, 0.5], heel, [0.0, 0.0, 0.1]])
    np.testing.assert_allclose(out, expected, atol=1e-12)
    air = fk.anchor_points(ankle, ball, np.array([fk.AIR, fk.GESTURE, fk.AIR], np.int8), g)
    assert np.isnan(air).all()


def _long_score() -> score.Score:
    """32 bars of 4/4: walking, running, side steps and leg gestures."""
    symbols: list[dict[str, Any]] = []
    sides = itertools.cycle(("right", "left"))
    for beat in range(0, 48):  # walking forward, one step a beat
        symbols.append(_symbol(f"support_{next(sides)}", beat, 1, "forward"))
    for beat in range(48, 80):  # running: half a beat down, half in the air
        symbols.append(_symbol(f"support_{next(sides)}", beat, 0.5, "forward"))
    for beat in range(80, 112):  # side steps to the left, the right foot closing
        side = "left" if beat % 2 == 0 else "right"
        symbols.append(_symbol(f"support_{side}", beat, 1, "left" if side == "left" else "place"))
    symbols.append(_symbol("support_right", 112, 1, "place"))
    symbols.append({"column": "support_right", "kind": "hold", "beat": 113, "duration": 14})
    for beat in range(113, 125, 3):
        symbols.append(_symbol("leg_left", beat, 2, "left_forward", "high"))
    symbols.append(_symbol("support_left", 126, 1, "place"))
    return _score(32, symbols, meter=4)


def test_a_long_score_gets_a_whole_track_per_foot() -> None:
    # Its time is measured by bench/laban_bench.py (a 32-bar score), not here.
    driven = Driven(_long_score())
    assert len(driven.times) > 3800
    assert (driven.tracks["left"].phase == fk.GESTURE).any()
    tracks = fk.foot_tracks(
        driven.score, driven.prints, driven.times, driven.hips, driven.facing, GEOMETRY
    )
    for side in ("left", "right"):
        track = tracks[side]
        assert track.ankle.shape == (len(driven.times), 3)
        assert np.isfinite(track.ankle).all() and np.isfinite(track.ball).all()
