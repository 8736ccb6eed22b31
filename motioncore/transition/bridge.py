"""A bridge through a third clip: A → C → B where no direct join of A into B is good.

Seed 000 §6.2: where a join needs a reversal, "insert a transition action". When the
direct MTP transition misses the limits (:mod:`motioncore.transition.limits`), the
clips of the library (same skeleton) are searched for a clip C to play between them.

For each C (made joinable like B: :func:`motioncore.transition.cuts.conform`):

1. **join 1, A → C**: A's MTP cut and C's entry, exactly as a direct MTP transition
   into C (:func:`motioncore.transition.cuts.mtp_cut`);
2. **join 2, C → B**: C's cut between :data:`MIN_PLAY_S` and :data:`MAX_PLAY_S` after its
   entry (on a :data:`GRID_HZ` grid of its frames), paired with B's entries
   (:func:`motioncore.transition.entry.search` with the θ_max test, B's first second,
   then its first half).

A bridge's **score** is the velocity continuity of its worse join; C *improves* on the
direct join when that is lower than the direct join's continuity and its worse pose
jump is no larger than the larger of the direct one's and the pose limit. Of the
improving clips the one of least score is built (ties: least pose jump): the A → C
transition clip, then that clip joined into B at C's cut, each blend chosen from its
own mismatch (:mod:`motioncore.transition.blend_choice`). Phase does not enter the
bridge's joins (the library's clips carry none).

Both joins' pose jumps must stay within the larger of the direct join's and the pose
limit: a bridge that trades a velocity jump for a leap of the limbs is no better.

To keep the search fast on a large library, a cheap estimate ranks the clips first
(on grids, so close to but not strictly a lower bound of the full search): the least
continuity over A's candidate cuts × C's entry frames (join 1) and over all of
C's frames × B's entry frames (join 2), on :data:`GRID_HZ` grids, with the θ and pose
tests but no play-length constraint; only the :data:`SHORTLIST` clips of least estimate
that could improve are searched fully.
Units: metres, seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from motioncore.clip import Clip
from motioncore.errors import MotionCoreError
from motioncore.parameters import BLEND_MAX_S, BLEND_MIN_S
from motioncore.transition.blend_choice import BlendBounds, BlendRequest
from motioncore.transition.cuts import (
    Cut,
    Pair,
    conform,
    mtp_candidates,
    mtp_cut,
    prepare,
)
from motioncore.transition.entry import (
    DEFAULT_WEIGHTS,
    Choice,
    EntryWeights,
    Features,
    costs,
    entry_at,
    features,
    search,
    wide_frames,
)
from motioncore.transition.limits import DEFAULT_LIMITS, JoinLimits, verdict
from motioncore.transition.planning import Comparison, Transition, join

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
MIN_PLAY_S = 0.5
"""Least of C that plays between its entry and its cut, seconds (ours: a bridge is a
motion of its own, not a second blend)."""
MAX_PLAY_S = 3.0
"""Most of C that plays, seconds (ours: seed 000 §6.2's inserted action is short)."""
GRID_HZ = 30.0
"""Rate of the grid of C's cut candidates, Hz."""
SHORTLIST = 6
"""How many clips, ranked by the cheap bound, are searched fully."""
DEFAULT_BOUNDS = BlendBounds(BLEND_MIN_S.default, BLEND_MAX_S.default)


@dataclass(frozen=True, eq=False)
class Bridge:
    """A → C → B: the library clip ``via`` (its index) played from ``c_entry`` to
    ``c_cut`` (C's frames at A's rate), ``first`` the A → C transition, ``second`` that
    clip joined into B; ``clip`` the whole bridge."""

    via: int
    name: str
    c_entry: int
    c_cut: int
    first: Transition
    second: Transition
    score: float

    @property
    def clip(self) -> Clip:
        """A until its cut, C, then B."""
        return self.second.clip

    def joins(self) -> tuple[Transition, Transition]:
        """Both joins in playing order."""
        return self.first, self.second

    def as_dict(self) -> dict[str, Any]:
        """``via`` (index and name), C's span (frames and seconds), each join's cut, entry,
        blend, metrics and verdict, and where the joins lie in the bridge clip's frames."""
        fps = self.clip.fps
        offset = self.first.cut.frame - self.c_entry  # C's frame k is bridge frame k + offset
        return {
            "via": {"index": self.via, "name": self.name},
            "c_span": {
                "entry_frame": self.c_entry,
                "cut_frame": self.c_cut,
                "played_s": (self.c_cut - self.c_entry) / fps,
            },
            "frames": self.clip.num_frames,
            "score": self.score,
            "joins": [
                {
                    "cut": t.cut.as_dict(),
                    "entry": t.entry.as_dict(),
                    "blend_s": t.blend_s,
                    "blend": t.result.method,
                    "blending": t.blending.as_dict(),
                    "metrics": t.metrics.as_dict(),
                    "verdict": verdict(t.metrics).as_dict(),
                    "layout": t.result.as_dict(),
                }
                for t in self.joins()
            ],
            "c_offset_frames": offset,
        }


@dataclass(frozen=True)
class Joins:
    """Where a bridge through one clip joins: A's cut, C's entry and cut, B's entry, each
    join's continuity and pose jump."""

    cut_a: int
    choice_ac: Choice
    choice_cb: Choice

    @property
    def worse_continuity(self) -> float:
        return max(self.choice_ac.entry.continuity, self.choice_cb.entry.continuity)

    @property
    def worse_pose_m(self) -> float:
        return max(self.choice_ac.entry.pose_m, self.choice_cb.entry.pose_m)


def _grid(start: int, stop: int, fps: float) -> IntArray:
    """Frames ``start … stop`` (inclusive) on a :data:`GRID_HZ` grid."""
    step = max(round(fps / GRID_HZ), 1)
    return np.arange(start, stop + 1, step, dtype=np.int64)


def _least_continuity(
    fa: Features, cuts: IntArray, fb: Features, entries: IntArray, theta: float, pose_m: float
) -> float:
    """The least velocity continuity over the pairs of ``cuts`` × ``entries`` whose
    velocities are within ``theta`` degrees and pose jump within ``pose_m`` (inf if none)."""
    table = costs(fa, cuts, fb, entries)
    ok = ~(table.angle_deg > theta) & (table.pose <= pose_m)
    return float(table.continuity[ok].min()) if ok.any() else float("inf")


def bound(pair: Pair, candidates: IntArray, fc: Features, search_s: float, pose_m: float) -> float:
    """The cheap estimate of a bridge's score through ``fc`` (module docstring): the worse
    of the two joins' least continuity on :data:`GRID_HZ` grids."""
    fps = fc.clip.fps
    c_entries = wide_frames(fc, search_s)
    into_c = _least_continuity(
        pair.a,
        candidates,
        fc,
        _grid(0, int(c_entries[-1]), fps),
        pair.theta_max_deg,
        pose_m,
    )
    if not np.isfinite(into_c):
        return into_c
    b_entries = wide_frames(pair.b, search_s)
    into_b = _least_continuity(
        fc,
        _grid(0, fc.clip.num_frames - 1, fps),
        pair.b,
        _grid(0, int(b_entries[-1]), fps),
        pair.theta_max_deg,
        pose_m,
    )
    return max(into_c, into_b)


def _joins(
    pair_ac: Pair, pair: Pair, search_s: float, weights: EntryWeights, max_pose_m: float
) -> Joins | None:
    """The best joins through C (``pair_ac.b``) whose pose jumps are at most
    ``max_pose_m``, ``None`` when C has no such pair or is too short to play
    :data:`MIN_PLAY_S` after its entry."""
    cut, choice_ac, _, _ = mtp_cut(pair_ac, search_s, weights, max_pose_m=max_pose_m)
    fc, fps = pair_ac.b, pair_ac.b.clip.fps
    if choice_ac is None:
        return None
    start = choice_ac.entry.frame + round(MIN_PLAY_S * fps)
    stop = min(choice_ac.entry.frame + round(MAX_PLAY_S * fps), fc.clip.num_frames - 2)
    if start > stop:
        return None
    choice_cb = search(
        fc,
        _grid(start, stop, fps),
        pair.b,
        search_s,
        phase_b=None,
        weights=weights,
        allowed=lambda table: ~(table.angle_deg > pair.theta_max_deg) & (table.pose <= max_pose_m),
    )
    return None if choice_cb is None else Joins(cut.frame, choice_ac, choice_cb)


def _improves(joins: Joins, direct: Transition) -> bool:
    return joins.worse_continuity < direct.metrics.velocity_continuity


def find(
    pair: Pair,
    direct: Transition,
    library: Sequence[tuple[str, Clip | Features]],
    *,
    blend_s: float | None = None,
    blend: BlendRequest = "auto",
    bounds: BlendBounds = DEFAULT_BOUNDS,
    search_s: float = 1.0,
    weights: EntryWeights = DEFAULT_WEIGHTS,
    limits: JoinLimits = DEFAULT_LIMITS,
) -> Bridge | None:
    """The best bridge from A into B (``pair``) through a clip of ``library`` (name, clip),
    built; ``None`` when no clip improves on the ``direct`` transition or A has no MTP
    candidate. Clips of another skeleton are passed over."""
    candidates = mtp_candidates(pair)
    if candidates.size == 0:
        return None
    ranked: list[tuple[float, int, Features]] = []
    max_pose_m = max(direct.metrics.pose_discontinuity_m, limits.pose_m)
    for index, (_, clip) in enumerate(library):
        try:
            fc, _, _ = conform(pair.a, clip)
        except MotionCoreError:
            continue
        if fc.clip.num_frames < 3:
            continue
        score = bound(pair, candidates, fc, search_s, max_pose_m)
        if score < direct.metrics.velocity_continuity:
            ranked.append((score, index, fc))
    best: tuple[Joins, int, Pair] | None = None
    for _, index, fc in sorted(ranked, key=lambda item: item[0])[:SHORTLIST]:
        pair_ac = replace(pair, b=fc, phase_b=None)
        joins = _joins(pair_ac, pair, search_s, weights, max_pose_m)
        if joins is None or not _improves(joins, direct):
            continue
        key = (joins.worse_continuity, joins.worse_pose_m)
        if best is None or key < (best[0].worse_continuity, best[0].worse_pose_m):
            best = (joins, index, pair_ac)
    if best is None:
        return None
    joins, index, pair_ac = best
    return _build(pair, pair_ac, joins, library[index][0], index, blend_s, blend, bounds)


def for_comparison(
    comparison: Comparison,
    library: Sequence[tuple[str, Clip | Features]],
    *,
    search_s: float = 1.0,
    weights: EntryWeights = DEFAULT_WEIGHTS,
    limits: JoinLimits = DEFAULT_LIMITS,
) -> Bridge | None:
    """:func:`find` for a comparison's MTP transition with its blend request; ``None`` when
    the MTP join meets the ``limits`` (no bridge is needed) or no clip improves on it."""
    direct = comparison.chosen
    if verdict(direct.metrics, limits).good:
        return None
    request = comparison.blend_request
    return find(
        comparison.pair,
        direct,
        library,
        blend_s=request["blend_s"],
        blend=request["blend"],
        bounds=BlendBounds(request["blend_min_s"], request["blend_max_s"]),
        search_s=search_s,
        weights=weights,
        limits=limits,
    )


def _build(
    pair: Pair,
    pair_ac: Pair,
    joins: Joins,
    name: str,
    index: int,
    blend_s: float | None,
    blend: BlendRequest,
    bounds: BlendBounds,
) -> Bridge:
    """Both joins of a bridge, blended and measured."""
    fps = pair.a.clip.fps
    cut_a = Cut(joins.cut_a, joins.cut_a / fps, "mtp", None, pair.undirected.breakdown(joins.cut_a))
    first = join(pair_ac, cut_a, joins.choice_ac, blend_s=blend_s, blend=blend, bounds=bounds)
    c_entry, c_cut = joins.choice_ac.entry.frame, joins.choice_cb.cut
    at = joins.cut_a + (c_cut - c_entry)  # C's cut in the A → C clip's frames
    fac = features(first.clip, pair.a.roles)
    pair_cb = prepare(fac, pair.b, pair.alpha, pair.theta_max_deg, pair.measure, None, None)
    table = costs(pair_cb.a, [at], pair_cb.b, [joins.choice_cb.entry.frame])
    choice = Choice(at, entry_at(table, 0, 0, fps), None)
    cut_c = Cut(at, at / fps, "mtp", None, pair_cb.undirected.breakdown(at))
    second = join(pair_cb, cut_c, choice, blend_s=blend_s, blend=blend, bounds=bounds)
    return Bridge(index, name, c_entry, c_cut, first, second, joins.worse_continuity)
