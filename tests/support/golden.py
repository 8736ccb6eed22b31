"""Golden outputs: the JSON the command line prints for a fixed list of sample files
and scores, kept in ``tests/golden/`` so that a refactoring can show it changed nothing.

Each case runs ``python -m motioncore …`` in a fresh interpreter from the repository
root (the public command, not the modules behind it), with outputs written to a
temporary folder whose path is replaced by ``<tmp>`` in what is kept.

Numbers are compared to within :data:`REL_TOL` (or :data:`ABS_TOL` near zero), the
rest exactly: the same code gives last-digit differences with another release of
numpy, scipy or the BLAS it links, which is not a change of output. For the same
reason a written BVH is kept as a digest of what it holds (:func:`bvh_digest`: the
hierarchy exactly, the motion by its joints' mean positions), other written files by
their sha256.

Write them anew (only when a change of output is intended, in its own commit)::

    .venv/bin/python tests/support/golden.py --write
"""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

REL_TOL = 1e-5
"""Relative tolerance of a number (a PFNN walk, recurrent, drifts ~2e-6 across BLAS builds)."""
ABS_TOL = 1e-9
"""Absolute tolerance, for numbers that should be zero (a foot at -5e-16 m)."""
POSITION_TOL_M = 1e-6
"""Absolute tolerance of a written BVH's mean joint positions: the file keeps angles to
1e-6 degrees, which moves a joint by ~1e-8 m per metre of chain."""
COUNTED_KEYS = ("contact_share", "stance_swing_ratio")
COUNTED_REL_TOL = 0.03
"""Relative tolerance of shares and ratios counted in frames (:data:`COUNTED_KEYS`): a
frame whose foot sits exactly on a contact threshold (a synthesized foot planted at the
threshold's height) flips between CPUs while every position agrees within
:data:`POSITION_TOL_M` — the laban cases moved by one or two of ~300 frames (0.3-2 %)
on a machine other than the one that wrote them."""
REPO_ROOT = Path(__file__).resolve().parents[2]
GOLDEN_DIR = REPO_ROOT / "tests" / "golden"

CASES: dict[str, tuple[str, ...]] = {
    "validate-walk_forward": ("validate", "tests/data/games105/walk_forward.bvh", "--json"),
    "validate-131_02": ("validate", "tests/data/cmu-bvh11/131_02.bvh", "--json"),
    "validate-walk1": ("validate", "tests/data/makehuman/walk1.bvh", "--json"),
    "validate-xia_angry": (
        "validate",
        "tests/data/deep-motion-editing/xia_angry_13_000.bvh",
        "--json",
    ),
    "analyze-walk_forward": ("analyze", "tests/data/games105/walk_forward.bvh", "--json"),
    "analyze-run_forward": ("analyze", "tests/data/games105/run_forward.bvh", "--json"),
    "analyze-131_02-energy": (
        "analyze",
        "tests/data/cmu-bvh11/131_02.bvh",
        "--json",
        "--alpha",
        "0.5",
        "--theta-max-deg",
        "60",
        "--measure",
        "energy",
    ),
    "transition-walk-run": (
        "transition",
        "tests/data/games105/walk_forward.bvh",
        "tests/data/games105/run_forward.bvh",
        "--json",
        "--blend",
        "inertialize",
        "-o",
        "<tmp>/transition.bvh",
    ),
    "pfnn-generate-curve": (
        "pfnn",
        "generate",
        "--path",
        "0,0;0,4;3,7",
        "--speed",
        "1.3",
        "--json",
        "-o",
        "<tmp>/walk.bvh",
    ),
    "pfnn-generate-rig": (
        "pfnn",
        "generate",
        "--path",
        "0,0;0,5",
        "--speed",
        "1.2",
        "--rig",
        "tests/data/games105/walk_forward.bvh",
        "--json",
        "-o",
        "<tmp>/walk.bvh",
    ),
    "laban-walk_forward": (
        "laban",
        "tests/data/scores/walk_forward.json",
        "--json",
        "-o",
        "<tmp>/score.bvh",
    ),
    "laban-curved_path": (
        "laban",
        "tests/data/scores/curved_path.json",
        "--json",
        "-o",
        "<tmp>/score.bvh",
    ),
    "laban-jump_forms": (
        "laban",
        "tests/data/scores/jump_forms.json",
        "--json",
        "-o",
        "<tmp>/score.bvh",
    ),
    "laban-labanwriter": (
        "laban",
        "tests/data/labanwriter/walk.lw4.txt",
        "--json",
        "-o",
        "<tmp>/score.bvh",
    ),
}
"""Case name → the command line's arguments after ``python -m motioncore``."""


