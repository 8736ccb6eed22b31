"""Adapters: each contender's parse and FK behind one small interface.

A contender has ``parse(path) -> native`` (bytes on disk → its in-memory form),
optionally ``fk(native) -> native_fk`` (all joints, all frames), and
``positions(native, native_fk) -> (names, [F, n, 3])`` in *file units*, used only for the
correctness check, never timed. Contenders whose FK mutates or caches state
(bvhsdk, bvhio) are handed a freshly parsed object for every FK run.

Peers are imported lazily; a peer that does not import is reported with the
reason instead of failing the benchmark. No peer code is copied here.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bench_bound
import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
Positions = tuple[list[str], FloatArray]

OURS = "ours"
BOUND = "numpy-bound"
PEER_NAMES = ("bvhsdk", "bvh", "bvhio", "fairmotion", "pymo")


@dataclass
class Contender:
    """One library as the benchmark sees it.

    Attributes:
        name: row label.
        version: installed version (or git commit) for the report.
        parse: path → the library's in-memory representation (timed).
        fk: parsed object → world positions in the library's form (timed).
        positions: (parsed, FK output) → ``(names, [F, n, 3])`` in file units (not timed).
        fresh_for_fk: FK must get a newly parsed object each run (state/caches).
        what: one line on what the timed windows contain.
        extra_fk: more FK entry points to time, ``label -> (fk, positions)``; each
            becomes its own FK row named ``"<name> <label>"``.
    """

    name: str
    version: str
    parse: Callable[[Path], Any]
    fk: Callable[[Any], Any] | None
    positions: Callable[[Any, Any], Positions] | None
    fresh_for_fk: bool
    what: str
    extra_fk: dict[str, tuple[Callable[[Any], Any], Callable[[Any, Any], Positions]]] = field(
        default_factory=dict
    )


@dataclass(frozen=True)
class Missing:
    """A contender that could not be loaded, and why."""

    name: str
    reason: str


def dist_version(dist: str) -> str:
    """Installed version of distribution ``dist`` (``?`` if unknown)."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


# --- the numpy lower bound --------------------------------------------------------------


def bound() -> Contender:
    """The numpy lower bound (``bench_bound``): loadtxt parse, hand-built Euler FK."""

    def positions(parsed: bench_bound.BoundParse, pos: FloatArray) -> Positions:
        return parsed.hierarchy.names, pos

    return Contender(
        name=BOUND,
        version=f"numpy {np.__version__}",
        parse=bench_bound.parse_file,
        fk=bench_bound.reference_fk,
        positions=positions,
        fresh_for_fk=False,
        what="read bytes, split hierarchy, np.loadtxt MOTION; FK: cos/sin Euler + joint loop",
    )


# --- ours -------------------------------------------------------------------------------


def ours(repo_root: Path) -> Contender | Missing:
    """``motioncore.bvh.load`` and ``motioncore.fk.forward``."""
    if str(repo_root) not in sys.path:
        sys.path.insert(0, str(repo_root))
    try:
        bvh = importlib.import_module("motioncore.bvh")
        fk = importlib.import_module("motioncore.fk")
        getattr(bvh, "load")  # noqa: B009 - fail early if the API is not there yet
        getattr(fk, "forward")  # noqa: B009
        _warm_up_jit()
    except (ImportError, AttributeError) as exc:
        return Missing(OURS, f"motioncore API not importable: {exc!r}")

    def run_fk(clip: Any) -> tuple[FloatArray, FloatArray]:
        result: tuple[FloatArray, FloatArray] = fk.forward(
            clip.rotations, clip.translations, clip.skeleton.parents
        )
        return result

    def positions(clip: Any, out: tuple[FloatArray, FloatArray]) -> Positions:
        return list(clip.skeleton.names), out[1] / clip.source.metres_per_unit

    def only_positions(clip: Any, out: FloatArray) -> Positions:
        return list(clip.skeleton.names), out / clip.source.metres_per_unit

    return Contender(
        name=OURS,
        version=_git_version(repo_root),
        parse=bvh.load,
        fk=run_fk,
        positions=positions,
        fresh_for_fk=False,
        what="motioncore.bvh.load(path) → Clip (quaternions); FK: fk.forward "
        "(global quaternions + positions); 'ours fk.positions': positions only",
        extra_fk={"fk.positions": (fk.positions, only_positions)},
    )


_TINY_BVH = (
    b"HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n}\n"
    b"MOTION\nFrames: 1\nFrame Time: 0.1\n1 2 3\n"
)


def _warm_up_jit() -> None:
    """Load the compiled frame reader once (numba; from its on-disk cache after the first
    run), so its one-time cost counts as import time, not as the first file's load."""
    bvh_fast = importlib.import_module("motioncore.bvh.fast")
    if bvh_fast.available():
        bvh_fast.read(_TINY_BVH, min_bytes=0)


