"""Interpretation (seed 003 §5, §7.1): the written score → channels with performed timing.

A score's symbols become one **channel** per column, sorted by performed start time
(then written beat), each entry a :class:`TimedSymbol`: the written :class:`Symbol`, its
written span and its *performed* span (when the movement really starts and arrives),
with the modifier symbols attached to it. Within a column each body part (the
``part`` pre-sign; none means the column's default part) is a **lane**: the movements
of a lane follow one another.

**Modifiers** (``step_size`` signs) attach by proximity (§5): to the direction symbol
of the same column whose start is nearest the sign's beat, within
:data:`MODIFIER_TOLERANCE_BEATS`; a tie goes to the earlier symbol. Signs with no
symbol that near are reported in :attr:`Interpretation.unattached`.

**Timing rules** (§7.1: "a gesture written on a beat usually starts before the beat
and arrives on it"; arm gestures keep time with the legs; a leg gesture must finish
before the leg becomes the next support), applied in this order:

1. Supports, turns, holds and path signs keep their written timing
   (:mod:`motioncore.laban.footprints` times the steps).
2. :func:`anticipated`: every gesture (a direction symbol in a leg, body, arm or head
   column) starts :data:`LEAD_BEATS` before its written start, never before the end
   of the previous movement of its lane (for a leg gesture, nor before the end of
   the last step written before it, of either side: the weight is not off the leg
   before) nor before 0, and arrives on its written end.
3. :func:`before_support`: a leg gesture arrives at the latest :data:`RETURN_S`
   before the next step of its side's support column starts; it is shortened (never
   reversed: at worst it arrives where it starts) and the shortening is reported.
4. :func:`sync_partner`: an arm gesture written within :data:`SYNC_TOLERANCE_BEATS`
   of the start of a leg gesture or a step takes that leg movement's performed span:
   the leg's timing wins over the arm's written length and its anticipation. A leg
   gesture wins over a step, then the nearest start, then the left side. The arm
   still starts no earlier than the end of its previous movement, and the sync is
   dropped (the arm keeps rule 2, and it is reported) where the leg's span would
   overrun the arm's next movement or be empty.

Units: seconds from the start of the first measure for performed and written times
(written beats × seconds per beat); constants in beats say so in their names.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from motioncore.laban.score import (
    MODIFIER_TOLERANCE_BEATS,
    PARTS,
    SUPPORTS,
    TIME_EPS,
    Score,
    Symbol,
)

LEAD_BEATS = 0.25
"""How long before its written start a gesture begins to move (§7.1), in beats."""
RETURN_S = 0.25
"""The least time between a leg gesture's arrival and the leg's next step (§7.1), s."""
SYNC_TOLERANCE_BEATS = 0.125
"""Starts this close (beats) count as the same beat for the arm–leg sync."""

GESTURE_COLUMNS = ("leg_left", "leg_right", "body", "arm_left", "arm_right", "head")
"""Columns whose direction symbols are gestures (anticipated, rule 2)."""
LEG_GESTURES = {"leg_left": "support_left", "leg_right": "support_right"}
"""Leg gesture column → the support column of the same side (rule 3)."""
ARMS = ("arm_left", "arm_right")
MODIFIER_KINDS = ("step_size",)
T = TypeVar("T")


@dataclass(frozen=True)
class TimedSymbol:
    """A written ``symbol`` with its written and performed spans (seconds) and the
    ``modifiers`` attached to it."""

    symbol: Symbol
    start_s: float
    end_s: float
    written_start_s: float
    written_end_s: float
    modifiers: tuple[Symbol, ...] = ()

    @property
    def column(self) -> str:
        return self.symbol.column

    @property
    def lane(self) -> tuple[str, str]:
        """(column, body part): the part named by the pre-sign or the column's default."""
        return self.symbol.column, self.symbol.part or PARTS[self.symbol.column][0]

    @property
    def is_gesture(self) -> bool:
        return self.symbol.kind == "direction" and self.symbol.column in GESTURE_COLUMNS


@dataclass(frozen=True)
class Adjustment:
    """A timing rule that did something worth reporting: ``rule`` (``shortened``,
    ``sync``, ``sync_dropped``), the ``symbol`` it changed, the ``other`` symbol that
    caused it (the step, the leg movement), the change in ``seconds``, and a sentence."""

    rule: str
    symbol: Symbol
    other: Symbol | None
    seconds: float
    detail: str


