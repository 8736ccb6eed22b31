"""Foot skid during ground contact (the Labanotation issue's acceptance: < 1 cm),
measured on the solved skeleton by the independent measure
:func:`motioncore.measures.contact_skid`, for every test score. A foot turning on its
ball sweeps its tip and heel over the floor: the measure tells those contacts apart
(``turned_about``) and they are not skid."""

from __future__ import annotations

from pathlib import Path

import pytest

from motioncore import measures
from motioncore.laban import score
from motioncore.laban.synthesize import synthesize
from motioncore.skeleton import canonical

SCORES = Path(__file__).resolve().parents[2] / "data" / "scores"
LIMIT_M = 0.01
"""The issue's acceptance: a sole point skids less than 1 cm while it touches."""


@pytest.mark.parametrize("path", sorted(SCORES.glob("*.json")), ids=lambda p: p.stem)
def test_no_sole_point_skids_a_centimetre_while_it_touches(path: Path) -> None:
    clip = synthesize(score.load(path)).clip
    skid = measures.contact_skid(clip, canonical.roles(), floor_m=0.0)
    over = [c for c in skid.skids if c.skid_m >= LIMIT_M]  # a pivot's sweep is not skid
    assert not over, "; ".join(
        f"{c.side} {c.point} frames {c.first_frame}-{c.last_frame}: "
        f"{c.skid_m * 100:.1f} cm at up to {c.peak_speed_mps:.2f} m/s"
        for c in over
    )
