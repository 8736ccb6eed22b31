"""Bridges on corpus clips: where MTP's direct join misses the limits, a bridge through
the library (the pair list's other clips of the same skeleton) lowers the velocity
continuity in at least 70 % of the pairs.

The transitions report (``bench/transitions_report.py``) measures every pair of
``bench/transition_pairs.csv`` on cleaned clips; this test takes every third pair of
each skeleton group (so every group, hence every folder the list draws from, is in it)
on the clips as read, to stay within a few minutes.
"""

from __future__ import annotations

import csv
import functools
from collections import defaultdict
from pathlib import Path

from motioncore import bvh, transition
from motioncore.transition import bridge
from motioncore.transition.entry import Features, features
from support.paths import REPO_ROOT

PAIRS = REPO_ROOT / "bench" / "transition_pairs.csv"
STRIDE = 3
GOAL = 0.70


@functools.cache
def _clip_features(path: Path) -> Features:
    return features(bvh.load(path))


def _pairs(data: Path) -> tuple[list[tuple[str, Path, Path]], dict[str, list[Path]]]:
    """Every ``STRIDE``-th pair of each skeleton group, and each group's clips."""
    groups: dict[str, list[tuple[Path, Path]]] = defaultdict(list)
    with PAIRS.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            groups[row["skeleton"]].append((data / row["a"], data / row["b"]))
    chosen, library = [], {}
    for group, pairs in groups.items():
        chosen += [(group, a, b) for a, b in pairs[::STRIDE]]
        library[group] = sorted({path for pair in pairs for path in pair})
    return chosen, library


def test_a_bridge_lowers_the_continuity_of_most_joins_that_miss_the_limits(
    shared_data: Path,
) -> None:
    chosen, library = _pairs(shared_data)
    missing, lowered, groups = 0, 0, set()
    for group, a, b in chosen:
        comparison = transition.compare(_clip_features(a), _clip_features(b))
        direct = comparison.chosen
        if direct.verdict.good:
            continue
        missing += 1
        groups.add(group)
        others = [(p.name, _clip_features(p)) for p in library[group] if p not in (a, b)]
        found = bridge.for_comparison(comparison, others)
        if found is None:
            continue
        worse = max(j.metrics.velocity_continuity for j in found.joins())
        lowered += worse < direct.metrics.velocity_continuity
    assert missing >= 20, f"only {missing} sampled pairs miss the limits: too few to judge"
    assert lowered / missing >= GOAL, f"a bridge lowers the continuity in {lowered}/{missing}"
    assert len(groups) >= 5, f"the pairs that miss the limits span only {sorted(groups)}"


def test_the_sample_covers_every_skeleton_group(shared_data: Path) -> None:
    chosen, library = _pairs(shared_data)
    assert {group for group, _, _ in chosen} == set(library)
    assert len(chosen) >= sum(len(clips) for clips in library.values()) // (2 * STRIDE)
