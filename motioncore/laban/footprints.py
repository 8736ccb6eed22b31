"""Supports → footprints (seed 003 §7.2): where and when each foot lands.

The support columns are read in time order. Each support direction symbol is a step
of its side's foot: the foot lands one step vector (the symbol's direction in the
body's current facing frame × :func:`~motioncore.laban.steps.step_length_m`) away from
the point beside the other foot (a hip width to its side), so the distance between
consecutive footprints is the step length; ``place`` closes the foot beside the other.
A support for a foot that already carries weight there (on the ground within
:data:`IN_PLACE_M` of where the support would put it, no gap before it) changes level,
not contact (§2: the level says bent, straight or on the toes; only a gap in both
supports is time in the air): the foot stays down and a ``level`` print follows its
print without a gap, so two feet in place at low, middle, high are a plié and a
relevé, not flights, and a plié before a jump is no extra hop. When such a support is
the only one (none in the other column starts with it or still runs), it takes the
whole weight: the body's centre moves over that foot within :func:`weight_shift_s`
of the symbol's start, and the other foot then leaves the ground, *released*
(:attr:`~motioncore.laban.prints.Footprint.released`: it hovers until it is written
down again, :mod:`motioncore.laban.free_leg`; unless a gesture of that leg starts
before the symbol ends: the gesture lifts it, as below); so a hop, written as one
support before a gap, takes off from that foot alone.
After a step the body's centre is midway between the feet (a hop, from one foot to
the same foot, lands a step from where that foot took off, the centre above it).
A ``turn`` in a support (or the body) column pivots on the supporting foot: the facing
changes by exactly ``amount`` × 360° and the feet on the ground turn on their balls
(:data:`BALL_FORWARD_LEGS` ahead of the ankle), so a print's position and heading are
those after its turns; the centre stays between them. A turn in a support column is a
pivot on that foot: the other foot leaves the ground up to :data:`WEIGHT_SHIFT_S`
before it starts, once the pivoting foot is down and the other has stood
:data:`WEIGHT_SHIFT_S` since its own step landed (else it leaves as the pivot starts:
a step written just before the pivot is performed, not cancelled; it is free until its
next support, §7.6) and the centre moves over the ball it turns on within
:func:`weight_shift_s`, then stays there (a fixed point of the centre path). A
``hold`` keeps the weight where it is. A ``path`` sign turns the facing progressively
over its span (a curved path), so the steps inside it bend. A gap in both supports is
a flight phase: the step after it is a hop (same foot), a leap or run (the other
foot), or a jump (both feet land at once), and covers more ground with the time in
the air.
A leg gesture (a direction symbol in ``leg_left``/``leg_right``) while both feet are
down lifts that foot: the body's centre first moves over the other foot
(:data:`WEIGHT_SHIFT_S`), and the foot comes down again with its side's next support.

Units: metres on the ground (x, z), the character starts at the origin facing +Z
(its left is +X, as everywhere in Kinetograph); times in seconds and beats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from motioncore.laban.prints import Footprint, Footprints
from motioncore.laban.score import (
    DIRECTION_XZ,
    MODIFIER_TOLERANCE_BEATS,
    SUPPORTS,
    Score,
    Symbol,
)
from motioncore.laban.steps import jump_form, path_turn, rotate, step_length_m
from motioncore.laban.timing import attach_modifiers

CONTACT_SHARE = 0.7
"""A walking step's foot lands this share into its support symbol (the transfer of
weight); the rest of the symbol is double support, about 15 % of a stride at any
tempo, as in ordinary walking."""
BALL_FORWARD_LEGS = 0.13 / 0.84
"""The ball of the foot is this far ahead of the ankle (leg lengths), as in
:class:`motioncore.laban.foot_keys.FootGeometry`."""
WEIGHT_SHIFT_S = 0.25
"""Before a leg gesture lifts a foot, the body's centre moves over the other foot over
this long (seconds, less at the very start of a score); a pivot on one foot brings it
over that foot's ball as quickly."""
LEG_GESTURES = ("leg_left", "leg_right")
IN_PLACE_M = 0.01
"""A ``place`` support whose foot is on the ground less than this far (m) from where
the support would put it changes level, not contact (see :meth:`_Walk.support`)."""
HIP_WIDTH_LEGS = 0.21
"""Distance between the feet's lines, in leg lengths (0.18 m for the canonical legs)."""


def weight_shift_s(symbol: Symbol, seconds_per_beat: float) -> float:
    """How long (s) after a pivot, or a support in place on one foot, starts the body's
    centre arrives over that foot (the pivot's ball): :data:`WEIGHT_SHIFT_S`, at most
    half the symbol."""
    return min(WEIGHT_SHIFT_S, symbol.duration * seconds_per_beat / 2.0)


