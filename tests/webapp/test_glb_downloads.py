"""GLB downloads (webapp.core.glb): every result's motion on its mannequin, made from
its stored BVH when asked for; each passes the Khronos validator, and a motion past
``KINETOGRAPH_GLB_MAX_SAMPLES`` is refused naming the setting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from django.test.utils import override_settings

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
from webapp.clips.models import Clip
from webapp.clips.services import clip_upload_create
from webapp.projects.models import Project

WALK = SAMPLES / "games105" / "walk60.bvh"
GLB_MAGIC = b"glTF"


@pytest.fixture
def clip(project: Project, members: dict[str, AbstractUser], media_root: object) -> Clip:
    made = clip_upload_create(
        project=project, user=members["editor"], name=WALK.name, data=WALK.read_bytes()
    ).clip
    finish_run(made)
    return made


def _glb(url: str, user: AbstractUser, tmp_path: Path) -> Path:
    response = client_for(user).get(url)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "model/gltf-binary"
    assert response["Content-Disposition"].endswith('.glb"')
    data = b"".join(response.streaming_content) if response.streaming else response.content
    assert data[:4] == GLB_MAGIC
    path = tmp_path / "download.glb"
    path.write_bytes(data)
    return path


def test_every_result_downloads_as_a_valid_glb(
    clip: Clip,
    project: Project,
    members: dict[str, AbstractUser],
    tmp_path: Path,
) -> None:
    score = animated_score(
        project=project,
        user=members["editor"],
        name="walk_forward.json",
        data=(SAMPLES / "scores" / "walk_forward.json").read_bytes(),
    )
    urls = {
        "clip": f"/api/v1/clips/{clip.pk}/download/cleaned.glb/",
        "transition": f"/api/v1/transitions/{finish_transition(clip, clip).pk}/download/"
        "transition.glb/",
        "sequence": f"/api/v1/sequences/{finish_sequence([clip, clip]).pk}/download/sequence.glb/",
        "walk": f"/api/v1/pfnn/generations/{finish_generation(clip).pk}/download/walk.glb/",
        "drive": f"/api/v1/motornerve/drives/{finish_drive(clip).pk}/download/drive.glb/",
        "score": f"/api/v1/scores/{score.pk}/download/animation.glb/",
    }
    for what, url in urls.items():
        issues = gltf_issues(_glb(url, members["viewer"], tmp_path))
        assert (issues["numErrors"], issues["numWarnings"]) == (0, 0), (what, issue_lines(issues))


@override_settings(GLB_MAX_SAMPLES=10)
def test_a_motion_past_the_glb_bound_is_refused_naming_the_setting(
    clip: Clip, members: dict[str, AbstractUser]
) -> None:
    response = client_for(members["viewer"]).get(f"/api/v1/clips/{clip.pk}/download/cleaned.glb/")
    assert response.status_code == 413
    error: dict[str, Any] = response.json()["error"]
    assert error["details"]["setting"] == "KINETOGRAPH_GLB_MAX_SAMPLES"


def test_the_clip_page_links_the_glb(clip: Clip, members: dict[str, AbstractUser]) -> None:
    from django.test import Client

    browser = Client()
    browser.force_login(members["viewer"])
    page = browser.get(f"/clips/{clip.pk}/").content.decode()
    assert f"/api/v1/clips/{clip.pk}/download/cleaned.glb/" in page
