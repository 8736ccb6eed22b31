"""How good a transition is: seed 000 §6.1's metrics, foot skate and pose discontinuity.

Measured on the produced transition clip (:class:`motioncore.transition.blend.BlendResult`),
with A's own curves for the state before the switch. Notation: ``v`` COM velocity
(world, m/s), ``E`` translational kinetic energy per kg (J/kg,
:func:`motioncore.analysis.momentum.measure`); the *switch* is output frames
``cut … blend_stop`` (the blend window and the first frame after it); ``peak`` is
A's fastest frame (the peak of its strongest motion unit), one reference for
every cut method of a pair so that their numbers compare.

* ``velocity_continuity = |v_join - v_before| / max(½(|v_before| + |v_join|), 0.05)``
  with ``v_before`` = A at the cut and ``v_join`` = aligned B at the entry: the
  state the switch leaves and the state it joins (§6.1 "切换前后速度差 / 平均速度";
  ideal < 0.15; the 0.05 m/s floor keeps two near-rests from dividing by
  nothing). Not the output at the end of the blend: over 0.12 s a walking body's
  COM speed changes by itself by up to a third (Bandai walks), which is B's
  motion, not the switch's fault; what the blend does is measured by the
  retention, energy, skate and acceleration metrics on the output.
* ``momentum_retention = min |v_out| over the switch / |v_A(peak)|``: how much of
  A's momentum survives the switch (§6.1 "切换后速度 / 切换前速度", 0.6–0.9). A clip
  that ends at rest scores ≈ 0 at its end (§6.3's "终点切换 ≈ 0"), whatever B does.
* ``energy_loss = (E_A(peak) - min E_out over the switch) / E_A(peak)`` (§6.1
  "切换前后动能差 / 切换前动能", ideal < 0.4).
* Both are ``None``, and ``unmeasured`` says why, when A's fastest COM speed is
  under :data:`MIN_MOMENTUM_M_PER_S`: a clip that never builds momentum has none
  to keep.
* ``foot_slide_mps``: the worse foot's mean slide while planted (m/s,
  :mod:`motioncore.measures`, independent of any contact detector) within output
  frames ``[blend_start - m, blend_stop + m]``, ``m = round(0.05 s · fps)``
  (``None`` when no foot is planted there).
* ``pose_discontinuity_m``: RMS heading-frame joint distance between A at the cut
  and B at the entry (:mod:`motioncore.transition.entry`): what the blend must hide.
* ``max_joint_acceleration_m_per_s2``: the largest ``|p[i+1] - 2p[i] + p[i-1]| · fps²``
  over joints and output frames ``blend_start ≤ i ≤ blend_stop``.

The output's velocities are measured on a window around the switch wide enough
that the Savitzky-Golay derivative equals the whole clip's there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from motioncore import fk, measures
from motioncore.analysis import momentum
from motioncore.clip import Clip
from motioncore.skeleton import JointRoles
from motioncore.transition.blend import BlendResult
from motioncore.transition.entry import Features

FloatArray = NDArray[np.float64]
SPEED_FLOOR_M_PER_S = 0.05
SKATE_MARGIN_S = 0.05
MIN_MOMENTUM_M_PER_S = 0.3
"""A's fastest COM speed under this (m/s; ours, the speed under which a body stands
rather than walks) means A never builds momentum: retention and energy loss, both
relative to A's peak, would divide by a sway (an idle A into a walk read 13.6)."""
_WINDOW_MARGIN_S = 0.2


@dataclass(frozen=True)
class Metrics:
    """Seed 000 §6.1 metrics of one transition (definitions in the module docstring)."""

    velocity_continuity: float
    momentum_retention: float | None
    energy_loss: float | None
    foot_slide_mps: float | None
    pose_discontinuity_m: float
    max_joint_acceleration_m_per_s2: float
    cut_frame: int
    entry_frame: int
    unmeasured: str | None = None
    """Why ``momentum_retention`` and ``energy_loss`` are ``None``, in words."""

    def as_dict(self) -> dict[str, Any]:
        """Exactly the nine fields, JSON-able."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class State:
    """The numbers behind :class:`Metrics` (frames of A or of the output, as named).

    Velocities ``[3]`` m/s (world), speeds m/s, energies J/kg, times s.
    """

    peak_frame: int
    peak_time_s: float
    peak_speed_m_per_s: float
    energy_peak_j_per_kg: float
    v_before_m_per_s: FloatArray
    energy_before_j_per_kg: float
    after_frame: int
    after_time_s: float
    v_after_m_per_s: FloatArray
    energy_after_j_per_kg: float
    slowest_frame: int
    speed_min_m_per_s: float
    energy_min_j_per_kg: float
    entry_velocity_m_per_s: FloatArray
    angle_deg: float | None
    blend_start_frame: int
    blend_stop_frame: int
    skate_window: tuple[int, int]

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form (vectors as lists; speeds of the vectors added)."""
        out = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in self.__dict__.items()}
        out["skate_window"] = list(self.skate_window)
        out["speed_before_m_per_s"] = float(np.linalg.norm(self.v_before_m_per_s))
        out["speed_after_m_per_s"] = float(np.linalg.norm(self.v_after_m_per_s))
        return out


