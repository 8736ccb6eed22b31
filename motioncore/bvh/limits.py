"""How much a BVH file may declare: frames, duration, joints, nesting, frames × joints.

The reader checks these as soon as it knows each number (the nesting while parsing
the hierarchy, the rest when it has read ``Frames:`` and ``Frame Time:``), before it
allocates anything for the frames, and raises
:class:`~motioncore.errors.BVHLimitError` naming the limit. The defaults are the
library's: generous, only there so that no file can make the reader allocate without
bound. A service passes tighter ones (``webapp`` reads them from its settings).
"""

from __future__ import annotations

from dataclasses import dataclass

from motioncore.errors import BVHLimitError

MAX_DEPTH = 256
"""The deepest nesting of joint blocks any :class:`Limits` allows (the hierarchy parser
recurses once per level; a real skeleton is under 30 deep)."""


@dataclass(frozen=True)
class Limits:
    """Upper bounds on what a file declares.

    Attributes:
        max_frames: frames (``Frames:``).
        max_duration_s: frames × ``Frame Time``, seconds.
        max_joints: joints, end sites included.
        max_depth: nesting of joint blocks (a root alone is depth 1); at most
            :data:`MAX_DEPTH`.
        max_frame_joints: frames × joints: the size of the ``[F, J, 4]`` rotations.
    """

    max_frames: int = 10_000_000
    max_duration_s: float = 7 * 24 * 3600.0
    max_joints: int = 10_000
    max_depth: int = MAX_DEPTH
    max_frame_joints: int = 200_000_000

    def __post_init__(self) -> None:
        if not 1 <= self.max_depth <= MAX_DEPTH:
            raise ValueError(f"max_depth must be within 1..{MAX_DEPTH}, not {self.max_depth}")
        for name in ("max_frames", "max_duration_s", "max_joints", "max_frame_joints"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, not {getattr(self, name)}")

    def check_motion(self, *, frames: int, frame_time_s: float, joints: int, line: int) -> None:
        """Raise :class:`BVHLimitError` (at ``line``, the ``Frames:`` line) if the motion
        section declares more than allowed."""
        duration_s = frames * frame_time_s
        checks = (
            ("max_frames", frames, self.max_frames, f"{frames} frames", "frames"),
            (
                "max_duration_s",
                duration_s,
                self.max_duration_s,
                f"{duration_s:.1f} s of motion",
                "s",
            ),
            (
                "max_frame_joints",
                frames * joints,
                self.max_frame_joints,
                f"{frames} frames × {joints} joints = {frames * joints} joint poses",
                "joint poses",
            ),
        )
        for limit, value, maximum, what, unit in checks:
            if value > maximum:
                raise BVHLimitError(
                    line,
                    1,
                    f"The file declares {what}; at most {maximum:g} {unit} are allowed.",
                    limit=limit,
                    value=value,
                    maximum=maximum,
                )


DEFAULT = Limits()
"""The library's limits."""
