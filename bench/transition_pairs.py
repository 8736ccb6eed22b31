"""The fixed pair list of the transition report: same-skeleton clip pairs of the corpus.

Writes ``bench/transition_pairs.csv`` (``set, skeleton, action_a, action_b, a, b``; paths
relative to ``../shared/data``), read by ``bench/transitions_report.py``. The list is
drawn from every permissive and evaluation-only (Bandai Namco, CC BY-NC) folder of the
corpus; copyleft, third-party and possibly-Mixamo files are left out, as are clips
shorter than :data:`MIN_SECONDS` and files that are not one take of motion (single
poses, duplicates, network outputs, face units).

Two clips are the same skeleton when their joints have the same names and parents
(:func:`motioncore.transition.joint_order.mismatch`; joint order may differ), so a
skeleton group can span folders (the cgspeed 3dsMax-friendly release in several
repositories). Each clip gets an action from its manifest row (:func:`action`).

* **same action**: in each (skeleton, action), clips sorted by path, each followed by
  the next; at most :data:`SAME_PER_ACTION` of these pairs, evenly spaced;
* **mixed action**: in each skeleton, clips sorted by path, the i-th clip followed by the
  i-th (cyclically) of the clips of another action; at most :data:`MIXED_PER_SKELETON`,
  evenly spaced.

The list is written once and committed, so that reports before and after a change read
the same pairs; run again only to rebuild it after the corpus grows:

    python bench/transition_pairs.py [--data ../shared/data] [--out bench/transition_pairs.csv]
"""

from __future__ import annotations

import argparse
import csv
import itertools
import re
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from motioncore import bvh  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "data"
OUT = REPO_ROOT / "bench" / "transition_pairs.csv"
MIN_SECONDS = 1.0
SAME_PER_ACTION = 8
MIXED_PER_SKELETON = 16
LEFT_OUT_LICENCES = ("copyleft", "third-party", "possible-Mixamo")
NOT_A_TAKE = ("duplicate", "frame)", "frames)", "synthesized", "face", "short cycle")
FIELDS = ("set", "skeleton", "action_a", "action_b", "a", "b")

# Keyword → action, first match wins (descriptions of the non-Bandai rows).
ACTIONS: tuple[tuple[str, str], ...] = (
    ("idle", "idle"),
    ("pick up", "pick up"),
    ("scoop", "pick up"),
    ("reach", "reach"),
    ("climb", "climb"),
    ("dribble", "dribble"),
    ("dance", "dance"),
    ("punch", "fight"),
    ("sword", "fight"),
    ("jump", "jump"),
    ("hop", "jump"),
    ("run", "run"),
    ("backward", "walk backwards"),
    ("sideways", "walk sideways"),
    ("turn in place", "turn in place"),
    ("walk", "walk"),
    ("stride", "walk"),
)


@dataclass(frozen=True)
class Take:
    """One eligible clip: its path (relative to the corpus), skeleton key and action."""

    path: str
    skeleton: str
    action: str
    joints: int


def action(row: dict[str, str]) -> str:
    """What a clip performs, from its manifest row: the Bandai action as named in the
    description, else the first keyword of :data:`ACTIONS` in it, else "walk" for
    locomotion and the category's first word for the rest."""
    bandai = re.match(r"Bandai Namco dataset-\d: ([^,]+),", row["description"])
    if bandai:
        return bandai.group(1)
    text = row["description"].lower()
    for keyword, name in ACTIONS:
        if keyword in text:
            return name
    # The unnamed locomotion (Xia's styles, the CMU-skeleton example) is walking.
    return "walk" if row["category"].startswith("locomotion") else row["category"].split(" ")[0]


def eligible(row: dict[str, str]) -> bool:
    """A permissive or evaluation-only BVH take of at least :data:`MIN_SECONDS`."""
    if not row["relative_path"].endswith(".bvh"):
        return False
    if any(flag in row["license_flags"] for flag in LEFT_OUT_LICENCES):
        return False
    if any(mark in row["category"] for mark in NOT_A_TAKE):
        return False
    return int(row["frames"] or 0) * float(row["frame_time"] or 0.0) >= MIN_SECONDS


