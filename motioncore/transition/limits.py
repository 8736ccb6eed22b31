"""When a join is good enough to use: stated limits, and the verdict on a transition.

A transition whose best join still misses a limit is not offered silently: its
report says so with the numbers (``verdict``), and the product looks for a bridge
through another clip (:mod:`motioncore.transition.bridge`) or says "no good
transition".

* **velocity continuity** under :data:`CONTINUITY_LIMIT` (seed 000 §6.1's ideal, 0.15):
  the body's velocity must carry across the join;
* **pose jump** (the RMS heading-frame joint distance between A at the cut and B at the
  entry) at most :data:`POSE_LIMIT_M`, 0.2 m (ours): what the longest automatic blend
  hides without the limbs racing — at the blend's 1.5 m/s of added joint speed
  (:mod:`motioncore.transition.blend_choice`) a 0.2 m jump takes 0.2 s; on the report's
  127 same-action pairs (``bench/transition_pairs.csv``) MTP's pose jump has median
  0.108 m and 75th percentile 0.197 m, on the 80 mixed-action pairs 0.255 and 0.395 m.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from motioncore.transition.entry import CONTINUITY_LIMIT
from motioncore.transition.metrics import Metrics

POSE_LIMIT_M = 0.2
"""Largest pose jump (RMS joint distance, metres) a good join may have (ours)."""


@dataclass(frozen=True)
class JoinLimits:
    """The limits a good join meets: velocity continuity below ``continuity``, pose jump
    at most ``pose_m`` metres."""

    continuity: float = CONTINUITY_LIMIT
    pose_m: float = POSE_LIMIT_M

    def misses(self, continuity: float, pose_m: float) -> tuple[str, ...]:
        """Each limit the join misses, in words with its number."""
        out = []
        if not continuity < self.continuity:
            out.append(f"velocity continuity {continuity:.2f} (limit: under {self.continuity:g})")
        if not pose_m <= self.pose_m:
            out.append(f"pose jump {pose_m:.3f} m (limit: {self.pose_m:g} m)")
        return tuple(out)

    def as_dict(self) -> dict[str, float]:
        """``{"continuity", "pose_m"}``."""
        return {"continuity": self.continuity, "pose_m": self.pose_m}


DEFAULT_LIMITS = JoinLimits()


@dataclass(frozen=True)
class Verdict:
    """Whether a join is ``good`` under ``limits``, and what it ``misses`` in words."""

    good: bool
    misses: tuple[str, ...]
    limits: JoinLimits

    def as_dict(self) -> dict[str, Any]:
        """``{"good", "misses", "limits"}``."""
        return {"good": self.good, "misses": list(self.misses), "limits": self.limits.as_dict()}

    def sentence(self) -> str:
        """The verdict as one sentence for a page or a terminal."""
        if self.good:
            return "The join meets the limits."
        return "No good direct transition: " + "; ".join(self.misses) + "."


def verdict(metrics: Metrics, limits: JoinLimits = DEFAULT_LIMITS) -> Verdict:
    """The verdict on one transition's join from its metrics."""
    misses = limits.misses(metrics.velocity_continuity, metrics.pose_discontinuity_m)
    return Verdict(not misses, misses, limits)