def footprints(score: Score, leg_length_m: float = 0.84) -> Footprints:
    """The footprints of ``score`` for legs ``leg_length_m`` long (see the module docstring)."""
    events = _events(score)
    walk = _Walk.start(score, leg_length_m, events)
    for symbol in events:
        walk.begin(symbol)
        if symbol.kind == "turn":
            walk.turn(symbol)
        elif symbol.kind == "direction" and symbol.column in SUPPORTS:
            walk.support(symbol)
        elif symbol.column in LEG_GESTURES:
            walk.leg_gesture(symbol)
        elif symbol.kind == "hold":
            walk.last_support_end = max(walk.last_support_end, symbol.end)
        walk.mark(symbol.end * walk.spb)
    return walk.finish(score.beats * walk.spb)


def _events(score: Score) -> list[Symbol]:
    """The supports, turns, holds and leg gestures, in time order (then by column)."""
    events = [
        s
        for s in score.symbols
        if s.column in (*SUPPORTS, "body") and s.kind in ("direction", "turn", "hold")
    ]
    events = [s for s in events if s.column != "body" or s.kind == "turn"]
    gestures = [s for s in score.symbols if s.column in LEG_GESTURES and s.kind == "direction"]
    return sorted([*events, *gestures], key=lambda s: (s.beat, s.column))


_SIDES = ("left", "right")
_SIDE_OFFSET = {"left": 1.0, "right": -1.0}


