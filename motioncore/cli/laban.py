"""``python -m motioncore laban SCORE -o OUT.bvh [--json]``: animate a Labanotation score.

SCORE is a ``kinetograph-score/1`` JSON file (``docs/score-format.md``), one of
Microsoft's LabanotationSuite / gestureBot JSON files, or a LabanWriter 4 text file in
the assumed, unverified layout of :mod:`motioncore.laban.importers.labanwriter` (detected by its
``LabanWriter; 4000;`` header; the JSON's ``labanwriter`` lists the records not read).
The BVH is on the canonical skeleton at 60 fps. The JSON carries ``frames``, ``fps``, the footprints
(side, start/end seconds, position in metres, heading in radians, level, kind, step
length), a sampled centre path, ``min_foot_height_m`` and ``ground_skate_m``. An invalid
score exits 2 with every problem (each naming the symbol and its beat).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from motioncore import bvh
from motioncore.errors import MotionCoreError
from motioncore.laban.importers import reader
from motioncore.laban.score import ScoreError

EXIT_OK = 0
EXIT_INVALID = 2


def add_parser(commands: Any) -> None:
    """Register ``laban`` on the ``add_subparsers()`` object."""
    laban = commands.add_parser("laban", help="animate a Labanotation score")
    laban.add_argument("score", type=Path, help="a score (JSON, or LabanWriter 4 text)")
    laban.add_argument("-o", "--output", type=Path, required=True, help="BVH to write")
    laban.add_argument("--json", action="store_true", help="print footprints and measures")


def run(args: argparse.Namespace) -> int:
    from motioncore.laban.synthesize import synthesize

    try:
        read = reader.read_bytes(args.score.read_bytes(), args.score.stem)
        loaded = read.score
        made = synthesize(loaded)
    except ScoreError as error:
        for problem in error.problems:
            print(f"error: {problem}", file=sys.stderr)
        return EXIT_INVALID
    except (MotionCoreError, OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID
    args.output.write_text(bvh.dump(made.clip), encoding="utf-8")
    report = {"output": str(args.output), "title": loaded.title, **made.as_dict()}
    if read.notes is not None:
        report["labanwriter"] = read.notes
        ignored = len(read.notes["ignored_records"])
        if ignored and not args.json:
            print(f"note: {ignored} LabanWriter record(s) not read", file=sys.stderr)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        steps = sum(1 for p in made.prints.prints if p.kind != "start")
        print(
            f"{made.clip.num_frames} frames at {made.clip.fps:g} fps, {steps} steps → "
            f"{args.output}; feet ≥ {made.min_foot_height_m * 1000:.1f} mm, "
            f"standing feet move ≤ {made.ground_skate_m * 100:.2f} cm"
        )
    return EXIT_OK
