"""Phase and momentum analysis of one clip: curves, motion units, four phases, gait, MTP cuts.

Two steps, so that changing α, θ_max or the momentum measure is cheap:

1. :func:`features` (the expensive part, once per clip): forward kinematics,
   momentum curves (:mod:`motioncore.analysis.momentum`), the root heading, foot contacts
   and the gait phase (:mod:`motioncore.analysis.gait`). :class:`Features` saves to and
   loads from an ``.npz`` (the web stores it as an artifact).
2. :func:`analyze` (milliseconds): the curve of the chosen measure (seed 000
   §3.3), motion units and the four phases of §2.3 (:mod:`motioncore.analysis.phases`),
   the MTP test of §3.1 (:mod:`motioncore.analysis.mtp`), and the cut points: for a
   periodic motion the frames at the chosen cut's gait phase in every cycle
   (§6.2: "周期运动 ... 切点应选在相位对齐点"), otherwise the single MTP.

Direction (§3.1 condition 2) needs the next clip: ``next_features`` gives its
initial velocity (COM, mean over its first :data:`INITIAL_WINDOW_S`), turned into
its own heading frame and then into each frame's heading of this clip, as a
transition that aligns headings (:mod:`motioncore.transition.blend`) would see it. Without
it the condition is skipped and reported as skipped.

Units: metres, seconds, radians (degrees where the key says ``_deg``), Y up.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from motioncore import fk, quat
from motioncore.analysis import gait, momentum, mtp, phases
from motioncore.clip import Clip
from motioncore.contacts import detect as detect_contacts
from motioncore.contacts import segments
from motioncore.errors import MotionCoreError
from motioncore.parameters import ALPHA, DEFAULT_MEASURE, THETA_MAX_DEG, Measure
from motioncore.skeleton import JointRoles, facing, infer

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]

INITIAL_WINDOW_S = 0.1
"""The next clip's "initial velocity" is its mean COM velocity over this many seconds (ours)."""

STEADY_RATIO = 0.9
"""phases.label's steady threshold (fraction of the unit's peak), raised to α when higher."""

MIN_FRAMES = 3
"""Fewer frames have no acceleration to test (seed 000 §3.1 condition 3)."""

CURVE_UNITS: dict[str, str] = {"speed": "m/s", "energy": "J/kg", "pca": "m/s"}
_CURVE_DECIMALS = 5


@dataclass(frozen=True, eq=False)
class Features:
    """What :func:`analyze` needs, computed once per clip (see the module docstring).

    Attributes:
        fps: frame rate, Hz.
        speed: ``[F]`` COM speed, m/s.
        energy: ``[F]`` translational kinetic energy, J/kg.
        pca: ``[F]`` first principal component of the joint velocities, m/s.
        com_velocity: ``[F, 3]`` COM velocity, m/s, world frame.
        heading: ``[F]`` root heading (yaw about +Y), radians
            (:func:`motioncore.skeleton.facing.heading`).
        gait_phase: ``[F]`` gait phase φ in [0, 2π), nan where undefined.
        gait: the gait summary (:meth:`motioncore.analysis.gait.Gait.as_dict` without the
            per-frame phase, which is ``gait_phase``).
        contacts: foot side -> ``[start, stop)`` frame runs of ground contact
            (:func:`motioncore.contacts.detect`); empty for features saved before.
    """

    fps: float
    speed: FloatArray
    energy: FloatArray
    pca: FloatArray
    com_velocity: FloatArray
    heading: FloatArray
    gait_phase: FloatArray
    gait: dict[str, Any]
    contacts: dict[str, list[list[int]]] = field(default_factory=dict)

    @property
    def num_frames(self) -> int:
        """``F``."""
        return int(self.speed.shape[0])

    def curve(self, measure: Measure) -> FloatArray:
        """The ``[F]`` momentum measure ``measure``: speed, energy, or the magnitude of the
        PCA projection (a signed projection has no retention ratio)."""
        curves = {"speed": self.speed, "energy": self.energy, "pca": np.abs(self.pca)}
        if measure not in curves:
            raise ValueError(f"unknown momentum measure {measure!r}: use speed, energy or pca")
        return np.asarray(curves[measure], dtype=np.float64)

    def initial_velocity_local(self) -> FloatArray:
        """``[3]`` mean COM velocity over the first :data:`INITIAL_WINDOW_S`, m/s, in the
        heading frame of the first frame."""
        n = max(1, min(self.num_frames, round(INITIAL_WINDOW_S * self.fps)))
        v = self.com_velocity[:n].mean(axis=0)
        return np.asarray(quat.rotate(facing.yaw(-self.heading[0]), v), dtype=np.float64)

    def to_npz(self) -> bytes:
        """The features as ``.npz`` bytes (:meth:`from_npz` reads them back)."""
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer,
            fps=np.array(self.fps),
            speed=self.speed,
            energy=self.energy,
            pca=self.pca,
            com_velocity=self.com_velocity,
            heading=self.heading,
            gait_phase=self.gait_phase,
            gait=np.array(json.dumps(self.gait)),
            contacts=np.array(json.dumps(self.contacts)),
        )
        return buffer.getvalue()

    @classmethod
    def from_npz(cls, data: bytes) -> Features:
        """Features saved by :meth:`to_npz`."""
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            return cls(
                fps=float(z["fps"]),
                speed=z["speed"],
                energy=z["energy"],
                pca=z["pca"],
                com_velocity=z["com_velocity"],
                heading=z["heading"],
                gait_phase=z["gait_phase"],
                gait=json.loads(str(z["gait"])),
                contacts=json.loads(str(z["contacts"])) if "contacts" in z.files else {},
            )


