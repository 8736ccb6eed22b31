"""The motion a clip may hold: :class:`motioncore.bvh.Limits` from the settings.

Uploads are parsed with these limits (a file over one is refused with 413 before its
frames are read) and so is every run's ``ingest``, so a limit lowered later stops runs on
clips it no longer allows, with the reason. ``docs/platform.md`` → Operations lists them.
"""

from __future__ import annotations

from django.conf import settings

from motioncore import bvh

SETTINGS = {
    "max_frames": "KINETOGRAPH_MAX_FRAMES",
    "max_duration_s": "KINETOGRAPH_MAX_DURATION_S",
    "max_joints": "KINETOGRAPH_MAX_JOINTS",
    "max_depth": "KINETOGRAPH_MAX_DEPTH",
    "max_frame_joints": "KINETOGRAPH_MAX_FRAME_JOINTS",
}
"""The environment variable that sets each limit (named in the error a user sees)."""


def motion_limits() -> bvh.Limits:
    """The limits of this deployment."""
    return bvh.Limits(
        max_frames=settings.MOTION_MAX_FRAMES,
        max_duration_s=float(settings.MOTION_MAX_DURATION_S),
        max_joints=settings.MOTION_MAX_JOINTS,
        max_depth=settings.MOTION_MAX_DEPTH,
        max_frame_joints=settings.MOTION_MAX_FRAME_JOINTS,
    )