@dataclass
class _Walk:
    """The walk through a score's events: the prints so far, the feet on the ground
    (``open_print``) and in the air, the body's centre and facing, and the keys of the
    centre's path (``times``, ``centres``, ``facings``)."""

    spb: float
    leg_length_m: float
    half: float
    sizes: dict[Symbol, int]
    paths: list[Symbol]
    starts: dict[float, int]
    centre: np.ndarray
    open_print: dict[str, Footprint]
    heading: float = 0.0
    prints: list[Footprint] = field(default_factory=list)
    times: list[float] = field(default_factory=lambda: [0.0])
    centres: list[np.ndarray] = field(default_factory=list)
    facings: list[float] = field(default_factory=lambda: [0.0])
    last_support_end: float = 0.0
    last_beat: float = 0.0
    airborne: set[str] = field(default_factory=set)
    support_ends: list[tuple[str, float]] = field(default_factory=list)
    flight_key: float = -1.0
    flight_air: float = 0.0
    takeoff: list[str] = field(default_factory=list)
    gestures: list[Symbol] = field(default_factory=list)

    @classmethod
    def start(cls, score: Score, leg_length_m: float, events: list[Symbol]) -> _Walk:
        """Standing at the origin facing +Z, the feet a hip width apart."""
        half = HIP_WIDTH_LEGS * leg_length_m / 2.0
        centre = np.zeros(2)
        feet = {s: centre + rotate((_SIDE_OFFSET[s] * half, 0.0), 0.0) for s in _SIDES}
        open_print = {
            s: Footprint(
                s, 0.0, math.inf, (float(feet[s][0]), float(feet[s][1])), 0.0, "middle", "start"
            )
            for s in _SIDES
        }
        attached, _ = attach_modifiers(score.symbols, MODIFIER_TOLERANCE_BEATS)
        sizes = {step: sum(m.size or 0 for m in signs) for step, signs in attached.items()}
        paths = [s for s in score.symbols if s.kind == "path"]
        starts: dict[float, int] = {}
        for event in events:
            if event.kind == "direction" and event.column in SUPPORTS:
                starts[round(event.beat, 6)] = starts.get(round(event.beat, 6), 0) + 1
        walk = cls(
            score.seconds_per_beat, leg_length_m, half, sizes, paths, starts, centre, open_print
        )
        walk.centres.append(centre.copy())
        walk.gestures = [s for s in events if s.column in LEG_GESTURES]
        return walk

    def mark(self, time_s: float) -> None:
        """A key of the centre's path: where the body is at ``time_s``."""
        self.times.append(time_s)
        self.centres.append(self.centre.copy())
        self.facings.append(self.heading)

    def begin(self, symbol: Symbol) -> None:
        """Where the body is when the movement starts; the path signs turn the facing."""
        self.mark(symbol.beat * self.spb)
        self.heading -= path_turn(self.paths, self.last_beat, max(self.last_beat, symbol.end))
        self.last_beat = max(self.last_beat, symbol.end)

    def lift(self, side: str, time_s: float, released: bool = False) -> None:
        """The foot on ``side`` leaves the ground at ``time_s`` (its print is closed,
        ``released`` or not); nothing if it is already in the air."""
        if side in self.airborne:
            return
        self.prints.append(replace(self.open_print[side], end_s=time_s, released=released))
        self.airborne.add(side)

    def turn(self, symbol: Symbol) -> None:
        """A turn sign: the facing changes by its amount, the grounded feet turn on their
        balls; in a support column a pivot, which frees the other foot (§7.6)."""
        turn = 2.0 * math.pi * float(symbol.amount or 0.0)
        turn = turn if symbol.turn == "left" else -turn
        heading_before = self.heading
        self.heading += turn
        ball = BALL_FORWARD_LEGS * self.leg_length_m
        if symbol.column in SUPPORTS:
            self._pivot(symbol, turn, heading_before, ball)
        grounded = [s for s in _SIDES if s not in self.airborne]
        for s in _SIDES:
            p = self.open_print[s]
            position = np.array(p.position)
            if s in grounded:  # it turns on its ball
                pivot = position + rotate((0.0, ball), p.heading)
                position = pivot - rotate((0.0, ball), self.heading)
            xz = (float(position[0]), float(position[1]))
            self.open_print[s] = replace(p, position=xz, heading=self.heading)
        if len(grounded) == 2:  # the body stays between the feet it turns on
            self.centre = np.mean([self.open_print[s].position for s in grounded], axis=0)
        if symbol.column in SUPPORTS:  # a pivot keeps the weight on the foot
            self.last_support_end = max(self.last_support_end, symbol.end)

    def _pivot(self, symbol: Symbol, turn: float, heading_before: float, ball: float) -> None:
        """A pivot on one foot frees the other; the centre moves over the turning ball."""
        pivot_side = symbol.column.removeprefix("support_")
        if pivot_side in self.airborne:
            return
        free = "left" if pivot_side == "right" else "right"
        standing = self.open_print[pivot_side]
        starts = symbol.beat * self.spb
        landed = self.open_print[free].start_s + WEIGHT_SHIFT_S  # the free foot's step stands
        release = max(standing.start_s, landed, starts - WEIGHT_SHIFT_S)
        self.lift(free, min(release, starts))
        self.centre = np.array(standing.position) + rotate((0.0, ball), standing.heading)
        settle = weight_shift_s(symbol, self.spb)  # then over the ball it turns on
        self.times.append(symbol.beat * self.spb + settle)
        self.centres.append(self.centre.copy())
        self.facings.append(heading_before + turn * settle / (symbol.duration * self.spb))

    def support(self, symbol: Symbol) -> None:
        """A support direction symbol: a step (or, after a gap in the supports, a flight)
        of its side's foot."""
        side = symbol.column.removeprefix("support_")
        key = round(symbol.beat, 6)
        new_flight = key != self.flight_key
        if new_flight:  # feet landing on the same beat share one flight
            self.flight_key = key
            self.flight_air = max(0.0, symbol.beat - self.last_support_end) * self.spb
            self.takeoff = [
                s for s, end in self.support_ends if abs(end - self.last_support_end) < 1e-6
            ]
        air = self.flight_air
        landing = self.starts.get(key, 1)
        form = jump_form(len(self.takeoff), landing, self.takeoff == [side]) if air > 1e-9 else None
        length, landed = self._landing(symbol, side, air, form)
        if air <= 1e-9 and self._carries_weight(side, landed):
            self._change_level(symbol, side)
            self._release(symbol, side)
            return
        other = "left" if side == "right" else "right"
        self.centre = (landed + np.array(self.open_print[other].position)) / 2.0
        if air > 1e-9:  # landing from the air: the body comes down over the feet
            if landing == 1 or new_flight:
                offset = (_SIDE_OFFSET[side] * self.half, 0.0)
                self.centre = landed - rotate(offset, self.heading)
            self.centres[-1] = self.centre.copy()  # already there when the support starts
        kind = form or ("step" if symbol.direction != "place" else "close")
        if air > 1e-9 and new_flight:  # both feet left the ground when the supports ended
            for foot in _SIDES:
                self.lift(foot, self.last_support_end * self.spb)
        self.lift(side, symbol.beat * self.spb)
        # Walking, the foot lands CONTACT_SHARE into the transfer of weight and the
        # weight arrives on it when the symbol ends (double support in between);
        # landing from the air, the foot is on the ground for the whole symbol.
        contact = symbol.beat if air > 1e-9 else symbol.beat + CONTACT_SHARE * symbol.duration
        self.airborne.discard(side)
        self.open_print[side] = Footprint(
            side,
            contact * self.spb,
            math.inf,
            (float(landed[0]), float(landed[1])),
            self.heading,
            str(symbol.level),
            kind,
            length,
        )
        self.last_support_end = max(self.last_support_end, symbol.end)
        self.support_ends.append((side, symbol.end))

    def _carries_weight(self, side: str, landed: np.ndarray) -> bool:
        """Whether the ``side`` foot is on the ground within :data:`IN_PLACE_M` of
        ``landed``, where a support without time in the air would put it."""
        if side in self.airborne:
            return False
        here = np.array(self.open_print[side].position)
        return bool(np.linalg.norm(landed - here) < IN_PLACE_M)

    def _change_level(self, symbol: Symbol, side: str) -> None:
        """A support for a foot that already carries weight, in place: the foot stays
        where it is and only the level changes (§2: bent, straight or on the toes). Its
        print ends when the symbol starts and a ``level`` print at the same place, with
        the symbol's level, follows without a gap; the body's centre stays."""
        p = self.open_print[side]
        time_s = symbol.beat * self.spb
        if time_s > p.start_s + 1e-9:
            self.prints.append(
                Footprint(side, p.start_s, time_s, p.position, p.heading, p.level, p.kind, p.step_m)
            )
        self.open_print[side] = Footprint(
            side,
            max(time_s, p.start_s),
            math.inf,
            p.position,
            p.heading,
            str(symbol.level),
            "level" if time_s > p.start_s + 1e-9 else p.kind,
        )
        self.last_support_end = max(self.last_support_end, symbol.end)
        self.support_ends.append((side, symbol.end))

    def _release(self, symbol: Symbol, side: str) -> None:
        """A support in place on the ``side`` foot alone (no other support starts with it
        or still runs) takes the whole weight: the centre moves over that foot within
        :func:`weight_shift_s`, then the other foot is released. When the other leg's
        gesture starts before the symbol ends, that gesture lifts it instead
        (:meth:`leg_gesture`: the weight shift ends as the gesture starts)."""
        other = "left" if side == "right" else "right"
        running = any(s == other and end > symbol.beat + 1e-6 for s, end in self.support_ends)
        gesture = any(
            g.column == f"leg_{other}" and symbol.beat <= g.beat <= symbol.end + 1e-6
            for g in self.gestures
        )
        one = self.starts.get(round(symbol.beat, 6), 1) == 1
        if not one or other in self.airborne or running or gesture:
            return
        self._shift_onto(side, symbol.beat * self.spb + weight_shift_s(symbol, self.spb), True)

    def _shift_onto(self, side: str, time_s: float, released: bool = False) -> None:
        """The body's centre is over the ``side`` foot at ``time_s``, when the other foot
        leaves the ground (``released`` or not)."""
        self.centre = np.array(self.open_print[side].position)
        self.mark(time_s)
        self.lift("left" if side == "right" else "right", time_s, released)

    def _landing(
        self, symbol: Symbol, side: str, air: float, form: str | None = None
    ) -> tuple[float, np.ndarray]:
        """The step's length (m; a flight's by its jump ``form``, :func:`step_length_m`)
        and where the foot lands: one step from where it took off (a hop), else from
        beside the other foot, a hip width to this side."""
        length = step_length_m(
            str(symbol.direction),
            str(symbol.level),
            self.leg_length_m,
            self.sizes.get(symbol, 0),
            air,
            form,
        )
        move = DIRECTION_XZ[str(symbol.direction)]
        norm = math.hypot(*move)
        step = (move[0] / norm * length, move[1] / norm * length) if norm > 0 else (0.0, 0.0)
        other = "left" if side == "right" else "right"
        if air > 1e-9 and side in self.takeoff:  # from where this foot took off
            base = np.array(self.open_print[side].position)
        else:  # beside the other foot, a hip width to this side
            base = np.array(self.open_print[other].position) + rotate(
                (_SIDE_OFFSET[side] * 2.0 * self.half, 0.0), self.heading
            )
        return length, base + rotate(step, self.heading)

    def leg_gesture(self, symbol: Symbol) -> None:
        """A leg gesture while both feet are down lifts that foot, the weight first moving
        over the standing foot."""
        side = symbol.column.removeprefix("leg_")
        other = "left" if side == "right" else "right"
        if other in self.airborne or side in self.airborne:
            return
        shift_s = min(WEIGHT_SHIFT_S, symbol.beat * self.spb)
        self.times[-1] = symbol.beat * self.spb - shift_s
        self._shift_onto(other, symbol.beat * self.spb)

    def finish(self, end_s: float) -> Footprints:
        """Every foot lifts at the score's end; the prints and the centre's keys in order."""
        for side in _SIDES:
            self.lift(side, end_s)
        ordered = tuple(
            sorted(
                (p for p in self.prints if p.end_s >= p.start_s),
                key=lambda p: (p.start_s, p.side),
            )
        )
        order = np.argsort(np.array(self.times), kind="stable")
        return Footprints(
            ordered,
            np.array(self.times)[order],
            np.array(self.centres)[order],
            np.array(self.facings)[order],
            self.leg_length_m,
        )