@dataclass(frozen=True)
class Interpretation:
    """Per-column ``channels`` (by performed start), the modifiers that found no symbol
    (``unattached``) and the reported ``adjustments``."""

    score: Score
    channels: dict[str, tuple[TimedSymbol, ...]]
    unattached: tuple[Symbol, ...] = ()
    adjustments: tuple[Adjustment, ...] = ()
    _index: dict[Symbol, TimedSymbol] = field(default_factory=dict, repr=False, compare=False)

    def channel(self, column: str) -> tuple[TimedSymbol, ...]:
        """The timed symbols of ``column`` by performed start (empty if none)."""
        return self.channels.get(column, ())

    def of(self, symbol: Symbol) -> TimedSymbol:
        """The timed entry of a (non-modifier) written symbol."""
        return self._index[symbol]

    def step_size(self, symbol: Symbol) -> int:
        """The summed ``size`` of the step-size signs attached to ``symbol`` (0 if none)."""
        return sum(m.size or 0 for m in self.of(symbol).modifiers if m.kind == "step_size")


def interpret(
    score: Score,
    *,
    lead_beats: float = LEAD_BEATS,
    return_s: float = RETURN_S,
    sync_tolerance_beats: float = SYNC_TOLERANCE_BEATS,
    modifier_tolerance_beats: float = MODIFIER_TOLERANCE_BEATS,
) -> Interpretation:
    """Channels with performed timing and attached modifiers (module docstring)."""
    spb = score.seconds_per_beat
    modifiers, unattached = attach_modifiers(score.symbols, modifier_tolerance_beats)
    lanes = _lanes(s for s in score.symbols if s.kind not in MODIFIER_KINDS)
    steps = _Steps.of(score.symbols, spb)
    notes: list[Adjustment] = []
    done: list[TimedSymbol] = []
    for (column, _), lane in lanes.items():  # rules 1-3: everything but the arms
        if column not in ARMS:
            done += _timed_lane(lane, steps, lead_beats * spb, return_s, spb, notes)
    legs = sorted(
        (
            t
            for t in done
            if t.symbol.kind == "direction" and t.column in (*LEG_GESTURES, *SUPPORTS)
        ),
        key=lambda t: t.symbol.beat,
    )
    for (column, _), lane in lanes.items():  # rule 4: the arms, with the legs
        if column in ARMS:
            done += _arm_lane(lane, legs, lead_beats * spb, sync_tolerance_beats, spb, notes)
    done = [_with(t, t.start_s, t.end_s, modifiers.get(t.symbol, ())) for t in done]
    return _assembled(score, done, unattached, notes)


def anticipated(start_s: float, previous_end_s: float, lead_s: float) -> float:
    """Rule 2: a gesture's performed start, ``lead_s`` before its written ``start_s``
    but not before ``previous_end_s`` (its lane's previous movement) nor 0, and never
    after the written start. Its arrival stays on the written end."""
    return min(start_s, max(start_s - lead_s, previous_end_s, 0.0))


def before_support(start_s: float, end_s: float, support_s: float | None, return_s: float) -> float:
    """Rule 3: a leg gesture's performed arrival, at the latest ``return_s`` before the
    next step of its side (``support_s``; ``None``: no step follows), never before its
    performed ``start_s``."""
    if support_s is None:
        return end_s
    return max(start_s, min(end_s, support_s - return_s))


def sync_partner(
    arm: Symbol, legs: Sequence[TimedSymbol], tolerance_beats: float
) -> TimedSymbol | None:
    """Rule 4: the leg movement (leg gesture or step; ``legs`` sorted by written beat)
    written within ``tolerance_beats`` of the arm gesture's start that it keeps time
    with: a leg gesture before a step, then the nearest start, then the left side;
    ``None`` if there is none."""
    near = _near(legs, arm.beat, tolerance_beats, lambda t: t.symbol.beat)
    return min(
        near,
        key=lambda t: (
            t.column in SUPPORTS,
            abs(t.symbol.beat - arm.beat),
            t.column.endswith("right"),
        ),
        default=None,
    )


