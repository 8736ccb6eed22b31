"""Every BVH of the shared corpus: loads, round-trips, FK against a 4×4 reference,
conventions (bone lengths, feet on the floor), unit and up-axis guesses vs MANIFEST.csv.

The FK reference here is deliberately independent of ``motioncore``: it rebuilds
each joint's 4×4 matrix per frame from the *raw channel values* (Euler angles in
degrees, elementary rotation matrices from cos/sin), so it checks the Euler →
quaternion conversion, the position-channel conventions, the unit scale and the
up-axis turn together with FK.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, contacts, fk, skeleton
from motioncore.bvh import text as bvh_text
from motioncore.clip import Clip
from support.corpus import corpus_bvh_params

REFERENCE_FRAMES = 24
"""Frames per file checked against the per-frame matrix reference (spread evenly)."""


def _load(path: Path) -> Clip:
    return bvh.load(path)


# --------------------------------------------------------------------------- round trip


@pytest.mark.parametrize(("path", "row"), corpus_bvh_params())
def test_loads_and_round_trips(path: Path, row: dict[str, str]) -> None:
    clip = _load(path)
    assert clip.num_frames == int(row["frames"])
    text = bvh.dump(clip)
    again = bvh.load(text)  # conventions re-detected from the written file
    assert again.skeleton.names == clip.skeleton.names
    np.testing.assert_array_equal(again.skeleton.parents, clip.skeleton.parents)
    assert again.skeleton.channels == clip.skeleton.channels
    assert again.skeleton.kinds == clip.skeleton.kinds
    assert again.source.unit == clip.source.unit
    assert again.source.up_axis == clip.source.up_axis
    assert again.source.position_modes == clip.source.position_modes
    assert again.fps == pytest.approx(clip.fps, rel=1e-6)
    np.testing.assert_allclose(again.skeleton.offsets, clip.skeleton.offsets, rtol=1e-6, atol=1e-9)
    same_rotation = np.abs(np.sum(again.rotations * clip.rotations, axis=-1))
    np.testing.assert_allclose(same_rotation, 1.0, atol=1e-9)
    np.testing.assert_allclose(again.translations, clip.translations, rtol=1e-6, atol=1e-9)
    first = bvh_text.read(text).values
    second = bvh_text.read(bvh.dump(again)).values
    np.testing.assert_allclose(second, first, rtol=1e-6, atol=1e-6)


# --------------------------------------------------------------------------- FK reference


def _axis_matrix(axis: str, degrees: float) -> np.ndarray:
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    if axis == "X":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == "Y":
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _reference_positions(raw: bvh_text.RawBVH, clip: Clip, frames: np.ndarray) -> np.ndarray:
    """World positions ``[len(frames), J, 3]`` by chained 4×4 matrices, one frame at a time."""
    scale = clip.source.metres_per_unit
    world = np.eye(4)
    if clip.source.up_axis == "Z":
        world[:3, :3] = np.array([[1, 0, 0], [0, 0, 1], [0, -1, 0]])  # (x, y, z) -> (x, z, -y)
    out = np.zeros((len(frames), len(raw.joints), 3))
    for n, f in enumerate(frames):
        values = iter(raw.values[f])
        globals_: list[np.ndarray] = []
        for j, joint in enumerate(raw.joints):
            translation = np.array(joint.offset, dtype=float)
            rotation = np.eye(3)
            for channel in joint.channels:
                value = next(values)
                axis = "XYZ".index(channel[0])
                if channel.endswith("position"):
                    base = translation[axis] if clip.source.position_modes[j] == "add" else 0.0
                    translation[axis] = base + value
                else:
                    rotation = rotation @ _axis_matrix(channel[0], value)
            local = np.eye(4)
            local[:3, :3] = rotation
            local[:3, 3] = translation * scale
            parent = world if joint.parent < 0 else globals_[joint.parent]
            globals_.append(parent @ local)
            out[n, j] = globals_[-1][:3, 3]
    return out


@pytest.mark.parametrize(("path", "row"), corpus_bvh_params())
def test_fk_matches_a_per_frame_matrix_reference(path: Path, row: dict[str, str]) -> None:
    clip = _load(path)
    raw = bvh_text.read(path)
    frames = np.unique(np.linspace(0, clip.num_frames - 1, REFERENCE_FRAMES).astype(int))
    expected = _reference_positions(raw, clip, frames)
    actual = fk.positions(clip)[frames]
    np.testing.assert_allclose(actual, expected, atol=1e-5)


# --------------------------------------------------------------------------- conventions


@pytest.mark.parametrize(("path", "row"), corpus_bvh_params())
def test_bone_lengths_are_what_the_convention_implies(path: Path, row: dict[str, str]) -> None:
    clip = _load(path)
    sk = clip.skeleton
    positions = fk.positions(clip)
    child = np.flatnonzero(sk.parents >= 0)
    bones = np.linalg.norm(positions[:, child] - positions[:, sk.parents[child]], axis=-1)
    implied = np.linalg.norm(clip.translations[:, child], axis=-1)
    np.testing.assert_allclose(bones, implied, rtol=1e-9, atol=1e-9)
    offsets = np.linalg.norm(sk.offsets[child], axis=-1)
    no_positions = np.array([not sk.position_axes(int(j)) for j in child])
    np.testing.assert_allclose(
        bones[:, no_positions],
        np.broadcast_to(offsets[no_positions], bones[:, no_positions].shape),
        rtol=1e-9,
        atol=1e-9,
    )
    decided = clip.meta["conventions"]["position_channels"]  # type: ignore[index]
    for name, how in decided["decided_by"].items():
        j = sk.index(name)
        if how == "offset comparison" and sk.parents[j] >= 0 and offsets[list(child).index(j)] > 0:
            # Bandai Namco style: channels repeat the OFFSET; the bone must not double.
            k = list(child).index(j)
            np.testing.assert_allclose(bones[:, k], offsets[k], rtol=0.03)


FLOOR_OF_LEG = 0.15
"""How far (a share of the leg's length) the floor the feet stand on may lie from the
file's y = 0. The floor is measured from the sole (heel, ball and toe tip: the mode of
the lowest of them, :func:`motioncore.contacts.floor_height`), not from a joint. A
unit or up-axis mistake moves it by decimetres to metres; what this allows is the
hover of a retarget (the iClone CC_Base feet stand 6-11 cm up, the Daz conversions
6-8 cm: their foot joints never come lower)."""


@pytest.mark.parametrize(
    ("path", "row"), corpus_bvh_params(lambda r: r["category"].startswith("locomotion"))
)
def test_locomotion_feet_stand_on_the_files_floor(path: Path, row: dict[str, str]) -> None:
    if "uneven terrain" in row["description"]:
        pytest.skip("walks on raised ground: the floor it stands on is not the file's y = 0")
    clip = _load(path)
    found = contacts.detect(clip, skeleton.infer(clip.skeleton))
    assert len(found.feet) == 2
    assert abs(found.floor_m) <= FLOOR_OF_LEG * found.leg_m, (
        f"floor {found.floor_m:.3f} m, leg {found.leg_m:.2f} m"
    )


# --------------------------------------------------------------------------- units and axes


_UNIT_WORDS = (
    (r"\bCMU units\b", "cmu"),
    (r"\bdecimetres\b", "dm"),
    (r"\bmetres\b", "m"),
    (r"(?<![a-z])~?cm\b", "cm"),
    (r"\binch(es|-like)\b", "inch"),
)


def _without_parentheses(notes: str) -> str:
    return re.sub(r"\([^)]*\)", "", notes)


def expected_unit(notes: str) -> str:
    """The unit the manifest's ``axes_units_notes`` states (parenthesised asides ignored)."""
    text = _without_parentheses(notes)
    found = {unit for pattern, unit in _UNIT_WORDS if re.search(pattern, text)}
    assert len(found) == 1, f"notes name {found or 'no'} unit: {notes!r}"
    return found.pop()


