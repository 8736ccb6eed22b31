"""Motion units and the four momentum phases of each unit.

Seed 000 §6.2: a speed curve with several peaks (every running step) is first
split into **motion units**, one per peak; :func:`units` does it with the same
peaks :func:`motioncore.analysis.mtp.detect` uses (:func:`motioncore.analysis.mtp.peaks`), so that
units and MTP candidates agree. A unit runs from the minimum of the curve
before its peak (frame 0 for the first unit) to the minimum after it (the clip's
end for the last unit); the valley frame starts the next unit.

Seed 000 §2.3 splits a motion into four phases by the behaviour of its momentum:

=========== ================================================ ==============
phase       momentum (§2.3)                                   typical (§2.3)
=========== ================================================ ==============
start       speed rises from zero, acceleration along it      0–20 %
steady      speed near the peak, acceleration near zero       20–60 %
transition  speed starts to fall, acceleration reversed       60–85 %
ending      speed tends to zero, momentum spent               85–100 %
=========== ================================================ ==============

:func:`label` implements the *definitions*, not the typical percentages, per
unit with peak value ``P`` and slope ``s = d(curve)/dt`` (central differences):

* **steady** is the run of frames around the peak where ``curve ≥ β·P`` and
  ``|s| ≤ k·max|s|`` (max over the unit). β = ``steady_ratio`` 0.9 ("near the
  peak": within 10 %) and k = ``flat_slope_ratio`` 0.5 ("acceleration near
  zero": at most half the unit's steepest slope) are ours; the seed gives no
  numbers. On a sine bell the β test binds (steady = 36–64 % of the unit).
* **start** is every frame before the steady run (the speed is still rising).
* **transition** follows the steady run while ``curve ≥ α·P``, α being the MTP
  retention (§3.1, default 0.6), so that the cut :func:`motioncore.analysis.mtp.detect`
  chooses (the last frame keeping α of the peak) lies in the transition phase,
  where §2.3 puts the best cut.
* **ending** is every later frame of the unit (momentum below α of the peak).

Each unit's labels are therefore monotone, start → steady → transition →
ending, each run possibly empty, so a UI can colour runs. Deviations, and why:

* The phases are tied to the unit's own peak, not to ``max(curve)`` (§6.2).
* When the peak itself is not steady (a sharp peak, or a peak on the first or
  last frame, where the slope is one-sided) the steady run is empty and the
  peak's slope decides: rising (a ramp that ends on its peak) → the peak is the
  last start frame, so **constant acceleration is all start**; falling (a clip
  that begins on its peak) → transition starts at the peak, so there is **no
  start phase**.
* A unit whose peak is at most ``min_peak`` never builds momentum: all ending
  (a zero curve). A constant non-zero curve has zero slope: all steady.
* Frames after the transition that rise again (a bump too small to be a unit)
  stay in the ending phase: the runs stay monotone.
* A unit ends at its valley, and :func:`motioncore.analysis.mtp.detect` splits units the
  same way: frames between a valley and the next peak are before their unit's
  peak there too, so no MTP candidate is ever labelled start.

Conventions: ``F`` frames, ``fps`` Hz, times in seconds; ``curve`` ``[F]`` is a
non-negative momentum measure (speed m/s, energy J/kg; any units).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from motioncore.analysis import mtp
from motioncore.errors import MotionCoreError
from motioncore.parameters import ALPHA

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
CodeArray = NDArray[np.int8]

PHASES = ("start", "steady", "transition", "ending")
"""Phase names; ``PhaseLabels.codes`` holds their indices (0-3)."""


@dataclass(frozen=True)
class Unit:
    """One motion unit: frames ``start`` ≤ ``peak`` < ``stop`` (``stop`` exclusive).

    Attributes:
        start, peak, stop: frame indices.
        peak_value: the curve at ``peak`` (curve units).
        fps: frame rate, Hz.
    """

    start: int
    peak: int
    stop: int
    peak_value: float
    fps: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form with frames and times (s)."""
        return {
            "start_frame": self.start,
            "peak_frame": self.peak,
            "stop_frame": self.stop,
            "start_s": self.start / self.fps,
            "peak_s": self.peak / self.fps,
            "stop_s": self.stop / self.fps,
            "peak_value": self.peak_value,
        }


class Run(NamedTuple):
    """A run of frames ``[start, stop)`` of one phase, inside one unit."""

    phase: str
    start: int
    stop: int


