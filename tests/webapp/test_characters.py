"""Characters through the API (webapp.characters): a skinned humanoid glTF uploads with
its report, lists, downloads its body (valid glTF), shows a clip of its project on it
(viewer arrays on its joints, a BVH, a GLB that passes the Khronos validator) and
deletes with its files; a bad file is refused by name with nothing stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pygltflib
import pytest
from django.contrib.auth.models import AbstractUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from motioncore import bvh
from motioncore.character.glb import rest_glb_bytes
from motioncore.character.mannequin import mannequin
from motioncore.clip import Skeleton
from motioncore.skeleton import canonical
from support.paths import SHARED_DATA_ABSENT, shared_data_dir
from support.three_node import gltf_issues, issue_lines
from support.web import (
    SAMPLES,
    animated_score,
    client_for,
    finish_drive,
    finish_generation,
    finish_run,
    finish_sequence,
    finish_transition,
)
from webapp.characters.models import Character
from webapp.clips.models import Clip
from webapp.projects.models import Membership, Project, Role


def _character_glb() -> bytes:
    """The suite's own character: the canonical skeleton's mannequin as a GLB."""
    skeleton = canonical.skeleton()
    return rest_glb_bytes(skeleton, mannequin(skeleton))


def _upload(
    user: AbstractUser, project: Project, data: bytes, name: str = "hero.glb", **extra: Any
) -> Any:
    file = SimpleUploadedFile(name, data, content_type="model/gltf-binary")
    return client_for(user).post(
        f"/api/v1/projects/{project.pk}/characters/", {"file": file, **extra}, format="multipart"
    )


def _stored(media_root: Path) -> list[Path]:
    return [p for p in media_root.rglob("*") if p.is_file() and "characters" in p.parts]


def test_a_character_uploads_with_its_report_and_plays_a_clip(
    members: dict[str, AbstractUser], project: Project, clip: Clip, media_root: Path, tmp_path: Path
) -> None:
    finish_run(clip)
    response = _upload(members["editor"], project, _character_glb())
    assert response.status_code == 201, response.content[:400]
    body = response.json()
    report = body["report"]
    assert report["joints"] == canonical.skeleton().num_joints
    assert report["roles"]["is_humanoid"] and report["up_axis"]["standing"]
    assert 1.0 < report["height_m"] < 2.2 and report["rest_pose"] in {
        "T-pose",
        "A-pose",
        "arms down",
    }
    viewer = client_for(members["viewer"])
    assert [
        c["id"] for c in viewer.get(f"/api/v1/projects/{project.pk}/characters/").json()["results"]
    ] == [body["id"]]

    made = viewer.get(body["downloads"]["body.glb"])
    assert made.status_code == 200 and made["Content-Type"] == "model/gltf-binary"
    path = tmp_path / "body.glb"
    path.write_bytes(b"".join(made.streaming_content))
    issues = gltf_issues(path)
    assert (issues["numErrors"], issues["numWarnings"]) == (0, 0), issue_lines(issues)

    base = f"/api/v1/characters/{body['id']}/clips/{clip.pk}/download"
    arrays = json.loads(viewer.get(f"{base}/viewer.json/").content)
    assert arrays["names"] == list(canonical.skeleton().names)
    positions = np.asarray(arrays["positions"]).reshape(arrays["frames"], arrays["joints"], 3)
    assert np.isfinite(positions).all() and arrays["frames"] > 1
    motion = bvh.load(viewer.get(f"{base}/motion.bvh/").content)
    assert motion.skeleton.names == canonical.skeleton().names
    glb = viewer.get(f"{base}/motion.glb/")
    path.write_bytes(glb.content)
    issues = gltf_issues(path)
    assert (issues["numErrors"], issues["numWarnings"]) == (0, 0), issue_lines(issues)
    assert len(pygltflib.GLTF2.load_from_bytes(glb.content).animations) == 1

    again = _upload(members["editor"], project, _character_glb())  # the same bytes
    assert again.status_code == 201 and again.json()["id"] == body["id"]
    assert (
        client_for(members["viewer"]).delete(f"/api/v1/characters/{body['id']}/").status_code == 403
    )
    assert (
        client_for(members["editor"]).delete(f"/api/v1/characters/{body['id']}/").status_code == 204
    )
    assert not Character.objects.exists() and _stored(media_root) == []


def _chain(joints: int) -> bytes:
    """A GLB of a chain of ``joints`` joints (not a humanoid, and long)."""
    names = tuple(f"j{i}" for i in range(joints))
    skeleton = Skeleton(
        names=names,
        parents=np.arange(-1, joints - 1),
        offsets=np.tile([0.0, 0.05, 0.0], (joints, 1)),
        channels=tuple(("Zrotation",) for _ in names),
        kinds=("ROOT", *("JOINT",) * (joints - 1)),
    )
    return rest_glb_bytes(skeleton, mannequin(skeleton))


def _no_skin() -> bytes:
    gltf = pygltflib.GLTF2.load_from_bytes(_character_glb())
    gltf.skins = []
    for node in gltf.nodes:
        node.skin = None
    return b"".join(gltf.save_to_bytes())


def _separate_buffer() -> bytes:
    document = json.loads(pygltflib.GLTF2.load_from_bytes(_character_glb()).to_json())
    document["buffers"][0]["uri"] = "https://example.com/body.bin"
    return json.dumps(document).encode()


@pytest.mark.parametrize(
    ("data", "name", "status", "named"),
    [
        (b"HIERARCHY\nROOT Hips\n", "hero.glb", 400, "not a glTF"),
        (_no_skin(), "hero.glb", 400, "no skin"),
        (_separate_buffer(), "hero.gltf", 400, "separate file 'https://example.com/body.bin'"),
        (_chain(4), "hero.glb", 400, "not a humanoid"),
        (_chain(300), "hero.glb", 400, "300 joints"),
        (_character_glb(), "hero.fbx", 400, "not a .glb or .gltf"),
    ],
    ids=["not gltf", "no skin", "external buffer", "not humanoid", "too many joints", "fbx"],
)
def test_a_bad_file_is_refused_by_name_and_nothing_is_stored(
    members: dict[str, AbstractUser],
    project: Project,
    media_root: Path,
    data: bytes,
    name: str,
    status: int,
    named: str,
) -> None:
    response = _upload(members["editor"], project, data, name)
    assert response.status_code == status, response.content[:300]
    assert named in response.json()["error"]["message"]
    assert not Character.objects.exists() and _stored(media_root) == []


def test_a_file_over_the_limit_is_413(
    members: dict[str, AbstractUser], project: Project, media_root: Path, settings: Any
) -> None:
    settings.CHARACTER_MAX_BYTES = 2048
    response = _upload(members["editor"], project, _character_glb())
    assert response.status_code == 413
    assert not Character.objects.exists() and _stored(media_root) == []


def test_a_clip_of_another_project_is_not_shown_on_the_character(
    members: dict[str, AbstractUser], project: Project, clip: Clip, media_root: Path
) -> None:
    finish_run(clip)
    character = _upload(members["editor"], project, _character_glb()).json()
    other = Project.objects.create(name="Y")
    Membership.objects.create(project=other, user=members["owner"], role=Role.OWNER)
    clip.project = other
    clip.save()
    url = f"/api/v1/characters/{character['id']}/clips/{clip.pk}/download/viewer.json/"
    response = client_for(members["owner"]).get(url)  # the owner sees both, yet
    assert (
        response.status_code == 404 and "character's project" in response.json()["error"]["message"]
    )


FOX = shared_data_dir() / "gltf" / "Fox" / "Fox.glb"


@pytest.mark.skipif(not FOX.is_file(), reason=SHARED_DATA_ABSENT)
def test_a_quadruped_is_refused_naming_the_roles_it_lacks(
    members: dict[str, AbstractUser], project: Project, media_root: Path
) -> None:
    response = _upload(members["editor"], project, FOX.read_bytes(), "Fox.glb")
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "not a humanoid" in message and "left_hand" in message, message
    assert not Character.objects.exists() and _stored(media_root) == []


def test_the_project_page_uploads_lists_and_deletes_a_character(
    members: dict[str, AbstractUser], project: Project, media_root: Path
) -> None:
    page = Client()
    page.force_login(members["editor"])
    upload = SimpleUploadedFile("hero.glb", _character_glb(), content_type="model/gltf-binary")
    response = page.post(f"/projects/{project.pk}/characters/new/", {"file": upload})
    assert response.status_code == 302 and response["Location"].endswith("#characters")
    listed = page.get(f"/projects/{project.pk}/").content.decode()
    character = Character.objects.get()
    assert f'data-character-id="{character.pk}"' in listed
    assert f"{character.report['joints']} joints" in listed
    bad = SimpleUploadedFile("fox.glb", b"not a model", content_type="model/gltf-binary")
    refused = page.post(f"/projects/{project.pk}/characters/new/", {"file": bad})
    assert refused.status_code == 400 and "not a glTF" in refused.content.decode()
    assert page.post(f"/characters/{character.pk}/delete/").status_code == 302
    assert not Character.objects.exists() and _stored(media_root) == []


def test_every_result_downloads_on_a_character(
    members: dict[str, AbstractUser], project: Project, clip: Clip, media_root: Path, tmp_path: Path
) -> None:
    finish_run(clip)
    character = _upload(members["editor"], project, _character_glb()).json()
    score = animated_score(
        project=project,
        user=members["editor"],
        name="walk_forward.json",
        data=(SAMPLES / "scores" / "walk_forward.json").read_bytes(),
    )
    bases = {
        "clip": (f"/api/v1/clips/{clip.pk}/download/", "cleaned"),
        "transition": (
            f"/api/v1/transitions/{finish_transition(clip, clip).pk}/download/",
            "transition",
        ),
        "sequence": (f"/api/v1/sequences/{finish_sequence([clip, clip]).pk}/download/", "sequence"),
        "walk": (f"/api/v1/pfnn/generations/{finish_generation(clip).pk}/download/", "walk"),
        "drive": (f"/api/v1/motornerve/drives/{finish_drive(clip).pk}/download/", "drive"),
        "score": (f"/api/v1/scores/{score.pk}/download/", "animation"),
    }
    viewer = client_for(members["viewer"])
    names = list(canonical.skeleton().names)
    for what, (base, stem) in bases.items():
        glb = viewer.get(f"{base}{stem}.glb/?character={character['id']}")
        assert glb.status_code == 200, (what, glb.content[:300])
        assert ".on-hero.glb" in glb["Content-Disposition"], what
        gltf = pygltflib.GLTF2.load_from_bytes(glb.content)
        assert [n.name for n in gltf.nodes[: len(names)]] == names, what
        path = tmp_path / f"{what}.glb"
        path.write_bytes(glb.content)
        issues = gltf_issues(path)
        assert (issues["numErrors"], issues["numWarnings"]) == (0, 0), (what, issue_lines(issues))
        motion = viewer.get(f"{base}{stem}.bvh/?character={character['id']}")
        assert bvh.load(motion.content).skeleton.names == tuple(names), what
    clip_base = bases["clip"][0]
    not_applicable = viewer.get(f"{clip_base}viewer.json/?character={character['id']}")
    assert not_applicable.status_code == 400
    assert not_applicable.json()["error"]["code"] == "character_not_applicable"
    assert viewer.get(f"{clip_base}cleaned.glb/?character=hero").status_code == 400
    assert viewer.get(f"{clip_base}cleaned.glb/?character=999999").status_code == 404
    outsider = client_for(members["outsider"])
    assert outsider.get(f"{clip_base}cleaned.glb/?character={character['id']}").status_code == 404
