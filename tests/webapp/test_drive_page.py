"""The MotorNerve Drive page and its JSON endpoints: the pages render for every member
(editors get Record, the others a reason), outsiders get 404 and anonymous users the
log-in page; the weights endpoints serve the packed shipped weights or a succeeded
training's of the same project (``packed.unpack`` reads them back equal), a clear 404
while none are shipped, 404 for another project's training, 409 for one without
weights, revalidation with the ETag (304), and a replaced shipped file is served anew —
the same file the drive stage replays with; the rig endpoint gives the leg scale the
drive stage uses."""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.files.base import ContentFile
from django.test import Client
from django.urls import reverse
from django.utils.timezone import now

from motioncore import bvh
from motioncore import skeleton as roles_mod
from motioncore.motornerve import network, packed
from motioncore.pfnn import on_rig
from motioncore.skeleton import retarget
from support.web import ROLES, SAMPLES, finish_training
from webapp.clips.models import Clip
from webapp.clips.services import clip_upload_create
from webapp.motornerve import stages
from webapp.motornerve.models import MotorNerveArtifactKind, Training
from webapp.projects.models import Membership, Project, Role
from webapp.runs.models import Run

pytestmark = pytest.mark.django_db

SMALL = network.Shape(channels=32, kernel=5, gru=16, intent_hidden=(32, 32), fusion=(64, 64, 32))
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "motornerve"


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _npz(weights: network.Weights) -> bytes:
    out = io.BytesIO()
    weights.save(out)
    return out.getvalue()


