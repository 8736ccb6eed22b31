"""Transition speed: the command line's start-up and one transition of two 10 s clips.

Measures, as medians over ``--rounds``:

* **CLI start-up**: the wall time of ``python -m motioncore --help`` and of
  ``python -m motioncore transition --help`` (new processes), beside ``python -c pass``
  (the interpreter alone);
* **one transition**: :func:`motioncore.transition.compare` (MTP and the three
  baselines, gait phases given, as the web run and the CLI call it) on the first 10 s
  of CMU 69_06 and 69_07 (120 fps, cleaned first; ``../shared/data``), compute only.

With ``--baseline REF`` the same is measured on that commit (a temporary git worktree)
in the same run, and the ratios are printed: before and after a change, on one machine.

    python bench/transition_speed.py --baseline 4f72959 [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA = REPO_ROOT.parent / "shared" / "data"
CLIPS = ("bvh/cmu-3dsmax-jinny42/69_06.bvh", "bvh/cmu-3dsmax-jinny42/69_07.bvh")
SECONDS = 10.0
TRANSITION_TARGET_S = 0.5


def _wall(argv: list[str], tree: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=tree, check=True, capture_output=True)
    return time.perf_counter() - started


def startup(trees: dict[str, Path], rounds: int) -> dict[str, dict[str, float]]:
    """Per tree, median wall seconds of the interpreter alone and of two ``--help``
    calls; the trees take turns in every round, so that neither gets the cold caches."""
    python = sys.executable
    commands = {
        "python -c pass": [python, "-c", "pass"],
        "motioncore --help": [python, "-m", "motioncore", "--help"],
        "motioncore transition --help": [python, "-m", "motioncore", "transition", "--help"],
    }
    times: dict[str, dict[str, list[float]]] = {t: {c: [] for c in commands} for t in trees}
    for _ in range(rounds):
        for name, argv in commands.items():
            for label, tree in trees.items():
                times[label][name].append(_wall(argv, tree))
    return {
        label: {name: statistics.median(values) for name, values in per.items()}
        for label, per in times.items()
    }


def transition_seconds(data: Path, rounds: int) -> float:
    """Median compute seconds of one ``compare`` on the two 10 s clips (the tree on
    ``sys.path`` decides which code runs)."""
    from motioncore import analysis, bvh, clean, transition

    clips = []
    for name in CLIPS:
        clip = bvh.load(data / name)
        frames = round(SECONDS * clip.fps)
        clips.append(
            clean.clean(clip.with_arrays(clip.rotations[:frames], clip.translations[:frames]))[0]
        )
    a, b = clips
    phase_a, phase_b = analysis.features(a).gait_phase, analysis.features(b).gait_phase
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        transition.compare(a, b, phase_a=phase_a, phase_b=phase_b)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(tree: Path, data: Path, rounds: int) -> float:
    """The transition's median seconds on ``tree`` (a child process with the tree first
    on its path)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    child = subprocess.run(
        [sys.executable, __file__, "--child", "--data", str(data), "--rounds", str(rounds)],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    measured = json.loads(child.stdout)
    if not Path(measured["code"]).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"measured {measured['code']}, not the code of {tree}")
    return float(measured["seconds"])


def _worktree(ref: str, where: Path) -> Path:
    tree = where / "baseline"
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(tree), ref],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
    )
    return tree


def report(results: dict[str, dict[str, Any]]) -> None:
    names = list(results)
    rows: list[tuple[str, list[float]]] = [
        (command, [results[n]["startup_s"][command] for n in names])
        for command in results[names[0]]["startup_s"]
    ]
    rows.append(("transition, two 10 s clips", [results[n]["transition_s"] for n in names]))
    print(f"{'median, s':<32}" + "".join(f"{n:>14}" for n in names))
    for label, cells in rows:
        ratio = f"   x{cells[0] / cells[1]:.2f}" if len(cells) == 2 else ""
        print(f"{label:<32}" + "".join(f"{c:>14.3f}" for c in cells) + ratio)
    now = results[names[0]]["transition_s"]
    verdict = "PASS" if now < TRANSITION_TARGET_S else "FAIL"
    print(f"{verdict}  one transition of two 10 s clips < {TRANSITION_TARGET_S} s ({now:.3f} s)")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the shared corpus folder")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--baseline", help="a git commit to measure beside this tree")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        import motioncore

        seconds = transition_seconds(args.data, args.rounds)
        print(json.dumps({"seconds": seconds, "code": motioncore.__file__}))
        return 0
    if not (args.data / CLIPS[0]).exists():
        print(f"no corpus at {args.data} (the shared data lives beside the checkout)")
        return 2
    with tempfile.TemporaryDirectory() as where:
        trees = {"this tree": REPO_ROOT}
        if args.baseline:
            trees[args.baseline] = _worktree(args.baseline, Path(where))
        try:
            starts = startup(trees, args.rounds)
            results = {
                label: {
                    "startup_s": starts[label],
                    "transition_s": measure(tree, args.data, args.rounds),
                }
                for label, tree in trees.items()
            }
        finally:
            for label, tree in trees.items():
                if label != "this tree":
                    subprocess.run(
                        ["git", "worktree", "remove", "--force", str(tree)],
                        cwd=REPO_ROOT,
                        check=False,
                    )
    report(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
