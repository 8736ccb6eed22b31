"""The cleaning stage: outliers, resampling, smoothing, foot contacts, foot skate.

:func:`clean` runs, in this order (each stage optional):

0. **bind-pose trim**: leading frames the root leaves at an impossible speed (a
   bind pose before the take, :func:`motioncore.clean.outliers.leading_teleport`) are
   dropped, with a warning;
1. **3-sigma outlier repair** (:mod:`motioncore.clean.outliers`) at the source rate,
   before a spline or a filter can smear a glitch over its neighbours;
2. **resampling** to ``fps`` (:mod:`motioncore.clean.resample`);
3. **smoothing** (:mod:`motioncore.clean.smooth`): Savitzky-Golay or zero-phase
   Butterworth at ``cutoff_ratio`` x the dominant frequency; off by default,
   as any low-pass moves every joint (seed 000 §5.3 filters the *speed curve*
   it analyses, not the motion it exports);
4. **foot contacts** (:mod:`motioncore.contacts`): the floor, each foot's
   contacts and its steps (heel strike, foot flat, heel off, toe off);
5. **foot-skate cleanup** (:mod:`motioncore.clean.footskate`): each stance locked with
   the foot's roll, every foot point kept above the floor.

The report compares the result with the *reference*: the input resampled to
the output rate with nothing else done, so that it measures what cleaning (not
resampling) changed. Foot slide, floor penetration and contact share are
measured by :mod:`motioncore.measures` (independent of the contacts the cleanup
used) on the clip entering step 5 (before) and on the result (after), both
against the floor of step 4. Units: metres, seconds, Y up; slide in m/s; RMS
changes in cm.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from motioncore import contacts as contacts_mod
from motioncore import fk, measures
from motioncore import skeleton as skeleton_mod
from motioncore.clean import footskate as footskate_mod
from motioncore.clean import outliers as outliers_mod
from motioncore.clean import resample
from motioncore.clean import smooth as smooth_mod
from motioncore.clip import Clip
from motioncore.errors import MotionCoreError
from motioncore.skeleton import JointRoles

FloatArray = NDArray[np.float64]
Progress = Callable[[float, str], None]
SmoothMethod = Literal["none", "savgol", "butterworth"]


@dataclass(frozen=True)
class CleanReport:
    """What :func:`clean` did (JSON-able through :meth:`as_dict`).

    Attributes:
        fps_in, fps_out: frame rates, Hz.
        frames_in, frames_out: frame counts.
        stages: the stages that ran, in order.
        outlier_samples: (frame, joint) samples repaired by the 3-sigma rule.
        butterworth_cutoff_hz: the cutoff used (``None`` unless Butterworth ran).
        contact_frames: side -> number of contact frames (output rate).
        contact_segments: side -> ``[start, stop)`` frame ranges of contact.
        floor_m: the floor's world height the contacts and the cleanup used, metres.
        steps: every contact as :meth:`motioncore.contacts.Step.as_dict` (events in
            seconds at the output rate).
        measures_before, measures_after: :meth:`motioncore.measures.Measures.as_dict`
            of the clip entering the skate cleanup and of the result.
        frames_changed: frames where some joint moved more than
            ``changed_threshold_m`` from the reference.
        rms_change_cm: RMS world displacement from the reference, cm, of the
            ``non_leg`` joints (all but the descendants of the upper legs) and
            of the ``legs`` (those descendants).
        parameters: every keyword argument :func:`clean` ran with.
        warnings: what could not be done, in words.
        leading_frames_dropped: bind-pose frames dropped from the start (input
            rate): the cleaned clip's time 0 is ``leading_frames_dropped / fps_in``
            seconds into the input.
    """

    fps_in: float
    fps_out: float
    frames_in: int
    frames_out: int
    stages: tuple[str, ...]
    outlier_samples: int
    butterworth_cutoff_hz: float | None
    contact_frames: dict[str, int]
    contact_segments: dict[str, list[tuple[int, int]]]
    floor_m: float | None
    steps: tuple[dict[str, object], ...]
    measures_before: dict[str, object]
    measures_after: dict[str, object]
    frames_changed: int
    rms_change_cm: dict[str, float]
    parameters: dict[str, object]
    warnings: tuple[str, ...] = field(default_factory=tuple)
    leading_frames_dropped: int = 0

    def slide_mps(self, when: Literal["before", "after"]) -> dict[str, float | None]:
        """Side -> median foot slide while planted, m/s (``None`` where unmeasured)."""
        data = self.measures_before if when == "before" else self.measures_after
        feet = data.get("feet") or {}
        assert isinstance(feet, dict)
        return {side: foot["slide_median_mps"] for side, foot in feet.items()}

    @property
    def start_in_input_s(self) -> float:
        """Where the cleaned clip starts in the input, seconds."""
        return self.leading_frames_dropped / self.fps_in

    def as_dict(self) -> dict[str, object]:
        """A JSON-able copy (tuples become lists)."""
        return {
            "fps_in": self.fps_in,
            "fps_out": self.fps_out,
            "frames_in": self.frames_in,
            "frames_out": self.frames_out,
            "stages": list(self.stages),
            "outlier_samples": self.outlier_samples,
            "butterworth_cutoff_hz": self.butterworth_cutoff_hz,
            "contact_frames": dict(self.contact_frames),
            "contact_segments": {k: [list(s) for s in v] for k, v in self.contact_segments.items()},
            "floor_m": self.floor_m,
            "steps": [dict(step) for step in self.steps],
            "measures_before": dict(self.measures_before),
            "measures_after": dict(self.measures_after),
            "skate_before_mps": self.slide_mps("before"),
            "skate_after_mps": self.slide_mps("after"),
            "frames_changed": self.frames_changed,
            "rms_change_cm": dict(self.rms_change_cm),
            "parameters": dict(self.parameters),
            "warnings": list(self.warnings),
            "leading_frames_dropped": self.leading_frames_dropped,
        }


def clean(
    clip: Clip,
    *,
    fps: float | None = None,
    outliers: bool = True,
    trim_bind_pose: bool = True,
    smooth: SmoothMethod = "none",
    footskate: bool = True,
    roles: JointRoles | None = None,
    outlier_sigma: float = 3.0,
    outlier_min_rotation_rad: float = 0.1,
    outlier_min_translation_m: float = 0.02,
    savgol_window_s: float = 0.2,
    cutoff_ratio: float = smooth_mod.CUTOFF_RATIO,
    speed_threshold_mps: float | None = None,
    floor_m: float | None = None,
    blend_s: float = 0.1,
    changed_threshold_m: float = 0.001,
    progress: Progress | None = None,
) -> tuple[Clip, CleanReport]:
    """Clean ``clip`` (never modified) and report what was done.

    Args:
        clip: the clip (metres, Y up).
        fps: output frame rate, Hz; ``None`` keeps the clip's.
        trim_bind_pose: drop leading bind-pose frames (step 0).
        outliers: run the 3-sigma repair (:func:`motioncore.clean.outliers.motion`
            with ``outlier_sigma``, ``outlier_min_rotation_rad`` (radians per
            frame) and ``outlier_min_translation_m`` (metres per frame)).
        smooth: ``"none"``, ``"savgol"`` (window ``savgol_window_s``,
            seconds) or ``"butterworth"`` (cutoff ``cutoff_ratio`` x the
            dominant frequency, seed 000 §5.3).
        footskate: lock contacts and solve the legs (blend ``blend_s``, seconds).
        roles: joint roles; inferred from the skeleton when ``None``.
        speed_threshold_mps: a fixed contact speed instead of the body-scaled ones
            (seed 002 §3.2's 0.08 m/s; :func:`motioncore.contacts.detect`).
        floor_m: the floor's height when known, metres; estimated when ``None``.
        changed_threshold_m: a frame counts as changed when a joint moved more
            than this, metres.
        progress: called with (fraction done in ``[0, 1]``, stage name).

    Returns:
        The cleaned clip (at ``fps``) and its :class:`CleanReport`.

    Raises:
        MotionCoreError: ``fps`` is not a positive number or ``smooth`` is unknown.
    """
    parameters = {k: v for k, v in locals().items() if k not in ("clip", "roles", "progress")}
    if smooth not in ("none", "savgol", "butterworth"):
        raise MotionCoreError(f"unknown smoothing {smooth!r}: use none, savgol or butterworth")
    settings = _Settings(**parameters)  # the keyword arguments, as the report lists them
    report = _Builder(clip, parameters, progress or _silent)
    work = report.prepared(clip, settings)
    roles = roles if roles is not None else skeleton_mod.infer(clip.skeleton)
    return report.cleaned(work, roles, settings)


@dataclass(frozen=True)
class _Settings:
    """The keyword arguments of :func:`clean` but ``roles`` and ``progress``."""

    fps: float | None
    outliers: bool
    trim_bind_pose: bool
    smooth: SmoothMethod
    footskate: bool
    outlier_sigma: float
    outlier_min_rotation_rad: float
    outlier_min_translation_m: float
    savgol_window_s: float
    cutoff_ratio: float
    speed_threshold_mps: float | None
    floor_m: float | None
    blend_s: float
    changed_threshold_m: float


class _Builder:
    """Collects what the stages of :func:`clean` did and builds the report."""

    def __init__(self, clip: Clip, parameters: dict[str, object], progress: Progress) -> None:
        self.clip = clip
        self.parameters = parameters
        self.progress = progress
        self.stages: list[str] = []
        self.warnings: list[str] = []
        self.outlier_samples = 0
        self.leading = 0
        self.cutoff_hz: float | None = None

    def prepared(self, clip: Clip, s: _Settings) -> Clip:
        """Steps 0-3 (bind pose, outliers, resampling, smoothing) of ``clip``, the input."""
        work = self.trimmed(clip) if s.trim_bind_pose else clip
        if s.outliers:
            self.step(0.05, "outliers")
            work, mask = outliers_mod.motion(
                work,
                n_sigma=s.outlier_sigma,
                min_rotation_rad=s.outlier_min_rotation_rad,
                min_translation_m=s.outlier_min_translation_m,
            )
            self.outlier_samples = int(np.count_nonzero(mask))
        fps_out = float(s.fps) if s.fps is not None else clip.fps
        if s.fps is not None and not math.isclose(fps_out, clip.fps):
            self.step(0.2, "resample")
            work = resample.resample(work, fps_out)
        if s.smooth != "none":
            self.step(0.35, "smooth")
            work = self.smoothed(work, s.smooth, s.savgol_window_s, s.cutoff_ratio)
        return work

    def cleaned(self, work: Clip, roles: JointRoles, s: _Settings) -> tuple[Clip, CleanReport]:
        """Steps 4-5 (contacts, foot skate) of the prepared clip ``work``, and the report."""
        self.step(0.5, "contacts")
        found = contacts_mod.detect(
            work, roles, speed_threshold_mps=s.speed_threshold_mps, floor_m=s.floor_m
        )
        before = work
        if s.footskate:
            self.step(0.7, "footskate")
            work = footskate_mod.cleanup(work, found, roles, blend_s=s.blend_s)
        self.step(0.9, "report")
        result = self.finish(work, found, roles, before, s.changed_threshold_m)
        self.step(1.0, "done")
        return work, result

    def trimmed(self, clip: Clip) -> Clip:
        """``clip`` without its leading bind-pose frames (noted in the report)."""
        drop, jump_m = outliers_mod.leading_teleport(clip)
        if drop == 0:
            return clip
        self.leading = drop
        self.step(0.02, "bind pose")
        self.warnings.append(
            f"dropped {drop} leading frame(s): the root jumps {jump_m:.2f} m in one frame "
            "(a bind pose before the take)"
        )
        return clip.with_arrays(clip.rotations[drop:], clip.translations[drop:])

    def step(self, fraction: float, stage: str) -> None:
        if stage not in ("report", "done"):
            self.stages.append(stage)
        self.progress(fraction, stage)

    def smoothed(self, clip: Clip, method: SmoothMethod, window_s: float, ratio: float) -> Clip:
        if method == "savgol":
            return smooth_mod.motion(clip, "savgol", window_s=window_s)[0]
        out, cutoff = smooth_mod.motion(clip, "butterworth", cutoff_ratio=ratio)
        if math.isnan(cutoff):
            self.warnings.append("clip too short to find its dominant frequency: not smoothed")
        else:
            self.cutoff_hz = cutoff
        return out

    def finish(
        self,
        work: Clip,
        found: contacts_mod.Contacts,
        roles: JointRoles,
        before: Clip,
        changed_threshold_m: float,
    ) -> CleanReport:
        after = fk.positions(work)
        kept = self.clip.with_arrays(
            self.clip.rotations[self.leading :], self.clip.translations[self.leading :]
        )
        reference = fk.positions(_reference(kept, work.fps))
        moved = np.linalg.norm(after - reference, axis=-1)
        legs = _leg_joints(work.skeleton.parents, roles)
        floor = found.floor_m if math.isfinite(found.floor_m) else None
        raw = measures.measure(before, roles, floor_m=floor)
        self.warnings.extend(_contact_warnings(found, roles))
        return CleanReport(
            fps_in=self.clip.fps,
            fps_out=work.fps,
            frames_in=self.clip.num_frames,
            frames_out=work.num_frames,
            stages=tuple(self.stages),
            outlier_samples=self.outlier_samples,
            butterworth_cutoff_hz=self.cutoff_hz,
            contact_frames={f.side: f.frames for f in found.feet},
            contact_segments={f.side: contacts_mod.segments(f.contact) for f in found.feet},
            floor_m=floor,
            steps=tuple(step.as_dict() for step in found.steps()),
            measures_before=raw.as_dict(),
            measures_after=measures.measure(
                work, roles, floor_m=floor, feet=raw.geometry
            ).as_dict(),
            frames_changed=int(np.count_nonzero(np.any(moved > changed_threshold_m, axis=1))),
            rms_change_cm={"non_leg": _rms_cm(moved[:, ~legs]), "legs": _rms_cm(moved[:, legs])},
            parameters=self.parameters,
            warnings=tuple(self.warnings),
            leading_frames_dropped=self.leading,
        )


def _contact_warnings(found: contacts_mod.Contacts, roles: JointRoles) -> list[str]:
    """What the contacts could not do, in words."""
    if not found.feet:
        return ["no foot joints resolved: contacts and foot skate skipped"]
    out = []
    for foot in found.feet:
        if foot.frames == 0:
            out.append(f"{foot.side} foot: no contact frames found")
        elif None in (roles.get(f"{foot.side}_upper_leg"), roles.get(f"{foot.side}_lower_leg")):
            out.append(f"{foot.side} leg: joints unresolved, its skate is not cleaned")
    return out


def _reference(clip: Clip, fps: float) -> Clip:
    """The input at the output rate, nothing else changed."""
    return clip if math.isclose(fps, clip.fps) else resample.resample(clip, fps)


def _leg_joints(parents: NDArray[np.integer], roles: JointRoles) -> NDArray[np.bool_]:
    """``[J]`` true for the descendants of either upper leg (the upper legs excluded)."""
    tops = [j for j in (roles.get("left_upper_leg"), roles.get("right_upper_leg")) if j is not None]
    legs = np.zeros(len(parents), dtype=bool)
    for j, p in enumerate(np.asarray(parents)):  # parents precede children
        legs[j] = p >= 0 and (bool(legs[p]) or int(p) in tops)
    return legs


def _rms_cm(moved: FloatArray) -> float:
    """Root mean square of displacements (metres) in centimetres; 0 when empty."""
    return float(np.sqrt(np.mean(moved**2)) * 100.0) if moved.size else 0.0


def _silent(fraction: float, stage: str) -> None:
    """The default progress callback: ignore."""