def expected_axes(notes: str, root_name: str) -> tuple[str | None, str | None]:
    """``(world_up, rest_up)`` the notes state; ``None`` where they say nothing.

    * "stands in a Z-up world" (pybvh bvh_test3): the world is Z-up, the offsets Y-up.
    * iClone: "CC_Base_Hip-rooted files are Y-up, RL_BoneRoot-rooted files are Z-up"
      describes the rest offsets (RL_BoneRoot files rotate the root -90° about X
      and walk on the X-Z plane, so their world is Y-up); checked against the
      rest-pose guess.
    * otherwise the single axis named is the world's.
    """
    if "RL_BoneRoot-rooted files are Z-up" in notes:
        return None, ("Z" if root_name == "RL_BoneRoot" else "Y")
    world = re.search(r"([YZ])-up world", notes)
    if world:
        rest = re.search(r"offsets are ([YZ])-up", notes)
        return world.group(1), rest.group(1) if rest else None
    axes = set(re.findall(r"\b([YZ])-up\b", _without_parentheses(notes)))
    assert len(axes) == 1, f"notes name {axes or 'no'} up axis: {notes!r}"
    return axes.pop(), None


@pytest.mark.parametrize(("path", "row"), corpus_bvh_params())
def test_unit_and_up_axis_guesses_agree_with_the_manifest(path: Path, row: dict[str, str]) -> None:
    clip = _load(path)
    conventions = clip.meta["conventions"]
    assert isinstance(conventions, dict)
    assert conventions["unit"]["value"] == expected_unit(row["axes_units_notes"])
    world, rest = expected_axes(row["axes_units_notes"], clip.skeleton.names[0])
    if world is not None:
        assert conventions["up_axis"]["value"] == world
    if rest is not None:
        assert conventions["rest_up_axis"]["value"] == rest


def test_manifest_note_parsing() -> None:
    assert expected_unit("Y-up; CMU units (scaled_* files: metres)") == "cmu"
    assert expected_unit("Z-up; decimetres; 24 fps") == "dm"
    assert expected_unit("Y-up; ~cm (hip height ~80)") == "cm"
    assert expected_axes("offsets are Y-up but ... stands in a Z-up world", "Hips") == ("Z", "Y")
    assert expected_axes(
        "CC_Base_Hip-rooted files are Y-up, RL_BoneRoot-rooted files are Z-up", "RL_BoneRoot"
    ) == (None, "Z")
