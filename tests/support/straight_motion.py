"""Straight-line motions of the tiny humanoid for transition tests: the rest pose carried
along +Z (its facing) at a given position per frame."""

from __future__ import annotations

import numpy as np

from motioncore import quat
from motioncore.clip import Clip
from support.humanoid import tiny_humanoid

FPS = 60.0
LEFT_KNEE = 14
SKELETON = tiny_humanoid()
X = np.array([1.0, 0.0, 0.0])


def rigid(z: np.ndarray, *, knee_rad: np.ndarray | float = 0.0, fps: float = FPS) -> Clip:
    """The rest pose (left knee bent by ``knee_rad``) carried along +Z (its facing) to ``z [F]``."""
    frames = z.shape[0]
    translations = np.broadcast_to(SKELETON.offsets, (frames, SKELETON.num_joints, 3)).copy()
    translations[:, 0, 2] = z
    rotations = quat.identity((frames, SKELETON.num_joints))
    knee = np.broadcast_to(np.asarray(knee_rad, dtype=np.float64), (frames,))
    rotations[:, LEFT_KNEE] = quat.from_axis_angle(np.broadcast_to(X, (frames, 3)), knee)
    return Clip(SKELETON, rotations, translations, fps)


def sine_bell(frames: int = 121, peak_m_per_s: float = 1.5) -> Clip:
    """A: from rest to rest, speed ``peak · sin(π t / T)`` along +Z (T = the clip's length)."""
    t = np.arange(frames) / FPS
    duration = t[-1]
    return rigid(peak_m_per_s * duration / np.pi * (1.0 - np.cos(np.pi * t / duration)))


def ramp(frames: int = 121, accel: float = 2.0, **kwargs: object) -> Clip:
    """B: starts at rest and accelerates along +Z (negative ``accel``: backwards)."""
    t = np.arange(frames) / FPS
    return rigid(0.5 * accel * t**2, **kwargs)  # type: ignore[arg-type]
