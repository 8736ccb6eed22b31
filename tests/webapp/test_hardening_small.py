"""Three small hardenings of issue 16: an ``Idempotency-Key`` replay re-checks the role
and never carries a secret (finding 10); a download's file name cannot smuggle a path,
a header or a disguised extension (finding 11); a run's frame rate is bounded
(finding 12, the fps part).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser, User

from motioncore import bvh
from motioncore import parameters as p
from support.paths import SAMPLE_DIR
from support.web import client_for
from webapp.clips.models import Clip
from webapp.core.idempotency import REPLAYED_HEADER
from webapp.core.models import IdempotentResponse
from webapp.projects.models import Membership, Project, Role
from webapp.runs import pipeline
from webapp.runs.models import Run
from webapp.webhooks.models import Webhook

KEY = "hardening-small-key-1"
HOOK = {"url": "https://receiver.test/hook"}

# --- finding 10: replays -------------------------------------------------------------------------


def create_hook(user: AbstractUser, project: Project) -> Any:
    return client_for(user).post(
        f"/api/v1/projects/{project.pk}/webhooks/", HOOK, format="json", HTTP_IDEMPOTENCY_KEY=KEY
    )


@pytest.mark.django_db
def test_a_replay_never_shows_the_secret(
    members: dict[str, AbstractUser], project: Project
) -> None:
    """Finding 10: the first answer shows the secret once; the stored copy and the
    owner's replay leave it out (and nothing is created twice)."""
    first = create_hook(members["owner"], project)
    assert first.status_code == 201
    assert first.json()["secret"] == Webhook.objects.get().secret
    stored = IdempotentResponse.objects.get(key=KEY)
    assert "secret" not in stored.body
    replay = create_hook(members["owner"], project)
    assert replay.status_code == 201 and replay[REPLAYED_HEADER] == "true"
    assert "secret" not in replay.json()
    assert Webhook.objects.get().secret not in replay.content.decode()
    assert replay.json() == {k: v for k, v in first.json().items() if k != "secret"}
    assert Webhook.objects.count() == 1


@pytest.mark.django_db
def test_a_replay_to_a_demoted_owner_is_403(
    members: dict[str, AbstractUser], project: Project
) -> None:
    """Finding 10: an owner since demoted to viewer gets 403, not the stored 201."""
    owner = members["owner"]
    assert create_hook(owner, project).status_code == 201
    Membership.objects.filter(project=project, user_id=owner.pk).update(role=Role.VIEWER)
    replay = create_hook(owner, project)
    assert replay.status_code == 403, replay.content
    assert replay.json()["error"]["code"] == "permission_denied"
    assert REPLAYED_HEADER not in replay
    assert Webhook.objects.get().secret not in replay.content.decode()


@pytest.mark.django_db
def test_a_replay_to_a_removed_member_is_404(
    members: dict[str, AbstractUser], project: Project
) -> None:
    """Finding 10: someone no longer in the project does not learn the webhook."""
    owner = members["owner"]
    assert create_hook(owner, project).status_code == 201
    Membership.objects.filter(project=project, user_id=owner.pk).delete()
    assert create_hook(owner, project).status_code == 404


# --- finding 11: download names ------------------------------------------------------------------

EVIL_NAMES = {
    'a"\r\nX: y;.html': "a_X_ y_.score.json",
    "../../evil.html": "evil.score.json",
    "..\\..\\evil.html": "evil.score.json",
    "x\u202enosj.lmth.json": "xnosj.lmth.score.json",  # a right-to-left override dropped
}


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "expected"), EVIL_NAMES.items())
def test_an_evil_score_name_makes_a_plain_attachment_name(
    members: dict[str, AbstractUser],
    project: Project,
    media_root: Path,
    name: str,
    expected: str,
) -> None:
    """Finding 11: the uploaded name reached Content-Disposition as it was."""
    from webapp.laban.services import score_upload_create

    editor = members["editor"]
    assert isinstance(editor, User)
    data = (SAMPLE_DIR / "scores" / "walk_forward.json").read_bytes()
    score = score_upload_create(project=project, user=editor, name=name, data=data)
    response = client_for(editor).get(f"/api/v1/scores/{score.pk}/download/score.json/")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="{expected}"'


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("walk é.bvh", "walk é.bvh"),  # letters of any script stay
        ("C:\\Users\\me\\walk.bvh", "walk.bvh"),
        ("..", "download"),
        ("\x00\x1f", "download"),
        ("a" * 300 + ".bvh", "a" * 196 + ".bvh"),
    ],
)
def test_safe_filename(name: str, expected: str) -> None:
    """Finding 11: the name rule itself (basename, no control characters, bounded)."""
    from webapp.core.downloads import safe_filename  # here: the other tests run without

    assert safe_filename(name) == expected


# --- finding 12: a run's frame rate --------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("fps", [1e-300, 0.5, 1000.001, 1e300])
def test_a_run_refuses_an_fps_out_of_bounds(
    members: dict[str, AbstractUser], clip: Clip, fps: float
) -> None:
    """Finding 12: ``{"fps": 1e-300}`` was accepted and wrote ``Frame Time: 1e+300``."""
    before = Run.objects.count()
    response = client_for(members["editor"]).post(
        f"/api/v1/clips/{clip.pk}/runs/", {"fps": fps}, format="json"
    )
    assert response.status_code == 400, response.content
    [message] = response.json()["error"]["details"]["fields"]["fps"]
    assert f"{p.FPS.minimum:g}" in message and f"{p.FPS.maximum:g}" in message
    assert Run.objects.count() == before


@pytest.mark.django_db
@pytest.mark.parametrize("fps", [1.0, 1000.0])
def test_a_run_at_an_fps_bound_writes_a_bvh_the_parser_reads(
    members: dict[str, AbstractUser], clip: Clip, fps: float
) -> None:
    """Finding 12: at either bound the cleaned BVH reads back at that rate."""
    assert fps in (p.FPS.minimum, p.FPS.maximum)
    response = client_for(members["editor"]).post(
        f"/api/v1/clips/{clip.pk}/runs/", {"fps": fps}, format="json"
    )
    assert response.status_code == 201, response.content
    pipeline.execute(run_id=response.json()["id"])
    cleaned: Any = client_for(members["editor"]).get(
        f"/api/v1/clips/{clip.pk}/download/cleaned.bvh/"
    )
    assert cleaned.status_code == 200
    assert bvh.load(b"".join(cleaned.streaming_content)).fps == pytest.approx(fps)
