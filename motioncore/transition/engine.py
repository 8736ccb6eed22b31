"""Game-engine settings that reproduce a transition (seed 000 §4.2).

§4.2 keeps Unity's *Has Exit Time* on, moves *Exit Time* from 1.0 to 0.6–0.75
and shortens *Transition Duration* from 0.25 s to 0.1–0.15 s; in Unreal the
same cut is a state's *Automatic Rule* and the transition's *Blend Duration*.

How the engines read these (checked against their documentation):

* Unity ``AnimatorStateTransition``: ``exitTime`` is the source state's
  normalised time at which the transition may start (0.75 = 75 % played);
  ``duration`` is in seconds when ``hasFixedDuration`` is true; ``offset`` is the
  normalised time at which the destination state starts playing. Normalised
  time is ``t / length`` with ``length = (F - 1) / fps`` for an ``F``-frame clip.
* Unreal ``AnimStateTransitionNode``: with ``bAutomaticRuleBasedOnSequencePlayerInState``
  and ``AutomaticRuleTriggerTime ≥ 0`` the transition fires that many seconds
  before the end of the source state's sequence player; ``CrossfadeDuration`` is
  the blend (seconds); the destination Sequence Player's *Start Position* is in
  seconds.

Frames are the transition's (:mod:`motioncore.transition`); ``fps`` in Hz.
"""

from __future__ import annotations

from typing import Any

from motioncore.errors import MotionCoreError

EXIT_TIME_BAND = (0.6, 0.75)
"""Seed 000 §4.2's recommended Exit Time."""
TRANSITION_DURATION_BAND_S = (0.1, 0.15)
"""Seed 000 §4.2's recommended Transition Duration, seconds."""


def _check(frame: int, frames: int, name: str) -> None:
    if frames < 2 or not 0 <= frame < frames:
        raise MotionCoreError(f"{name} frame {frame} must lie in a clip of 2+ frames ({frames})")


def _notes(exit_time: float, blend_s: float) -> list[str]:
    lo, hi = EXIT_TIME_BAND
    notes = []
    if not lo <= exit_time <= hi:
        notes.append(
            f"exit_time {exit_time:.3f} is outside seed 000 §4.2's {lo}-{hi} band "
            "(the cut is not in the transition phase of a single-unit clip)"
        )
    lo, hi = TRANSITION_DURATION_BAND_S
    if not lo <= blend_s <= hi:
        notes.append(f"transition_duration {blend_s:g} s is outside §4.2's {lo}-{hi} s band")
    return notes


def parameters(
    cut_frame: int, a_frames: int, entry_frame: int, b_frames: int, fps: float, blend_s: float
) -> dict[str, Any]:
    """Unity and Unreal settings that cut A at ``cut_frame`` into B at ``entry_frame``.

    Args:
        cut_frame: A's cut frame, ``0 ≤ cut_frame < a_frames``.
        a_frames: A's frame count ``F_A`` (≥ 2).
        entry_frame: B's entry frame, ``0 ≤ entry_frame < b_frames``.
        b_frames: B's frame count ``F_B`` (≥ 2), at the same ``fps``.
        fps: frame rate, Hz.
        blend_s: blend length, seconds.

    Returns:
        ``{"unity": {"has_exit_time", "exit_time", "transition_duration", "fixed_duration",
        "transition_offset"}, "unreal": {"blend_duration_s",
        "automatic_rule_time_remaining_s", "start_position_s"}, "notes": [...]}``;
        ``exit_time = cut / (F_A - 1)``, ``transition_offset = entry / (F_B - 1)``,
        ``automatic_rule_time_remaining_s = (F_A - 1 - cut) / fps`` (Unreal's
        *Automatic Rule Trigger Time*), ``start_position_s = entry / fps``.
        ``notes`` warns when values leave seed 000 §4.2's bands.

    Raises:
        MotionCoreError: frames out of range, ``fps ≤ 0`` or ``blend_s < 0``.
    """
    _check(cut_frame, a_frames, "cut")
    _check(entry_frame, b_frames, "entry")
    if not fps > 0.0 or not blend_s >= 0.0:
        raise MotionCoreError(f"need fps > 0 and blend_s >= 0, got {fps!r}, {blend_s!r}")
    exit_time = cut_frame / (a_frames - 1)
    return {
        "unity": {
            "has_exit_time": True,
            "exit_time": exit_time,
            "transition_duration": float(blend_s),
            "fixed_duration": True,
            "transition_offset": entry_frame / (b_frames - 1),
        },
        "unreal": {
            "blend_duration_s": float(blend_s),
            "automatic_rule_time_remaining_s": (a_frames - 1 - cut_frame) / fps,
            "start_position_s": entry_frame / fps,
        },
        "notes": _notes(exit_time, blend_s),
    }
