"""A foot on the ground (:class:`Footprint`) and a score's prints with the body's centre
and facing keys (:class:`Footprints`), as :func:`motioncore.laban.footprints.footprints`
makes them. Units: metres, seconds, radians."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Footprint:
    """A foot on the ground: ``side``, from ``start_s`` (it lands, or the weight
    arrives) to ``end_s`` (it lifts), at ``position`` (x, z metres) with the foot
    pointing along ``heading`` (radians about +Y, 0 = +Z); ``kind`` says how it got
    there (``start``, ``step``, ``close``, ``level`` (a change of level in place), or
    after a flight ``hop``, ``leap``, ``jump``,
    ``assemble``, ``sissonne``); ``step_m`` is the length
    of the step that put it there (metres, 0 for the starting stance); ``released``:
    the foot lifted at ``end_s`` because a support of the other foot alone took the
    weight (not to step, jump, pivot or gesture), so it hovers until it is written down
    again."""

    side: str
    start_s: float
    end_s: float
    position: tuple[float, float]
    heading: float
    level: str
    kind: str
    step_m: float = 0.0
    released: bool = False


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
