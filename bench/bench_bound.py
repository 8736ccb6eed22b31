"""The numpy lower bound: the cheapest plain-numpy way to read a BVH file and run FK.

Parse (the bound as PEER-BENCHMARKS defines it): read the file bytes, split the
hierarchy with ``bytes.split``, and read the MOTION block with ``np.loadtxt``.
It gives the channel matrix ``[F, C]`` in file units and degrees; there is no
quaternion conversion and no validation.

Reference FK: hand-built Euler matrices (numpy ``cos``/``sin``) for all frames
and joints at once, grouped by rotation order, then one Python loop over joints
that is vectorised over frames. Convention: intrinsic rotations in channel order
(``ZXY`` means ``R = Rz @ Rx @ Ry``), and position channels *replace* the OFFSET.
Positions are ``[F, J, 3]`` in file units, end sites included, in file order.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

_AXES = {b"X": 0, b"Y": 1, b"Z": 2}


@dataclass(frozen=True)
class Hierarchy:
    """A BVH hierarchy as plain lists (file order, end sites included).

    Attributes:
        names: ``[J]`` joint names (end sites are ``<parent>_End``).
        parents: ``[J]`` parent indices, ``-1`` for the root.
        offsets: ``[J, 3]`` OFFSETs, file units.
        channels: ``[J]`` channel names per joint (empty for end sites).
    """

    names: list[str]
    parents: IntArray
    offsets: FloatArray
    channels: list[list[str]]

    @property
    def num_joints(self) -> int:
        """``J``, end sites included."""
        return len(self.names)

    @property
    def channel_joints(self) -> list[int]:
        """Indices of the joints that have channels (``J`` minus the end sites)."""
        return [j for j, c in enumerate(self.channels) if c]


@dataclass(frozen=True)
class BoundParse:
    """What the bound parser returns: the hierarchy and the ``[F, C]`` channel matrix."""

    hierarchy: Hierarchy
    motion: FloatArray
    frame_time: float


def parse_hierarchy(header: bytes) -> Hierarchy:
    """The hierarchy of ``header`` (everything before ``MOTION``), by token walking."""
    tokens = header.split()
    names: list[str] = []
    parents: list[int] = []
    offsets: list[list[float]] = []
    channels: list[list[str]] = []
    stack: list[int] = []
    pending = -1
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in (b"ROOT", b"JOINT") or tok == b"End":
            name = tokens[i + 1].decode() if tok != b"End" else f"{names[stack[-1]]}_End"
            pending = len(names)
            names.append(name)
            parents.append(stack[-1] if stack else -1)
            offsets.append([0.0, 0.0, 0.0])
            channels.append([])
            i += 2
        elif tok == b"{":
            stack.append(pending)
            i += 1
        elif tok == b"}":
            stack.pop()
            i += 1
        elif tok == b"OFFSET":
            offsets[stack[-1]] = [float(t) for t in tokens[i + 1 : i + 4]]
            i += 4
        elif tok == b"CHANNELS":
            n = int(tokens[i + 1])
            channels[stack[-1]] = [t.decode() for t in tokens[i + 2 : i + 2 + n]]
            i += 2 + n
        else:
            i += 1
    return Hierarchy(names, np.array(parents, dtype=np.int64), np.array(offsets), channels)


def parse_bytes(data: bytes) -> BoundParse:
    """Hierarchy by ``bytes.split`` plus the MOTION block by ``np.loadtxt``."""
    header, _, motion = data.partition(b"MOTION")
    time_at = motion.index(b"Frame Time:")
    line_end = motion.index(b"\n", time_at)
    frame_time = float(motion[time_at + len(b"Frame Time:") : line_end])
    block = np.loadtxt(io.BytesIO(motion[line_end + 1 :]), dtype=np.float64, ndmin=2)
    return BoundParse(parse_hierarchy(header), block, frame_time)


def parse_file(path: Path) -> BoundParse:
    """Read ``path`` and parse it (what the benchmark times as the bound)."""
    return parse_bytes(path.read_bytes())


def _axis_matrices(axis: int, angles: FloatArray) -> FloatArray:
    """Elementary rotations ``[..., 3, 3]`` about ``axis`` by ``angles`` (radians)."""
    c, s = np.cos(angles), np.sin(angles)
    m = np.zeros((*angles.shape, 3, 3))
    a, b = [(1, 2), (2, 0), (0, 1)][axis]
    m[..., axis, axis] = 1.0
    m[..., a, a] = c
    m[..., a, b] = -s
    m[..., b, a] = s
    m[..., b, b] = c
    return m


def _layout(hierarchy: Hierarchy) -> tuple[dict[str, list[int]], list[list[int]], list[int]]:
    """Group joints by rotation order; column indices of their angles and positions."""
    groups: dict[str, list[int]] = {}
    rot_cols: list[list[int]] = []
    pos_cols: list[int] = []
    col = 0
    for j, chans in enumerate(hierarchy.channels):
        rot = [col + k for k, c in enumerate(chans) if c.lower().endswith("rotation")]
        pos = [col + k for k, c in enumerate(chans) if c.lower().endswith("position")]
        order = "".join(c[0].upper() for c in chans if c.lower().endswith("rotation"))
        if len(rot) == 3:
            groups.setdefault(order, []).append(j)
        rot_cols.append(rot)
        pos_cols.append(pos[0] if len(pos) == 3 else -1)
        col += len(chans)
    return groups, rot_cols, pos_cols


def local_matrices(hierarchy: Hierarchy, motion: FloatArray) -> FloatArray:
    """Local rotation matrices ``[F, J, 3, 3]`` (identity for end sites)."""
    groups, rot_cols, _ = _layout(hierarchy)
    frames = motion.shape[0]
    local = np.broadcast_to(np.eye(3), (frames, hierarchy.num_joints, 3, 3)).copy()
    for order, joints in groups.items():
        angles = np.radians(motion[:, [rot_cols[j] for j in joints]])
        m = _axis_matrices(_AXES[order[0].encode()], angles[..., 0])
        for k in (1, 2):
            m = m @ _axis_matrices(_AXES[order[k].encode()], angles[..., k])
        local[:, joints] = m
    return local


def local_translations(hierarchy: Hierarchy, motion: FloatArray) -> FloatArray:
    """Local translations ``[F, J, 3]``: OFFSET, replaced by position channels if any."""
    _, _, pos_cols = _layout(hierarchy)
    frames = motion.shape[0]
    out = np.broadcast_to(hierarchy.offsets, (frames, hierarchy.num_joints, 3)).copy()
    for j, col in enumerate(pos_cols):
        if col >= 0:
            out[:, j] = motion[:, col : col + 3]
    return out


def reference_fk(parsed: BoundParse) -> FloatArray:
    """World positions ``[F, J, 3]`` (file units) from the channel matrix."""
    hierarchy, motion = parsed.hierarchy, parsed.motion
    local = local_matrices(hierarchy, motion)
    trans = local_translations(hierarchy, motion)[..., None]
    g_rot = np.empty_like(local)
    g_pos = np.empty_like(trans)
    for j, p in enumerate(hierarchy.parents):
        if p < 0:
            g_rot[:, j] = local[:, j]
            g_pos[:, j] = trans[:, j]
            continue
        g_pos[:, j] = g_pos[:, p] + g_rot[:, p] @ trans[:, j]
        if hierarchy.channels[j]:
            g_rot[:, j] = g_rot[:, p] @ local[:, j]
    return g_pos[..., 0]
