"""Gait phase from foot contacts; gait cycles, periodicity and phase-aligned cuts.

Seed 002 §2.1 (PFNN): the gait phase φ ∈ [0, 2π) is the "absolute coordinate"
of the gait cycle. It is labelled from foot contacts: a left-foot strike frame
has φ = 0, a right-foot strike φ = π, and between strikes the phase advances
slowly in stance and fast in swing. Seed 000 §6.2: a periodic motion (walking,
running) should be cut at phase-aligned points, not at a single MTP;
:meth:`Gait.aligned_frames` gives one such frame per cycle.

Definitions (ours where the seeds give none):

* A **strike** is a contact onset (the first frame of a contact run) after the
  foot has been off the ground for at least ``min_swing_s`` (0.2 s, about half
  a walking swing): contact detection splits one stance into several runs when
  the foot rolls from heel to toe, and those re-contacts are not steps. The
  gap before the first run is counted from frame 0, so a run already in
  contact at frame 0 (or just after it) is not a strike: its onset is not seen.
* Between consecutive strikes of **opposite** feet (a *half cycle*) φ advances
  by π. The per-frame rate is ``stance_rate`` (1) in double support (both feet
  down) and ``swing_rate`` (2) otherwise (a foot in the air): PFNN's "slow in
  stance, fast in swing" read at the body level, where the only event inside a
  half cycle is the trailing foot lifting off. Inside ``[a, b)``,
  ``φ(f) = φ(a) + π · Σ_{a≤g<f} w(g) / Σ_{a≤g<b} w(g)``: a frame's step is
  proportional to its rate, and φ reaches the next strike's value exactly.
* Two consecutive strikes of the **same** foot (the other foot's strike was
  missed, or the actor shuffled or paused) are a **gap**: φ is nan inside. We
  cannot tell a missed strike from a pause and do not make phase up. So are
  the intervals touching a frame where both feet strike at once (a two-footed
  landing: φ would be both 0 and π; that frame is nan too).
* φ is nan before the first strike and after the last (no extrapolation).
* A **stride** is two consecutive half cycles (a foot's strike to its next
  one); a **cycle** is a stride of the left foot (φ runs 0 → 2π).

Periodicity (whether the motion repeats, its checks, thresholds and score) is
measured by :mod:`motioncore.analysis.periodicity`.

Conventions: ``F`` frames, ``fps`` Hz, seconds, radians, metres, Y up; contact
masks ``[F]`` bool (see :mod:`motioncore.contacts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from motioncore import contacts as contacts_mod
from motioncore import fk
from motioncore import skeleton as roles_mod
from motioncore.analysis.periodicity import Checks, heading_features, measure
from motioncore.clip import Clip
from motioncore.contacts import Contacts
from motioncore.errors import MotionCoreError
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
BoolArray = NDArray[np.bool_]

TWO_PI = 2.0 * np.pi
_LEFT, _RIGHT, _BOTH = 0, 1, 2


@dataclass(frozen=True)
class Cycle:
    """One gait cycle: left strike ``start`` to the next left strike ``stop`` (frames)."""

    start: int
    stop: int
    fps: float

    @property
    def duration_s(self) -> float:
        """Seconds from ``start`` to ``stop``."""
        return (self.stop - self.start) / self.fps

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form (frames and seconds)."""
        return {
            "start_frame": self.start,
            "stop_frame": self.stop,
            "start_s": self.start / self.fps,
            "stop_s": self.stop / self.fps,
            "duration_s": self.duration_s,
        }