def run_case(name: str) -> Any:
    """The parsed JSON that case ``name`` prints, with its temporary folder as ``<tmp>``,
    and the sha256 of every file it wrote (``{"printed": …, "written": {name: sha256}}``)."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = [arg.replace("<tmp>", tmp) for arg in CASES[name]]
        done = subprocess.run(
            [sys.executable, "-m", "motioncore", *argv],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{name}: exit {done.returncode}\n{done.stderr}")
        written = {path.name: file_digest(path) for path in sorted(Path(tmp).iterdir())}
        return {"printed": json.loads(done.stdout.replace(tmp, "<tmp>")), "written": written}


def file_digest(path: Path) -> Any:
    """What is kept of a written file: :func:`bvh_digest` for a BVH, else its sha256."""
    data = path.read_bytes()
    if path.suffix.lower() == ".bvh":
        return bvh_digest(data.decode())
    return hashlib.sha256(data).hexdigest()


def bvh_digest(text: str) -> dict[str, Any]:
    """A BVH file's hierarchy (its sha256: names, offsets and channels as written), its
    frame count and frame time, and per joint the mean over the frames of its world
    position and of its absolute world position (metres, as motioncore reads the file
    back). Positions, not the Euler channels: near a gimbal or ±180° the same rotation
    has other Euler angles, and noise of 1e-9 in a rotation moved a channel's sum by
    tens of thousands of degrees while no joint moved 1e-8 m."""
    from motioncore import bvh, fk

    head, motion = text.split("MOTION", 1)
    lines = [line.split() for line in motion.strip().splitlines()]
    positions = fk.positions(bvh.load(text))
    return {
        "hierarchy_sha256": hashlib.sha256(head.encode()).hexdigest(),
        "motion_header": [" ".join(lines[0]), " ".join(lines[1])],
        "mean_position_m": positions.mean(axis=0).tolist(),
        "mean_abs_position_m": np.abs(positions).mean(axis=0).tolist(),
    }


def same(new: Any, kept: Any, where: str = "") -> list[str]:
    """Where ``new`` differs from ``kept``: structure, strings and booleans exactly,
    numbers within :data:`REL_TOL` / :data:`ABS_TOL` (an empty list: the same)."""
    if isinstance(new, bool) or isinstance(kept, bool) or not _numbers(new, kept):
        if isinstance(new, dict) and isinstance(kept, dict):
            if set(new) != set(kept):
                return [f"{where}: keys {sorted(set(new) ^ set(kept))} differ"]
            return [d for key in kept for d in same(new[key], kept[key], f"{where}/{key}")]
        if isinstance(new, list) and isinstance(kept, list):
            if len(new) != len(kept):
                return [f"{where}: {len(new)} items, {len(kept)} kept"]
            return [
                d
                for i, (a, b) in enumerate(zip(new, kept, strict=True))
                for d in same(a, b, f"{where}[{i}]")
            ]
        return [] if new == kept else [f"{where}: {new!r} != {kept!r}"]
    absolute = POSITION_TOL_M if "_position_m" in where else ABS_TOL
    relative = COUNTED_REL_TOL if where.endswith(COUNTED_KEYS) else REL_TOL
    if math.isclose(new, kept, rel_tol=relative, abs_tol=absolute):
        return []
    return [f"{where}: {new!r} != {kept!r}"]


def _numbers(*values: Any) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def golden_path(name: str) -> Path:
    """Where case ``name``'s golden JSON is kept."""
    return GOLDEN_DIR / f"{name}.json"


def write(name: str, payload: Any) -> None:
    """Keep ``payload`` as case ``name``'s golden output (sorted keys, one trailing newline)."""
    text = json.dumps(payload, indent=1, sort_keys=True)
    golden_path(name).write_text(text + "\n", encoding="utf-8")


def read(name: str) -> Any:
    """The golden output kept for case ``name``."""
    return json.loads(golden_path(name).read_text(encoding="utf-8"))


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: tests/support/golden.py --write")
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        write(case, run_case(case))
        print(f"wrote {golden_path(case).relative_to(REPO_ROOT)}")