def features(clip: Clip, roles: JointRoles | None = None) -> Features:
    """The analysis features of ``clip`` (roles inferred when ``None``).

    Raises:
        SkeletonError: the rig has no body segment to weigh (not a humanoid).
        MotionCoreError: fewer than :data:`MIN_FRAMES` frames.
    """
    if clip.num_frames < MIN_FRAMES:
        raise MotionCoreError(
            f"a clip needs at least {MIN_FRAMES} frames to be analysed; this one has "
            f"{clip.num_frames}"
        )
    roles = infer(clip.skeleton) if roles is None else roles
    g_quat, positions = fk.forward(clip.rotations, clip.translations, clip.skeleton.parents)
    motion = momentum.measure(clip, roles=roles)
    root = facing.reference_joint(clip.skeleton, roles)
    contacts = detect_contacts(clip, roles, positions=positions)
    walk = gait.analyze(clip, roles=roles, contacts=contacts, positions=positions)
    return Features(
        fps=clip.fps,
        speed=motion.speed,
        energy=motion.kinetic_energy,
        pca=motion.pca,
        com_velocity=motion.com_velocity,
        heading=facing.heading(g_quat[:, root], facing.forward_axis(clip.skeleton, roles)),
        gait_phase=walk.phase,
        gait={k: v for k, v in walk.as_dict().items() if k != "phase_rad"},  # per frame: curves
        contacts={foot.side: [list(r) for r in segments(foot.contact)] for foot in contacts.feet},
    )


@dataclass(frozen=True, eq=False)
class Analysis:
    """The analysis at one set of parameters.

    Attributes:
        features: what it was computed from.
        measure: the momentum measure.
        mtp: the per-frame MTP test (candidates, breakdowns, chosen cut).
        labels: motion units and four-phase labels of the curve.
        cuts: ``[K]`` recommended cut frames (phase-aligned for periodic motion).
        cut_strategy: ``"phase_aligned"``, ``"mtp"`` or ``"none"``.
        cut_phase: the gait phase (radians) of the phase-aligned cuts, else ``None``.
        next_local: ``[3]`` the next clip's initial velocity in its heading frame, m/s
            (:meth:`Features.initial_velocity_local`), ``None`` without a next clip.
    """

    features: Features
    measure: Measure
    mtp: mtp.MTPResult
    labels: phases.PhaseLabels
    cuts: IntArray
    cut_strategy: str
    cut_phase: float | None
    next_local: FloatArray | None = None

    def as_dict(self, *, curves: bool = True) -> dict[str, Any]:
        """The stable JSON form (``docs/analysis.md``); ``curves`` adds the per-frame curves."""
        f = self.features
        result = self.mtp.as_dict()
        out: dict[str, Any] = {
            "fps": f.fps,
            "frames": f.num_frames,
            "duration_s": (f.num_frames - 1) / f.fps,
            "parameters": {
                "alpha": self.mtp.alpha,
                "theta_max_deg": self.mtp.theta_max_deg,
                "measure": self.measure,
                "curve_unit": CURVE_UNITS[self.measure],
                "direction_checked": self.mtp.direction_checked,
                "next_velocity_local_m_per_s": (
                    None if self.next_local is None else self.next_local.tolist()
                ),
            },
            "units": [u.as_dict() for u in self.labels.units],
            "phases": self.labels.as_dict(),
            "gait": f.gait,
            "candidates": result["candidates"],
            "best": result["best"],
            "reason": result["reason"],
            "recommendation": result["recommendation"],
            "frames_passing": result["frames_passing"],
            "cuts": {
                "strategy": self.cut_strategy,
                "frames": self.cuts.tolist(),
                "times_s": (self.cuts / f.fps).tolist(),
                "gait_phase_rad": self.cut_phase,
            },
        }
        if curves:
            out["curves"] = _curves(f)
        return out


