"""Where to enter clip B after cutting clip A: pose, velocity and phase match near B's start.

Seed 000 §4.1 aligns the next clip to the cut; §3.1 condition (2) asks that the
next clip's initial velocity is within θ_max of the current one. Both need a
comparison of A's state at a cut with B's state at a candidate entry, in a frame
that ignores where each clip stands and faces: the *heading frame* (the world
turned by minus the character's heading, :func:`motioncore.skeleton.facing.heading`,
centred on the pelvis' ground point), which is what root alignment
(:func:`motioncore.transition.alignment.align`) makes coincide.

Cost of entering B at frame ``e`` after cutting A at ``c`` (weights are ours,
:class:`EntryWeights`)::

    pose_per_m · pose + velocity_s_per_m · velocity + continuity · continuity
        + phase_per_rad · phase

* ``pose``: RMS over joints of the distance between A's heading-frame joint
  positions at ``c`` and B's at ``e`` (metres): what the blend must hide;
* ``velocity``: distance between their heading-frame COM velocities (m/s);
* ``continuity``: that distance over the two speeds' mean (§6.1's velocity
  continuity, dimensionless): the velocity term alone lets a slow pair's jump
  (0.1 m/s between 0.2 m/s speeds, continuity 0.5) cost as little as a fast pair's
  (0.1 m/s at 1.5 m/s, 0.07);
* ``phase``: circular gait-phase difference (radians), counted only where both
  phases are given and finite (seed 002 §2.1; periodic motions join in phase).

:func:`costs` evaluates every (cut, entry) pair of two frame sets at once
(``[K, E]``), with the angle between the two velocities for the θ test and the
*velocity continuity* of §6.1 (``|v_B - v_A| / max(½(|v_A| + |v_B|), 0.05 m/s)``, the
definition :mod:`motioncore.transition.metrics` measures the result with).

:func:`search` picks the pair: among the allowed pairs whose continuity is under
:data:`CONTINUITY_LIMIT` (§6.1's ideal), the one of least cost; it searches B's first
``search_s`` seconds, and then B's first half (:data:`WIDE_SHARE`, so that most of B
still plays) when B's start holds no such pair (a B that opens standing, turned away or
at another speed); with none there either, the least-cost allowed pair of that half.
It also returns the next best pair (a cut or an entry at least
:data:`NEXT_BEST_APART_S` away), so that a report can show what the choice was
against. :func:`best_entry` is the single-cut case. Units: metres, seconds, radians.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from motioncore import fk, quat
from motioncore.analysis import momentum
from motioncore.clip import Clip
from motioncore.errors import MotionCoreError
from motioncore.skeleton import JointRoles, facing, infer
from motioncore.transition import alignment

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
_CHUNK_ELEMENTS = 2_000_000  # pose differences computed this many floats at a time
CONTINUITY_LIMIT = 0.15
"""Seed 000 §6.1's ideal velocity continuity: pairs under it are preferred."""
SPEED_FLOOR_M_PER_S = 0.05
"""The continuity's denominator floor (two near-rests do not divide by nothing)."""
WIDE_SHARE = 0.5
"""The wider search reaches this share of B, so that most of B still plays (ours)."""
NEXT_BEST_APART_S = 0.2
"""How far (cut or entry, seconds) the reported next-best pair is from the chosen one."""


@dataclass(frozen=True, eq=False)
class Features:
    """What cuts and entries need of one clip, all ``[F, ...]``.

    Attributes:
        clip, roles: the clip and its joint roles.
        positions: ``[F, J, 3]`` world joint positions, metres.
        heading: ``[F]`` radians about +Y (:func:`motioncore.skeleton.facing.heading`).
        ground: ``[F, 3]`` the reference joint's ground point (Y = 0), metres.
        momentum: :func:`motioncore.analysis.momentum.measure` of the clip.
        pose: ``[F, J, 3]`` heading-frame joint positions relative to ``ground``, metres.
        velocity: ``[F, 3]`` heading-frame COM velocity, m/s.
    """

    clip: Clip
    roles: JointRoles
    positions: FloatArray
    heading: FloatArray
    ground: FloatArray
    momentum: momentum.Momentum
    pose: FloatArray
    velocity: FloatArray