@dataclass(frozen=True, eq=False)
class Gait:
    """Gait phase and periodicity of a clip (see the module docstring).

    Attributes:
        fps: frame rate, Hz.
        phase: ``[F]`` φ in radians, [0, 2π); nan where undefined.
        left_strikes, right_strikes: ``[K]`` strike frames of each foot, ascending.
        cycles: complete cycles (left strike to left strike), in frame order.
        cycles_covered: gait cycles the phase spans (π per half cycle, gaps excluded).
        periodic: whether every periodicity check passes.
        score: 0-1, how periodic (see :mod:`motioncore.analysis.periodicity`).
        reason: why it is not periodic, ``None`` when it is.
        alternation: share (0-1) of consecutive strike pairs made by opposite
            feet (nan with fewer than 2 strikes).
        cycle_cv: coefficient of variation of the stride durations (both feet;
            nan without strides).
        autocorrelation: normalised autocorrelation at the median cycle lag
            (-1..1; nan when not measured).
        cycle_s: median stride (= cycle) duration of both feet, seconds (nan
            without strides).
    """

    fps: float
    phase: FloatArray
    left_strikes: IntArray
    right_strikes: IntArray
    cycles: tuple[Cycle, ...]
    cycles_covered: float
    periodic: bool
    score: float
    reason: str | None
    alternation: float
    cycle_cv: float
    autocorrelation: float
    cycle_s: float

    @property
    def cadence_steps_per_min(self) -> float:
        """Steps per minute, two per cycle (nan without cycles)."""
        return 120.0 / self.cycle_s

    def aligned_frames(self, target_phase_rad: float) -> IntArray:
        """``[K]`` frames where φ crosses ``target_phase_rad`` (taken mod 2π), ascending.

        One per crossing: the first frame whose phase is at or past the target
        (a run of defined phase that starts exactly on the target counts), i.e.
        one per cycle — the phase-aligned cut points of seed 000 §6.2.
        """
        return aligned_frames(self.phase, target_phase_rad)

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form; nan is ``None``; units are in the keys."""
        return {
            "fps": self.fps,
            "phase_rad": _nan_list(self.phase),
            "left_strike_frames": self.left_strikes.tolist(),
            "right_strike_frames": self.right_strikes.tolist(),
            "cycles": [c.as_dict() for c in self.cycles],
            "cycles_covered": self.cycles_covered,
            "periodic": self.periodic,
            "score": self.score,
            "reason": self.reason,
            "alternation": _none(self.alternation),
            "cycle_cv": _none(self.cycle_cv),
            "autocorrelation": _none(self.autocorrelation),
            "cycle_s": _none(self.cycle_s),
            "cadence_steps_per_min": _none(self.cadence_steps_per_min),
        }


def _none(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def _nan_list(values: FloatArray) -> list[float | None]:
    return [None if np.isnan(v) else v for v in values.tolist()]


def strikes(mask: ArrayLike, fps: float, *, min_swing_s: float = 0.2) -> IntArray:
    """``[K]`` strike frames of ``mask [F]``: contact onsets after at least
    ``min_swing_s`` seconds off the ground (counted from frame 0 for the first
    run; a run already in contact at frame 0 is not a strike)."""
    m = np.asarray(mask, dtype=bool)
    onsets = np.flatnonzero(m[1:] & ~m[:-1]) + 1
    last_down = np.concatenate(([-1], np.flatnonzero(m)))
    before = last_down[np.searchsorted(last_down, onsets) - 1]
    off_frames = onsets - before - 1
    return onsets[off_frames >= min_swing_s * fps - 1e-9]  # 1e-9: 0.2 s × 100 Hz is 20


def _events(left: IntArray, right: IntArray) -> tuple[IntArray, IntArray, BoolArray]:
    """Strikes of both feet merged: ``[E]`` frames (ascending), ``[E]`` side codes
    (left, right, both at once) and ``[E - 1]`` whether each consecutive pair is
    a half cycle (opposite feet, neither a two-footed strike)."""
    frames = np.union1d(left, right)
    is_left, is_right = np.isin(frames, left), np.isin(frames, right)
    side = np.where(is_left & is_right, _BOTH, np.where(is_left, _LEFT, _RIGHT))
    half = (side[:-1] != _BOTH) & (side[1:] != _BOTH) & (side[:-1] != side[1:])
    return frames, side, half


def _check_masks(left: ArrayLike, right: ArrayLike, fps: float) -> tuple[BoolArray, BoolArray]:
    lm, rm = np.asarray(left, dtype=bool), np.asarray(right, dtype=bool)
    if lm.ndim != 1 or lm.shape != rm.shape or not fps > 0:
        raise MotionCoreError(f"need two [F] masks and fps > 0; got {lm.shape}, {rm.shape}, {fps}")
    return lm, rm


def phase_from_contacts(
    left: ArrayLike,
    right: ArrayLike,
    fps: float,
    *,
    stance_rate: float = 1.0,
    swing_rate: float = 2.0,
    min_swing_s: float = 0.2,
) -> FloatArray:
    """Gait phase ``[F]`` (radians, [0, 2π), nan where undefined) from contact masks.

    Args:
        left, right: ``[F]`` bool, the foot is on the ground.
        fps: frame rate, Hz.
        stance_rate: relative phase speed in double support (ours).
        swing_rate: relative phase speed while a foot is in the air (ours).
        min_swing_s: a contact onset is a strike only after this long off the
            ground, seconds (see :func:`strikes`; ours).

    Returns:
        φ: 0 at left strikes, π at right strikes, increasing in between at the
        rates above; nan before the first strike, after the last, and inside
        gaps (see the module docstring).

    Raises:
        MotionCoreError: masks of different shapes or not ``[F]``, fps ≤ 0, or
            rates that are not positive.
    """
    lm, rm = _check_masks(left, right, fps)
    events = _events(
        strikes(lm, fps, min_swing_s=min_swing_s), strikes(rm, fps, min_swing_s=min_swing_s)
    )
    return _phase(lm, rm, events, stance_rate, swing_rate)


def _phase(
    left: BoolArray,
    right: BoolArray,
    events: tuple[IntArray, IntArray, BoolArray],
    stance_rate: float,
    swing_rate: float,
) -> FloatArray:
    """φ ``[F]`` from the merged strikes: anchors at strikes, rate-warped half cycles."""
    if not (stance_rate > 0 and swing_rate > 0):
        raise MotionCoreError(f"rates must be positive; got {stance_rate}, {swing_rate}")
    frames, side, half = events
    anchor = np.array([0.0, np.pi, np.nan])[side]
    rate = np.where(left & right, stance_rate, swing_rate)
    done = np.concatenate(([0.0], np.cumsum(rate)))
    a, b = frames[:-1][half], frames[1:][half]
    which = np.repeat(np.arange(a.shape[0]), b - a)
    f = _ranges(a, b)
    frac = (done[f] - done[a][which]) / (done[b] - done[a])[which]
    phase = np.full(left.shape[0], np.nan)
    phase[f] = anchor[:-1][half][which] + np.pi * frac
    phase[frames] = anchor
    return phase


def _ranges(starts: IntArray, stops: IntArray) -> IntArray:
    """Concatenated ``arange(start, stop)`` for each pair (all stops > starts)."""
    lengths = stops - starts
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return np.asarray(np.arange(lengths.sum()) + offsets, dtype=np.intp)


def aligned_frames(phase: ArrayLike, target_phase_rad: float) -> IntArray:
    """``[K]`` frames where ``phase [F]`` (radians, nan = undefined) crosses the target.

    ``phase`` is taken to increase, wrapping from 2π to 0; a crossing is the
    first defined frame at or past ``target`` (mod 2π) after a defined frame
    before it, or a defined frame exactly on it that follows an undefined one.
    """
    p = np.asarray(phase, dtype=np.float64)
    t = float(np.mod(target_phase_rad, TWO_PI))
    defined = np.isfinite(p)
    prev_defined = np.concatenate(([False], defined[:-1]))
    wraps = np.concatenate(([0], np.cumsum(np.diff(np.nan_to_num(p)) < 0)))
    lifted = np.where(defined, p + TWO_PI * wraps, np.nan)
    with np.errstate(invalid="ignore"):
        turn = np.floor((lifted - t) / TWO_PI)
        crossed = np.concatenate(([False], turn[1:] > turn[:-1])) & prev_defined
        on = ~prev_defined & defined & (np.isclose(p, t, rtol=0.0, atol=1e-12))
    return np.flatnonzero(crossed | on)


def _strides(events: tuple[IntArray, IntArray, BoolArray]) -> tuple[IntArray, IntArray, IntArray]:
    """Strides: two consecutive half cycles (a foot's strike to its next one).

    Returns ``[S]`` start frames, stop frames and the side code of the foot.
    """
    frames, side, half = events
    whole = np.flatnonzero(half[:-1] & half[1:])
    return frames[whole], frames[whole + 2], side[whole]


def _unmeasured(fps: float, n: int, reason: str) -> Gait:
    nan = float("nan")
    empty = np.zeros(0, dtype=np.intp)
    return Gait(fps, np.full(n, nan), empty, empty, (), 0.0, False, 0.0, reason, nan, nan, nan, nan)


def analyze(
    clip: Clip,
    *,
    roles: JointRoles | None = None,
    contacts: Contacts | None = None,
    positions: FloatArray | None = None,
    stance_rate: float = 1.0,
    swing_rate: float = 2.0,
    min_swing_s: float = 0.2,
    min_cycles: float = 2.0,
    min_alternation: float = 0.9,
    max_cycle_cv: float = 0.25,
    min_autocorrelation: float = 0.5,
) -> Gait:
    """Gait phase, cycles and periodicity of ``clip`` (seed 002 §2.1, seed 000 §6.2).

    Args:
        clip: the clip (metres, Y up).
        roles: joint roles; inferred from the skeleton when ``None``.
        contacts: foot contacts; :func:`motioncore.contacts.detect` when ``None``.
        positions: ``[F, J, 3]`` world positions, metres, if already computed.
        stance_rate, swing_rate, min_swing_s: see :func:`phase_from_contacts`.
        min_cycles: fewest gait cycles the phase must cover (ours).
        min_alternation: smallest share of strike pairs by opposite feet (ours).
        max_cycle_cv: largest coefficient of variation of stride durations (ours).
        min_autocorrelation: smallest autocorrelation of the feet's motion at the
            median stride lag (ours).

    Returns:
        The gait; a rig without both feet, or with no strike, is not periodic
        (``reason`` says why) and its phase is all nan.
    """
    n = clip.num_frames
    roles = roles if roles is not None else roles_mod.infer(clip.skeleton)
    if roles.get("left_foot") is None or roles.get("right_foot") is None:
        return _unmeasured(clip.fps, n, "the rig has no left and right foot roles")
    pos = fk.positions(clip) if positions is None else np.asarray(positions, dtype=np.float64)
    found = contacts if contacts is not None else contacts_mod.detect(clip, roles, positions=pos)
    left, right = found.get("left"), found.get("right")
    if left is None or right is None:
        return _unmeasured(clip.fps, n, "the contacts lack a left or a right foot")
    ls = strikes(left.contact, clip.fps, min_swing_s=min_swing_s)
    rs = strikes(right.contact, clip.fps, min_swing_s=min_swing_s)
    events = _events(ls, rs)
    phase = _phase(left.contact, right.contact, events, stance_rate, swing_rate)
    strides = _strides(events)
    checks = measure(events, strides, heading_features(pos, roles), clip.fps)
    reason = checks.failure(min_cycles, min_alternation, max_cycle_cv, min_autocorrelation)
    return _measured(clip.fps, phase, (ls, rs), strides, checks, reason, min_cycles)


def _measured(
    fps: float,
    phase: FloatArray,
    strikes_lr: tuple[IntArray, IntArray],
    strides: tuple[IntArray, IntArray, IntArray],
    checks: Checks,
    reason: str | None,
    min_cycles: float,
) -> Gait:
    """The gait of a clip whose feet both strike: its cycles are the left foot's strides."""
    starts, stops, side = strides
    cycles = tuple(
        Cycle(int(a), int(b), fps)
        for a, b in zip(starts[side == _LEFT], stops[side == _LEFT], strict=True)
    )
    return Gait(
        fps=fps,
        phase=phase,
        left_strikes=strikes_lr[0],
        right_strikes=strikes_lr[1],
        cycles=cycles,
        cycles_covered=checks.cycles,
        periodic=reason is None,
        score=checks.score(min_cycles),
        reason=reason,
        alternation=checks.alternation,
        cycle_cv=checks.cv,
        autocorrelation=checks.corr,
        cycle_s=checks.cycle_s,
    )
