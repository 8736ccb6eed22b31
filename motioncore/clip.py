"""The canonical clip: a skeleton plus whole-clip arrays.

Shapes: ``F`` frames, ``J`` joints (end effectors included, flagged by
``Skeleton.end_site``). Units: metres, seconds, radians; Y up; quaternions
``(w, x, y, z)``. Rotations and translations are *local* (relative to the
parent joint). ``translations[f, j]`` is the resolved local translation of
joint ``j`` (its OFFSET, or what its position channels say under the file's
convention), so forward kinematics needs nothing else.

Everything needed to write the file back as it came (channel layout, rotation
orders, units, up axis, position-channel conventions) is kept in
:class:`Skeleton` and :class:`SourceFormat`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

PositionMode = Literal["add", "replace"]
"""How a joint's position channels combine with its OFFSET: ``add`` (local
translation = OFFSET + channels) or ``replace`` (local translation = channels)."""

UpAxis = Literal["Y", "Z"]

JointKind = Literal["ROOT", "JOINT", "End Site"]


@dataclass(frozen=True, eq=False)
class Skeleton:
    """A joint hierarchy (a forest when the file has several ``ROOT``\\ s).

    Attributes:
        names: ``[J]`` joint names; end effectors are named ``<parent>_End``
            unless the file names them (``JOINT Site``).
        parents: ``[J]`` parent index, ``-1`` for roots; parents precede children.
        offsets: ``[J, 3]`` rest offsets, metres, in the parent's frame (internal Y-up
            for roots).
        channels: ``[J]`` channel names per joint exactly as in the file
            (``"Xposition"``, ``"Zrotation"``, ...); empty for end effectors.
        kinds: ``[J]`` how the joint was declared: ``ROOT``, ``JOINT`` or ``End Site``.
    """

    names: tuple[str, ...]
    parents: IntArray
    offsets: FloatArray
    channels: tuple[tuple[str, ...], ...]
    kinds: tuple[JointKind, ...]

    @property
    def num_joints(self) -> int:
        """``J``, end effectors included."""
        return len(self.names)

    @property
    def end_site(self) -> NDArray[np.bool_]:
        """``[J]`` true for end effectors (``End Site`` or a channel-less leaf)."""
        leaf = np.ones(self.num_joints, dtype=bool)
        leaf[self.parents[self.parents >= 0]] = False
        declared = np.array([k == "End Site" for k in self.kinds], dtype=bool)
        no_channels = np.array([len(c) == 0 for c in self.channels], dtype=bool)
        end: NDArray[np.bool_] = declared | (leaf & no_channels)
        return end

    @property
    def roots(self) -> IntArray:
        """Indices of the root joints (one per actor)."""
        return np.flatnonzero(self.parents < 0)

    def rotation_order(self, joint: int) -> str:
        """The rotation channels of ``joint`` as an order string (``"ZXY"``; ``""`` if none)."""
        return "".join(c[0].upper() for c in self.channels[joint] if c.lower().endswith("rotation"))

    def position_axes(self, joint: int) -> str:
        """The position channels of ``joint`` as axes (``"XYZ"``; ``""`` if none)."""
        return "".join(c[0].upper() for c in self.channels[joint] if c.lower().endswith("position"))

    def index(self, name: str) -> int:
        """Index of the joint called ``name`` (``KeyError`` if absent)."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(name) from None

    def children(self, joint: int) -> IntArray:
        """Indices of the direct children of ``joint``."""
        return np.flatnonzero(self.parents == joint)

    def descendants(self, joint: int) -> IntArray:
        """Indices of every joint below ``joint`` (children, theirs, …), ascending."""
        inside = np.zeros(len(self.parents), dtype=bool)
        inside[joint] = True
        for j, p in enumerate(self.parents):  # parents precede their children
            if p >= 0 and inside[p]:
                inside[j] = True
        inside[joint] = False
        return np.flatnonzero(inside)


@dataclass(frozen=True)
class SourceFormat:
    """How the source file stored the motion, kept for faithful export.

    Attributes:
        metres_per_unit: scale from file units to metres (0.01 for centimetres).
        unit: the unit name (``m``, ``dm``, ``cm``, ``mm``, ``inch``, ``cmu``).
        up_axis: the file's up axis; ``Z`` files are turned to Y-up on import.
        position_modes: ``[J]`` per-joint convention of its position channels
            (``add`` or ``replace``; meaningless for joints without them).
        float_format: ``printf`` format used when writing channel values.
    """

    metres_per_unit: float = 1.0
    unit: str = "m"
    up_axis: UpAxis = "Y"
    position_modes: tuple[PositionMode, ...] = ()
    float_format: str = "%.9g"


@dataclass(frozen=True, eq=False)
class Clip:
    """A motion clip as whole arrays.

    Attributes:
        skeleton: the hierarchy (``J`` joints).
        rotations: ``[F, J, 4]`` local unit quaternions ``(w, x, y, z)``.
        translations: ``[F, J, 3]`` local translations, metres (parent frame).
        fps: frames per second (``1 / Frame Time``).
        source: how the file stored it (units, up axis, conventions).
        meta: free-form JSON-able notes (file name, warnings, ...).
    """

    skeleton: Skeleton
    rotations: FloatArray
    translations: FloatArray
    fps: float
    source: SourceFormat = field(default_factory=SourceFormat)
    meta: dict[str, object] = field(default_factory=dict)

    @property
    def num_frames(self) -> int:
        """``F``."""
        return int(self.rotations.shape[0])

    @property
    def duration_s(self) -> float:
        """Duration in seconds, ``(F - 1) / fps`` (0 for a one-frame clip)."""
        return max(self.num_frames - 1, 0) / self.fps

    @property
    def frame_time_s(self) -> float:
        """Seconds between frames."""
        return 1.0 / self.fps

    def with_arrays(
        self,
        rotations: FloatArray | None = None,
        translations: FloatArray | None = None,
        fps: float | None = None,
    ) -> Clip:
        """A copy with some arrays replaced (same skeleton and source)."""
        return replace(
            self,
            rotations=self.rotations if rotations is None else rotations,
            translations=self.translations if translations is None else translations,
            fps=self.fps if fps is None else fps,
        )
