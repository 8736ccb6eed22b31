"""Interpretation (motioncore.laban.timing): channels sorted by performed start, modifiers
attached by proximity, and the timing rules (anticipation, arm–leg sync, leg gestures
before the next support) on small inline scores; gestures.channel follows the
performed timing and still arrives on the written end."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from motioncore.laban import gestures, score, timing
from motioncore.laban.score import Score, Symbol
from support.paths import SAMPLE_DIR

OUTWARD = np.array([-1.0, 0.0, 0.0])
DOWN = np.array([0.0, -1.0, 0.0])
ARM = ("arm", "hand", "wrist", "forearm")


def _score(symbols: list[dict[str, Any]], tempo_bpm: float = 60, measures: int = 2) -> Score:
    return score.load(
        {
            "format": "kinetograph-score/1",
            "tempo_bpm": tempo_bpm,
            "meter": 4,
            "measures": measures,
            "symbols": symbols,
        }
    )


def _dir(column: str, beat: float, duration: float, direction: str = "forward", **kw: Any) -> Any:
    level = kw.pop("level", "middle")
    return {"column": column, "kind": "direction", "beat": beat, "duration": duration} | {
        "direction": direction,
        "level": level,
        **kw,
    }


def _span(result: timing.Interpretation, column: str, beat: float) -> tuple[float, float]:
    (timed,) = [t for t in result.channel(column) if t.symbol.beat == beat]
    return timed.start_s, timed.end_s


def test_channels_hold_every_movement_of_their_column_sorted_by_performed_start() -> None:
    loaded = _score(
        [
            _dir("arm_right", 4, 1, "right"),
            _dir("arm_right", 0, 2, "forward", part="elbow"),
            _dir("arm_right", 1, 1, "left"),
            _dir("support_left", 0, 1),
            {"column": "support_left", "kind": "hold", "beat": 1, "duration": 1},
            {"column": "support_left", "kind": "step_size", "beat": 0, "size": 2},
            _dir("head", 2, 1, "left"),
        ]
    )
    result = timing.interpret(loaded)
    assert set(result.channels) == {"arm_right", "support_left", "head"}
    arm = result.channel("arm_right")
    assert [t.symbol.beat for t in arm] == [0, 1, 4]
    assert [t.start_s for t in arm] == sorted(t.start_s for t in arm)
    assert [t.symbol.kind for t in result.channel("support_left")] == ["direction", "hold"]
    assert result.channel("leg_left") == ()
    assert all(t.symbol is result.of(t.symbol).symbol for t in arm)


def test_a_step_size_sign_on_the_beat_or_an_eighth_off_attaches_far_away_is_reported() -> None:
    step = Symbol("support_right", "direction", 1.0, 1.0, "forward", "middle")
    later = Symbol("support_right", "direction", 3.0, 1.0, "forward", "middle")
    near = Symbol("support_right", "step_size", 1.125, size=2)  # drawn a little high
    early = Symbol("support_right", "step_size", 2.875, size=-1)  # a little low
    far = Symbol("support_right", "step_size", 2.0, size=3)  # a beat from either step
    other_column = Symbol("support_left", "step_size", 1.0, size=1)
    symbols = (step, near, far, other_column, early, later)
    loaded = Score(60.0, 4, 1, symbols)
    result = timing.interpret(loaded)
    assert result.of(step).modifiers == (near,)
    assert result.of(later).modifiers == (early,)
    assert result.step_size(step) == 2 and result.step_size(later) == -1
    assert result.unattached == (far, other_column)
    assert all(t.symbol.kind != "step_size" for c in result.channels.values() for t in c)


def test_modifier_tolerance_is_a_keyword_and_ties_go_to_the_earlier_symbol() -> None:
    a = Symbol("support_left", "direction", 0.0, 0.5, "forward", "middle")
    b = Symbol("support_left", "direction", 0.5, 0.5, "forward", "middle")
    between = Symbol("support_left", "step_size", 0.25, size=1)
    attached, unattached = timing.attach_modifiers((a, b, between), tolerance_beats=0.25)
    assert attached == {a: (between,)} and unattached == ()
    nearer_b = Symbol("support_left", "step_size", 0.45, size=1)  # both in reach, b nearer
    attached, _ = timing.attach_modifiers((a, b, nearer_b), tolerance_beats=0.5)
    assert attached == {b: (nearer_b,)}
    attached, unattached = timing.attach_modifiers((a, b, between), tolerance_beats=0.2)
    assert attached == {} and unattached == (between,)


@pytest.mark.parametrize(
    ("start_s", "previous_end_s", "expected"),
    [
        (2.0, 1.0, 1.75),  # a free lane: a quarter beat (0.25 s at 60 bpm) early
        (2.0, 1.9, 1.9),  # not before the previous movement ends
        (2.0, 2.0, 2.0),  # contiguous: no room, starts on its beat
        (0.1, 0.0, 0.0),  # not before the score starts
        (1.0, 1.5, 1.0),  # never later than written
    ],
)
def test_anticipated_start(start_s: float, previous_end_s: float, expected: float) -> None:
    assert timing.anticipated(start_s, previous_end_s, 0.25) == pytest.approx(expected)


def test_a_gesture_starts_before_its_beat_and_arrives_exactly_on_its_written_end() -> None:
    loaded = _score(
        [
            _dir("arm_left", 0, 1, "place", level="low"),
            _dir("arm_left", 2, 1.5, "forward"),  # written with a duration
            _dir("arm_left", 3.5, 1, "left"),  # straight after: no room to anticipate
            _dir("head", 6, 0, "left"),  # written without a duration
        ],
        tempo_bpm=120,
    )
    result = timing.interpret(loaded)
    spb = loaded.seconds_per_beat
    assert _span(result, "arm_left", 0) == pytest.approx((0.0, 1 * spb))
    assert _span(result, "arm_left", 2) == pytest.approx(((2 - 0.25) * spb, 3.5 * spb))
    assert _span(result, "arm_left", 3.5) == pytest.approx((3.5 * spb, 4.5 * spb))
    assert _span(result, "head", 6) == pytest.approx(((6 - 0.25) * spb, 6 * spb))
    lead = timing.interpret(loaded, lead_beats=0.5)
    assert _span(lead, "arm_left", 2)[0] == pytest.approx(1.5 * spb)


def test_supports_turns_and_holds_keep_their_written_timing() -> None:
    loaded = _score(
        [
            _dir("support_right", 1, 1),
            {"column": "support_right", "kind": "hold", "beat": 2, "duration": 1},
            {
                "column": "body",
                "kind": "turn",
                "beat": 3,
                "duration": 1,
                "turn": "left",
                "amount": 0.25,
            },
        ]
    )
    result = timing.interpret(loaded)
    for column in ("support_right", "body"):
        for t in result.channel(column):
            assert (t.start_s, t.end_s) == (t.written_start_s, t.written_end_s)


def test_an_arm_gesture_on_a_step_moves_with_the_step() -> None:
    loaded = _score(
        [
            _dir("support_right", 0, 1),
            _dir("support_left", 1, 1),
            _dir("arm_right", 1.0625, 2, "forward"),  # written on the step, a bit late
            _dir("arm_left", 5, 1, "forward"),  # no leg movement there: anticipates
        ]
    )
    result = timing.interpret(loaded)
    assert _span(result, "arm_right", 1.0625) == pytest.approx((1.0, 2.0))
    assert _span(result, "arm_left", 5) == pytest.approx((4.75, 6.0))
    (note,) = [a for a in result.adjustments if a.rule == "sync"]
    assert note.other is not None and note.other.column == "support_left"
    assert note.seconds == pytest.approx(1.0625)  # arrives 1.0625 s before its written end


def test_a_leg_gesture_wins_over_a_step_for_the_arm_sync() -> None:
    loaded = _score(
        [
            _dir("support_left", 1, 1),
            _dir("leg_right", 1, 0.5, "forward", level="low"),
            _dir("arm_left", 1, 1, "forward"),
        ]
    )
    result = timing.interpret(loaded)
    leg = _span(result, "leg_right", 1)
    assert leg == pytest.approx((0.75, 1.5))  # the leg gesture anticipates too
    assert _span(result, "arm_left", 1) == pytest.approx(leg)


def test_the_sync_is_dropped_where_the_leg_span_would_overrun_the_next_arm_movement() -> None:
    loaded = _score(
        [
            _dir("support_left", 1, 2),
            _dir("arm_left", 1, 1, "forward"),
            _dir("arm_left", 2, 1, "left"),
        ]
    )
    result = timing.interpret(loaded)
    assert _span(result, "arm_left", 1) == pytest.approx((0.75, 2.0))  # anticipation only
    assert [a.rule for a in result.adjustments] == ["sync_dropped"]


def test_an_arm_gesture_after_a_synced_one_does_not_start_before_it_ends() -> None:
    loaded = _score(
        [
            _dir("support_left", 0, 1.875),  # a slow step
            _dir("arm_left", 0, 1, "forward"),  # keeps time with it: arrives at 1.875
            _dir("arm_left", 2, 1, "left"),  # would anticipate to 1.75
        ]
    )
    result = timing.interpret(loaded)
    assert _span(result, "arm_left", 0) == pytest.approx((0.0, 1.875))
    assert _span(result, "arm_left", 2) == pytest.approx((1.875, 3.0))


def test_a_leg_gesture_is_shortened_to_finish_before_the_leg_takes_the_next_step() -> None:
    loaded = _score(
        [
            _dir("support_right", 0, 1),
            _dir("leg_right", 1, 2, "forward", level="low"),  # the leg swings forward
            _dir("support_right", 3, 1),  # and steps on beat 3
            _dir("leg_left", 1, 2, "left", level="low"),  # no step of the left follows
        ]
    )
    result = timing.interpret(loaded)
    # anticipation is held back by the step before (the weight is not off before 1 s)
    assert _span(result, "leg_right", 1) == pytest.approx((1.0, 3.0 - timing.RETURN_S))
    assert _span(result, "leg_left", 1) == pytest.approx((1.0, 3.0))
    (note,) = result.adjustments
    assert note.rule == "shortened" and note.other is not None and note.other.beat == 3
    assert note.seconds == pytest.approx(timing.RETURN_S)
    longer = timing.interpret(loaded, return_s=0.5)
    assert _span(longer, "leg_right", 1)[1] == pytest.approx(2.5)


def test_a_leg_gesture_is_never_reversed_when_the_step_comes_too_soon() -> None:
    loaded = _score(
        [
            _dir("support_left", 0, 1),
            _dir("leg_left", 1, 1, "forward"),  # the leg is free on beat 1 only
            _dir("support_left", 1.125, 1),  # and steps an eighth of a beat later
        ]
    )
    result = timing.interpret(loaded)
    start, end = _span(result, "leg_left", 1)
    assert end == pytest.approx(start)  # it cannot move, but does not go backwards
    assert "no time is left" in result.adjustments[0].detail
    assert timing.before_support(1.0, 2.0, 1.1, 0.25) == 1.0
    assert timing.before_support(1.0, 2.0, None, 0.25) == 2.0


def test_the_gesture_channel_moves_before_the_beat_and_points_on_the_written_end() -> None:
    loaded = _score(
        [
            _dir("arm_right", 0, 1, "place", level="low"),
            _dir("arm_right", 2, 1.5, "right", level="high"),
            _dir("arm_right", 4, 2, "backward", level="middle"),
        ]
    )
    spb = loaded.seconds_per_beat
    times = np.array([1.0, 1.9, 2.0, 3.5, 3.9, 6.0]) * spb
    out = gestures.channel(loaded, "arm_right", ARM, times, DOWN, OUTWARD)
    place_low, right_high = (
        gestures.direction_vector(*d) for d in (("place", "low"), ("right", "high"))
    )
    np.testing.assert_allclose(out[0], place_low, atol=1e-12)
    assert np.degrees(np.arccos(np.clip(out[1] @ place_low, -1, 1))) > 1.0  # moving already
    np.testing.assert_allclose(out[3], right_high, atol=1e-12)  # arrived on its written end
    assert np.dot(out[4], right_high) < 1.0 - 1e-6  # the next one leaves early too
    np.testing.assert_allclose(out[5], gestures.direction_vector("backward", "middle"), atol=1e-12)
    again = gestures.channel(timing.interpret(loaded), "arm_right", ARM, times, DOWN, OUTWARD)
    np.testing.assert_array_equal(out, again)


def test_every_arm_symbol_of_the_test_score_is_reached_on_its_written_end() -> None:
    loaded = score.load(SAMPLE_DIR / "scores" / "arm_gestures.json")
    result = timing.interpret(loaded)
    symbols = gestures.limb_symbols(loaded, "arm_right")
    times = np.array([s.end * loaded.seconds_per_beat for s in symbols])
    out = gestures.channel(result, "arm_right", ARM, times, DOWN, OUTWARD)
    for row, s in zip(out, symbols, strict=True):
        np.testing.assert_allclose(
            row, gestures.direction_vector(str(s.direction), str(s.level)), atol=1e-9
        )
        assert result.of(s).end_s == pytest.approx(s.end * loaded.seconds_per_beat)


def test_opposite_directions_still_go_round_by_the_side() -> None:
    forward = gestures.direction_vector("forward", "middle")
    backward = gestures.direction_vector("backward", "middle")
    t = np.linspace(0.0, 1.0, 11)
    path = gestures.arcs(forward, backward, t, OUTWARD)
    np.testing.assert_allclose(path[5], OUTWARD, atol=1e-12)  # halfway: out to the side
    np.testing.assert_allclose(np.linalg.norm(path, axis=1), 1.0, atol=1e-12)
    for i, ti in enumerate(t):
        np.testing.assert_allclose(gestures.arc(forward, backward, float(ti), OUTWARD), path[i])


_COLUMNS = ("support_left", "support_right", "leg_left", "leg_right", "arm_left", "arm_right")


@st.composite
def _lanes(draw: st.DrawFn) -> Score:
    """A random score: each column a run of direction symbols and gaps on eighths."""
    symbols = []
    for column in _COLUMNS:
        beat = 0.0
        for gap, length in draw(
            st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=6)
        ):
            beat += gap / 8
            symbols.append(Symbol(column, "direction", beat, length / 8, "forward", "low"))
            beat += length / 8
    return Score(100.0, 4, 20, tuple(sorted(symbols, key=lambda s: s.beat)))


@settings(max_examples=200, deadline=None)
@given(_lanes())
def test_performed_spans_never_reverse_overlap_or_move_supports(loaded: Score) -> None:
    result = timing.interpret(loaded)
    changed = {a.symbol for a in result.adjustments if a.rule in ("sync", "shortened")}
    for column in _COLUMNS:
        lane = sorted(result.channel(column), key=lambda t: t.symbol.beat)
        for t in lane:
            assert 0.0 <= t.start_s <= t.end_s + 1e-9
            if column.startswith("support"):
                assert (t.start_s, t.end_s) == (t.written_start_s, t.written_end_s)
            elif t.symbol not in changed:
                assert t.end_s == t.written_end_s  # arrives on its written end
                assert t.start_s <= t.written_start_s
        for a, b in itertools.pairwise(lane):
            assert b.start_s >= a.end_s - 1e-9, (a, b)