def _switch_momentum(out: Clip, start: int, stop: int, roles: JointRoles) -> momentum.Momentum:
    """Momentum of ``out`` over frames ``start … stop`` (inclusive)."""
    margin = round(_WINDOW_MARGIN_S * out.fps) + 3
    lo, hi = max(start - margin, 0), min(stop + margin + 1, out.num_frames)
    window = out.with_arrays(out.rotations[lo:hi], out.translations[lo:hi])
    measured = momentum.measure(window, roles=roles)
    keep = slice(start - lo, stop - lo + 1)
    return replace(
        measured,
        com_velocity=measured.com_velocity[keep],
        speed=measured.speed[keep],
        kinetic_energy=measured.kinetic_energy[keep],
    )


def _slide(out: Clip, roles: JointRoles, window: tuple[int, int]) -> float | None:
    """Foot slide (m/s) of ``out`` within output frames ``window``: the worse foot's mean
    slide while planted (:mod:`motioncore.measures`), ``None`` when no foot is planted."""
    found = measures.measure(out, roles, frames=slice(*window))
    return found.slide_mean_mps


def _max_acceleration(positions: FloatArray, start: int, stop: int, fps: float) -> float:
    frames = np.arange(max(start, 1), min(stop, positions.shape[0] - 2) + 1)
    if frames.size == 0:
        return 0.0
    second = positions[frames + 1] - 2.0 * positions[frames] + positions[frames - 1]
    return float(np.linalg.norm(second, axis=-1).max() * fps * fps)


def angle_deg(u: FloatArray, v: FloatArray) -> float | None:
    """Angle between two velocities, degrees; ``None`` when either is under the speed floor."""
    nu, nv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    if min(nu, nv) < SPEED_FLOOR_M_PER_S:
        return None
    return float(np.degrees(np.arccos(np.clip(np.dot(u, v) / (nu * nv), -1.0, 1.0))))


def _still(peak_speed: float) -> str:
    return (
        f"clip A never builds momentum (its fastest COM speed is {peak_speed:.2f} m/s, "
        f"under {MIN_MOMENTUM_M_PER_S} m/s): there is no momentum to retain or lose"
    )


def _ratio(num: float, den: float) -> float | None:
    return num / den if den > 0.0 else None


def evaluate(fa: Features, fb: Features, res: BlendResult, pose_m: float) -> tuple[Metrics, State]:
    """The metrics of the transition ``res`` from A (``fa``) into B (``fb``); ``pose_m`` is
    the entry's pose distance (:attr:`motioncore.transition.entry.Entry.pose_m`)."""
    out, fps = res.clip, fa.clip.fps
    cut, last = res.cut, out.num_frames - 1
    after = min(res.blend_stop, last)
    peak = int(np.argmax(fa.momentum.speed))
    switch = _switch_momentum(out, cut, after, fa.roles)
    slowest = int(np.argmin(switch.speed))
    v_before, v_after = fa.momentum.com_velocity[cut], switch.com_velocity[-1]
    peak_speed = float(fa.momentum.speed[peak])
    moves = peak_speed >= MIN_MOMENTUM_M_PER_S
    e_peak = float(fa.momentum.kinetic_energy[peak])
    e_min = float(switch.kinetic_energy.min())
    s_before = float(np.linalg.norm(v_before))
    positions = fk.positions(out)
    margin = round(SKATE_MARGIN_S * fps)
    window = (max(res.blend_start - margin, 0), min(res.blend_stop + margin + 1, last + 1))
    v_entry = res.alignment.vectors(fb.momentum.com_velocity[res.entry])
    s_join = float(np.linalg.norm(v_entry))
    metrics = Metrics(
        velocity_continuity=float(np.linalg.norm(v_entry - v_before))
        / max(0.5 * (s_before + s_join), SPEED_FLOOR_M_PER_S),
        momentum_retention=_ratio(float(switch.speed[slowest]), peak_speed) if moves else None,
        energy_loss=_ratio(e_peak - e_min, e_peak) if moves else None,
        foot_slide_mps=_slide(out, fa.roles, window),
        pose_discontinuity_m=pose_m,
        max_joint_acceleration_m_per_s2=_max_acceleration(
            positions, res.blend_start, res.blend_stop, fps
        ),
        cut_frame=cut,
        entry_frame=res.entry,
        unmeasured=None if moves else _still(peak_speed),
    )
    state = State(
        peak_frame=peak,
        peak_time_s=peak / fps,
        peak_speed_m_per_s=peak_speed,
        energy_peak_j_per_kg=e_peak,
        v_before_m_per_s=v_before,
        energy_before_j_per_kg=float(fa.momentum.kinetic_energy[cut]),
        after_frame=after,
        after_time_s=after / fps,
        v_after_m_per_s=v_after,
        energy_after_j_per_kg=float(switch.kinetic_energy[-1]),
        slowest_frame=cut + slowest,
        speed_min_m_per_s=float(switch.speed[slowest]),
        energy_min_j_per_kg=e_min,
        entry_velocity_m_per_s=v_entry,
        angle_deg=angle_deg(v_before, v_entry),
        blend_start_frame=res.blend_start,
        blend_stop_frame=res.blend_stop,
        skate_window=window,
    )
    return metrics, state