def _curves(f: Features) -> dict[str, Any]:
    """Per-frame curves for the viewer: what the browser re-scores candidates from."""

    def rounded(x: FloatArray) -> list[Any]:
        values: list[Any] = np.round(x, _CURVE_DECIMALS).tolist()
        return values

    phase = np.round(f.gait_phase, _CURVE_DECIMALS)
    return {
        "speed_m_per_s": rounded(f.speed),
        "energy_j_per_kg": rounded(f.energy),
        "pca_m_per_s": rounded(f.pca),
        "gait_phase_rad": [None if np.isnan(p) else float(p) for p in phase],
        "com_velocity_m_per_s": rounded(f.com_velocity.ravel()),
        "heading_rad": rounded(f.heading),
        "contacts": f.contacts,
    }


def analyze(
    feats: Features,
    *,
    alpha: float = ALPHA.default,
    theta_max_deg: float = THETA_MAX_DEG.default,
    measure: Measure = DEFAULT_MEASURE,
    next_features: Features | None = None,
) -> Analysis:
    """Units, phases, MTP candidates and cut points of a clip at these parameters.

    Args:
        feats: the clip's :func:`features`.
        alpha: momentum retention against the motion unit's peak (§3.1: 0.5–0.7).
        theta_max_deg: largest angle to the next clip's initial velocity, degrees.
        measure: momentum measure, ``speed`` | ``energy`` | ``pca`` (§3.3).
        next_features: the next clip's features; ``None`` skips the direction test.
    """
    curve = feats.curve(measure)
    next_velocity, local = None, None
    if next_features is not None:
        local = next_features.initial_velocity_local()
        next_velocity = quat.rotate(facing.yaw(feats.heading), local)
    result = mtp.detect(
        curve,
        feats.com_velocity,
        feats.fps,
        alpha=alpha,
        theta_max_deg=theta_max_deg,
        next_velocity=next_velocity,
        min_peak=momentum.MIN_PEAK[measure],
    )
    # steady means near the peak (0.9 of it), and never below α (phases.label needs it)
    steady = max(STEADY_RATIO, alpha)
    labels = phases.label(curve, feats.fps, alpha=alpha, steady_ratio=steady)
    cuts, strategy, phase = _cuts(feats, result)
    return Analysis(feats, measure, result, labels, cuts, strategy, phase, local)


def _cuts(feats: Features, result: mtp.MTPResult) -> tuple[IntArray, str, float | None]:
    """Phase-aligned cuts for a periodic motion, else the single MTP (§6.2).

    The target phase is the chosen cut's; when the gait phase is undefined there
    (before the first or after the last foot strike), the same rule as the
    detector's choice (the last candidate of the strongest motion unit) is applied
    to the candidates whose phase is defined.
    """
    best = result.best_frame
    if best < 0:
        return np.zeros(0, dtype=np.intp), "none", None
    phase = feats.gait_phase
    if feats.gait.get("periodic"):
        defined = result.order[np.isfinite(phase[result.order])]
        if defined.size:
            reference = best if np.isfinite(phase[best]) else _strongest_last(result, defined)
            frames = gait.aligned_frames(phase, float(phase[reference]))
            return np.asarray(frames, dtype=np.intp), "phase_aligned", float(phase[reference])
    return np.array([best], dtype=np.intp), "mtp", None


def _strongest_last(result: mtp.MTPResult, candidates: IntArray) -> int:
    """The last of ``candidates`` in the motion unit with the highest peak among theirs."""
    peaks = result.peak_frame[candidates]
    strongest = peaks[np.argmax(result.curve[peaks])]
    return int(candidates[peaks == strongest].max())
