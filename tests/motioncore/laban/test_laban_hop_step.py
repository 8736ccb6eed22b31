"""Issue 19 (seed 003 §7.2): a hop's step is much shorter than a run's at the same
tempo. Measured on the solved skeleton only: landings are found from the foot joints'
heights and the footprints recovered from where the feet are down, independently of
the step-length rule (:func:`motioncore.laban.steps.step_length_m`) that made them."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import numpy as np

from motioncore import fk
from motioncore.laban import score
from motioncore.laban.synthesize import FPS, synthesize
from motioncore.skeleton import canonical

J = canonical.JOINT_OF_ROLE
DOWN_M, UP_M = 0.01, 0.03
"""A foot is down when its lowest joint is within 1 cm of its standing height, and in
the air once it has been 3 cm above it."""
STAND_S = 0.1
"""A landing stands at least this long (the supports here last 0.25 s); a free foot
brushing the floor for a few frames is not one."""


def _hop_run(path: Path) -> Path:
    """The score: a long first support (starting from standing), six running steps one
    beat apart with half a beat in the air each, then four hops on the right foot at
    the same tempo; all forward, middle. (Kept here, not in ``tests/data/scores``,
    whose every score must also meet the walking scores' hip-height bounds.)"""
    beats = [0, *range(2, 12)]
    sides = ["right", "left"] * 3 + ["right"] * 5  # run R L R L R L R, hops R R R R
    symbols = [
        {
            "column": f"support_{side}",
            "kind": "direction",
            "beat": beat,
            "duration": 1.5 if beat == 0 else 0.5,
            "direction": "forward",
            "level": "middle",
        }
        for beat, side in zip(beats, sides, strict=True)
    ]
    text = {
        "format": "kinetograph-score/1",
        "title": "Running, then hopping on the right foot at the same tempo",
        "tempo_bpm": 120,
        "meter": 2,
        "measures": 6,
        "symbols": symbols,
    }
    path.write_text(json.dumps(text))
    return path


def _landings(positions: np.ndarray, side: str) -> list[tuple[float, np.ndarray]]:
    """Each landing of ``side``'s foot from the air, standing at least :data:`STAND_S`:
    (time s, ground position (x, z) m, the median of the ankle over the frames the foot
    stays down)."""
    joints = [J[f"{side}_foot"], J[f"{side}_toe"]]
    low = positions[:, joints, 1].min(axis=1)
    low = low - low.min()  # standing height of the lowest joint → 0
    out: list[tuple[float, np.ndarray]] = []
    airborne = False
    frame = 0
    while frame < len(low):
        if low[frame] > UP_M:
            airborne = True
        elif airborne and low[frame] < DOWN_M:
            end = frame
            while end < len(low) and low[end] < DOWN_M:
                end += 1
            if (end - frame) / FPS >= STAND_S:
                ankle = positions[frame:end, J[f"{side}_foot"]][:, [0, 2]]
                out.append((frame / FPS, np.median(ankle, axis=0)))
                airborne = False
            frame = end
            continue
        frame += 1
    return out


def test_a_hop_steps_much_shorter_than_a_run_at_the_same_tempo(tmp_path: Path) -> None:
    """§7.2: "單腳跳躍產生的步長比跑步小得多" (a hop gives a much smaller step than
    a run). :func:`_hop_run`: from a long first support, six running steps (one beat apart,
    half a beat in the air each, forward, middle), then hops on the right foot at the
    same tempo. The run step is the
    distance between consecutive landings (alternating feet) of the run, the hop step
    between consecutive landings of the right foot while it hops."""
    loaded = score.load(_hop_run(tmp_path / "hop_run.json"))
    positions = fk.positions(synthesize(loaded).clip)
    spb = loaded.seconds_per_beat
    left, right = _landings(positions, "left"), _landings(positions, "right")
    # Landings from the run's flights: beats 2 … 7 (the one on beat 7 ends the run).
    run = sorted((t, p) for t, p in left + right if 1.5 * spb < t < 7.5 * spb)
    # Hops: the right foot takes off after beat 7 and lands on beats 8 … 11.
    hops = [(t, p) for t, p in right if 6.5 * spb < t < 11.5 * spb]
    assert len(run) == 6 and len(hops) == 5, ([t for t, _ in run], [t for t, _ in hops])
    run_step = np.mean([np.linalg.norm(b[1] - a[1]) for a, b in pairwise(run)])
    hop_step = np.mean([np.linalg.norm(b[1] - a[1]) for a, b in pairwise(hops)])
    print(f"hop step {hop_step:.3f} m, run step {run_step:.3f} m, ratio {hop_step / run_step:.3f}")
    assert run_step > 0.5  # the run travels
    assert hop_step > 0.1  # and the hops, forward, travel too
    assert hop_step < 0.6 * run_step, (hop_step, run_step)