def features(clip: Clip, roles: JointRoles | None = None) -> Features:
    """The :class:`Features` of ``clip`` (roles inferred when ``None``)."""
    roles = infer(clip.skeleton) if roles is None else roles
    ref = facing.reference_joint(clip.skeleton, roles)
    g_rot, pos = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    head = facing.heading(g_rot[:, ref], facing.forward_axis(clip.skeleton, roles))
    ground = pos[:, ref] * np.array([1.0, 0.0, 1.0])
    turn = facing.yaw(-head)
    mom = momentum.measure(clip, roles=roles)
    pose = quat.rotate(turn[:, None], pos - ground[:, None])
    return Features(clip, roles, pos, head, ground, mom, pose, quat.rotate(turn, mom.com_velocity))


@dataclass(frozen=True)
class EntryWeights:
    """Weights of the entry cost (ours): per metre of pose RMS, per m/s of velocity
    difference, per unit of velocity continuity, per radian of phase difference.

    Pose and velocity weigh the same per unit (1 m/s of velocity mismatch costs as
    much as 1 m of pose RMS). This was chosen after measuring the trade-off on the
    corpus (``bench/transitions_report.py --velocity-weight``, 43 same-action pairs):
    MTP velocity continuity < 0.15 in 18 / 27 / 31 / 32 pairs at 0.12 / 0.5 / 1 / 2
    s/m, median pose jump 0.110 / 0.136 / 0.151 / 0.163 m. Seed 000 puts momentum
    first (a short blend hides the pose, §4.2, §5.2), so velocity is not traded
    for pose below parity; above it the pose jump keeps growing for little gain.

    Continuity weighs 0.5 per unit (ours; 0.1 of continuity costs as much as 5 cm of
    pose): on the report's 207 pairs (``bench/transition_pairs.csv``, the search then
    reaching all of B) MTP beat the end cut on continuity in 73.9 % of pairs with it
    and 72.9 % without, at the same median pose jump (0.102 and 0.101 m, same action)."""

    pose_per_m: float = 1.0
    velocity_s_per_m: float = 1.0
    phase_per_rad: float = 0.05
    continuity: float = 0.5


DEFAULT_WEIGHTS = EntryWeights()


@dataclass(frozen=True)
class Costs:
    """Entry cost terms for cuts ``[K]`` × entries ``[E]`` (all ``[K, E]``).

    ``phase`` is nan where not counted; ``angle_deg`` is the angle between A's and B's
    heading-frame COM velocities (nan where either is zero); ``continuity`` is §6.1's
    velocity continuity (dimensionless).
    """

    cuts: IntArray
    entries: IntArray
    pose: FloatArray
    velocity: FloatArray
    phase: FloatArray
    angle_deg: FloatArray
    total: FloatArray
    continuity: FloatArray


@dataclass(frozen=True)
class Entry:
    """B's entry frame and its cost terms (``phase_rad`` ``None`` when not counted),
    the pair's velocity ``continuity``, how many frames of B were searched and whether
    the search went past B's start into its first half (``widened``)."""

    frame: int
    time_s: float
    total: float
    pose_m: float
    velocity_m_per_s: float
    phase_rad: float | None
    searched_frames: int
    continuity: float = float("nan")
    widened: bool = False

    def as_dict(self) -> dict[str, Any]:
        """``{"frame", "time_s", "cost": {"total", "pose_m", "velocity_m_per_s", "phase_rad",
        "continuity"}, "searched_frames", "widened"}``."""
        cost = {
            "total": self.total,
            "pose_m": self.pose_m,
            "velocity_m_per_s": self.velocity_m_per_s,
            "phase_rad": self.phase_rad,
            "continuity": None if np.isnan(self.continuity) else self.continuity,
        }
        return {
            "frame": self.frame,
            "time_s": self.time_s,
            "cost": cost,
            "searched_frames": self.searched_frames,
            "widened": self.widened,
        }


