"""POST /api/v1/mannequins/: a skeleton as the viewer arrays hold it → its mannequin as
a GLB (the Khronos validator finds no error; the joints are the skeleton's, bound in its
rest pose), a carrier's bone left out when the player names it; a malformed skeleton →
400 naming the problem."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pygltflib
import pytest
from django.contrib.auth import get_user_model

from motioncore import bvh, export
from support.three_node import gltf_issues, issue_lines
from support.web import SAMPLES, client_for, make_user

URL = "/api/v1/mannequins/"


def _skeleton(name: str = "games105/walk60.bvh") -> dict[str, Any]:
    arrays = export.viewer_arrays(bvh.load(SAMPLES / name))
    return {key: arrays[key] for key in ("names", "parents", "offsets", "end_site")}


def _post(body: dict[str, Any]) -> Any:
    user = get_user_model().objects.filter(username="animator").first() or make_user("animator")
    return client_for(user).post(URL, body, format="json")


@pytest.mark.django_db
def test_a_skeleton_gets_its_mannequin(tmp_path: Path) -> None:
    body = _skeleton()
    response = _post(body)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "model/gltf-binary"
    path = tmp_path / "mannequin.glb"
    path.write_bytes(response.content)
    issues = gltf_issues(path)
    assert (issues["numErrors"], issues["numWarnings"]) == (0, 0), issue_lines(issues)
    gltf = pygltflib.GLTF2.load_from_bytes(response.content)
    assert [n.name for n in gltf.nodes[: len(body["names"])]] == body["names"]
    assert not gltf.animations
    offsets = np.asarray(body["offsets"]).reshape(-1, 3)
    assert np.allclose([n.translation for n in gltf.nodes[: len(offsets)]], offsets, atol=1e-6)


@pytest.mark.django_db
def test_a_hidden_bone_gets_no_limb() -> None:
    body = _skeleton()
    whole = _post(body).content
    spine = body["names"].index("lowerback") if "lowerback" in body["names"] else 1
    without = _post({**body, "hidden": [spine]}).content
    assert _vertices(without) < _vertices(whole)


def _vertices(data: bytes) -> int:
    gltf = pygltflib.GLTF2.load_from_bytes(data)
    count: int = gltf.accessors[gltf.meshes[0].primitives[0].attributes.POSITION].count
    return count


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"parents": [-1, 2, 0]}, "parents[1] = 2"),
        ({"offsets": [0.0] * 8}, "offsets holds 8 values, not 9"),
        ({"offsets": [0, 1, 0, 0, -0.45, 0, 0, -0.45, 1e9]}, "offsets[8]"),
        ({"names": ["a", "a", "b"]}, "unique"),
        ({"hidden": [7]}, "hidden names joint 7"),
        ({"offsets": [0.0] * 9}, "no bone"),
    ],
)
def test_a_malformed_skeleton_is_refused_by_name(change: dict[str, Any], named: str) -> None:
    body = {
        "names": ["hips", "knee", "foot"],
        "parents": [-1, 0, 1],
        "offsets": [0, 1, 0, 0, -0.45, 0, 0, -0.45, 0],
        "end_site": [False, False, True],
        **change,
    }
    response = _post(body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert named in error["message"] or named in str(error["details"]), error
