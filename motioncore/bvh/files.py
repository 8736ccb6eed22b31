"""BVH in and out: :func:`load` a file into a :class:`~motioncore.clip.Clip`, :func:`dump` it back.

``load`` accepts a path, BVH text or bytes (large well-formed files take the
compiled fast path of :mod:`motioncore.bvh.fast`); every malformed input raises
:class:`~motioncore.errors.BVHParseError` (line, column, message) and nothing
else. The clip is in metres, Y up, quaternions ``(w, x, y, z)``; the file's
unit, up axis, channel layout, rotation orders and position-channel conventions
are kept so ``dump`` writes the file back the way it came (LF line ends).

Conventions decided here (and reported in ``clip.meta["conventions"]``):

* **Several ROOTs** are supported: the skeleton is a forest, one tree per actor.
* **Frame-count mismatch** (``Frames:`` ≠ frame lines present) is an error by
  default, because it usually means a truncated file; ``frame_count="warn"``
  keeps the frames present and records a warning.
* **Position channels** either *replace* the OFFSET or *add* to it, decided per
  joint by :mod:`motioncore.bvh.conventions`; ``position_mode`` overrides the
  detection (one mode for all, or per joint name).
* **Units and up axis** are guessed by :mod:`motioncore.bvh.units` unless given.
* **Euler angles on export** are the principal solution, unwrapped over time
  so curves stay continuous (values may leave ±180°).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from motioncore import fk, quat
from motioncore.bvh import conventions as bvh_conventions
from motioncore.bvh import fast as bvh_fast
from motioncore.bvh import text as bvh_text
from motioncore.bvh import units
from motioncore.bvh.limits import DEFAULT as DEFAULT_LIMITS
from motioncore.bvh.limits import Limits
from motioncore.bvh.text import RawBVH, Source
from motioncore.clip import Clip, JointKind, PositionMode, Skeleton, SourceFormat, UpAxis
from motioncore.errors import BVHParseError

FloatArray = NDArray[np.float64]

Z_UP_TO_Y_UP = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), -np.pi / 2)
"""Rotation taking a Z-up world to Y-up: ``(x, y, z) -> (x, z, -y)``."""
_DETECTION_FRAMES = 64
_CHUNK_FRAMES = 256


def load(
    source: Source,
    *,
    unit: str | None = None,
    up_axis: UpAxis | None = None,
    position_mode: PositionMode | Mapping[str, PositionMode] | None = None,
    frame_count: str = "error",
    limits: Limits = DEFAULT_LIMITS,
) -> Clip:
    """Read a BVH file into a clip in metres, Y up.

    Args:
        source: a path, the BVH text, or its bytes.
        unit: override the unit guess (a key of :data:`motioncore.bvh.units.METRES_PER_UNIT`).
        up_axis: override the up-axis guess (``"Y"`` or ``"Z"``).
        position_mode: override the position-channel convention, for every joint
            (``"add"`` / ``"replace"``) or per joint name.
        frame_count: ``"error"`` or ``"warn"`` when ``Frames:`` disagrees with the data.
        limits: what the file may declare (:class:`motioncore.bvh.limits.Limits`; the
            library's generous defaults unless given).

    Raises:
        BVHParseError: for any malformed input or bad override;
            :class:`~motioncore.errors.BVHLimitError` (a subclass) for a file over ``limits``.
    """
    if unit is not None and unit not in units.METRES_PER_UNIT:
        raise BVHParseError(
            0, 0, f"Unknown unit {unit!r}; use one of {list(units.METRES_PER_UNIT)}."
        )
    if up_axis is not None and up_axis not in ("Y", "Z"):
        raise BVHParseError(0, 0, f"Unknown up axis {up_axis!r}; use 'Y' or 'Z'.")
    raw = read_raw(source, frame_count=frame_count, limits=limits)
    try:
        return _build_clip(raw, unit, up_axis, position_mode)
    except (ValueError, FloatingPointError, MemoryError) as exc:  # defensive: keep the contract
        raise BVHParseError(0, 0, f"The motion could not be interpreted: {exc}.") from exc


def read_raw(
    source: Source, *, frame_count: str = "error", limits: Limits = DEFAULT_LIMITS
) -> RawBVH:
    """Parse ``source`` without interpreting it: the compiled fast path for large,
    well-formed files (:mod:`motioncore.bvh.fast`), else the general reader
    (:func:`motioncore.bvh.text.read`), which also explains every error."""
    bvh_text.check_frame_count_policy(frame_count)
    data = bvh_text.source_bytes(source)
    if data is not None:
        raw = bvh_fast.read(data, frame_count=frame_count, limits=limits)
        if raw is not None:
            return raw
    return bvh_text.read(source if data is None else data, frame_count=frame_count, limits=limits)


def _build_clip(
    raw: RawBVH,
    unit: str | None,
    up_axis: UpAxis | None,
    position_mode: PositionMode | Mapping[str, PositionMode] | None,
) -> Clip:
    parents = np.array([j.parent for j in raw.joints], dtype=np.int64)
    offsets = np.array([j.offset for j in raw.joints], dtype=np.float64)
    columns = _channel_columns(raw)
    rotations = _rotations(raw, columns)
    sample = _sample_frames(raw.values.shape[0])
    evidence = bvh_conventions.Evidence(
        raw, columns, offsets, parents, raw.values[sample], rotations[sample]
    )
    modes, mode_notes = bvh_conventions.position_modes(evidence, position_mode)
    translations = bvh_conventions.translations(raw.values, raw, columns, offsets, modes)
    positions = fk.forward_matrices(rotations[sample], translations[sample], parents)[1]
    positions = positions[:, units.body_joints(parents)]
    up_guess = units.guess_up_axis(positions)
    up: UpAxis = up_axis or ("Z" if up_guess.value == "Z" else "Y")
    unit_guess = units.guess_unit(positions, up)
    unit_name = unit or unit_guess.value
    scale = units.METRES_PER_UNIT[unit_name]
    skeleton = Skeleton(
        names=tuple(j.name for j in raw.joints),
        parents=parents,
        offsets=_to_internal_offsets(offsets * scale, parents, up),
        channels=tuple(j.channels for j in raw.joints),
        kinds=tuple(_kind(j.kind) for j in raw.joints),
    )
    translations *= scale  # a fresh array: scaled in place to keep the peak memory low
    rotations, translations = _to_internal(rotations, translations, parents, up)
    source_format = SourceFormat(
        metres_per_unit=scale, unit=unit_name, up_axis=up, position_modes=tuple(modes)
    )
    meta: dict[str, object] = {
        "warnings": list(raw.warnings),
        "line_endings": raw.line_endings,
        "declared_frames": raw.declared_frames,
        "frame_time_s": raw.frame_time_s,
        "conventions": {
            "unit": {**unit_guess.as_dict(), "used": unit_name, "overridden": unit is not None},
            "up_axis": {**up_guess.as_dict(), "used": up, "overridden": up_axis is not None},
            "rest_up_axis": units.guess_rest_up_axis(offsets, parents).as_dict(),
            "position_channels": mode_notes,
        },
    }
    return Clip(skeleton, rotations, translations, 1.0 / raw.frame_time_s, source_format, meta)


def _kind(kind: str) -> JointKind:
    return "End Site" if kind == "End Site" else ("ROOT" if kind == "ROOT" else "JOINT")


# --------------------------------------------------------------------------- channels → arrays


def _channel_columns(raw: RawBVH) -> list[NDArray[np.int64]]:
    """First column of each joint's channels in ``raw.values`` (as ``[n]`` index arrays)."""
    out = []
    start = 0
    for joint in raw.joints:
        out.append(np.arange(start, start + len(joint.channels)))
        start += len(joint.channels)
    return out


def _rotations(raw: RawBVH, columns: list[NDArray[np.int64]]) -> FloatArray:
    """``[F, J, 4]`` local quaternions from the rotation channels (degrees)."""
    frames = raw.values.shape[0]
    rotations = np.empty((frames, len(raw.joints), 4))
    rotations[...] = (1.0, 0.0, 0.0, 0.0)
    full_joints: list[int] = []
    full_orders: list[str] = []
    full_columns: list[list[int]] = []
    for j, joint in enumerate(raw.joints):
        picks = [
            (c[0], int(col))
            for c, col in zip(joint.channels, columns[j], strict=True)
            if c.endswith("rotation")
        ]
        order = "".join(axis for axis, _ in picks)
        if len(order) == 3:
            full_joints.append(j)
            full_orders.append(order)
            full_columns.append([col for _, col in picks])
        elif order:
            cols = [col for _, col in picks]
            rotations[:, j] = _partial_euler(np.radians(raw.values[:, cols]), order)
    if full_joints:
        angle_columns = np.array(full_columns)
        for lo in range(0, frames, _CHUNK_FRAMES):  # chunks bound the temporaries' memory
            angles = np.radians(raw.values[lo : lo + _CHUNK_FRAMES, angle_columns])
            rotations[lo : lo + _CHUNK_FRAMES, full_joints] = quat.from_euler_mixed(
                angles, full_orders
            )
    return rotations


def _partial_euler(angles: FloatArray, order: str) -> FloatArray:
    """Quaternions ``[F, 4]`` of one or two rotation channels ``angles [F, n]`` (radians)."""
    axes = {"X": 0, "Y": 1, "Z": 2}
    q = quat.identity((angles.shape[0],))
    for n, axis in enumerate(order):
        unit_axis = np.eye(3)[axes[axis]]
        q = quat.mul(q, quat.from_axis_angle(unit_axis, angles[:, n]))
    return q


def _sample_frames(frames: int) -> NDArray[np.int64]:
    return np.unique(np.linspace(0, frames - 1, min(frames, _DETECTION_FRAMES)).astype(np.int64))


# --------------------------------------------------------------------------- axes


def _to_internal_offsets(offsets: FloatArray, parents: NDArray[np.int64], up: UpAxis) -> FloatArray:
    if up == "Y":
        return offsets
    out = offsets.copy()
    roots = parents < 0
    out[roots] = quat.rotate(Z_UP_TO_Y_UP, offsets[roots])
    return out


def _to_internal(
    rotations: FloatArray, translations: FloatArray, parents: NDArray[np.int64], up: UpAxis
) -> tuple[FloatArray, FloatArray]:
    """Turn roots of a Z-up file into the Y-up world (in place on fresh arrays)."""
    if up == "Y":
        return rotations, translations
    roots = np.flatnonzero(parents < 0)
    rotations[:, roots] = quat.mul(Z_UP_TO_Y_UP, rotations[:, roots])
    translations[:, roots] = quat.rotate(Z_UP_TO_Y_UP, translations[:, roots])
    return rotations, translations


def _to_source_axes(clip: Clip) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Rotations, translations and offsets of ``clip`` back in the file's axes and units."""
    skeleton = clip.skeleton
    roots = np.flatnonzero(skeleton.parents < 0)
    scale = clip.source.metres_per_unit
    rotations = clip.rotations
    translations = clip.translations / scale
    offsets = skeleton.offsets / scale
    if clip.source.up_axis == "Z":
        back = quat.conjugate(Z_UP_TO_Y_UP)
        rotations = rotations.copy()
        rotations[:, roots] = quat.mul(back, rotations[:, roots])
        translations[:, roots] = quat.rotate(back, translations[:, roots])
        offsets[roots] = quat.rotate(back, offsets[roots])
    return rotations, translations, offsets


# --------------------------------------------------------------------------- writing


def dump(clip: Clip) -> str:
    """BVH text of ``clip`` with the source's hierarchy, channel layout, unit and up axis."""
    rotations, translations, offsets = _to_source_axes(clip)
    fmt = clip.source.float_format
    header = _hierarchy_text(clip.skeleton, offsets, fmt)
    values = _channel_values(clip, rotations, translations, offsets)
    body = io.StringIO()
    if values.shape[1]:
        np.savetxt(body, values, fmt=fmt, delimiter=" ")
    else:
        body.write("\n" * values.shape[0])
    motion = f"MOTION\nFrames: {clip.num_frames}\nFrame Time: {_frame_time(clip):.10g}\n"
    return header + motion + body.getvalue()


def _frame_time(clip: Clip) -> float:
    """The source's ``Frame Time`` when the frame rate is unchanged, else ``1 / fps``."""
    source = clip.meta.get("frame_time_s")
    if isinstance(source, float) and abs(source * clip.fps - 1.0) < 1e-9:
        return source
    return 1.0 / clip.fps


def save(clip: Clip, path: str | Path) -> None:
    """Write :func:`dump` of ``clip`` to ``path`` (UTF-8, LF line ends)."""
    Path(path).write_text(dump(clip), encoding="utf-8", newline="\n")


def _hierarchy_text(skeleton: Skeleton, offsets: FloatArray, fmt: str) -> str:
    lines = ["HIERARCHY"]
    depth = np.zeros(skeleton.num_joints, dtype=np.int64)
    open_stack: list[int] = []
    for j in range(skeleton.num_joints):
        parent = int(skeleton.parents[j])
        depth[j] = 0 if parent < 0 else depth[parent] + 1
        while open_stack and open_stack[-1] != parent:
            closed = open_stack.pop()
            lines.append("\t" * int(depth[closed]) + "}")
        pad = "\t" * int(depth[j])
        kind = skeleton.kinds[j]
        lines.append(pad + ("End Site" if kind == "End Site" else f"{kind} {skeleton.names[j]}"))
        lines.append(pad + "{")
        lines.append(pad + "\tOFFSET " + " ".join(fmt % v for v in offsets[j]))
        if kind != "End Site":
            channels = skeleton.channels[j]
            lines.append(pad + f"\tCHANNELS {len(channels)}" + "".join(" " + c for c in channels))
        open_stack.append(j)
    while open_stack:
        closed = open_stack.pop()
        lines.append("\t" * int(depth[closed]) + "}")
    return "\n".join(lines) + "\n"


def _channel_values(
    clip: Clip, rotations: FloatArray, translations: FloatArray, offsets: FloatArray
) -> FloatArray:
    skeleton = clip.skeleton
    columns: list[FloatArray] = []
    for j in range(skeleton.num_joints):
        channels = skeleton.channels[j]
        if not channels:
            continue
        order = skeleton.rotation_order(j)
        euler = _euler_degrees(rotations[:, j], order) if order else None
        mode = clip.source.position_modes[j] if clip.source.position_modes else "add"
        rot_index = 0
        for name in channels:
            if name.endswith("rotation"):
                assert euler is not None
                columns.append(euler[:, rot_index])
                rot_index += 1
            else:
                axis = "XYZ".index(name[0])
                base = offsets[j, axis] if mode == "add" else 0.0
                columns.append(translations[:, j, axis] - base)
    if not columns:
        return np.zeros((clip.num_frames, 0))
    return np.stack(columns, axis=1)


def _euler_degrees(rotations: FloatArray, order: str) -> FloatArray:
    """``[F, len(order)]`` Euler angles (degrees) of ``rotations [F, 4]``, unwrapped over time."""
    full = order + "".join(a for a in "XYZ" if a not in order)
    angles = quat.to_euler(rotations, full)[:, : len(order)]
    return np.degrees(np.unwrap(angles, axis=0))