@dataclass(frozen=True)
class Choice:
    """The pair :func:`search` chose: A's ``cut`` frame and B's ``entry``, and the next
    best pair (``None`` when there is none)."""

    cut: int
    entry: Entry
    next_best: tuple[int, Entry] | None


def check_phase(phase: ArrayLike | None, frames: int, name: str) -> FloatArray | None:
    """``phase`` as ``[frames]`` radians, ``None`` stays ``None``; wrong length raises."""
    if phase is None:
        return None
    arr = np.asarray(phase, dtype=np.float64)
    if arr.shape != (frames,):
        raise MotionCoreError(f"{name} must have one value per frame ({frames}), got {arr.shape}")
    return arr


def search_frames(fb: Features, search_s: float) -> IntArray:
    """B's frames within its first ``search_s`` seconds."""
    if not search_s >= 0.0:
        raise MotionCoreError(f"search_s must be >= 0, got {search_s}")
    last = min(fb.clip.num_frames - 1, round(search_s * fb.clip.fps))
    return np.arange(last + 1, dtype=np.int64)


def wide_frames(fb: Features, search_s: float) -> IntArray:
    """B's first :data:`WIDE_SHARE` of frames (never fewer than :func:`search_frames`)."""
    start = search_frames(fb, search_s)
    last = int(WIDE_SHARE * (fb.clip.num_frames - 1))
    return np.arange(max(last, int(start[-1])) + 1, dtype=np.int64)


