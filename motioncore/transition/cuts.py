"""Where to cut clip A for a transition into clip B: the four cut methods.

Both clips are prepared once (:func:`prepare`): B is resampled to A's frame rate
when they differ (:func:`motioncore.clean.resample.resample`; ``phase_b`` is then
read at the nearest source frame), and its joints are put in A's order when only
the order differs (:func:`motioncore.transition.joint_order.reorder_like`).
A raw clip that opens on a bind pose (the iClone CMU retargets' T-pose frame) loses
it first, as :func:`motioncore.clean.clean` drops it (:func:`without_bind_pose`):
its root's jump out of the pose would be A's peak speed (67.7 m/s on iClone takes)
and the cut would land on frame 1. Frames of A and B are then counted after the
dropped frames (``leading_frames_dropped`` in the report).

**Cut methods** (frames of A, ``F_A`` frames):

* ``mtp``: the candidates are A's frames passing conditions (1), (3) and (4) of
  :func:`motioncore.analysis.mtp.detect` on the chosen ``measure``'s curve; condition (2) needs B's
  entry, and the entry depends on the cut, so every candidate is paired with
  every entry frame of B (:func:`motioncore.transition.entry.search`: B's first
  ``search_s`` seconds, then its first half when its start holds no pair whose
  velocity continuity is under 0.15): a pair passes (2) when B's heading-frame
  velocity at the entry is within θ_max of A's at the cut (what the detector's
  per-frame ``next_velocity`` tests), and the cut and entry are the passing pair of
  least entry cost among those under the continuity limit (or among all passing
  pairs searched when none is); the next best pair is kept for the report. Candidates must
  also keep α of A's strongest peak (§3.1's literal condition 1, against
  ``max|q̇|``), so that a weak unit that happens to resemble B's start (a sway
  before B's first step) does not win over the motion's momentum; if none does,
  all candidates are used. Deviation: §3.2 ranks candidates by momentum; every
  remaining candidate keeps ≥ α of the strongest peak, and for a transition the
  one that B continues best is the better cut. When the strong candidates find no
  passing pair, or only pairs whose continuity misses the 0.15 of §6.1, the search
  runs again over every candidate of the unit-relative test (condition (1) against
  each motion unit's own peak, as §6.2 asks of multi-peak curves) and that pair is
  taken when it meets the limit: a weaker unit wins only where the strong ones cannot
  be continued well and it can. (Taking it whenever its continuity was merely lower
  won more pairs of the report against the end cut, 161 of 207 against 156, but left
  the joins that still miss the limit only slightly less bad, at the cost of
  momentum, and bridges then improved on fewer of them: 68 % against 72 %.)
  With no reliable candidate (low momentum, no deceleration, or every pair
  reversed) the cut falls back to A's last frame and ``reason`` says why.
* ``end``: ``F_A - 1``. ``fixed70``: ``round(0.7 (F_A - 1))``. Their entry is B's best
  for that cut, searched the same way.
* ``threshold``: the first frame after A's strongest motion-unit peak
  (:func:`motioncore.analysis.mtp.peaks` of the COM speed) whose COM speed is below
  ``threshold_ratio`` × that peak (0.5 is ours; the seed gives no value); the last
  frame if it never drops.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from motioncore import quat
from motioncore.analysis import momentum, mtp
from motioncore.clean import outliers, resample
from motioncore.clip import Clip
from motioncore.errors import MotionCoreError
from motioncore.skeleton import facing
from motioncore.transition import alignment as alignment_mod
from motioncore.transition import joint_order
from motioncore.transition.entry import (
    CONTINUITY_LIMIT,
    Choice,
    EntryWeights,
    Features,
    check_phase,
    costs,
    features,
    search,
    search_frames,
)

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
CutMethod = Literal["mtp", "end", "fixed70", "threshold"]
METHODS: tuple[CutMethod, ...] = ("mtp", "end", "fixed70", "threshold")
FIXED_RATIO = 0.7
_CURVES = ("speed", "energy", "pca")


@dataclass(frozen=True)
class Cut:
    """A's cut: ``frame``, ``time_s``, the ``method``, why it fell back (``reason``) and
    the MTP condition ``breakdown`` at that frame
    (:meth:`motioncore.analysis.mtp.MTPResult.breakdown`)."""

    frame: int
    time_s: float
    method: CutMethod
    reason: str | None
    breakdown: dict[str, dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        """``{"frame", "time_s", "method", "reason", "breakdown"}``."""
        return {
            "frame": self.frame,
            "time_s": self.time_s,
            "method": self.method,
            "reason": self.reason,
            "breakdown": self.breakdown,
        }


@dataclass(frozen=True, eq=False)
class Pair:
    """Both clips prepared once (B at A's rate, in A's joint order), and A's MTP test
    without the direction condition."""

    a: Features
    b: Features
    phase_a: FloatArray | None
    phase_b: FloatArray | None
    curve: FloatArray
    measure: str
    alpha: float
    theta_max_deg: float
    undirected: mtp.MTPResult
    dropped: tuple[int, int] = (0, 0)


def without_bind_pose(clip: Clip) -> tuple[Clip, int]:
    """``clip`` without the leading bind-pose frames :func:`motioncore.clean.clean` drops
    (:func:`motioncore.clean.outliers.leading_teleport`), and how many were dropped."""
    drop, _ = outliers.leading_teleport(clip)
    if drop == 0:
        return clip, 0
    return clip.with_arrays(clip.rotations[drop:], clip.translations[drop:]), drop


def _trimmed(
    clip: Clip | Features, phase: ArrayLike | None
) -> tuple[Clip | Features, ArrayLike | None, int]:
    """A raw clip and its phase without a leading bind pose (features are used as given)."""
    if isinstance(clip, Features):
        return clip, phase, 0
    out, drop = without_bind_pose(clip)
    if drop and phase is not None:
        phase = np.asarray(phase, dtype=np.float64)[drop:]
    return out, phase, drop


def prepare(
    a: Clip | Features,
    b: Clip | Features,
    alpha: float,
    theta_max_deg: float,
    measure: str,
    phase_a: ArrayLike | None,
    phase_b: ArrayLike | None,
) -> Pair:
    if measure not in _CURVES:
        raise MotionCoreError(f"unknown momentum measure {measure!r}: use speed, energy or pca")
    a, phase_a, drop_a = _trimmed(a, phase_a)
    fa = a if isinstance(a, Features) else features(a)
    fb, pb, drop_b = conform(fa, b, phase_b)
    values = momentum.curve(fa.momentum, measure)  # type: ignore[arg-type]
    test = mtp.detect(
        values,
        fa.momentum.com_velocity,
        fa.clip.fps,
        alpha=alpha,
        theta_max_deg=theta_max_deg,
        min_peak=momentum.MIN_PEAK[measure],
    )
    pa = check_phase(phase_a, fa.clip.num_frames, "phase_a")
    return Pair(fa, fb, pa, pb, values, measure, alpha, theta_max_deg, test, (drop_a, drop_b))


def conform(
    fa: Features, b: Clip | Features, phase_b: ArrayLike | None = None
) -> tuple[Features, FloatArray | None, int]:
    """B made joinable to A: without a leading bind pose (a raw clip), at A's frame rate
    (``phase_b`` read at the nearest source frame), in A's joint order; its features,
    phase and how many leading frames were dropped.

    Raises:
        MotionCoreError: a different skeleton, or a phase of the wrong length.
    """
    b, phase_b, drop_b = _trimmed(b, phase_b)
    b_clip = b.clip if isinstance(b, Features) else b
    pb = check_phase(phase_b, b_clip.num_frames, "phase_b")
    if b_clip.fps != fa.clip.fps:
        if pb is not None:
            src = resample.source_positions(b_clip.num_frames, b_clip.fps, fa.clip.fps)
            pb = pb[np.rint(src).astype(np.int64)]
        b_clip = resample.resample(b_clip, fa.clip.fps)
        b = b_clip
    ordered = joint_order.reorder_like(b_clip, fa.clip.skeleton)
    if ordered is not b_clip:
        b = b_clip = ordered
    alignment_mod.check_compatible(fa.clip, b_clip)
    fb = b if isinstance(b, Features) else features(b_clip, fa.roles)
    return fb, pb, drop_b


def mtp_candidates(pair: Pair) -> IntArray:
    """A's MTP candidate cuts for a transition (module docstring): the frames passing
    conditions (1), (3), (4) that keep α of the strongest peak (all of them if none
    does); empty when A has no reliable candidate."""
    und = pair.undirected
    if und.reason is not None or und.order.size == 0:
        return np.zeros(0, dtype=np.int64)
    strong = und.order[pair.curve[und.order] >= pair.alpha * pair.curve.max()]
    return np.asarray(strong if strong.size else und.order, dtype=np.int64)


def entry_for(pair: Pair, cut: int, search_s: float, weights: EntryWeights) -> Choice:
    """The best entry of B for a fixed cut (the baselines'), with the next best."""
    choice = search(
        pair.a,
        [cut],
        pair.b,
        search_s,
        phase_a=pair.phase_a,
        phase_b=pair.phase_b,
        weights=weights,
    )
    assert choice is not None  # every pair is allowed
    return choice


def _directed(pair: Pair, entry_frame: int) -> mtp.MTPResult:
    """A's MTP test with B's velocity at ``entry_frame`` as the next velocity, turned to
    A's heading at every frame (``[F_A, 3]``)."""
    nxt = quat.rotate(facing.yaw(pair.a.heading), pair.b.velocity[entry_frame])
    return mtp.detect(
        pair.curve,
        pair.a.momentum.com_velocity,
        pair.a.clip.fps,
        alpha=pair.alpha,
        theta_max_deg=pair.theta_max_deg,
        next_velocity=nxt,
        min_peak=momentum.MIN_PEAK[pair.measure],
    )


def mtp_cut(
    pair: Pair,
    search_s: float,
    weights: EntryWeights,
    *,
    max_pose_m: float = np.inf,
    earliest: int = 0,
) -> tuple[Cut, Choice | None, mtp.MTPResult, int]:
    """The MTP cut and its entry (module docstring); ``None`` choice when it fell back.
    ``max_pose_m`` also refuses pairs whose pose jump is larger (a bridge's joins);
    candidates before frame ``earliest`` are left out (a sequence's later joins)."""
    last = pair.a.clip.num_frames - 1
    und = pair.undirected
    candidates = mtp_candidates(pair)
    candidates = candidates[candidates >= earliest]
    if candidates.size == 0:
        later = f"no MTP candidate after frame {earliest}" if earliest > 0 else None
        reason = und.reason or later
        return Cut(last, last / pair.a.clip.fps, "mtp", reason, und.breakdown(last)), None, und, 0
    choice = _search_cuts(pair, candidates, search_s, weights, max_pose_m)
    if choice is None or choice.entry.continuity >= CONTINUITY_LIMIT:
        units = und.order[und.order >= earliest].astype(np.int64)
        if units.size > candidates.size:  # the weaker units' candidates too (§6.2)
            wider = _search_cuts(pair, units, search_s, weights, max_pose_m)
            if wider is not None and wider.entry.continuity < CONTINUITY_LIMIT:
                choice, candidates = wider, units
    if choice is None:
        table = costs(
            pair.a,
            candidates,
            pair.b,
            search_frames(pair.b, search_s),
            phase_a=pair.phase_a,
            phase_b=pair.phase_b,
            weights=weights,
        )
        result = _directed(pair, int(table.entries[np.argmin(table.total.min(axis=0))]))
        reason = (
            result.reason or "no reliable candidate: every entry points more than theta_max away"
        )
        cut = Cut(last, last / pair.a.clip.fps, "mtp", reason, result.breakdown(last))
        return cut, None, result, int(candidates.size)
    result = _directed(pair, choice.entry.frame)
    cut = Cut(choice.cut, choice.cut / pair.a.clip.fps, "mtp", None, result.breakdown(choice.cut))
    return cut, choice, result, int(candidates.size)


def _search_cuts(
    pair: Pair, candidates: IntArray, search_s: float, weights: EntryWeights, max_pose_m: float
) -> Choice | None:
    """The search over ``candidates`` × B's entries for pairs passing condition (2) (and
    the pose cap); ``None`` when no pair does."""
    return search(
        pair.a,
        candidates,
        pair.b,
        search_s,
        phase_a=pair.phase_a,
        phase_b=pair.phase_b,
        weights=weights,
        allowed=lambda table: (table.angle_deg <= pair.theta_max_deg) & (table.pose <= max_pose_m),
    )


def _threshold_cut(speed: FloatArray, ratio: float) -> tuple[int, str | None]:
    """First frame after the strongest unit peak below ``ratio`` × its speed."""
    peaks = mtp.peaks(speed)
    peak = int(peaks[np.argmax(speed[peaks])]) if peaks.size else int(np.argmax(speed))
    below = np.flatnonzero(speed[peak + 1 :] < ratio * speed[peak])
    if below.size == 0:
        return speed.size - 1, f"speed never falls below {ratio:g} of its peak after frame {peak}"
    return peak + 1 + int(below[0]), None


def baseline_cut(pair: Pair, method: CutMethod, ratio: float) -> Cut:
    last = pair.a.clip.num_frames - 1
    reason: str | None = None
    if method == "end":
        frame = last
    elif method == "fixed70":
        frame = round(FIXED_RATIO * last)
    else:
        frame, reason = _threshold_cut(pair.a.momentum.speed, ratio)
    return Cut(frame, frame / pair.a.clip.fps, method, reason, pair.undirected.breakdown(frame))