def assert_same_weights(a: network.Weights, b: network.Weights) -> None:
    assert a.shape == b.shape and set(a.params) == set(b.params)
    for name, value in a.params.items():
        np.testing.assert_array_equal(value, b.params[name], err_msg=name)
    for name in ("state_mean", "state_std", "intent_mean", "intent_std", "output_mean"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.fixture
def no_shipped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The shipped weights' file points where there is none."""
    path = tmp_path / "weights" / "motornerve-v2.npz"
    monkeypatch.setattr(network, "SHIPPED_WEIGHTS", path)
    return path


@pytest.fixture
def shipped(no_shipped: Path) -> network.Weights:
    """The parity fixture's small network (tests/fixtures/motornerve/) as the shipped file."""
    manifest = json.loads((FIXTURE / "network.json").read_text())
    weights = packed.unpack(manifest, (FIXTURE / "network.bin").read_bytes())
    no_shipped.parent.mkdir(parents=True)
    no_shipped.write_bytes(_npz(weights))
    return weights


def _weights_urls(project: Project, training: int | None = None) -> tuple[str, str]:
    query = "" if training is None else f"?training={training}"
    return (
        reverse("drive-weights", args=[project.pk]) + query,
        reverse("drive-weights-blob", args=[project.pk]) + query,
    )


def _fetch(client: Client, project: Project, training: int | None = None) -> network.Weights:
    manifest_url, blob_url = _weights_urls(project, training)
    manifest = client.get(manifest_url)
    assert manifest.status_code == 200, manifest.content
    assert manifest["Content-Type"] == "application/json"
    blob = client.get(blob_url)
    assert blob.status_code == 200, blob.content
    assert blob["Content-Type"] == "application/octet-stream"
    assert int(blob["Content-Length"]) == len(blob.content)
    return packed.unpack(json.loads(manifest.content), blob.content)


def _trained(clip: Clip, weights: network.Weights) -> Training:
    """A succeeded training of ``clip``'s project whose weights file holds ``weights``."""
    training: Training = finish_training(clip)
    artifact = training.run.artifacts.get(kind=MotorNerveArtifactKind.WEIGHTS)
    data = _npz(weights)
    artifact.file.save(f"run{training.run.pk}-weights.npz", ContentFile(data), save=False)
    artifact.sha256, artifact.size_bytes = hashlib.sha256(data).hexdigest(), len(data)
    artifact.save()
    return training


# --- the pages ------------------------------------------------------------------------------


def test_the_pages_render_for_every_member_with_record_for_editors_only(
    project: Project, clip: Clip, members: dict[str, Any], no_shipped: Path
) -> None:
    for role in ROLES:
        client = logged_in(members[role.value])
        for url in (
            reverse("project-drive", args=[project.pk]),
            reverse("clip-drive", args=[clip.pk]),
        ):
            response = client.get(url)
            assert response.status_code == 200, (role, url)
            html = response.content.decode()
            assert reverse("drive-weights", args=[project.pk]) in html
            assert 'id="drive-character"' in html and 'id="drive-controls"' in html
            assert "pick-ups, scoop-ups and reaches" in html and "no waving" in html
            can_edit = role in (Role.OWNER, Role.EDITOR)
            assert f'data-can-edit="{str(can_edit).lower()}"' in html
            assert ("Only editors and owners" in html) is not can_edit, (role, url)
    project_page = logged_in(members["viewer"]).get(reverse("project", args=[project.pk]))
    assert reverse("project-drive", args=[project.pk]) in project_page.content.decode()
    clip_page = logged_in(members["viewer"]).get(reverse("clip", args=[clip.pk]))
    assert reverse("clip-drive", args=[clip.pk]) in clip_page.content.decode()


def test_only_the_drive_pages_may_compile_webassembly(
    project: Project, clip: Clip, members: dict[str, Any], no_shipped: Path
) -> None:
    """The network's kernel is WebAssembly: the two Drive pages add 'wasm-unsafe-eval'
    (compiling WebAssembly, no JavaScript eval) to script-src, and no other page does."""
    client = logged_in(members["viewer"])

    def script_src(url: str) -> str:
        policy = client.get(url)["Content-Security-Policy"]
        return next(p for p in policy.split(";") if p.strip().startswith("script-src"))

    for url in (reverse("project-drive", args=[project.pk]), reverse("clip-drive", args=[clip.pk])):
        assert "'wasm-unsafe-eval'" in script_src(url), url
        assert "'unsafe-eval'" not in script_src(url) and "'unsafe-inline'" not in script_src(url)
    for url in (reverse("project", args=[project.pk]), reverse("clip", args=[clip.pk])):
        assert "wasm" not in script_src(url), url


def test_the_project_page_offers_the_projects_clips_as_rigs_the_clip_page_its_own(
    project: Project, clip: Clip, members: dict[str, Any], no_shipped: Path
) -> None:
    client = logged_in(members["editor"])
    on_project = client.get(reverse("project-drive", args=[project.pk])).content.decode()
    assert "data-rig-select" in on_project and f'<option value="{clip.pk}">' in on_project
    assert 'data-rig-clip=""' in on_project
    on_clip = client.get(reverse("clip-drive", args=[clip.pk])).content.decode()
    assert "data-rig-select" not in on_clip and f'data-rig-clip="{clip.pk}"' in on_clip


def test_outsiders_get_404_and_anonymous_users_the_log_in_page(
    project: Project, clip: Clip, members: dict[str, Any], shipped: object
) -> None:
    pages = [reverse("project-drive", args=[project.pk]), reverse("clip-drive", args=[clip.pk])]
    endpoints = [*_weights_urls(project), reverse("drive-rig", args=[clip.pk])]
    outsider = logged_in(members["outsider"])
    for url in pages + endpoints:
        assert outsider.get(url).status_code == 404, url
    assert outsider.get(reverse("project-drive", args=[999_999])).status_code == 404
    for url in pages:
        response = Client().get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url
    for url in endpoints:
        answer = Client().get(url)
        assert answer.status_code in (401, 403) and "error" in answer.json(), url


# --- the weights ----------------------------------------------------------------------------


def test_no_shipped_weights_is_a_clear_404(
    project: Project, members: dict[str, Any], no_shipped: Path
) -> None:
    client = logged_in(members["viewer"])
    for url in _weights_urls(project):
        response = client.get(url)
        assert response.status_code == 404 and response["Content-Type"] == "application/json"
        error = response.json()["error"]
        assert error["code"] == "no_shipped_weights", error
        assert "train on your clips" in error["message"]


def test_the_shipped_weights_come_back_equal_and_revalidate_with_their_etag(
    project: Project, members: dict[str, Any], shipped: network.Weights
) -> None:
    client = logged_in(members["viewer"])
    assert_same_weights(_fetch(client, project), shipped)
    for url in _weights_urls(project):
        first = client.get(url)
        etag = first["ETag"]
        assert (
            etag.startswith('"')
            and len(etag) == 66
            and first["Cache-Control"] == "private, no-cache"
        )
        again = client.get(url, HTTP_IF_NONE_MATCH=etag)
        assert again.status_code == 304 and again.content == b"" and again["ETag"] == etag
        other = client.get(url, HTTP_IF_NONE_MATCH='"another"')
        assert other.status_code == 200 and other.content == first.content


def test_a_replaced_shipped_file_is_served_anew_and_replayed_by_the_drive_stage(
    project: Project, members: dict[str, Any], shipped: network.Weights
) -> None:
    client = logged_in(members["viewer"])
    blob_url = _weights_urls(project)[1]
    before = client.get(blob_url)["ETag"]
    assert_same_weights(stages.shipped_weights(), shipped)  # the stage reads the same file
    newer = network.random_weights(SMALL, seed=5)
    path = network.SHIPPED_WEIGHTS
    path.write_bytes(_npz(newer))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # a later mtime for sure
    assert client.get(blob_url)["ETag"] != before
    assert_same_weights(_fetch(client, project), newer)
    assert_same_weights(stages.shipped_weights(), newer)


def test_a_succeeded_training_of_the_project_serves_its_weights(
    project: Project, clip: Clip, members: dict[str, Any], no_shipped: Path
) -> None:
    trained = network.random_weights(SMALL, seed=3)
    training = _trained(clip, trained)
    client = logged_in(members["reviewer"])
    assert_same_weights(_fetch(client, project, training.pk), trained)
    page = client.get(reverse("project-drive", args=[project.pk])).content.decode()
    assert f'<option value="{training.pk}">Training {training.pk}' in page


def test_another_projects_training_is_404_and_one_without_weights_409(
    project: Project, clip: Clip, members: dict[str, Any], no_shipped: Path
) -> None:
    editor = members["editor"]
    other = Project.objects.create(name="Other")
    Membership.objects.create(project=other, user=editor, role=Role.OWNER)
    theirs = clip_upload_create(
        project=other,
        user=editor,
        name="walk.bvh",
        data=(SAMPLES / "games105" / "walk60.bvh").read_bytes(),
    ).clip
    foreign = _trained(theirs, network.random_weights(SMALL, seed=4))
    client = logged_in(editor)
    for url in _weights_urls(project, foreign.pk):
        assert client.get(url).status_code == 404, url  # a member of both: still not this project's
    assert client.get(_weights_urls(other, foreign.pk)[0]).status_code == 200
    running = Run.objects.create(clip=clip, stages=["motornerve_train"], status="running")
    pending = Training.objects.create(project=project, name="later", run=running)
    response = client.get(_weights_urls(project, pending.pk)[0])
    assert response.status_code == 409 and response.json()["error"]["code"] == "training_not_ready"
    bad = client.get(reverse("drive-weights", args=[project.pk]) + "?training=abc")
    assert bad.status_code == 400 and "training" in bad.json()["error"]["details"]["fields"]
    running.status, running.finished_at = "succeeded", now()
    running.save()  # succeeded, but no weights file: still nothing to serve
    assert client.get(_weights_urls(project, pending.pk)[0]).status_code == 409


# --- the rig ----------------------------------------------------------------------------------


def test_the_rig_endpoint_gives_the_scale_the_drive_stage_uses(
    clip: Clip, members: dict[str, Any]
) -> None:
    body: dict[str, Any] = (
        logged_in(members["viewer"]).get(reverse("drive-rig", args=[clip.pk])).json()
    )
    with clip.original.open("rb") as handle:
        rig = bvh.load(handle.read())
    leg = retarget.rig_leg_m(rig, roles_mod.infer(rig.skeleton))
    assert body == {
        "clip_id": clip.pk,
        "name": clip.name,
        "leg_m": leg,
        "scale": leg / on_rig.canonical_leg_m(),
    }
    assert 0.5 < body["scale"] < 1.5