def costs(
    fa: Features,
    cuts: ArrayLike,
    fb: Features,
    entries: ArrayLike,
    *,
    phase_a: FloatArray | None = None,
    phase_b: FloatArray | None = None,
    weights: EntryWeights = DEFAULT_WEIGHTS,
) -> Costs:
    """Cost terms of entering B at each of ``entries [E]`` after cutting A at ``cuts [K]``."""
    c = np.asarray(cuts, dtype=np.int64).reshape(-1)
    e = np.asarray(entries, dtype=np.int64).reshape(-1)
    pose = _pose_rms(fa.pose[c], fb.pose[e])
    va, vb = fa.velocity[c][:, None], fb.velocity[e][None, :]
    velocity = np.linalg.norm(va - vb, axis=-1)
    norms = np.linalg.norm(va, axis=-1) * np.linalg.norm(vb, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        cos = np.sum(va * vb, axis=-1) / np.where(norms > 0.0, norms, np.nan)
    angle = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
    phase = np.full(pose.shape, np.nan)
    if phase_a is not None and phase_b is not None:
        phase = np.abs(np.angle(np.exp(1j * (phase_a[c][:, None] - phase_b[e][None, :]))))
    mean_speed = 0.5 * (np.linalg.norm(va, axis=-1) + np.linalg.norm(vb, axis=-1))
    continuity = velocity / np.maximum(mean_speed, SPEED_FLOOR_M_PER_S)
    total = (
        weights.pose_per_m * pose
        + weights.velocity_s_per_m * velocity
        + weights.continuity * continuity
        + weights.phase_per_rad * np.nan_to_num(phase)
    )
    return Costs(c, e, pose, velocity, phase, angle, total, continuity)


def _pose_rms(pa: FloatArray, pb: FloatArray) -> FloatArray:
    """``[K, E]`` RMS joint distance between poses ``pa [K, J, 3]`` and ``pb [E, J, 3]``."""
    out = np.empty((pa.shape[0], pb.shape[0]))
    step = max(1, _CHUNK_ELEMENTS // max(pb.size, 1))
    for k in range(0, pa.shape[0], step):
        diff = pa[k : k + step, None] - pb[None]
        out[k : k + step] = np.sqrt(np.mean(np.sum(diff * diff, axis=-1), axis=-1))
    return out


def entry_at(table: Costs, k: int, e: int, fps: float, *, widened: bool = False) -> Entry:
    """The :class:`Entry` of row ``k`` (a cut) and column ``e`` (an entry) of ``table``."""
    phase = float(table.phase[k, e])
    frame = int(table.entries[e])
    return Entry(
        frame=frame,
        time_s=frame / fps,
        total=float(table.total[k, e]),
        pose_m=float(table.pose[k, e]),
        velocity_m_per_s=float(table.velocity[k, e]),
        phase_rad=None if np.isnan(phase) else phase,
        searched_frames=int(table.entries.size),
        continuity=float(table.continuity[k, e]),
        widened=widened,
    )


def search(
    fa: Features,
    cuts: ArrayLike,
    fb: Features,
    search_s: float,
    *,
    phase_a: FloatArray | None = None,
    phase_b: FloatArray | None = None,
    weights: EntryWeights = DEFAULT_WEIGHTS,
    allowed: Callable[[Costs], BoolArray] | None = None,
) -> Choice | None:
    """The (cut, entry) pair to join A to B (module docstring); ``allowed`` masks the
    pairs that may be chosen (all by default; MTP passes its θ test); ``None`` when no
    pair searched is allowed."""
    windows = [search_frames(fb, search_s)]
    wide = wide_frames(fb, search_s)
    if wide.size > windows[0].size:
        windows.append(wide)
    for wider, entries in enumerate(windows):
        table = costs(fa, cuts, fb, entries, phase_a=phase_a, phase_b=phase_b, weights=weights)
        ok = np.ones(table.total.shape, dtype=bool) if allowed is None else allowed(table)
        good = ok & (table.continuity < CONTINUITY_LIMIT)
        if good.any():
            return _pick(table, good, fb.clip.fps, widened=bool(wider))
    return _pick(table, ok, fb.clip.fps, widened=len(windows) > 1) if ok.any() else None


def _pick(table: Costs, mask: BoolArray, fps: float, *, widened: bool) -> Choice:
    """The least-cost pair of ``mask`` (ties: the first in row order) and the next best
    pair at least :data:`NEXT_BEST_APART_S` from it."""
    total = np.where(mask, table.total, np.inf)
    k, e = np.unravel_index(int(np.argmin(total)), total.shape)
    apart = round(NEXT_BEST_APART_S * fps)
    far = (np.abs(table.cuts - table.cuts[k])[:, None] >= apart) | (
        np.abs(table.entries - table.entries[e])[None, :] >= apart
    )
    others = np.where(far, total, np.inf)
    runner: tuple[int, Entry] | None = None
    if np.isfinite(others).any():
        k2, e2 = np.unravel_index(int(np.argmin(others)), others.shape)
        runner = (int(table.cuts[k2]), entry_at(table, int(k2), int(e2), fps, widened=widened))
    chosen = entry_at(table, int(k), int(e), fps, widened=widened)
    return Choice(int(table.cuts[k]), chosen, runner)


def best_entry(
    a: Clip | Features,
    cut: int,
    b: Clip | Features,
    *,
    search_s: float = 1.0,
    phase_a: ArrayLike | None = None,
    phase_b: ArrayLike | None = None,
    weights: EntryWeights = DEFAULT_WEIGHTS,
) -> Entry:
    """B's frame that best continues A at ``cut`` (:func:`search`: within its first
    ``search_s`` seconds, or past them when none there keeps the velocity continuous;
    ties: the earliest).

    Args:
        a, b: the clips (same skeleton, same frame rate) or their :func:`features`.
        cut: A's frame.
        search_s: how much of B's start to search, seconds.
        phase_a, phase_b: ``[F_A]``, ``[F_B]`` gait phase, radians (nan = undefined).
        weights: the cost weights (see the module docstring).
    """
    fa = a if isinstance(a, Features) else features(a)
    alignment.check_skeletons(
        fa.clip.skeleton, b.clip.skeleton if isinstance(b, Features) else b.skeleton
    )
    fb = b if isinstance(b, Features) else features(b, fa.roles)
    if not 0 <= cut < fa.clip.num_frames:
        raise MotionCoreError(f"cut {cut} is outside A's {fa.clip.num_frames} frames")
    choice = search(
        fa,
        [cut],
        fb,
        search_s,
        phase_a=check_phase(phase_a, fa.clip.num_frames, "phase_a"),
        phase_b=check_phase(phase_b, fb.clip.num_frames, "phase_b"),
        weights=weights,
    )
    assert choice is not None  # every pair is allowed
    return choice.entry
