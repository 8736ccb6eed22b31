"""Supports → footprints (seed 003 §7.2): where and when each foot lands.

The support columns are read in time order. Each support direction symbol is a step
of its side's foot: the foot lands one step vector (the symbol's direction in the
body's current facing frame × :func:`step_length_m`) away from the point beside the
other foot (a hip width to its side), so the distance between consecutive footprints
is the step length; ``place`` closes the foot beside the other. The body's centre is
then midway between the feet (a hop, from one foot to the same foot, lands a step
from where that foot took off, the centre above it).
A ``turn`` in a support (or the body) column pivots on the supporting foot: the facing
changes by exactly ``amount`` × 360° and the feet turn in place. A ``hold`` keeps the
weight where it is. A ``path`` sign turns the facing progressively over its span (a
curved path), so the steps inside it bend. A gap in both supports is a flight phase:
the step after it is a hop (same foot), a leap or run (the other foot), or a jump
(both feet land at once), and covers more ground with the time in the air.

Units: metres on the ground (x, z), the character starts at the origin facing +Z
(its left is +X, as everywhere in Kinetograph); times in seconds and beats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from motioncore.laban.score import SUPPORTS, Score, Symbol

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
HIP_WIDTH_LEGS = 0.21
"""Distance between the feet's lines, in leg lengths (0.18 m for the canonical legs)."""

_DIRECTION_VECTORS = {
    "place": (0.0, 0.0),
    "forward": (0.0, 1.0),
    "backward": (0.0, -1.0),
    "left": (1.0, 0.0),
    "right": (-1.0, 0.0),
    "left_forward": (math.sqrt(0.5), math.sqrt(0.5)),
    "right_forward": (-math.sqrt(0.5), math.sqrt(0.5)),
    "left_backward": (math.sqrt(0.5), -math.sqrt(0.5)),
    "right_backward": (-math.sqrt(0.5), -math.sqrt(0.5)),
}
"""Direction → (x, z) in the body frame (facing +Z, left +X)."""


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
    sizes = {
        (s.column, round(s.beat, 6)): s.size or 0 for s in score.symbols if s.kind == "step_size"
    }
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
            heading += turn if symbol.turn == "left" else -turn
            for s in ("left", "right"):
                p = open_print[s]
                open_print[s] = Footprint(
                    s, p.start_s, p.end_s, p.position, heading, p.level, p.kind, p.step_m
                )
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
                sizes.get((symbol.column, round(symbol.beat, 6)), 0),
                air,
            )
            move = _DIRECTION_VECTORS[str(symbol.direction)]
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
            # Walking, the weight arrives on the new foot when the symbol ends; landing
            # from the air, the foot is on the ground for the whole support symbol.
            contact = symbol.beat if air > 1e-9 else symbol.end
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
