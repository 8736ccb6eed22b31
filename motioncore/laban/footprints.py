"""Supports → footprints (seed 003 §7.2): where and when each foot lands.

The support columns are read in time order. Each support direction symbol is a step
of its side's foot: the foot lands one step vector (the symbol's direction in the
body's current facing frame × :func:`step_length_m`) away from the point beside the
other foot (a hip width to its side), so the distance between consecutive footprints
is the step length; ``place`` closes the foot beside the other. The body's centre is
then midway between the feet (a hop, from one foot to the same foot, lands a step
from where that foot took off, the centre above it).
A ``turn`` in a support (or the body) column pivots on the supporting foot: the facing
changes by exactly ``amount`` × 360° and the feet on the ground turn on their balls
(:data:`BALL_FORWARD_LEGS` ahead of the ankle), so a print's position and heading are
those after its turns; the centre stays between them. A turn in a support column is a
pivot on that foot: the other foot leaves the ground up to :data:`WEIGHT_SHIFT_S`
before it starts, once the pivoting foot is down (it is free until its next support,
§7.6) and the centre moves over the ball it turns on within
:func:`pivot_settle_s`, then stays there (a fixed point of the centre path). A ``hold`` keeps the
weight where it is. A ``path`` sign turns the facing progressively over its span (a
curved path), so the steps inside it bend. A gap in both supports is a flight phase:
the step after it is a hop (same foot), a leap or run (the other foot), or a jump
(both feet land at once), and covers more ground with the time in the air.
A leg gesture (a direction symbol in ``leg_left``/``leg_right``) while both feet are
down lifts that foot: the body's centre first moves over the other foot
(:data:`WEIGHT_SHIFT_S`), and the foot comes down again with its side's next support.

Units: metres on the ground (x, z), the character starts at the origin facing +Z
(its left is +X, as everywhere in Kinetograph); times in seconds and beats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from motioncore.laban.score import (
    DIRECTION_XZ,
    MODIFIER_TOLERANCE_BEATS,
    SUPPORTS,
    Score,
    Symbol,
)
from motioncore.laban.timing import attach_modifiers

FORWARD_STEP_LEGS = 0.85
"""A middle-level forward step, in leg lengths (0.85 × 0.84 m ≈ 0.71 m for the
canonical skeleton: an ordinary walking step)."""
DIRECTION_SCALE = {
    "place": 0.0,
    "forward": 1.0,
    "backward": 0.7,
    "left": 0.55,
    "right": 0.55,
    "left_forward": 0.8,
    "right_forward": 0.8,
    "left_backward": 0.65,
    "right_backward": 0.65,
}
"""Step length by direction relative to forward: forward longer than sideways (§7.2)."""
LEVEL_SCALE = {"low": 1.1, "middle": 1.0, "high": 0.75}
"""Bent legs reach further; on the toes the steps are short."""
SIZE_SCALE = 0.2
"""Each step-size unit (-3 … 3) lengthens or shortens the step by this share."""
FLIGHT_SPEED_MPS = 2.5
"""Horizontal speed carried through a flight phase (a run's), per second of air time."""
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
HIP_WIDTH_LEGS = 0.21
"""Distance between the feet's lines, in leg lengths (0.18 m for the canonical legs)."""


@dataclass(frozen=True)
class Footprint:
    """A foot on the ground: ``side``, from ``start_s`` (it lands, or the weight
    arrives) to ``end_s`` (it lifts), at ``position`` (x, z metres) with the foot
    pointing along ``heading`` (radians about +Y, 0 = +Z); ``kind`` says how it got
    there (``start``, ``step``, ``close``, or after a flight ``hop``, ``leap``, ``jump``,
    ``assemble``, ``sissonne``); ``step_m`` is the length
    of the step that put it there (metres, 0 for the starting stance)."""

    side: str
    start_s: float
    end_s: float
    position: tuple[float, float]
    heading: float
    level: str
    kind: str
    step_m: float = 0.0


@dataclass(frozen=True)
class Footprints:
    """The prints in landing order and the body's centre and facing where each support
    or turn starts and where it arrives (``centre`` ``[N, 2]``, ``facing`` ``[N]``,
    ``times`` ``[N]`` seconds, sorted)."""

    prints: tuple[Footprint, ...]
    times: np.ndarray
    centre: np.ndarray
    facing: np.ndarray
    leg_length_m: float

    def of(self, side: str) -> tuple[Footprint, ...]:
        return tuple(p for p in self.prints if p.side == side)


def pivot_settle_s(turn: Symbol, seconds_per_beat: float) -> float:
    """How long (s) after a pivot starts the body's centre arrives over the pivoting
    ball: :data:`WEIGHT_SHIFT_S`, at most half the turn."""
    return min(WEIGHT_SHIFT_S, turn.duration * seconds_per_beat / 2.0)


def step_length_m(
    direction: str, level: str, leg_length_m: float, size: int = 0, air_s: float = 0.0
) -> float:
    """How far a step in ``direction`` at ``level`` moves the body (metres): forward
    :data:`FORWARD_STEP_LEGS` leg lengths, scaled by direction, level and step size,
    plus :data:`FLIGHT_SPEED_MPS` × the time in the air before it."""
    if direction == "place":
        return 0.0
    base = FORWARD_STEP_LEGS * leg_length_m * DIRECTION_SCALE[direction] * LEVEL_SCALE[level]
    return base * (1.0 + SIZE_SCALE * size) + FLIGHT_SPEED_MPS * air_s


def _rotate(vector: tuple[float, float], heading: float) -> np.ndarray:
    """A body-frame (x, z) vector in the world, for a body facing ``heading``."""
    c, s = math.cos(heading), math.sin(heading)
    x, z = vector
    return np.array([c * x + s * z, -s * x + c * z])


def _path_turn(paths: list[Symbol], a: float, b: float) -> float:
    """Heading change (radians, positive to the right) the path signs ask for between
    beats ``a`` and ``b``."""
    total = 0.0
    for p in paths:
        if p.path != "curved" or p.amount_deg is None:
            continue
        overlap = max(0.0, min(b, p.end) - max(a, p.beat))
        total += math.radians(p.amount_deg) * overlap / p.duration
    return total


def _jump_form(takeoff_feet: int, landing_feet: int, same_foot: bool) -> str:
    """The five basic jump forms: hop (one foot to the same), leap (one to the other),
    jump (two to two), assemble (one to two), sissonne (two to one)."""
    if landing_feet >= 2:
        return "jump" if takeoff_feet >= 2 else "assemble"
    if takeoff_feet >= 2:
        return "sissonne"
    return "hop" if same_foot else "leap"


def _lift(
    prints: list[Footprint],
    open_print: dict[str, Footprint],
    airborne: set[str],
    side: str,
    time_s: float,
) -> None:
    """The foot on ``side`` leaves the ground at ``time_s`` (its print is closed);
    nothing if it is already in the air."""
    if side in airborne:
        return
    p = open_print[side]
    prints.append(
        Footprint(side, p.start_s, time_s, p.position, p.heading, p.level, p.kind, p.step_m)
    )
    airborne.add(side)


def footprints(score: Score, leg_length_m: float = 0.84) -> Footprints:
    """The footprints of ``score`` for legs ``leg_length_m`` long (see the module docstring)."""
    spb = score.seconds_per_beat
    half = HIP_WIDTH_LEGS * leg_length_m / 2.0
    centre = np.zeros(2)
    heading = 0.0
    side_offset = {"left": 1.0, "right": -1.0}
    feet = {s: centre + _rotate((side_offset[s] * half, 0.0), heading) for s in ("left", "right")}
    prints: list[Footprint] = []
    open_print: dict[str, Footprint] = {
        s: Footprint(
            s, 0.0, math.inf, (float(feet[s][0]), float(feet[s][1])), 0.0, "middle", "start"
        )
        for s in ("left", "right")
    }
    times, centres, facings = [0.0], [centre.copy()], [heading]
    events = [
        s
        for s in score.symbols
        if s.column in (*SUPPORTS, "body") and s.kind in ("direction", "turn", "hold")
    ]
    events = [s for s in events if s.column != "body" or s.kind == "turn"]
    gestures = [s for s in score.symbols if s.column in LEG_GESTURES and s.kind == "direction"]
    events = sorted([*events, *gestures], key=lambda s: (s.beat, s.column))
    attached, _ = attach_modifiers(score.symbols, MODIFIER_TOLERANCE_BEATS)
    sizes = {step: sum(m.size or 0 for m in signs) for step, signs in attached.items()}
    paths = [s for s in score.symbols if s.kind == "path"]
    last_support_end = 0.0
    last_beat = 0.0
    airborne: set[str] = set()
    support_ends: list[tuple[str, float]] = []
    starts: dict[float, int] = {}
    for event in events:
        if event.kind == "direction" and event.column in SUPPORTS:
            starts[round(event.beat, 6)] = starts.get(round(event.beat, 6), 0) + 1
    flight_key, flight_air, takeoff = -1.0, 0.0, list[str]()
    for symbol in events:
        times.append(symbol.beat * spb)  # where the body is when the movement starts
        centres.append(centre.copy())
        facings.append(heading)
        heading -= _path_turn(paths, last_beat, max(last_beat, symbol.end))
        last_beat = max(last_beat, symbol.end)
        if symbol.kind == "turn":
            turn = 2.0 * math.pi * float(symbol.amount or 0.0)
            turn = turn if symbol.turn == "left" else -turn
            heading_before = heading
            heading += turn
            ball = BALL_FORWARD_LEGS * leg_length_m
            if symbol.column in SUPPORTS:  # a pivot on one foot frees the other (§7.6)
                pivot_side = symbol.column.removeprefix("support_")
                if pivot_side not in airborne:
                    free = "left" if pivot_side == "right" else "right"
                    standing = open_print[pivot_side]
                    release = max(standing.start_s, symbol.beat * spb - WEIGHT_SHIFT_S)
                    _lift(prints, open_print, airborne, free, min(release, symbol.beat * spb))
                    centre = np.array(standing.position) + _rotate((0.0, ball), standing.heading)
                    settle = pivot_settle_s(symbol, spb)  # then over the ball it turns on
                    times.append(symbol.beat * spb + settle)
                    centres.append(centre.copy())
                    facings.append(heading_before + turn * settle / (symbol.duration * spb))
            grounded = [s for s in ("left", "right") if s not in airborne]
            for s in ("left", "right"):
                p = open_print[s]
                position = np.array(p.position)
                if s in grounded:  # it turns on its ball
                    pivot = position + _rotate((0.0, ball), p.heading)
                    position = pivot - _rotate((0.0, ball), heading)
                open_print[s] = Footprint(
                    s,
                    p.start_s,
                    p.end_s,
                    (float(position[0]), float(position[1])),
                    heading,
                    p.level,
                    p.kind,
                    p.step_m,
                )
            if len(grounded) == 2:  # the body stays between the feet it turns on
                centre = np.mean([open_print[s].position for s in grounded], axis=0)
            if symbol.column in SUPPORTS:  # a pivot keeps the weight on the foot
                last_support_end = max(last_support_end, symbol.end)
        elif symbol.kind == "direction" and symbol.column in SUPPORTS:
            side = symbol.column.removeprefix("support_")
            key = round(symbol.beat, 6)
            new_flight = key != flight_key
            if new_flight:  # feet landing on the same beat share one flight
                flight_key = key
                flight_air = max(0.0, symbol.beat - last_support_end) * spb
                takeoff = [s for s, end in support_ends if abs(end - last_support_end) < 1e-6]
            air = flight_air
            length = step_length_m(
                str(symbol.direction),
                str(symbol.level),
                leg_length_m,
                sizes.get(symbol, 0),
                air,
            )
            move = DIRECTION_XZ[str(symbol.direction)]
            norm = math.hypot(*move)
            step = (move[0] / norm * length, move[1] / norm * length) if norm > 0 else (0.0, 0.0)
            other = "left" if side == "right" else "right"
            landing = starts.get(key, 1)
            hop = air > 1e-9 and side in takeoff
            if hop:  # from where this foot took off
                base = np.array(open_print[side].position)
            else:  # beside the other foot, a hip width to this side
                base = np.array(open_print[other].position) + _rotate(
                    (side_offset[side] * 2.0 * half, 0.0), heading
                )
            landed = base + _rotate(step, heading)
            centre = (landed + np.array(open_print[other].position)) / 2.0
            if air > 1e-9:  # landing from the air: the body comes down over the feet
                if landing == 1 or new_flight:
                    centre = landed - _rotate((side_offset[side] * half, 0.0), heading)
                centres[-1] = centre.copy()  # already there when the support starts
            kind = "step" if symbol.direction != "place" else "close"
            if air > 1e-9:
                kind = _jump_form(len(takeoff), landing, takeoff == [side])
            if air > 1e-9 and new_flight:  # both feet left the ground when the supports ended
                for foot in ("left", "right"):
                    _lift(prints, open_print, airborne, foot, last_support_end * spb)
            _lift(prints, open_print, airborne, side, symbol.beat * spb)
            # Walking, the foot lands CONTACT_SHARE into the transfer of weight and the
            # weight arrives on it when the symbol ends (double support in between);
            # landing from the air, the foot is on the ground for the whole symbol.
            contact = symbol.beat if air > 1e-9 else symbol.beat + CONTACT_SHARE * symbol.duration
            airborne.discard(side)
            open_print[side] = Footprint(
                side,
                contact * spb,
                math.inf,
                (float(landed[0]), float(landed[1])),
                heading,
                str(symbol.level),
                kind,
                length,
            )
            last_support_end = max(last_support_end, symbol.end)
            support_ends.append((side, symbol.end))
        elif symbol.column in LEG_GESTURES:
            side = symbol.column.removeprefix("leg_")
            other = "left" if side == "right" else "right"
            if other not in airborne and side not in airborne:
                # The weight moves over the standing foot before the leg gestures.
                shift_s = min(WEIGHT_SHIFT_S, symbol.beat * spb)
                times[-1] = symbol.beat * spb - shift_s
                centre = np.array(open_print[other].position)
                times.append(symbol.beat * spb)
                centres.append(centre.copy())
                facings.append(heading)
                _lift(prints, open_print, airborne, side, symbol.beat * spb)
        elif symbol.kind == "hold":
            last_support_end = max(last_support_end, symbol.end)
        times.append(symbol.end * spb)
        centres.append(centre.copy())
        facings.append(heading)
    end = score.beats * spb
    for side in ("left", "right"):
        _lift(prints, open_print, airborne, side, end)
    ordered = tuple(
        sorted((p for p in prints if p.end_s >= p.start_s), key=lambda p: (p.start_s, p.side))
    )
    order = np.argsort(np.array(times), kind="stable")
    return Footprints(
        ordered,
        np.array(times)[order],
        np.array(centres)[order],
        np.array(facings)[order],
        leg_length_m,
    )
