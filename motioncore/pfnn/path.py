"""A path on the ground for the PFNN to walk (:mod:`motioncore.pfnn.generate`): a
polyline of (x, z) points in metres, its arc lengths, points along it and the distance
of a point to it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from motioncore.errors import MotionCoreError

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Path:
    """A polyline on the ground ``[P, 2]`` (x, z metres), walked from its first point."""

    points: FloatArray

    @classmethod
    def parse(cls, text: str) -> Path:
        """``"x,z;x,z;…"`` (at least two distinct points)."""
        try:
            points = np.array(
                [[float(v) for v in pair.split(",")] for pair in text.split(";") if pair.strip()]
            )
        except ValueError as error:
            raise MotionCoreError(f"a path is 'x,z;x,z;…' in metres: {error}") from None
        return cls.of(points)

    @classmethod
    def of(cls, points: ArrayLike) -> Path:
        pts = np.asarray(points, dtype=np.float64)
        if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) < 2 or not np.isfinite(pts).all():
            raise MotionCoreError("a path needs at least two finite (x, z) points")
        keep = np.concatenate([[True], np.linalg.norm(np.diff(pts, axis=0), axis=1) > 1e-9])
        if keep.sum() < 2:
            raise MotionCoreError("a path needs two distinct points")
        return cls(pts[keep])

    @property
    def lengths(self) -> FloatArray:
        """Cumulative length at each point ``[P]``, metres."""
        return np.concatenate(
            [[0.0], np.cumsum(np.linalg.norm(np.diff(self.points, axis=0), axis=1))]
        )

    @property
    def length_m(self) -> float:
        return float(self.lengths[-1])

    def at(self, s: ArrayLike) -> FloatArray:
        """Points ``[..., 2]`` at arc lengths ``s`` (clamped to the path)."""
        s = np.clip(np.asarray(s, dtype=np.float64), 0.0, self.length_m)
        return np.stack(
            [
                np.interp(s, self.lengths, self.points[:, 0]),
                np.interp(s, self.lengths, self.points[:, 1]),
            ],
            axis=-1,
        )

    def project(self, point: FloatArray) -> tuple[float, float]:
        """(arc length of the nearest point, distance to it) of a ground point."""
        a, b = self.points[:-1], self.points[1:]
        ab = b - a
        t = np.clip(np.sum((point - a) * ab, axis=1) / np.sum(ab * ab, axis=1), 0.0, 1.0)
        nearest = a + t[:, None] * ab
        d = np.linalg.norm(point - nearest, axis=1)
        i = int(np.argmin(d))
        return float(self.lengths[i] + t[i] * np.linalg.norm(ab[i])), float(d[i])

    def rms_m(self, points: FloatArray) -> float:
        """Root mean square distance (m) of ground points ``[F, 2]`` (x, z) to the path."""
        distances = np.array([self.project(p)[1] for p in points])
        return float(np.sqrt(np.mean(distances**2)))