def skeleton_key(path: Path) -> str:
    """The skeleton up to joint order: its (joint, parent) names, sorted, as one string."""
    skeleton = bvh.load(path).skeleton
    names = skeleton.names
    edges = sorted(
        (names[j], names[p] if p >= 0 else "") for j, p in enumerate(skeleton.parents.tolist())
    )
    return ";".join(f"{joint}<{parent}" for joint, parent in edges)


def takes(data: Path) -> list[Take]:
    """Every eligible clip of the manifest with its skeleton and action, sorted by path."""
    with (data / "MANIFEST.csv").open(newline="", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if eligible(row)]
    clips = (
        Take(
            row["relative_path"],
            skeleton_key(data / row["relative_path"]),
            action(row),
            int(row["joint_count"]),
        )
        for row in rows
    )
    return sorted(clips, key=lambda take: take.path)


def _names(keys: Iterable[str], clips: list[Take]) -> dict[str, str]:
    """A readable name per skeleton key: its folders and joint count (the manifest's)."""
    out: dict[str, str] = {}
    for key in keys:
        members = [t for t in clips if t.skeleton == key]
        folders = sorted({t.path.split("/")[1] for t in members})
        out[key] = f"{'+'.join(folders)} ({members[0].joints} joints)"
    return out


def same_action(clips: list[Take]) -> list[tuple[Take, Take]]:
    """Consecutive pairs in each (skeleton, action), at most :data:`SAME_PER_ACTION`
    (evenly spaced)."""
    groups: dict[tuple[str, str], list[Take]] = defaultdict(list)
    for take in clips:
        groups[(take.skeleton, take.action)].append(take)
    out: list[tuple[Take, Take]] = []
    for key in sorted(groups):
        chain = groups[key]
        out += _spread(list(itertools.pairwise(chain)), SAME_PER_ACTION)
    return out


def mixed_action(clips: list[Take]) -> list[tuple[Take, Take]]:
    """In each skeleton, the i-th clip followed by the i-th (cyclically) clip of another
    action, at most :data:`MIXED_PER_SKELETON` (evenly spaced)."""
    groups: dict[str, list[Take]] = defaultdict(list)
    for take in clips:
        groups[take.skeleton].append(take)
    out: list[tuple[Take, Take]] = []
    for key in sorted(groups):
        members = groups[key]
        chosen: list[tuple[Take, Take]] = []
        for i, a in enumerate(members):
            others = [b for b in members if b.action != a.action]
            if others:
                chosen.append((a, others[i % len(others)]))
        out += _spread(chosen, MIXED_PER_SKELETON)
    return out


def _spread(items: list[tuple[Take, Take]], most: int) -> list[tuple[Take, Take]]:
    """At most ``most`` of ``items``, evenly spaced from the first to the last (so that
    a skeleton's later folders are not cut off by its first one)."""
    if len(items) <= most:
        return items
    return [items[round(i * (len(items) - 1) / (most - 1))] for i in range(most)]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the shared corpus folder")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the pair list")
    args = parser.parse_args(argv)
    if not (args.data / "MANIFEST.csv").exists():
        print(f"no corpus at {args.data} (the shared data lives beside the checkout)")
        return 2
    clips = takes(args.data)
    names = _names({t.skeleton for t in clips}, clips)
    sets = {"same action": same_action(clips), "mixed action": mixed_action(clips)}
    with args.out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(FIELDS)
        for name, chosen in sets.items():
            for a, b in chosen:
                writer.writerow((name, names[a.skeleton], a.action, b.action, a.path, b.path))
    for name, chosen in sets.items():
        per_skeleton: dict[str, int] = defaultdict(int)
        for a, _ in chosen:
            per_skeleton[names[a.skeleton]] += 1
        print(f"{name}: {len(chosen)} pairs")
        for skeleton, count in sorted(per_skeleton.items()):
            print(f"  {count:3d}  {skeleton}")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