def attach_modifiers(
    symbols: Iterable[Symbol], tolerance_beats: float
) -> tuple[dict[Symbol, tuple[Symbol, ...]], tuple[Symbol, ...]]:
    """Modifier signs (§5) by the symbol they modify, and those that found none: each
    attaches to the direction symbol of its column whose start is nearest its beat,
    within ``tolerance_beats`` (a tie goes to the earlier symbol)."""
    symbols = tuple(symbols)
    directions: dict[str, list[Symbol]] = {}
    for s in sorted((s for s in symbols if s.kind == "direction"), key=lambda s: s.beat):
        directions.setdefault(s.column, []).append(s)
    attached: dict[Symbol, tuple[Symbol, ...]] = {}
    unattached: list[Symbol] = []
    for m in (s for s in symbols if s.kind in MODIFIER_KINDS):
        near = _near(directions.get(m.column, []), m.beat, tolerance_beats, lambda s: s.beat)
        if not near:
            unattached.append(m)
            continue
        target = min(near, key=lambda s: (abs(s.beat - m.beat), s.beat))
        attached[target] = (*attached.get(target, ()), m)
    return attached, tuple(unattached)


def _near(
    items: Sequence[T], beat: float, tolerance: float, key: Callable[[T], float]
) -> Sequence[T]:
    """The ``items`` (sorted by ``key``) whose key is within ``tolerance`` of ``beat``."""
    lo = bisect.bisect_left(items, beat - tolerance - TIME_EPS, key=key)
    return items[lo : bisect.bisect_right(items, beat + tolerance + TIME_EPS, key=key)]


@dataclass(frozen=True)
class _Steps:
    """The support steps (direction symbols) by written beat, for rules 2 and 3."""

    by_side: dict[str, list[Symbol]]
    beats: list[float]
    ends_s: list[float]  # the latest end (s) of the steps up to each one

    @classmethod
    def of(cls, symbols: Iterable[Symbol], spb: float) -> _Steps:
        steps = sorted(
            (s for s in symbols if s.column in SUPPORTS and s.kind == "direction"),
            key=lambda s: s.beat,
        )
        by_side = {side: [s for s in steps if s.column == side] for side in SUPPORTS}
        ends = list(itertools.accumulate((s.end * spb for s in steps), max))
        return cls(by_side, [s.beat for s in steps], ends)

    def last_end_s(self, gesture: Symbol) -> float:
        """The end (s) of the last step (either side) written before a leg gesture: the
        weight is off the leg only once that transfer is over. 0 for other gestures or
        when there is none."""
        if gesture.column not in LEG_GESTURES:
            return 0.0
        i = bisect.bisect_left(self.beats, gesture.beat - TIME_EPS)
        return self.ends_s[i - 1] if i else 0.0

    def next(self, gesture: Symbol) -> Symbol | None:
        """The next step of a leg gesture's side written after its start."""
        side = self.by_side[LEG_GESTURES[gesture.column]]
        i = bisect.bisect_right(side, gesture.beat + TIME_EPS, key=lambda s: s.beat)
        return side[i] if i < len(side) else None


def _lanes(symbols: Iterable[Symbol]) -> dict[tuple[str, str], list[Symbol]]:
    lanes: dict[tuple[str, str], list[Symbol]] = {}
    for s in symbols:
        lanes.setdefault((s.column, s.part or PARTS[s.column][0]), []).append(s)
    for lane in lanes.values():
        lane.sort(key=lambda s: (s.beat, s.end))
    return lanes


def _timed_lane(
    lane: Sequence[Symbol],
    steps: _Steps,
    lead_s: float,
    return_s: float,
    spb: float,
    notes: list[Adjustment],
) -> list[TimedSymbol]:
    """Rules 1-3 on one lane, in written order."""
    out: list[TimedSymbol] = []
    previous_end_s = 0.0
    for s in lane:
        timed = TimedSymbol(s, s.beat * spb, s.end * spb, s.beat * spb, s.end * spb)
        if timed.is_gesture:
            floor_s = max(previous_end_s, steps.last_end_s(s))
            timed = _with(timed, anticipated(timed.start_s, floor_s, lead_s), timed.end_s)
        if timed.is_gesture and s.column in LEG_GESTURES:
            timed = _shortened(timed, steps.next(s), return_s, spb, notes)
        out.append(timed)
        previous_end_s = timed.end_s
    return out


