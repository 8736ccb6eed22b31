"""How long a Labanotation score takes to animate: a 32-bar score (seed 003's target:
under 2 s on this machine), from JSON text to the canonical clip.

The score (built here, in the format of docs/score-format.md) walks forward, turns a
quarter, walks sideways and back, holds, runs, and moves both arms through the nine
directions at three levels: 32 bars of 4/4 at 120 beats per minute, 64 s of motion.

Timed: ``score.load`` (parse and validate) + ``synthesize`` (footprints, the optimised
centre-of-mass path, foot keys, leg IK, gestures, the joint solve), median of 5 runs
after one warm-up; and, beside it, importing every Microsoft file of ../shared/data/laban.
No peer is timed: no open-source tool takes a Labanotation support column to
footprints and a walking body (Microsoft's LabanotationSuite animates upper-body
gestures only, in Unity).

    python bench/laban_bench.py
"""

from __future__ import annotations

import glob
import json
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from motioncore.laban import score  # noqa: E402
from motioncore.laban.importers import microsoft  # noqa: E402
from motioncore.laban.score import DIRECTIONS, LEVELS  # noqa: E402
from motioncore.laban.synthesize import synthesize  # noqa: E402

TARGET_S = 2.0
BARS = 32
METER = 4


def _score() -> str:
    symbols = []
    sides = ("support_right", "support_left")
    beat = 0
    phrases = [("forward", 24), ("left", 16), ("backward", 16), ("right_forward", 24)]
    for direction, steps in phrases:
        for i in range(steps):
            symbols.append(
                {
                    "column": sides[i % 2],
                    "kind": "direction",
                    "beat": beat,
                    "duration": 1,
                    "direction": direction,
                    "level": "middle",
                }
            )
            beat += 1
        symbols.append(
            {
                "column": sides[steps % 2],
                "kind": "turn",
                "beat": beat,
                "duration": 1,
                "turn": "right",
                "amount": 0.25,
            }
        )
        beat += 1
    symbols.append({"column": sides[0], "kind": "hold", "beat": beat, "duration": 4})
    beat += 4
    while beat < BARS * METER - 1:
        side = sides[beat % 2]
        symbols.append(
            {
                "column": side,
                "kind": "direction",
                "beat": beat,
                "duration": 0.5,
                "direction": "forward",
                "level": "middle",
            }
        )
        beat += 1
    arm_beat = 0
    while arm_beat < BARS * METER - 2:
        for level in LEVELS:
            for direction in DIRECTIONS:
                if arm_beat >= BARS * METER - 2:
                    break
                for column in ("arm_left", "arm_right"):
                    symbols.append(
                        {
                            "column": column,
                            "kind": "direction",
                            "beat": arm_beat,
                            "duration": 2,
                            "direction": direction,
                            "level": level,
                        }
                    )
                arm_beat += 2
    return json.dumps(
        {
            "format": score.FORMAT,
            "title": "32 bars",
            "tempo_bpm": 120,
            "meter": METER,
            "measures": BARS,
            "symbols": symbols,
        }
    )


def main() -> int:
    text = _score()
    synthesize(score.load(text))  # warm-up
    times = []
    for _ in range(5):
        started = time.perf_counter()
        out = synthesize(score.load(text))
        times.append(time.perf_counter() - started)
    median = statistics.median(times)
    steps = sum(1 for p in out.prints.prints if p.kind != "start")
    print(
        f"32-bar score: {len(json.loads(text)['symbols'])} symbols, {steps} steps, "
        f"{out.clip.num_frames} frames: median {median:.3f} s (min {min(times):.3f} s)"
    )
    files = glob.glob(
        str(REPO_ROOT.parent / "shared" / "data" / "laban" / "**" / "*.json"), recursive=True
    )
    if files:
        started = time.perf_counter()
        for path in files:
            microsoft.load_file(path)
        print(f"import of {len(files)} Microsoft files: {time.perf_counter() - started:.3f} s")
    verdict = "PASS" if median < TARGET_S else "FAIL"
    print(f"{verdict}  32 bars in under {TARGET_S:g} s ({median:.3f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
