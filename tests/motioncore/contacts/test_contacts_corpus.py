"""Foot contacts on the corpus: every steady walk and run has a duty factor people have.

The bands and the gait reading are :func:`motioncore.analysis.duty.expected_band`'s (a
walk 0.50-0.72, a run 0.20-0.45, read from the clip's words and its Froude number).
A share within one frame of its stride of the band counts as in it (30 Hz strides
are 25-35 frames). ``python bench/contacts_report.py`` prints the table of
``docs/contacts-report.md``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, contacts, fk, skeleton
from motioncore.analysis import duty as gait_duty
from support.corpus import corpus_bvh_params

ALTERNATION = 0.9


@cache
def measure(path: Path) -> dict[str, object]:
    """The clip's steady speed, Froude number, and per foot its duty factor and strides."""
    clip = bvh.load(path)
    roles = skeleton.infer(clip.skeleton)
    g_rot, g_pos = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    found = contacts.detect(clip, roles, positions=g_pos, rotations=g_rot)
    part = gait_duty.steady(g_pos[:, roles.require("hips")[0]], clip.fps)
    feet = {f.side: gait_duty.duty_factor(f.contact, clip.fps, part.frames) for f in found.feet}
    masks = {f.side: f.contact for f in found.feet}
    alternation = gait_duty.alternation(masks["left"], masks["right"], clip.fps, part.frames)
    onsets = [np.flatnonzero(m[1:] & ~m[:-1]) for m in masks.values()]
    stride_frames = [float(np.median(np.diff(o))) for o in onsets if o.size > 1]
    return {
        "speed_mps": part.speed_mps,
        "froude": part.froude(found.leg_m),
        "feet": feet,
        "alternation": alternation,
        "stride_frames": float(np.median(stride_frames)) if stride_frames else float("nan"),
    }


@pytest.mark.parametrize(
    ("path", "row"), corpus_bvh_params(lambda r: r["category"].startswith("locomotion"))
)
def test_a_steady_walk_or_run_has_a_human_duty_factor_and_alternates(
    path: Path, row: dict[str, str]
) -> None:
    got = measure(path)
    feet = {s: d for s, (d, n) in got["feet"].items() if np.isfinite(d)}  # type: ignore[attr-defined]
    if not feet:
        pytest.skip(f"no foot has {gait_duty.MIN_STRIDES} steady strides (too short or turning)")
    words = f"{row['description']} {row['category']}"
    lo, hi = gait_duty.expected_band(words, float(got["froude"]))  # type: ignore[arg-type]
    slack = 1.0 / float(got["stride_frames"])  # type: ignore[arg-type]
    for side, duty in feet.items():
        assert lo - slack <= duty <= hi + slack, (
            f"{side} duty {duty:.3f} outside {lo}-{hi} at {got['speed_mps']:.2f} m/s, "
            f"Froude {got['froude']:.2f}"
        )
    if len(feet) == 2 and np.isfinite(got["alternation"]):  # type: ignore[arg-type]
        assert got["alternation"] >= ALTERNATION, got


def test_most_of_the_locomotion_corpus_is_graded(shared_data: Path) -> None:
    """The duty-factor test must not pass by skipping: most clips have steady strides."""
    rows = corpus_bvh_params(lambda r: r["category"].startswith("locomotion"))
    graded = sum(
        1
        for param in rows
        if any(np.isfinite(d) for d, _ in measure(param.values[0])["feet"].values())  # type: ignore[attr-defined]
    )
    assert graded >= 70, graded
