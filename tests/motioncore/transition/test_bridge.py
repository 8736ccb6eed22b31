"""Honest verdicts and bridges: a join that misses the limits says so, and a clip of the
library that turns the motion around bridges a reversal (:mod:`motioncore.transition.bridge`)."""

from __future__ import annotations

import numpy as np
import pytest

from motioncore import bvh, transition
from motioncore.clip import Clip
from motioncore.transition import bridge, cuts, limits
from motioncore.transition.blend_choice import BlendBounds
from motioncore.transition.entry import DEFAULT_WEIGHTS
from motioncore.transition.planning import _plan
from support.paths import SAMPLE_DIR
from support.straight_motion import FPS, ramp, rigid, sine_bell


def turnaround(frames: int = 181, v0: float = 1.2, decel: float = 1.6) -> np.ndarray:
    """Positions along Z going forward at ``v0``, slowing at ``decel`` and coming back."""
    t = np.arange(frames) / FPS
    return v0 * t - 0.5 * decel * t**2


def slowing() -> Clip:
    """A: the first 100 frames of :func:`sine_bell`, still moving forward at its end."""
    bell = sine_bell()
    return bell.with_arrays(bell.rotations[:100], bell.translations[:100])


def backwards(frames: int = 121, speed: float = 1.0) -> Clip:
    """B: walking backwards (facing +Z, moving -Z) at ``speed`` from its first frame."""
    return rigid(-speed * np.arange(frames) / FPS)


def direct(a: object, b: object) -> tuple[cuts.Pair, transition.Transition]:
    pair = cuts.prepare(a, b, 0.6, 75.0, "speed", None, None)  # type: ignore[arg-type]
    planned = _plan(
        pair,
        "mtp",
        blend_s=None,
        blend="auto",
        bounds=BlendBounds(0.1, 0.5),
        threshold_ratio=0.5,
        search_s=1.0,
        weights=DEFAULT_WEIGHTS,
    )
    return pair, planned


def test_the_verdict_names_each_limit_a_join_misses() -> None:
    _, forwards = direct(sine_bell(), ramp())
    assert forwards.verdict.good, forwards.verdict.misses
    _, reversed_join = direct(slowing(), backwards())
    verdict = reversed_join.verdict
    assert not verdict.good
    assert (
        verdict.misses[0].startswith("velocity continuity ")
        and "limit: under 0.15" in verdict.misses[0]
    )
    assert verdict.sentence().startswith("No good direct transition: velocity continuity")
    report = transition.compare(slowing(), backwards()).as_dict()
    assert report["verdict"]["good"] is False and report["verdict"]["limits"]["pose_m"] == 0.2
    pose = limits.JoinLimits().misses(0.05, 0.35)
    assert pose == ("pose jump 0.350 m (limit: 0.2 m)",)


def test_a_turnaround_clip_bridges_a_reversal() -> None:
    pair, reversed_join = direct(slowing(), backwards())
    library = [
        ("standing", rigid(np.zeros(120))),
        ("turnaround", rigid(turnaround())),
        ("forwards", ramp()),
    ]
    found = bridge.find(pair, reversed_join, library)
    assert found is not None and found.name == "turnaround" and found.via == 1
    first, second = found.joins()
    worse = max(first.metrics.velocity_continuity, second.metrics.velocity_continuity)
    assert worse < 0.15 < reversed_join.metrics.velocity_continuity
    played = (found.c_cut - found.c_entry) / FPS
    assert bridge.MIN_PLAY_S <= played <= bridge.MAX_PLAY_S
    # The bridge clip is A until its cut, C from its entry to its cut, then B from its entry.
    b_frames = pair.b.clip.num_frames
    expected = first.cut.frame + (found.c_cut - found.c_entry) + b_frames - second.entry.frame
    assert found.clip.num_frames == expected
    report = found.as_dict()
    assert report["via"] == {"index": 1, "name": "turnaround"}
    assert [j["verdict"]["good"] for j in report["joins"]] == [True, True]


def test_no_bridge_when_no_clip_improves_and_other_skeletons_are_passed_over() -> None:
    pair, reversed_join = direct(slowing(), backwards())
    walk = bvh.load(SAMPLE_DIR / "games105" / "walk60.bvh")
    library = [("standing", rigid(np.zeros(120))), ("other skeleton", walk)]
    assert bridge.find(pair, reversed_join, library) is None


@pytest.mark.parametrize("frames", [20, 40])
def test_a_clip_too_short_to_play_between_the_joins_is_no_bridge(frames: int) -> None:
    pair, reversed_join = direct(slowing(), backwards())
    short = [("short turnaround", rigid(turnaround(frames)))]
    assert bridge.find(pair, reversed_join, short) is None
