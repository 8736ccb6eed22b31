"""Position channels: does a joint's channel *replace* its OFFSET or *add* to it?

Real files disagree, and so do the peer libraries (see ``docs/motioncore.md``):

* channels that repeat the OFFSET (within 2 %) → ``replace`` (Bandai Namco puts six
  channels on every joint; adding would double every bone);
* channels that are small deltas, or a zero OFFSET → ``add`` (MakeHuman poses);
* otherwise (roots, and root-like joints whose channels are world positions) the
  mode that puts the clip's lowest joint nearest the floor wins (iClone: OFFSET
  y = 105 cm and channel y ≈ 7 cm → ``add``; Bandai Namco ``Hips`` → ``replace``).

Values are in file units; the decision uses up to 64 frames spread over the clip.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from motioncore import fk
from motioncore.bvh import units
from motioncore.bvh.text import RawBVH
from motioncore.clip import PositionMode
from motioncore.errors import BVHParseError

FloatArray = NDArray[np.float64]


def translations(
    values: FloatArray,
    raw: RawBVH,
    columns: list[NDArray[np.int64]],
    offsets: FloatArray,
    modes: list[PositionMode],
) -> FloatArray:
    """``[F, J, 3]`` local translations (file units) of channel ``values [F, C]``:
    the OFFSETs with the position channels applied."""
    frames = values.shape[0]
    translations = np.empty((frames, len(raw.joints), 3))
    translations[...] = offsets
    for j, joint in enumerate(raw.joints):
        for name, col in zip(joint.channels, columns[j], strict=True):
            if name.endswith("position"):
                axis = "XYZ".index(name[0])
                base = offsets[j, axis] if modes[j] == "add" else 0.0
                translations[:, j, axis] = base + values[:, col]
    return translations


@dataclass(frozen=True)
class Evidence:
    """What the decision looks at: the file and a sample of its frames (file units).

    Attributes:
        raw: the parsed file.
        columns: ``[J]`` each joint's column indices in ``raw.values``.
        offsets: ``[J, 3]`` OFFSETs.
        parents: ``[J]`` parent indices.
        values: ``[S, C]`` channel values of the sampled frames.
        rotations: ``[S, J, 4]`` local rotations of the sampled frames.
    """

    raw: RawBVH
    columns: list[NDArray[np.int64]]
    offsets: FloatArray
    parents: NDArray[np.int64]
    values: FloatArray
    rotations: FloatArray


def position_modes(
    evidence: Evidence, override: PositionMode | Mapping[str, PositionMode] | None
) -> tuple[list[PositionMode], dict[str, object]]:
    """Per-joint position-channel mode, and a JSON-able account of the decision.

    A joint whose channels repeat its OFFSET is ``replace``; one whose channels are
    small deltas (or whose OFFSET is zero) is ``add``. For the rest (roots and
    root-like joints such as Bandai Namco's ``Hips``, whose channels are world
    positions), the mode that puts the clip's lowest joint nearest the floor wins.
    """
    raw = evidence.raw
    modes: list[PositionMode] = ["add"] * len(raw.joints)
    how: dict[str, str] = {}
    undecided: list[int] = []
    for j, joint in enumerate(raw.joints):
        axes = _position_axes(joint.channels, evidence.columns[j])
        if not axes:
            continue
        mode = _static_mode(evidence.values, evidence.offsets[j], axes)
        if mode is None:
            undecided.append(j)
        else:
            modes[j] = mode
            how[joint.name] = "offset comparison"
    for j in undecided:
        modes[j] = _floor_mode(evidence, modes, j)
        how[raw.joints[j].name] = "floor contact"
    modes = _apply_override(raw, modes, override)
    notes: dict[str, object] = {
        "modes": {name: modes[raw_index] for raw_index, name in _named(raw, how)},
        "decided_by": how,
        "non_root_joints_with_position_channels": sum(
            1 for j, _ in _named(raw, how) if evidence.parents[j] >= 0
        ),
        "overridden": override is not None,
    }
    return modes, notes


def _named(raw: RawBVH, how: Mapping[str, str]) -> list[tuple[int, str]]:
    return [(j, joint.name) for j, joint in enumerate(raw.joints) if joint.name in how]


def _position_axes(channels: tuple[str, ...], columns: NDArray[np.int64]) -> list[tuple[int, int]]:
    return [
        ("XYZ".index(c[0]), int(col))
        for c, col in zip(channels, columns, strict=True)
        if c.endswith("position")
    ]


_SAME_RELATIVE = 0.02
"""Channels within 2 % of the OFFSET length of a reference count as equal to it."""


def _static_mode(
    values: FloatArray, offset: FloatArray, axes: list[tuple[int, int]]
) -> PositionMode | None:
    channel = values[:, [col for _, col in axes]]
    base = offset[[axis for axis, _ in axes]]
    size = float(np.linalg.norm(base))
    if size < 1e-9:
        return "add"
    as_delta = float(np.median(np.linalg.norm(channel, axis=1)))
    as_absolute = float(np.median(np.linalg.norm(channel - base, axis=1)))
    if as_absolute <= _SAME_RELATIVE * size:
        return "replace"
    if as_delta <= _SAME_RELATIVE * size:
        return "add"
    return None


def _floor_mode(evidence: Evidence, modes: list[PositionMode], joint: int) -> PositionMode:
    floor_gap: dict[PositionMode, float] = {}
    body = units.body_joints(evidence.parents)
    for mode in ("add", "replace"):
        trial = modes.copy()
        trial[joint] = mode
        local = translations(
            evidence.values, evidence.raw, evidence.columns, evidence.offsets, trial
        )
        positions = fk.forward_matrices(evidence.rotations, local, evidence.parents)[1][:, body]
        up = units.UP_AXIS_INDEX[units.guess_up_axis(positions).value]
        floor_gap[mode] = abs(float(positions[..., up].min()))
    return "add" if floor_gap["add"] <= floor_gap["replace"] else "replace"


def _apply_override(
    raw: RawBVH,
    modes: list[PositionMode],
    override: PositionMode | Mapping[str, PositionMode] | None,
) -> list[PositionMode]:
    if override is None:
        return modes
    if isinstance(override, str):
        _check_mode(override)
        return [override] * len(modes)
    out = modes.copy()
    names = [j.name for j in raw.joints]
    for name, mode in override.items():
        _check_mode(mode)
        if name not in names:
            raise BVHParseError(
                0, 0, f"The position-mode override names an unknown joint {name!r}."
            )
        out[names.index(name)] = mode
    return out


def _check_mode(mode: str) -> None:
    if mode not in ("add", "replace"):
        raise BVHParseError(0, 0, f"Unknown position mode {mode!r}; use 'add' or 'replace'.")