def _git_version(repo_root: Path) -> str:
    """``git <short sha>[-dirty]`` of the working tree being measured."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repo_root), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "working tree"
    return "git " + done.stdout.strip()


# --- peers ------------------------------------------------------------------------------


def _bvhsdk() -> Contender:
    bvh = importlib.import_module("bvhsdk.bvh")

    def parse(path: Path) -> Any:
        return bvh.GetBVHDataFromFile(str(path), supresswarnings=True)

    def positions(_: Any, out: tuple[list[str], Any]) -> Positions:
        return out[0], np.asarray(out[1], dtype=np.float64)

    def fk(anim: Any) -> tuple[list[str], Any]:
        names = [j.name for j in anim.getlistofjoints()]
        return names, anim.getJointPositions()

    return Contender(
        "bvhsdk",
        dist_version("bvhsdk"),
        parse,
        fk,
        positions,
        fresh_for_fk=True,
        what="GetBVHDataFromFile(supresswarnings=True); FK: Animation.getJointPositions()",
    )


def _bvh() -> Contender:
    bvh = importlib.import_module("bvh")

    def parse(path: Path) -> FloatArray:
        mocap = bvh.Bvh(path.read_text())
        return np.asarray(mocap.frames, dtype=np.float64)

    return Contender(
        "bvh",
        dist_version("bvh"),
        parse,
        None,
        None,
        fresh_for_fk=False,
        what="Bvh(text) + np.asarray(frames, float); no FK",
    )


def _bvhio() -> Contender:
    bvhio = importlib.import_module("bvhio")

    def parse(path: Path) -> Any:
        return bvhio.readAsBvh(str(path))

    def fk(container: Any) -> tuple[list[str], list[list[Any]]]:
        root = bvhio.convertBvhToHierarchy(container.Root).loadRestPose()
        joints = [item[0] for item in root.layout()]
        frames = []
        for f in range(container.FrameCount):
            root.loadPose(f)
            frames.append([tuple(j.PositionWorld) for j in joints])
        return [j.Name for j in joints], frames

    def positions(_: Any, out: tuple[list[str], list[list[Any]]]) -> Positions:
        return out[0], np.asarray(out[1], dtype=np.float64)

    return Contender(
        "bvhio",
        dist_version("bvhio"),
        parse,
        fk,
        positions,
        fresh_for_fk=True,
        what="readAsBvh; FK: convertBvhToHierarchy().loadRestPose(), loadPose(f), PositionWorld",
    )


def _use_source(src: Path | None) -> None:
    if src is not None and str(src) not in sys.path:
        sys.path.insert(0, str(src))


def _source_version(src: Path | None, dist: str) -> str:
    if src is None:
        return dist_version(dist) + " (PyPI)"
    stamp = src / "COMMIT"
    return "git " + stamp.read_text().strip()[:8] if stamp.exists() else f"source {src}"


def _fairmotion(src: Path | None) -> Contender:
    _use_source(src)
    fm_bvh = importlib.import_module("fairmotion.data.bvh")

    def parse(path: Path) -> Any:
        return fm_bvh.load(str(path))

    def fk(motion: Any) -> tuple[list[str], FloatArray]:
        return [j.name for j in motion.skel.joints], motion.positions(local=False)

    def positions(_: Any, out: tuple[list[str], FloatArray]) -> Positions:
        return out[0], np.asarray(out[1], dtype=np.float64)

    return Contender(
        "fairmotion",
        _source_version(src, "fairmotion"),
        parse,
        fk,
        positions,
        fresh_for_fk=False,
        what="fairmotion.data.bvh.load (builds local 4x4s); FK: motion.positions(local=False)",
    )


def _pymo(src: Path | None) -> Contender:
    if src is None:
        raise ImportError("PyMO is git-only: pass --pymo DIR (a checkout of omimo/PyMO)")
    _use_source(src)
    parsers = importlib.import_module("pymo.parsers")
    preprocessing = importlib.import_module("pymo.preprocessing")
    warnings.filterwarnings("ignore", module="pymo")
    warnings.filterwarnings("ignore", message=".*DataFrame is highly fragmented.*")

    def parse(path: Path) -> Any:
        return parsers.BVHParser().parse(str(path))

    def fk(data: Any) -> Any:
        return preprocessing.MocapParameterizer("position").fit_transform([data])[0]

    def positions(_: Any, out: Any) -> Positions:
        cols = [c[: -len("_Xposition")] for c in out.values.columns if c.endswith("_Xposition")]
        arr = np.stack(
            [out.values[[f"{n}_{a}position" for a in "XYZ"]].to_numpy() for n in cols], axis=1
        )
        return cols, arr.astype(np.float64)

    return Contender(
        "pymo",
        _source_version(src, "pymo"),
        parse,
        fk,
        positions,
        fresh_for_fk=True,
        what="BVHParser().parse (DataFrame); FK: MocapParameterizer('position')",
    )


def load_peers(names: list[str], sources: dict[str, Path]) -> tuple[list[Contender], list[Missing]]:
    """Import the requested peers; those that fail are returned with a reason.

    ``sources`` maps a git-only (or git-preferred) peer to a folder holding its
    package, which then shadows any installed copy.
    """
    os.environ.setdefault("MPLBACKEND", "Agg")  # bvhsdk imports matplotlib
    factories: dict[str, Callable[[], Contender]] = {
        "bvhsdk": _bvhsdk,
        "bvh": _bvh,
        "bvhio": _bvhio,
        "fairmotion": lambda: _fairmotion(sources.get("fairmotion")),
        "pymo": lambda: _pymo(sources.get("pymo")),
    }
    found: list[Contender] = []
    missing: list[Missing] = []
    for name in names:
        try:
            found.append(factories[name]())
        except Exception as exc:  # any import failure means "skip with reason"
            missing.append(Missing(name, f"{type(exc).__name__}: {exc}"))
    return found, missing
