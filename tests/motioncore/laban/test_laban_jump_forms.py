"""The five basic jump forms (seed 003 §7.2) take off from and land on the feet they are
written with. ``tests/data/scores/jump_forms.json`` writes, in this order, a hop (right
to right), a leap (right to left), an assemblé (left to both), a jump (both to both)
and a sissonne (both to right). Measured on the solved skeleton only: the heel, ankle,
ball and toe tip of :mod:`motioncore.contacts.foot_points` on the forward kinematics
of the output clip, not the footprints or foot keys that made it. The floor is y = 0,
where the synthesis stands the character.

Before the fix the hop took off from both feet: its support, ``place`` on the right
foot alone, changed level without taking the weight off the left foot, so both feet
stood until the gap in the supports and both left the floor."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import pytest

from motioncore import fk
from motioncore.contacts import foot_points
from motioncore.laban import score
from motioncore.laban.score import SUPPORTS, Score
from motioncore.laban.synthesize import FPS, synthesize
from motioncore.skeleton import canonical
from support.paths import SAMPLE_DIR

BOTH = frozenset({"left", "right"})
FORMS = (  # the score's jumps in order: (form, feet down before take-off, after landing)
    ("hop", frozenset({"right"}), frozenset({"right"})),
    ("leap", frozenset({"right"}), frozenset({"left"})),
    ("assemble", frozenset({"left"}), BOTH),
    ("jump", BOTH, BOTH),
    ("sissonne", BOTH, frozenset({"right"})),
)
FLOOR_BAND_M = 0.01
"""A foot is on the floor while its lowest point is at most this high (m)."""
AROUND_S = 0.05
"""Which feet are down is read this long (s) before take-off and after landing."""
CLEAR_M = 0.05
"""A foot that is not on the floor around a jump is at least this high (m), from the
middle of the take-off support to the take-off and from the landing to the middle of
the landing support."""


@dataclass(frozen=True)
class Support:
    """The supports written on one beat: start and end (s) and their feet."""

    start_s: float
    end_s: float
    feet: frozenset[str]

    @property
    def middle_s(self) -> float:
        return (self.start_s + self.end_s) / 2.0


def _supports(loaded: Score) -> list[Support]:
    """The support direction symbols grouped by their beat, in time order."""
    spb, groups = loaded.seconds_per_beat, {}
    for s in loaded.symbols:
        if s.column in SUPPORTS and s.kind == "direction":
            groups.setdefault(s.beat, []).append(s)
    return [
        Support(
            beat * spb,
            max(s.end for s in g) * spb,
            frozenset(s.column.removeprefix("support_") for s in g),
        )
        for beat, g in sorted(groups.items())
    ]


def _jumps(supports: list[Support]) -> list[tuple[Support, Support]]:
    """(take-off, landing) supports around each gap in the supports."""
    return [(a, b) for a, b in pairwise(supports) if b.start_s > a.end_s + 1e-9]


def _lowest(loaded: Score) -> dict[str, np.ndarray]:
    """Each foot's lowest point ``[F]`` (m above the floor) on the solved skeleton."""
    clip = synthesize(loaded).clip
    rotations, positions = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    feet = foot_points.feet(clip.skeleton, canonical.roles(), rotations, positions)
    return {f.side: foot_points.points(f, rotations, positions)[..., 1].min(axis=1) for f in feet}


def _flights(lowest: dict[str, np.ndarray]) -> list[tuple[int, int]]:
    """Runs of frames ``[start, stop)`` with no foot within :data:`FLOOR_BAND_M`."""
    air = np.concatenate(
        [[False], (lowest["left"] > FLOOR_BAND_M) & (lowest["right"] > FLOOR_BAND_M), [False]]
    )
    edges = np.flatnonzero(np.diff(air.astype(np.int8)))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]


@pytest.fixture(scope="module")
def performed() -> tuple[list[Support], dict[str, np.ndarray]]:
    loaded = score.load(SAMPLE_DIR / "scores" / "jump_forms.json")
    return _supports(loaded), _lowest(loaded)


def test_the_score_writes_the_five_forms(
    performed: tuple[list[Support], dict[str, np.ndarray]],
) -> None:
    supports, _ = performed
    written = [(a.feet, b.feet) for a, b in _jumps(supports)]
    assert written == [(before, after) for _, before, after in FORMS]


@pytest.mark.parametrize("index", range(len(FORMS)), ids=[f[0] for f in FORMS])
def test_each_jump_takes_off_and_lands_on_its_written_feet(
    performed: tuple[list[Support], dict[str, np.ndarray]], index: int
) -> None:
    supports, lowest = performed
    form, before, after = FORMS[index]
    takeoff, landing = _jumps(supports)[index]
    start, stop = round(takeoff.middle_s * FPS), round(landing.middle_s * FPS)
    flights = [(a, b) for a, b in _flights(lowest) if a < stop and b > start]
    assert len(flights) == 1, (form, [(a / FPS, b / FPS) for a, b in flights])
    up, down = flights[0]
    assert start < up and down < stop  # one flight, inside its jump
    around = round(AROUND_S * FPS)
    on_floor_before = {s for s, low in lowest.items() if low[up - around] <= FLOOR_BAND_M}
    on_floor_after = {s for s, low in lowest.items() if low[down - 1 + around] <= FLOOR_BAND_M}
    flight_s = f"{up / FPS:.3f}-{down / FPS:.3f} s"
    print(f"{form}: {sorted(on_floor_before)} → {sorted(on_floor_after)}, flight {flight_s}")
    assert (on_floor_before, on_floor_after) == (before, after), form
    for side in BOTH - before:  # the free foot is clearly up before take-off ...
        assert lowest[side][start:up].min() > CLEAR_M, (form, side)
    for side in BOTH - after:  # ... and after landing
        assert lowest[side][down:stop].min() > CLEAR_M, (form, side)


def test_the_free_foot_stays_off_the_floor_through_the_hop(
    performed: tuple[list[Support], dict[str, np.ndarray]],
) -> None:
    """The hop's free (left) foot, released by the right foot's support in place, is up
    from the middle of that support until the leap that writes it down again."""
    supports, lowest = performed
    takeoff = supports[0]
    leap_up = supports[1].end_s  # the right foot leaves for the leap
    free = lowest["left"][round(takeoff.middle_s * FPS) : round(leap_up * FPS)]
    print(f"the free foot's lowest point through the hop: {free.min():.3f} m")
    assert free.min() > CLEAR_M
