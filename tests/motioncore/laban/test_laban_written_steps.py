"""Every written step is performed (issue 19): for each support direction symbol of
every test score, its side's foot stands on the floor as the symbol ends (the weight has
arrived), measured on the animation's solved joints (forward kinematics of the output
clip: the lowest of ankle, ball and toe tip), not on the footprints that made it.

``pivot_after_step``: right forward, left forward, a quarter pivot on the right foot
(then left, right). The pivot frees the left foot; before the fix it lifted the left
foot as its step began and the step was never performed (the left foot in the air from
0.5 s to 1.85 s)."""

from __future__ import annotations

import pytest

from motioncore import fk
from motioncore.laban import score
from motioncore.laban.score import SUPPORTS
from motioncore.laban.synthesize import FPS, synthesize
from motioncore.skeleton import canonical
from support.paths import SAMPLE_DIR

SCORES = SAMPLE_DIR / "scores"
DOWN_M = 0.01
"""A foot whose lowest point is at most this high (m) stands on the floor."""
BEFORE_END_S = 0.03
"""The weight is on the foot this long (s) before its symbol ends."""
FOOT_JOINTS = ("foot", "toe")


@pytest.mark.parametrize("path", sorted(SCORES.glob("*.json")), ids=lambda p: p.stem)
def test_every_written_step_is_performed(path: object) -> None:
    loaded = score.load(path)  # type: ignore[arg-type]
    positions = fk.positions(synthesize(loaded).clip)
    missed = []
    for symbol in loaded.symbols:
        if symbol.column not in SUPPORTS or symbol.kind != "direction":
            continue
        side = symbol.column.removeprefix("support_")
        joints = [canonical.JOINT_OF_ROLE[f"{side}_{part}"] for part in FOOT_JOINTS]
        joints.append(canonical.NAMES.index(f"{side.capitalize()}Toe_End"))
        frame = round((symbol.end * loaded.seconds_per_beat - BEFORE_END_S) * FPS)
        lowest = float(positions[frame, joints, 1].min())
        if lowest > DOWN_M:
            missed.append((symbol.column, symbol.beat, round(lowest, 3)))
    assert missed == [], missed