def _arm_lane(
    lane: Sequence[Symbol],
    legs: Sequence[TimedSymbol],
    lead_s: float,
    tolerance_beats: float,
    spb: float,
    notes: list[Adjustment],
) -> list[TimedSymbol]:
    """Rules 1, 2 and 4 on one arm lane, in written order."""
    out: list[TimedSymbol] = []
    previous_end_s = 0.0
    for i, s in enumerate(lane):
        timed = TimedSymbol(s, s.beat * spb, s.end * spb, s.beat * spb, s.end * spb)
        if timed.is_gesture:
            timed = _with(timed, anticipated(timed.start_s, previous_end_s, lead_s), timed.end_s)
            following_s = lane[i + 1].beat * spb if i + 1 < len(lane) else None
            timed = _synced(timed, legs, previous_end_s, following_s, tolerance_beats, notes)
        out.append(timed)
        previous_end_s = timed.end_s
    return out


def _with(
    timed: TimedSymbol, start_s: float, end_s: float, modifiers: tuple[Symbol, ...] = ()
) -> TimedSymbol:
    return TimedSymbol(
        timed.symbol, start_s, end_s, timed.written_start_s, timed.written_end_s, modifiers
    )


def _shortened(
    timed: TimedSymbol,
    step: Symbol | None,
    return_s: float,
    spb: float,
    notes: list[Adjustment],
) -> TimedSymbol:
    """Rule 3 on one leg gesture (``step``: the next of its side), noting a shortening."""
    end_s = before_support(
        timed.start_s, timed.end_s, None if step is None else step.beat * spb, return_s
    )
    if step is not None and end_s < timed.end_s - TIME_EPS:
        notes.append(
            Adjustment(
                "shortened",
                timed.symbol,
                step,
                timed.end_s - end_s,
                f"leg gesture at beat {timed.symbol.beat:g} arrives {timed.end_s - end_s:.3f} s "
                f"early, {return_s:g} s before the step at beat {step.beat:g}"
                + (" (it cannot move: no time is left)" if end_s <= timed.start_s else ""),
            )
        )
    return _with(timed, timed.start_s, end_s)


def _synced(
    timed: TimedSymbol,
    legs: Sequence[TimedSymbol],
    previous_end_s: float,
    following_s: float | None,
    tolerance_beats: float,
    notes: list[Adjustment],
) -> TimedSymbol:
    """Rule 4 on one arm gesture (``legs`` by written beat; ``following_s``: its lane's
    next written start)."""
    leg = sync_partner(timed.symbol, legs, tolerance_beats)
    if leg is None:
        return timed
    start_s = max(leg.start_s, previous_end_s)
    fits = leg.end_s > start_s + TIME_EPS and (
        following_s is None or leg.end_s <= following_s + TIME_EPS
    )
    where = f"{leg.column} at beat {leg.symbol.beat:g}"
    if not fits:
        detail = f"arm gesture at beat {timed.symbol.beat:g} cannot keep time with the {where}"
        notes.append(Adjustment("sync_dropped", timed.symbol, leg.symbol, 0.0, detail))
        return timed
    shift = abs(timed.end_s - leg.end_s)
    detail = f"arm gesture at beat {timed.symbol.beat:g} keeps time with the {where}"
    notes.append(Adjustment("sync", timed.symbol, leg.symbol, shift, detail))
    return _with(timed, start_s, leg.end_s)


def _assembled(
    score: Score,
    timed: Sequence[TimedSymbol],
    unattached: tuple[Symbol, ...],
    notes: Sequence[Adjustment],
) -> Interpretation:
    channels: dict[str, list[TimedSymbol]] = {}
    for t in timed:
        channels.setdefault(t.column, []).append(t)
    ordered = {
        column: tuple(sorted(entries, key=lambda t: (t.start_s, t.symbol.beat, t.lane[1])))
        for column, entries in channels.items()
    }
    index = {t.symbol: t for t in timed}
    notes = sorted(notes, key=lambda n: (n.symbol.beat, n.symbol.column))
    return Interpretation(score, ordered, unattached, tuple(notes), index)
