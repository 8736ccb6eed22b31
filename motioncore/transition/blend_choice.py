"""How long, and how, to blend a join: chosen from the mismatch at the chosen pair.

Seed 000 §5.2 crossfades 0.12 s because at an MTP cut the momentum is already
continuous (§4.2: "no long blend needed", the traditional 0.25 s would only lose
speed); §6.2 says a near-180° reversal needs a longer blend. So the length grows
with what the blend must hide, between bounds the user can set.

Inputs (all measured at the chosen cut and entry, before any blending):
``pose_m`` the RMS heading-frame joint distance, ``velocity_jump_m_per_s`` the
distance between the two heading-frame COM velocities, ``angle_deg`` the angle
between them (``None`` when either is near rest).

**Length** ``T`` (seconds): the longest of

* :data:`BASE_S` (0.12 s, §5.2);
* the pose term ``1.5 · pose_m / POSE_SPEED_M_PER_S``: a smoothstep blend of a
  distance ``d`` over ``T`` moves at most ``1.5 d / T`` on top of the motion, and that
  added speed is kept under 1.5 m/s (ours: under a walking hand's 2–3 m/s swing);
* the velocity term ``1.5 · velocity_jump / ACCELERATION_M_PER_S2``: the COM's velocity
  changes by the jump over the blend, at a peak acceleration of ``1.5 Δv / T`` kept
  under 4 m/s² (ours: a walker's horizontal COM acceleration reaches 2–3 m/s², a
  sprint start about 4);
* :data:`REVERSAL_S` (0.25 s, §4.2's traditional length) when the velocities are at
  least :data:`REVERSAL_DEG` apart (§6.2);

clamped to the bounds (:data:`motioncore.parameters.BLEND_MIN_S`, ``BLEND_MAX_S``).
A length the user gives is used as it is.

**Kind**: inertialization (:func:`motioncore.transition.blend.inertialize`) when A
ends within the blend — a crossfade plays A on past the cut and would hold A's last
frame, a stop in mid-blend — and otherwise the one the velocity and pose mismatch
favour: a crossfade mixes A's continuing motion into B's, so a large velocity jump
is spread over both clips' motion; inertialization plays B at once and carries A's
pose and velocity offset away, which keeps B's footwork (and A's momentum) but
overshoots when the velocity offset is large against the pose offset (its offsets
decay per component, :mod:`motioncore.transition.blend`). It is chosen while the
velocity jump stays under :data:`INERTIALIZE_MAX_JUMP_M_PER_S`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from motioncore.errors import MotionCoreError
from motioncore.transition.blend import Method

BlendRequest = Literal["auto", "crossfade", "inertialize"]
BASE_S = 0.12
"""Seed 000 §5.2's blend when momentum is continuous, seconds."""
POSE_SPEED_M_PER_S = 1.5
"""Largest RMS joint speed the blend adds to hide the pose jump, m/s (ours)."""
ACCELERATION_M_PER_S2 = 4.0
"""Largest COM acceleration the blend uses to absorb the velocity jump, m/s² (ours)."""
REVERSAL_DEG = 150.0
"""Velocities this far apart are a reversal (seed 000 §6.2: near 180°)."""
REVERSAL_S = 0.25
"""Shortest blend of a reversal, seconds (seed 000 §4.2's traditional length)."""
INERTIALIZE_MAX_JUMP_M_PER_S = 0.5
"""Velocity jump up to which inertialization is chosen (m/s, ours)."""
SMOOTHSTEP_PEAK = 1.5
"""Peak slope of ``3s² - 2s³`` on ``[0, 1]``: the blend's fastest change per unit."""


@dataclass(frozen=True)
class BlendBounds:
    """Shortest and longest blend the automatic choice may pick, seconds."""

    minimum_s: float
    maximum_s: float

    def __post_init__(self) -> None:
        if not 0.0 <= self.minimum_s <= self.maximum_s:
            raise MotionCoreError(
                f"blend bounds must satisfy 0 <= minimum <= maximum, got "
                f"{self.minimum_s} and {self.maximum_s} s"
            )


@dataclass(frozen=True)
class BlendChoice:
    """The blend of one join: ``method``, ``blend_s`` (seconds), whether each was chosen
    (``automatic_*``) and ``reason``: the term that set the length, in words."""

    method: Method
    blend_s: float
    reason: str
    automatic_method: bool
    automatic_length: bool

    def as_dict(self) -> dict[str, Any]:
        """``{"method", "blend_s", "reason", "automatic_method", "automatic_length"}``."""
        return dict(self.__dict__)


def length_s(
    pose_m: float, velocity_jump_m_per_s: float, angle_deg: float | None, bounds: BlendBounds
) -> tuple[float, str]:
    """The automatic blend length (seconds, module docstring) and the term that set it."""
    terms = {
        f"the base length {BASE_S:g} s": BASE_S,
        f"pose jump {pose_m:.3f} m": SMOOTHSTEP_PEAK * pose_m / POSE_SPEED_M_PER_S,
        f"velocity jump {velocity_jump_m_per_s:.2f} m/s": SMOOTHSTEP_PEAK
        * velocity_jump_m_per_s
        / ACCELERATION_M_PER_S2,
    }
    if angle_deg is not None and angle_deg >= REVERSAL_DEG:
        terms[f"reversal ({angle_deg:.0f}°)"] = REVERSAL_S
    reason, wanted = max(terms.items(), key=lambda item: item[1])
    chosen = min(max(wanted, bounds.minimum_s), bounds.maximum_s)
    if chosen != wanted:
        side = "shortest" if chosen > wanted else "longest"
        reason = f"{reason} (wants {wanted:.3f} s; the {side} allowed is {chosen:g} s)"
    return chosen, reason


def method_for(
    velocity_jump_m_per_s: float, blend_frames: int, frames_after_cut: int
) -> tuple[Method, str]:
    """The automatic blend kind (module docstring) and why."""
    if frames_after_cut < blend_frames:
        return "inertialize", f"A ends {frames_after_cut} frames after the cut, within the blend"
    if velocity_jump_m_per_s <= INERTIALIZE_MAX_JUMP_M_PER_S:
        return "inertialize", f"velocity jump {velocity_jump_m_per_s:.2f} m/s is small"
    return "crossfade", f"velocity jump {velocity_jump_m_per_s:.2f} m/s is spread over both clips"


def choose(
    *,
    pose_m: float,
    velocity_jump_m_per_s: float,
    angle_deg: float | None,
    frames_after_cut: int,
    fps: float,
    bounds: BlendBounds,
    method: BlendRequest = "auto",
    blend_s: float | None = None,
) -> BlendChoice:
    """The blend of one join: the given ``method`` and ``blend_s`` where set, else chosen.

    Args:
        pose_m, velocity_jump_m_per_s, angle_deg: the mismatch at the chosen pair.
        frames_after_cut: how many frames A has after the cut frame.
        fps: the frame rate, Hz.
        bounds: the automatic length's bounds.
        method: ``"auto"`` or a blend kind.
        blend_s: a fixed length (seconds) or ``None`` for the automatic one.
    """
    if blend_s is None:
        seconds, why_long = length_s(pose_m, velocity_jump_m_per_s, angle_deg, bounds)
    else:
        seconds, why_long = blend_s, "the length given"
    if method == "auto":
        kind, why_kind = method_for(velocity_jump_m_per_s, round(seconds * fps), frames_after_cut)
    else:
        kind, why_kind = method, "the kind given"
    return BlendChoice(
        kind, seconds, f"{why_long}; {kind}: {why_kind}", method == "auto", blend_s is None
    )
