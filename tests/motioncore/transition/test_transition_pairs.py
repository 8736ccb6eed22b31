"""The transition report's pair list (``bench/transition_pairs.csv``) against the corpus.

The list is committed so that reports before and after a change read the same pairs;
these tests keep it what ``bench/transition_pairs.py`` draws from the corpus as it is
now (every folder, both sets, same skeletons), so a grown corpus shows up as a failure
here rather than as a report that silently leaves new folders out.
"""

from __future__ import annotations

import csv
import importlib.util
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType

import pytest

from motioncore import bvh
from motioncore.transition.joint_order import mismatch
from support.paths import REPO_ROOT

PAIRS = REPO_ROOT / "bench" / "transition_pairs.csv"


@pytest.fixture(scope="module")
def drawing() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "transition_pairs", REPO_ROOT / "bench" / "transition_pairs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_committed_list_is_what_the_corpus_gives_now(
    drawing: ModuleType, shared_data: Path, tmp_path: Path
) -> None:
    out = tmp_path / "pairs.csv"
    assert drawing.main(["--data", str(shared_data), "--out", str(out)]) == 0
    assert _rows(out) == _rows(PAIRS), "rebuild it: python bench/transition_pairs.py"


def test_the_list_holds_both_sets_of_one_skeleton_pairs(shared_data: Path) -> None:
    rows = _rows(PAIRS)
    sets = defaultdict(list)
    for row in rows:
        sets[row["set"]].append(row)
    assert len(rows) >= 150
    assert set(sets) == {"same action", "mixed action"}
    assert all(r["action_a"] == r["action_b"] for r in sets["same action"])
    assert all(r["action_a"] != r["action_b"] for r in sets["mixed action"])
    for row in rows[::7]:
        a = bvh.load(shared_data / row["a"]).skeleton
        b = bvh.load(shared_data / row["b"]).skeleton
        assert mismatch(a, b) is None, (row["a"], row["b"])


def test_every_folder_with_two_takes_of_one_skeleton_is_in_the_list(
    drawing: ModuleType, shared_data: Path
) -> None:
    per_skeleton: dict[str, set[str]] = defaultdict(set)
    folders_of: dict[str, set[str]] = defaultdict(set)
    for take in drawing.takes(shared_data):
        per_skeleton[take.skeleton].add(take.path)
        folders_of[take.skeleton].add(take.path.split("/")[1])
    expected = {
        folder
        for skeleton, paths in per_skeleton.items()
        if len(paths) >= 2
        for folder in folders_of[skeleton]
    }
    listed = {row[side].split("/")[1] for row in _rows(PAIRS) for side in ("a", "b")}
    assert expected <= listed, sorted(expected - listed)
    assert "bandai-namco" in listed  # the evaluation-only folder is in too


def test_a_clip_of_a_left_out_licence_or_a_single_pose_is_not_a_take(
    drawing: ModuleType,
) -> None:
    row = {
        "relative_path": "bvh/x/a.bvh",
        "license_flags": "",
        "category": "locomotion",
        "frames": "121",
        "frame_time": "0.0083333",
    }
    assert drawing.eligible(row)
    assert not drawing.eligible({**row, "license_flags": "copyleft"})
    assert not drawing.eligible({**row, "category": "other (1 frame)"})
    assert not drawing.eligible({**row, "frames": "100"})  # under a second
