"""A user's character from glTF (motioncore.character.rig): the suite's own character
(the mannequin of the canonical skeleton written as a GLB) reads back with its skeleton,
roles and body; each humanoid of ../shared/data/gltf reads with every role retargeting
needs, stands on the floor, and a corpus walk retargeted onto it walks; a non-humanoid,
a file without a skin, a separate buffer file and what is not glTF at all are refused
by name."""

from __future__ import annotations

import base64
import csv
import json
from pathlib import Path

import numpy as np
import pygltflib
import pytest

from motioncore import bvh, fk
from motioncore.character.glb import rest_glb_bytes
from motioncore.character.mannequin import mannequin
from motioncore.character.rig import RigLimits, clip_on_rig, read_rig
from motioncore.errors import CharacterError
from motioncore.skeleton import canonical
from support.paths import SHARED_DATA_ABSENT, shared_data_dir
from support.three_node import ROOT

WALK = ROOT / "tests" / "data" / "games105" / "walk60.bvh"
GLTF = shared_data_dir() / "gltf"
NEEDED = ("hips", "chest", "head", "left_hand", "right_hand", "left_foot", "right_foot")


def _own() -> bytes:
    skeleton = canonical.skeleton()
    return rest_glb_bytes(skeleton, mannequin(skeleton))


def _characters() -> list[object]:
    manifest = GLTF / "MANIFEST.csv"
    if not manifest.is_file():
        return [pytest.param(None, None, marks=pytest.mark.skip(reason=SHARED_DATA_ABSENT))]
    with manifest.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [
        pytest.param(GLTF / r["relative_path"], r["humanoid"] == "yes", id=r["relative_path"])
        for r in rows
    ]


def test_its_own_character_reads_back() -> None:
    skeleton = canonical.skeleton()
    rig = read_rig(_own())
    assert rig.skeleton.names == skeleton.names
    assert np.array_equal(rig.skeleton.parents, skeleton.parents)
    rest = fk.rest_positions(skeleton.offsets, skeleton.parents)
    lowest = mannequin(skeleton).positions[:, 1].min()  # stood on the floor
    assert np.allclose(rig.rest, rest - [0.0, lowest, 0.0], atol=1e-5)
    assert rig.roles.is_humanoid and not rig.roles.unresolved
    assert rig.report["rest_pose"] in {"T-pose", "A-pose", "arms down"}
    assert rig.report["up_axis"]["standing"]


def test_a_walk_on_its_own_character_keeps_the_bones_and_walks() -> None:
    rig = read_rig(_own())
    clip = bvh.load(WALK)
    on = clip_on_rig(clip, rig)
    assert on.num_frames == clip.num_frames and on.skeleton.names == rig.skeleton.names
    positions = fk.positions(on)
    hips = positions[:, rig.roles.joints["hips"]]
    assert np.linalg.norm(hips[-1, [0, 2]] - hips[0, [0, 2]]) > 2.0  # it walked
    feet = positions[:, [rig.roles.joints["left_foot"], rig.roles.joints["right_foot"]], 1]
    assert -0.02 < feet.min() < 0.15  # on the floor, not in it nor above it


@pytest.mark.parametrize(("path", "humanoid"), _characters())
def test_each_test_character_reads_or_is_refused_by_name(path: Path, humanoid: bool) -> None:
    data = path.read_bytes()
    if not humanoid:
        with pytest.raises(CharacterError, match="not a humanoid"):
            read_rig(data)
        return
    rig = read_rig(data)
    assert all(role in rig.roles.joints for role in NEEDED), rig.report["roles"]
    assert abs(rig.mesh.positions[:, 1].min()) < 1e-6  # standing on the floor
    assert rig.report["up_axis"]["standing"]
    on = clip_on_rig(bvh.load(WALK), rig)
    hips = fk.positions(on)[:, rig.roles.joints["hips"]]
    assert np.linalg.norm(hips[-1, [0, 2]] - hips[0, [0, 2]]) > 1.0


def test_what_is_not_gltf_is_refused() -> None:
    with pytest.raises(CharacterError, match="not a glTF"):
        read_rig(b"HIERARCHY\nROOT Hips\n")


def test_a_file_without_a_skin_is_refused() -> None:
    gltf = pygltflib.GLTF2.load_from_bytes(_own())
    gltf.skins = []
    for node in gltf.nodes:
        node.skin = None
    with pytest.raises(CharacterError, match="no skin"):
        read_rig(b"".join(gltf.save_to_bytes()))


def test_a_separate_buffer_file_is_refused() -> None:
    gltf = pygltflib.GLTF2.load_from_bytes(_own())
    document = json.loads(gltf.to_json())
    document["buffers"][0]["uri"] = "body.bin"
    with pytest.raises(CharacterError, match=r"separate file 'body\.bin'"):
        read_rig(json.dumps(document).encode())


def test_an_embedded_gltf_reads_like_its_glb() -> None:
    gltf = pygltflib.GLTF2.load_from_bytes(_own())
    document = json.loads(gltf.to_json())
    blob = gltf.binary_blob() or b""
    document["buffers"][0]["uri"] = (
        "data:application/octet-stream;base64," + base64.b64encode(blob).decode()
    )
    embedded = read_rig(json.dumps(document).encode())
    assert np.allclose(embedded.rest, read_rig(_own()).rest)


def test_the_joint_limit_is_named() -> None:
    with pytest.raises(CharacterError, match="1 to 10"):
        read_rig(_own(), limits=RigLimits(max_joints=10))