@dataclass(frozen=True, eq=False)
class PhaseLabels:
    """Four-phase labels of a clip (see the module docstring).

    Attributes:
        fps: frame rate, Hz.
        codes: ``[F]`` int8 index into :data:`PHASES` per frame.
        units: the motion units, in frame order; they tile ``[0, F)``.
        alpha, steady_ratio, flat_slope_ratio, min_peak: the thresholds used.
    """

    fps: float
    codes: CodeArray
    units: tuple[Unit, ...]
    alpha: float
    steady_ratio: float
    flat_slope_ratio: float
    min_peak: float

    def runs(self) -> list[Run]:
        """Runs of one phase, in frame order; a run never spans two units."""
        n = self.codes.shape[0]
        cut = np.zeros(n + 1, dtype=bool)
        cut[[0, n]] = True
        cut[1:n] = self.codes[1:] != self.codes[:-1]
        cut[[u.start for u in self.units]] = True
        edges = np.flatnonzero(cut)
        return [Run(PHASES[self.codes[a]], int(a), int(b)) for a, b in pairwise(edges)]

    @property
    def fractions(self) -> dict[str, float]:
        """Share of the clip's frames in each phase (0-1, summing to 1)."""
        counts = np.bincount(self.codes, minlength=len(PHASES))
        return {p: float(c) / self.codes.shape[0] for p, c in zip(PHASES, counts, strict=True)}

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form: thresholds, units, runs (frames and seconds), fractions."""
        return {
            "fps": self.fps,
            "alpha": self.alpha,
            "steady_ratio": self.steady_ratio,
            "flat_slope_ratio": self.flat_slope_ratio,
            "min_peak": self.min_peak,
            "phases": list(PHASES),
            "units": [u.as_dict() for u in self.units],
            "runs": [
                {
                    "phase": r.phase,
                    "start_frame": r.start,
                    "stop_frame": r.stop,
                    "start_s": r.start / self.fps,
                    "stop_s": r.stop / self.fps,
                }
                for r in self.runs()
            ],
            "fractions": self.fractions,
        }


def _checked(curve: ArrayLike, fps: float) -> FloatArray:
    """``curve`` as a float copy; ``MotionCoreError`` unless ``[F ≥ 3]``, finite, ≥ 0, fps > 0."""
    c = np.array(curve, dtype=np.float64)
    if c.ndim != 1 or c.shape[0] < 3 or not fps > 0:
        raise MotionCoreError(f"need a curve [F>=3] and fps > 0; got {c.shape}, {fps}")
    if not np.all(np.isfinite(c)) or c.min() < 0.0:
        raise MotionCoreError("the momentum curve must be finite and non-negative")
    return c


def _bounds(curve: FloatArray, peaks: IntArray) -> tuple[IntArray, IntArray]:
    """Unit ``starts`` and ``stops`` ``[K]``: the first minimum between consecutive peaks."""
    n, k = curve.shape[0], peaks.shape[0]
    valleys = np.empty(k - 1, dtype=np.intp)
    if k > 1:
        frames = np.arange(peaks[0], peaks[-1])
        gap = np.searchsorted(peaks, frames, side="right") - 1
        lows = np.minimum.reduceat(curve[peaks[0] : peaks[-1]], peaks[:-1] - peaks[0])
        at_low = np.flatnonzero(curve[frames] == lows[gap])
        _, first = np.unique(gap[at_low], return_index=True)
        valleys[:] = frames[at_low[first]]
    starts = np.concatenate(([0], valleys)).astype(np.intp)
    stops = np.concatenate((valleys, [n])).astype(np.intp)
    return starts, stops


def units(curve: ArrayLike, fps: float, *, prominence_ratio: float = 0.1) -> tuple[Unit, ...]:
    """Split a momentum curve into motion units, one per peak (seed 000 §6.2).

    Args:
        curve: ``[F]`` non-negative momentum measure (speed m/s, energy; any units).
        fps: frame rate, Hz.
        prominence_ratio: a local maximum is a unit's peak when its prominence is
            at least this fraction of its height (as :func:`motioncore.analysis.mtp.peaks`).

    Returns:
        The units in frame order; they tile ``[0, F)`` (at least one).

    Raises:
        MotionCoreError: fewer than 3 frames, fps ≤ 0, or a negative or non-finite curve.
    """
    c = _checked(curve, fps)
    return _units(c, fps, prominence_ratio)


def _units(curve: FloatArray, fps: float, prominence_ratio: float) -> tuple[Unit, ...]:
    peaks = mtp.peaks(curve, prominence_ratio)
    starts, stops = _bounds(curve, peaks)
    return tuple(
        Unit(int(a), int(p), int(b), float(curve[p]), float(fps))
        for a, p, b in zip(starts, peaks, stops, strict=True)
    )


def _next_true(mask: NDArray[np.bool_]) -> IntArray:
    """``[F + 1]`` index of the first ``True`` at or after each frame (``F`` if none)."""
    n = mask.shape[0]
    idx = np.where(np.concatenate((mask, [True])), np.arange(n + 1), n)
    return np.asarray(np.minimum.accumulate(idx[::-1])[::-1], dtype=np.intp)


def _last_true(mask: NDArray[np.bool_]) -> IntArray:
    """``[F]`` index of the last ``True`` at or before each frame (-1 if none)."""
    idx = np.where(mask, np.arange(mask.shape[0]), -1)
    return np.asarray(np.maximum.accumulate(idx), dtype=np.intp)


def label(
    curve: ArrayLike,
    fps: float,
    *,
    alpha: float = ALPHA.default,
    steady_ratio: float = 0.9,
    flat_slope_ratio: float = 0.5,
    min_peak: float = 0.0,
    prominence_ratio: float = 0.1,
) -> PhaseLabels:
    """Label every frame start / steady / transition / ending (seed 000 §2.3).

    Args:
        curve: ``[F]`` non-negative momentum measure (speed m/s, energy; any units).
        fps: frame rate, Hz.
        alpha: the transition phase keeps at least this fraction of the unit's
            peak; use the MTP ``alpha`` (§3.1: 0.5–0.7) so the MTP cut is in it.
        steady_ratio: steady frames keep at least this fraction of the peak
            (ours; ≥ ``alpha``).
        flat_slope_ratio: steady frames have ``|slope|`` at most this fraction of
            the unit's largest ``|slope|`` (ours).
        min_peak: a unit whose peak is at most this (curve units) never builds
            momentum and is all ending.
        prominence_ratio: unit peaks, as in :func:`units`.

    Returns:
        Per-frame codes, the units, and their runs (see the module docstring).

    Raises:
        MotionCoreError: bad curve or fps (see :func:`units`), or thresholds
            outside ``0 < alpha ≤ steady_ratio ≤ 1``, ``0 ≤ flat_slope_ratio``.
    """
    c = _checked(curve, fps)
    if not (0.0 < alpha <= steady_ratio <= 1.0 and flat_slope_ratio >= 0.0):
        raise MotionCoreError(
            "need 0 < alpha <= steady_ratio <= 1 and flat_slope_ratio >= 0; "
            f"got {alpha}, {steady_ratio}, {flat_slope_ratio}"
        )
    unit_list = _units(c, fps, prominence_ratio)
    codes = _codes(c, fps, unit_list, alpha, steady_ratio, flat_slope_ratio, min_peak)
    return PhaseLabels(
        fps=float(fps),
        codes=np.asarray(codes, dtype=np.int8),
        units=unit_list,
        alpha=alpha,
        steady_ratio=steady_ratio,
        flat_slope_ratio=flat_slope_ratio,
        min_peak=min_peak,
    )


def _codes(
    c: FloatArray,
    fps: float,
    unit_list: tuple[Unit, ...],
    alpha: float,
    steady_ratio: float,
    flat_slope_ratio: float,
    min_peak: float,
) -> IntArray:
    """``[F]`` phase code of every frame: how many of its unit's phase edges (steady
    from, steady to, ending from) it is at or after."""
    starts = np.array([u.start for u in unit_list], dtype=np.intp)
    peaks = np.array([u.peak for u in unit_list], dtype=np.intp)
    stops = np.array([u.stop for u in unit_list], dtype=np.intp)
    slope = np.gradient(c) * fps
    steady_from, steady_to = _steady(c, slope, starts, peaks, stops, steady_ratio, flat_slope_ratio)
    unit_of = np.repeat(np.arange(peaks.shape[0]), stops - starts)
    spent = _next_true(c < alpha * c[peaks][unit_of])
    ending_from = np.minimum(spent[steady_to], stops)
    idle = c[peaks] <= min_peak
    steady_from, steady_to, ending_from = (
        np.where(idle, starts, x) for x in (steady_from, steady_to, ending_from)
    )
    frames = np.arange(c.shape[0])
    edges = np.stack((steady_from, steady_to, ending_from))[:, unit_of]
    return np.asarray(np.count_nonzero(frames >= edges, axis=0), dtype=np.intp)


def _steady(
    curve: FloatArray,
    slope: FloatArray,
    starts: IntArray,
    peaks: IntArray,
    stops: IntArray,
    steady_ratio: float,
    flat_slope_ratio: float,
) -> tuple[IntArray, IntArray]:
    """``[K]`` first and stop (exclusive) frames of each unit's steady run.

    The run is the stretch around the peak where the curve is near the peak and
    flat; when the peak itself fails, the run is empty and sits before the peak
    if the peak is rising (it ends the start phase), else at the peak.
    """
    unit_of = np.repeat(np.arange(peaks.shape[0]), stops - starts)
    steepest = np.maximum.reduceat(np.abs(slope), starts)
    ok = (curve >= steady_ratio * curve[peaks][unit_of]) & (
        np.abs(slope) <= flat_slope_ratio * steepest[unit_of]
    )
    before = _last_true(~ok)[np.maximum(peaks - 1, 0)] + 1
    first = np.where(peaks > starts, np.maximum(before, starts), starts)
    stop = np.minimum(_next_true(~ok)[peaks], stops)
    empty = np.where(slope[peaks] > 0.0, peaks + 1, peaks)
    return np.where(ok[peaks], first, empty), np.where(ok[peaks], stop, empty)
