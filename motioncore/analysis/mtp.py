"""Momentum transition points (MTP): where to cut a clip while it still moves.

Seed 000 §3.1 defines an MTP as a frame t* where (1) momentum is retained,
``|q̇(t*)| ≥ α·max|q̇|`` (α 0.5–0.7, default 0.6); (2) the current velocity and
the next clip's initial velocity differ by at most θ_max (60°–90°, default 75°);
(3) the motion decelerates, ``q̇·q̈ < 0``; (4) t* is not a local extremum of the
speed. §2.3 puts the best cut in the transition phase (speed falling, still high).

Inputs are arrays: ``curve`` ``[F]`` is the momentum measure (speed m/s, kinetic
energy J/kg or a PCA projection; its units are the units of ``min_peak``),
``velocity`` ``[F, 3]`` m/s gives the direction of motion, ``fps`` is Hz,
``next_velocity`` ``[3]`` m/s the next clip's initial velocity. Every frame is
tested at once (no loop over frames); :meth:`MTPResult.breakdown` reports each
condition's pass/fail and margin for any frame.

Deviations from the §5.1 listing, and why:

* Retention (1) is measured against the **preceding local peak** (the peak of
  the current motion unit), not ``speed.max()``: the listing drops every peak
  below ``α·max``, so a smaller second swing never yields a cut (§6.2 asks to
  segment multi-peak curves into units first). Peaks are local maxima whose
  prominence is at least ``peak_prominence_ratio`` × their height; a clip that
  starts or ends on a peak counts it. A unit runs from a valley (the lowest frame
  between two peaks) to the next, as in :func:`motioncore.analysis.phases.units`: the
  frames up to its peak are never candidates (the listing would test them against
  the previous peak).
* Condition (4) is tested (the listing has none): local maxima *and* minima
  of the curve, and the clip's first and last frames, are excluded, as is any
  frame within ``extremum_guard_s`` of them.
* Deceleration (3) is the slope of ``curve`` itself (units/s, central
  differences), ``< -min_decel_per_s``; for a speed curve this is ``q̇·q̈/|q̇|``.
  The listing differentiates a Savitzky-Golay-smoothed velocity with a fixed
  11-frame window; smoothing is left to the caller (:mod:`motioncore.clean.smooth`).
* The listing keeps only the *first* decelerating frame after each peak; here
  every frame passing (1)–(4) is a candidate, ranked by momentum (highest
  first). The chosen cut (``best``) is, in the strongest motion unit with
  candidates, the **last** candidate, i.e. where retention is nearest α
  (§4.1 step 3, "选取动势保留 60% 左右的帧"): raising α moves it towards the peak,
  as the §5.1 commentary says, whereas the highest-momentum frame is always the
  frame after the peak whatever α is.
* The θ test (2) is skipped, and reported as skipped, without ``next_velocity``;
  a frame whose velocity is zero has no direction and fails it.
* A motion unit whose peak stays under ``min_peak`` (a sway while standing) has
  no candidates: its momentum is too weak to carry into the next clip (§6.2).
* Low momentum and near-180° reversals (§6.2) are reported: ``reason`` when
  there is no reliable candidate, ``recommendation`` to insert a transition.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cached_property
from itertools import pairwise
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.signal import find_peaks

from motioncore.errors import MotionCoreError
from motioncore.parameters import ALPHA, THETA_MAX_DEG

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
BoolArray = NDArray[np.bool_]
CONDITIONS = ("retention", "direction", "deceleration", "non_extremum")
REVERSAL_ADVICE = "insert a transition or use a longer blend"


@dataclass(frozen=True)
class Candidate:
    """One MTP candidate: ``frame`` index, ``time_s`` seconds, ``value`` of the
    curve (curve units), ``peak_frame`` of its motion unit, and the per-condition
    ``breakdown`` (see :meth:`MTPResult.breakdown`)."""

    frame: int
    time_s: float
    value: float
    peak_frame: int
    breakdown: dict[str, dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return asdict(self)


@dataclass(frozen=True)
class MTPResult:
    """Per-frame MTP test of one clip.

    Attributes:
        fps: frame rate, Hz.
        alpha, theta_max_deg: the thresholds used.
        direction_checked: whether condition (2) was tested (``next_velocity`` given).
        min_decel_per_s, extremum_guard_s: the thresholds used.
        curve: ``[F]`` the momentum measure (a copy).
        peak_frame: ``[F]`` index of the motion unit's peak at or before each
            frame, -1 before the first peak.
        retention: ``[F]`` ``curve / curve[peak_frame]`` (nan before the first peak).
        angle_deg: ``[F]`` angle between velocity and ``next_velocity``, degrees
            (nan where skipped or where the velocity is zero).
        slope_per_s: ``[F]`` d(curve)/dt, curve units per second.
        extremum_distance_s: ``[F]`` seconds to the nearest local extremum.
        passed: ``[4, F]`` pass mask per condition, in :data:`CONDITIONS` order.
        order: ``[K]`` candidate frames, highest momentum first (ties: earliest).
        best_frame: the chosen cut, -1 when there is no reliable candidate.
        reason: why there is no reliable candidate, else ``None``.
        recommendation: advice for a near-reversal, else ``None``.
    """

    fps: float
    alpha: float
    theta_max_deg: float
    direction_checked: bool
    min_decel_per_s: float
    extremum_guard_s: float
    curve: FloatArray
    peak_frame: IntArray
    retention: FloatArray
    angle_deg: FloatArray
    slope_per_s: FloatArray
    extremum_distance_s: FloatArray
    passed: BoolArray
    order: IntArray
    best_frame: int
    reason: str | None
    recommendation: str | None

    def breakdown(self, frame: int) -> dict[str, dict[str, Any]]:
        """Pass/fail, measured value, threshold and margin (≥ 0 passes) of each
        condition at ``frame``; values that do not exist are ``None``."""
        f = int(frame)

        values = (self.retention, self.angle_deg, self.slope_per_s, self.extremum_distance_s)
        limits = (self.alpha, self.theta_max_deg, -self.min_decel_per_s, self.extremum_guard_s)
        out: dict[str, dict[str, Any]] = {}
        for row, (name, sign) in enumerate(zip(CONDITIONS, (1, -1, -1, 1), strict=True)):
            value = float(values[row][f])
            out[name] = {
                "passed": bool(self.passed[row, f]),
                "value": None if np.isnan(value) else value,
                "threshold": limits[row],
                "margin": None if np.isnan(value) else sign * (value - limits[row]),
            }
        out["retention"]["peak_frame"] = int(self.peak_frame[f])
        out["direction"]["skipped"] = not self.direction_checked
        return out

    def _candidate(self, frame: int) -> Candidate:
        return Candidate(
            frame=int(frame),
            time_s=float(frame) / self.fps,
            value=float(self.curve[frame]),
            peak_frame=int(self.peak_frame[frame]),
            breakdown=self.breakdown(int(frame)),
        )

    @cached_property
    def candidates(self) -> tuple[Candidate, ...]:
        """Frames passing all four conditions, highest momentum first (built on
        first access). Still listed when ``best`` is ``None`` for low momentum."""
        return tuple(self._candidate(int(f)) for f in self.order)

    @property
    def best(self) -> Candidate | None:
        """The chosen cut (see the module docstring), ``None`` if unreliable."""
        return None if self.best_frame < 0 else self._candidate(self.best_frame)

    def as_dict(self) -> dict[str, Any]:
        """JSON-able summary (candidates, best, reason, recommendation)."""
        best = self.best
        return {
            "fps": self.fps,
            "alpha": self.alpha,
            "theta_max_deg": self.theta_max_deg,
            "direction_checked": self.direction_checked,
            "frames_passing": {
                c: int(n) for c, n in zip(CONDITIONS, self.passed.sum(axis=1), strict=True)
            },
            "candidates": [c.as_dict() for c in self.candidates],
            "best": None if best is None else best.as_dict(),
            "reason": self.reason,
            "recommendation": self.recommendation,
        }


def peaks(curve: FloatArray, prominence_ratio: float = 0.1) -> IntArray:
    """Indices ``[K]`` of the motion units' peaks in ``curve [F]``, ascending.

    A peak is a local maximum whose prominence is at least ``prominence_ratio``
    times its height; the clip's first and last frames may be peaks.
    """
    pad = curve.min() - (np.ptp(curve) + 1.0)
    padded = np.concatenate(([pad], curve, [pad]))
    idx, props = find_peaks(padded, prominence=0.0)
    keep = props["prominences"] >= prominence_ratio * np.abs(padded[idx])
    return np.asarray(idx[keep] - 1, dtype=np.intp)


def _unit_peak_frame(curve: FloatArray, unit_peaks: IntArray) -> IntArray:
    """``[F]`` the peak of each frame's motion unit if the frame is at or after it, else -1.

    Units are split at the valley (first lowest frame) between consecutive peaks;
    the valley frame starts the next unit.
    """
    marks = np.full(curve.shape[0], -1, dtype=np.intp)
    marks[unit_peaks] = unit_peaks
    for left, right in pairwise(unit_peaks):
        valley = left + int(np.argmin(curve[left : right + 1]))
        marks[valley] = -2  # ends the left unit; the next peak starts the right one
    accumulated = np.maximum.accumulate(np.where(marks == -2, -1, marks))
    last_mark = np.maximum.accumulate(np.where(marks != -1, np.arange(curve.shape[0]), -1))
    ended = (last_mark >= 0) & (marks[np.maximum(last_mark, 0)] == -2)
    return np.asarray(np.where(ended, -1, accumulated), dtype=np.intp)


def _extremum_distance(curve: FloatArray) -> IntArray:
    """``[F]`` frames to the nearest local extremum (ends and flats count)."""
    n = curve.shape[0]
    d = np.diff(curve)
    inner = np.flatnonzero(d[:-1] * d[1:] <= 0.0) + 1
    ext = np.concatenate(([0], inner, [n - 1]))
    frames = np.arange(n)
    right = np.searchsorted(ext, frames)
    left = np.maximum(right - 1, 0)
    right = np.minimum(right, ext.shape[0] - 1)
    dist = np.minimum(np.abs(frames - ext[left]), np.abs(ext[right] - frames))
    return np.asarray(dist, dtype=np.intp)


def _angles_deg(velocity: FloatArray, next_velocity: FloatArray) -> FloatArray:
    """``[F]`` angle (degrees) between each velocity and ``next_velocity`` ``[3]`` or ``[F, 3]``."""
    norms = np.linalg.norm(velocity, axis=1) * np.linalg.norm(next_velocity, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        dots = np.sum(velocity * next_velocity, axis=-1)
        cos = dots / np.where(norms > 0.0, norms, np.nan)
    return np.asarray(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))), dtype=np.float64)


def _no_candidate_reason(passed: BoolArray, curve: FloatArray, min_peak: float) -> str | None:
    """The first condition that leaves no frame, as a sentence."""
    if curve.max() < min_peak:
        return (
            f"no reliable candidate: the motion never builds momentum "
            f"(peak {curve.max():.3g} below min_peak {min_peak:.3g})"
        )
    steps = (
        (2, "the curve never decelerates"),
        (0, "no decelerating frame keeps alpha of its motion unit's peak"),
        (3, "the only such frames are local extrema of the curve"),
        (1, "every such frame points more than theta_max from the next clip's velocity"),
    )
    alive = np.ones(curve.shape[0], dtype=bool)
    for row, text in steps:
        alive &= passed[row]
        if not alive.any():
            return f"no reliable candidate: {text}"
    return None


def detect(
    curve: ArrayLike,
    velocity: ArrayLike,
    fps: float,
    *,
    alpha: float = ALPHA.default,
    theta_max_deg: float = THETA_MAX_DEG.default,
    next_velocity: ArrayLike | None = None,
    min_peak: float = 0.1,
    min_decel_per_s: float = 0.0,
    extremum_guard_s: float = 0.0,
    peak_prominence_ratio: float = 0.1,
    reversal_deg: float = 150.0,
) -> MTPResult:
    """Test every frame of a clip against the four MTP conditions (seed 000 §3.1).

    Args:
        curve: ``[F]`` momentum measure (speed m/s, energy J/kg, PCA), F ≥ 3,
            non-negative (retention is a ratio to the unit's peak).
        velocity: ``[F, 3]`` velocity, m/s (world frame): the direction of motion.
        fps: frame rate, Hz.
        alpha: momentum retention against the motion unit's peak (§3.1: 0.5–0.7).
        theta_max_deg: largest angle to ``next_velocity``, degrees (§3.1: 60–90).
        next_velocity: ``[3]`` next clip's initial velocity, m/s, or ``[F, 3]`` one per
            frame (the next clip's velocity turned to each frame's heading, as a
            transition that aligns headings sees it); ``None`` skips (2).
        min_peak: below this peak (curve units) a motion unit never builds momentum:
            its frames fail (1), and a clip whose units all stay below it has no
            reliable candidate (§6.2 low-speed motion; 0.1 is ours).
        min_decel_per_s: the curve must fall faster than this, curve units/s.
        extremum_guard_s: frames within this many seconds of a local extremum fail (4).
        peak_prominence_ratio: a local maximum starts a motion unit when its
            prominence is at least this fraction of its height (ours).
        reversal_deg: if every otherwise-valid frame is this far from
            ``next_velocity``, ``recommendation`` advises a transition (§6.2).

    Returns:
        The per-frame test, the ranked candidates and the chosen cut.

    Raises:
        MotionCoreError: on mismatched shapes, fewer than 3 frames or fps ≤ 0.
    """
    c = np.array(curve, dtype=np.float64)
    v = np.asarray(velocity, dtype=np.float64)
    if c.ndim != 1 or c.shape[0] < 3 or v.shape != (c.shape[0], 3) or not fps > 0:
        raise MotionCoreError(
            f"need curve [F>=3], velocity [F,3] and fps > 0; got {c.shape}, {v.shape}, {fps}"
        )
    limits = _Limits(
        alpha, theta_max_deg, min_peak, min_decel_per_s, extremum_guard_s, peak_prominence_ratio
    )
    return _test(c, v, fps, next_velocity, limits, reversal_deg)


@dataclass(frozen=True)
class _Limits:
    """The thresholds of one :func:`detect` call."""

    alpha: float
    theta_max_deg: float
    min_peak: float
    min_decel_per_s: float
    extremum_guard_s: float
    peak_prominence_ratio: float


def _test(
    c: FloatArray,
    v: FloatArray,
    fps: float,
    next_velocity: ArrayLike | None,
    limits: _Limits,
    reversal_deg: float,
) -> MTPResult:
    """:func:`detect` on a checked curve ``c [F]`` and velocity ``v [F, 3]``."""
    frames = np.arange(c.shape[0])
    peak_frame = _unit_peak_frame(c, peaks(c, limits.peak_prominence_ratio))
    with np.errstate(invalid="ignore", divide="ignore"):
        ref = np.where(peak_frame >= 0, c[peak_frame], np.nan)
        retention = np.asarray(c / ref, dtype=np.float64)
    angle, direction_ok = _direction(v, next_velocity, limits.theta_max_deg)
    slope = np.gradient(c) * fps
    dist_s = _extremum_distance(c) / fps
    passed = np.stack(
        [
            (retention >= limits.alpha) & (frames > peak_frame) & (ref >= limits.min_peak),
            direction_ok,
            slope < -limits.min_decel_per_s,
            (dist_s > 0.0) & (dist_s >= limits.extremum_guard_s),
        ]
    )
    cand = np.flatnonzero(passed.all(axis=0))
    reason = _no_candidate_reason(passed, c, limits.min_peak)
    return MTPResult(
        fps=float(fps),
        alpha=limits.alpha,
        theta_max_deg=limits.theta_max_deg,
        direction_checked=next_velocity is not None,
        min_decel_per_s=limits.min_decel_per_s,
        extremum_guard_s=limits.extremum_guard_s,
        curve=c,
        peak_frame=peak_frame,
        retention=retention,
        angle_deg=angle,
        slope_per_s=slope,
        extremum_distance_s=dist_s,
        passed=passed,
        order=cand[np.lexsort((cand, -c[cand]))],
        best_frame=_best(cand, c, peak_frame) if reason is None else -1,
        reason=reason,
        recommendation=_reversal_advice(passed, angle, reversal_deg),
    )


def _direction(
    v: FloatArray, next_velocity: ArrayLike | None, theta_max_deg: float
) -> tuple[FloatArray, BoolArray]:
    """``[F]`` angle to ``next_velocity`` (degrees; nan without one) and condition (2)."""
    if next_velocity is None:
        return np.full(v.shape[0], np.nan), np.ones(v.shape[0], dtype=bool)
    nv = np.asarray(next_velocity, dtype=np.float64)
    if nv.shape not in ((3,), (v.shape[0], 3)):
        raise MotionCoreError(f"next_velocity must be [3] or [F, 3]; got {nv.shape}")
    angle = _angles_deg(v, nv)
    return angle, angle <= theta_max_deg


def _best(cand: IntArray, c: FloatArray, peak_frame: IntArray) -> int:
    """The chosen cut: the last candidate of the strongest unit among the candidates'."""
    strongest = peak_frame[cand][np.argmax(c[peak_frame[cand]])]
    return int(cand[peak_frame[cand] == strongest][-1])


def _reversal_advice(passed: BoolArray, angle: FloatArray, reversal_deg: float) -> str | None:
    """:data:`REVERSAL_ADVICE` if every otherwise-valid frame is a reversal (§6.2)."""
    valid = passed[0] & passed[2] & passed[3]
    pool = angle[valid] if valid.any() else angle[passed[0]]
    pool = pool[np.isfinite(pool)]
    reversal = pool.size > 0 and bool(pool.min() >= reversal_deg)
    return REVERSAL_ADVICE if reversal else None
