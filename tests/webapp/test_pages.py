"""Browser pages: sign-up and log-in, who sees what (members vs outsiders), the upload
page, the clip page with its report and downloads, and the demo seed command."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from motioncore import bvh, quat
from support.web import SAMPLES, processed
from webapp.clips import presenters
from webapp.clips.models import Clip
from webapp.clips.presenters import report_view
from webapp.clips.services import clip_upload_create
from webapp.projects.models import Membership, Project, Role
from webapp.runs import pipeline
from webapp.runs.models import Run, Status

pytestmark = pytest.mark.django_db

SIGNUP_PASSWORD = "a-long-enough-passphrase-7"
STATIC_JS = Path(__file__).resolve().parents[2] / "static" / "js"
NODE = shutil.which("node")


def logged_in(user: AbstractUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def clip(project: Project, members: dict[str, AbstractUser], sample_bvh: bytes) -> Clip:
    editor = members["editor"]
    assert isinstance(editor, get_user_model())
    return clip_upload_create(
        project=project, user=editor, name="run_forward.bvh", data=sample_bvh
    ).clip


def page_urls(project: Project, clip: Clip) -> list[str]:
    return [
        reverse("home"),
        reverse("project", args=[project.pk]),
        reverse("project-upload", args=[project.pk]),
        reverse("clip", args=[clip.pk]),
    ]


# --- accounts ----------------------------------------------------------------------------------


def test_signup_creates_the_user_and_logs_in() -> None:
    client = Client()
    assert client.get(reverse("signup")).status_code == 200
    response = client.post(
        reverse("signup"),
        {"username": "ada", "password1": SIGNUP_PASSWORD, "password2": SIGNUP_PASSWORD},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    user = get_user_model().objects.get(username="ada")
    assert user.check_password(SIGNUP_PASSWORD)
    assert not user.is_staff
    home = client.get(reverse("home"))
    assert home.status_code == 200
    assert home.wsgi_request.user == user
    assert b"Your projects" in home.content


@pytest.mark.parametrize(
    ("username", "password2", "error"),
    [
        ("ada", "something-else-entirely-9", b"didn\xe2\x80\x99t match"),
        ("taken", SIGNUP_PASSWORD, b"already exists"),
    ],
)
def test_signup_refuses_bad_input(username: str, password2: str, error: bytes) -> None:
    get_user_model().objects.create_user(username="Taken", password="x")
    response = Client().post(
        reverse("signup"),
        {"username": username, "password1": SIGNUP_PASSWORD, "password2": password2},
    )
    assert response.status_code == 400
    assert error in response.content
    assert b'aria-invalid="true"' in response.content
    assert get_user_model().objects.count() == 1


def test_login_form_logs_in_and_logout_logs_out(members: dict[str, AbstractUser]) -> None:
    client = Client()
    page = client.get(reverse("login"))
    assert page.status_code == 200
    assert b'name="username"' in page.content
    response = client.post(
        reverse("login"), {"username": "viewer-user", "password": "pw-viewer-user"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    assert client.get(reverse("home")).status_code == 200
    assert client.post(reverse("logout")).status_code == 302
    assert client.get(reverse("home")).status_code == 302


def test_wrong_password_shows_an_error(members: dict[str, AbstractUser]) -> None:
    response = Client().post(reverse("login"), {"username": "viewer-user", "password": "nope"})
    assert response.status_code == 200
    assert b'role="alert"' in response.content


def test_pages_require_login(project: Project, clip: Clip) -> None:
    client = Client()
    for url in page_urls(project, clip):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login") + "?next="), url


# --- projects ----------------------------------------------------------------------------------


def test_home_lists_my_projects_only(project: Project, members: dict[str, AbstractUser]) -> None:
    Project.objects.create(name="Somebody else's")
    response = logged_in(members["viewer"]).get(reverse("home"))
    assert response.status_code == 200
    assert b"Project X" in response.content
    assert b"Somebody else" not in response.content
    assert reverse("project", args=[project.pk]).encode() in response.content


def test_new_project_makes_me_owner(members: dict[str, AbstractUser]) -> None:
    client = logged_in(members["outsider"])
    response = client.post(reverse("project-new"), {"name": "  Walk cycles  "})
    project = Project.objects.get(name="Walk cycles")
    assert response.status_code == 302
    assert response["Location"] == reverse("project", args=[project.pk])
    membership = Membership.objects.get(project=project)
    assert (membership.user, membership.role) == (members["outsider"], Role.OWNER)


def test_new_project_needs_a_name(members: dict[str, AbstractUser]) -> None:
    response = logged_in(members["outsider"]).post(reverse("project-new"), {"name": "   "})
    assert response.status_code == 400
    assert b"This field is required" in response.content
    assert not Project.objects.filter(memberships__user=members["outsider"]).exists()


def test_member_sees_the_project_its_clips_and_members(
    project: Project, members: dict[str, AbstractUser], clip: Clip
) -> None:
    response = logged_in(members["viewer"]).get(reverse("project", args=[project.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert reverse("clip", args=[clip.pk]) in html
    assert "run_forward.bvh" in html
    assert f'<td class="num">{clip.frames}</td>' in html
    assert "60.00 fps" in html
    assert f"{clip.duration_s:.2f} s" in html
    run = Run.objects.get(clip=clip)
    assert f'data-run-id="{run.pk}" data-status="queued"' in html
    assert '<progress class="run-status__bar" max="100" value="0"' in html
    for role in ("owner", "editor", "reviewer", "viewer"):
        assert re.search(rf"{role}-user.*?role--{role}", html, re.S), role
    assert "outsider" not in html
    # a viewer cannot upload: no upload button
    assert reverse("project-upload", args=[project.pk]) not in html


def test_outsider_gets_404_everywhere(
    project: Project, members: dict[str, AbstractUser], clip: Clip
) -> None:
    client = logged_in(members["outsider"])
    for url in page_urls(project, clip)[1:]:
        response = client.get(url)
        assert response.status_code == 404, url
        assert b"Project X" not in response.content
        assert b"run_forward" not in response.content


def test_missing_ids_are_404(members: dict[str, AbstractUser]) -> None:
    client = logged_in(members["owner"])
    assert client.get(reverse("project", args=[999_999])).status_code == 404
    assert client.get(reverse("clip", args=[999_999])).status_code == 404


# --- upload page -------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["owner", "editor"])
def test_upload_page_renders_for_editors(
    project: Project, members: dict[str, AbstractUser], role: str
) -> None:
    client = logged_in(members[role])
    project_page = client.get(reverse("project", args=[project.pk])).content.decode()
    assert reverse("project-upload", args=[project.pk]) in project_page
    response = client.get(reverse("project-upload", args=[project.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-upload-url="/api/v1/projects/{project.pk}/clips/"' in html
    assert 'type="file" name="file" accept=".bvh" multiple' in html
    assert re.search(r'<meta name="csrf-token" content="[^"]{32,}">', html)
    assert 'id="run-status-template"' in html
    assert "js/upload.js" in html


@pytest.mark.parametrize("role", ["viewer", "reviewer"])
def test_upload_page_is_forbidden_below_editor(
    project: Project, members: dict[str, AbstractUser], role: str
) -> None:
    response = logged_in(members[role]).get(reverse("project-upload", args=[project.pk]))
    assert response.status_code == 403
    assert b"editor role or higher" in response.content


# --- clip page ---------------------------------------------------------------------------------


def test_clip_page_shows_the_report_and_download_links(
    members: dict[str, AbstractUser], clip: Clip
) -> None:
    client = logged_in(members["reviewer"])
    before = client.get(reverse("clip", args=[clip.pk])).content.decode()
    assert "Validation report" in before
    assert "XYZ</strong> × 20 joints" in before  # rotation orders
    assert "Y up" in before and "metres" in before  # up axis and unit guesses
    assert re.search(r'<meter [^>]*value="100"', before)  # unit confidence 1.0
    assert "Left foot" in before and "<code>lAnkle</code>" in before  # joint roles
    assert "Xposition Yposition Zposition Xrotation Yrotation Zrotation" in before
    assert "No warnings." in before
    assert f'href="/api/v1/clips/{clip.pk}/download/original/"' in before
    assert "/download/cleaned.bvh/" not in before  # not produced yet
    assert 'data-status="queued"' in before

    run = Run.objects.get(clip=clip)
    pipeline.execute(run_id=run.pk)  # what the worker does
    run.refresh_from_db()
    assert run.status == Status.SUCCEEDED

    after = client.get(reverse("clip", args=[clip.pk])).content.decode()
    for kind in ("original", "cleaned.bvh", "viewer.json", "clean-report.json", "analysis.json"):
        assert f'href="/api/v1/clips/{clip.pk}/download/{kind}/" download' in after, kind
    assert 'data-status="succeeded"' in after
    assert 'value="100"' in after
    assert "ingest → clean → analyze" in after
    assert "Cut points" not in before
    assert "Cut points" in after and "α 0.6, θ_max 75.0°, speed" in after
    assert re.search(r"<dt>Best cut</dt><dd>(frame \d+ \(\d+\.\d{3} s\)|none: )", after)
    assert re.search(r"<strong>(start|steady|transition|ending)</strong> \d+%", after)


def test_clip_page_shows_a_failed_run_error(members: dict[str, AbstractUser], clip: Clip) -> None:
    Run.objects.filter(clip=clip).update(
        status=Status.FAILED, stage="Failed", error="The motion was too short."
    )
    html = logged_in(members["viewer"]).get(reverse("clip", args=[clip.pk])).content.decode()
    assert 'data-status="failed"' in html
    assert "The motion was too short." in html


def test_report_view_tolerates_a_sparse_report() -> None:
    view = report_view({"frames": 3, "warnings": ["odd"]})
    assert ("Frames", "3") in view.summary
    assert view.guesses == [] and view.roles == [] and view.warnings == ["odd"]


# --- demo data ---------------------------------------------------------------------------------


def test_seed_demo_is_idempotent() -> None:
    call_command("seed_demo")
    call_command("seed_demo")
    demo = get_user_model().objects.get(username="demo")
    assert demo.check_password("kinetograph-demo")
    project = Project.objects.get(name="Demo project")
    assert Membership.objects.get(project=project).role == Role.OWNER
    assert Clip.objects.filter(project=project).count() == 3
    assert Run.objects.filter(clip__project=project).count() == 3


# --- page scripts (syntax and the error sentence; needs node, skipped without it) -------------


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize(
    "script", sorted(p.relative_to(STATIC_JS).as_posix() for p in STATIC_JS.rglob("*.js"))
)
def test_page_scripts_parse(script: str) -> None:
    assert NODE is not None
    subprocess.run([NODE, "--check", str(STATIC_JS / script)], check=True, timeout=60)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_upload_error_message_names_line_and_column() -> None:
    assert NODE is not None
    cases = [
        (
            {
                "error": {
                    "code": "bvh_parse_error",
                    "message": "Bad OFFSET.",
                    "details": {"line": 4, "column": 14, "message": "Bad OFFSET."},
                }
            },
            400,
        ),
        (
            {
                "error": {
                    "code": "not_bvh",
                    "message": "Not BVH.",
                    "details": {"line": 1, "column": 1, "message": "Starts with HIERARCHY."},
                }
            },
            400,
        ),
        (None, 413),
    ]
    program = (
        f"import {{ errorMessage }} from {json.dumps((STATIC_JS / 'api.js').as_uri())};"
        f"for (const [body, status] of {json.dumps(cases)}) "
        "console.log(errorMessage(body, status));"
    )
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", program],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.splitlines() == [
        "Bad OFFSET. (line 4, column 14)",
        "Not BVH. (line 1, column 1: Starts with HIERARCHY.)",
        "The file is too large for the server.",
    ]


def test_analysis_view_handles_missing_unavailable_and_sparse_analyses() -> None:
    assert presenters.analysis_view(None) is None
    missing = presenters.analysis_view({"available": False, "reason": "too short"})
    assert missing is not None and not missing.available and missing.reason == "too short"
    sparse = presenters.analysis_view({})
    assert sparse is not None and sparse.available and sparse.best_cut == "" and sparse.cuts == ""
    assert sparse.gait == "not periodic (no reason given)"


def test_skate_readout_per_foot_with_units() -> None:
    report = {
        "measures_before": {
            "feet": {"left": {"slide_median_mps": 0.05234}, "right": {"slide_median_mps": None}},
            "penetration_worst_m": 0.0312,
        },
        "measures_after": {
            "feet": {"left": {"slide_median_mps": 0.00123}, "right": {"slide_median_mps": None}},
            "penetration_worst_m": 0.0,
        },
    }
    assert presenters.skate_readout(report) == [
        "left foot slide 0.052 → 0.001 m/s",
        "right foot slide — → —",
        "deepest foot point under the floor 3.1 → 0.0 cm",
    ]
    assert presenters.skate_readout(None) == [] and presenters.skate_readout({}) == []
    assert presenters.clean_warnings({"warnings": ["a", "b"]}) == ["a", "b"]
    assert presenters.clean_warnings(None) == []


def test_clip_page_shows_the_cleaning_warnings(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    """A take that opens on a bind pose: the cleaning drops it and the page says so."""
    take = bvh.load(SAMPLES / "games105" / "walk60.bvh")
    root = int(take.skeleton.roots[0])
    bind_tr = take.translations[:1].copy()
    bind_tr[0, root] += np.array([2.0, 0.0, -1.5])
    with_bind = take.with_arrays(
        np.concatenate([quat.identity((1, take.skeleton.num_joints)), take.rotations]),
        np.concatenate([bind_tr, take.translations]),
    )
    path = Path(settings.MEDIA_ROOT) / "bind_pose_walk.bvh"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(bvh.dump(with_bind))
    clip = processed(project, members["editor"], path)
    page = logged_in(members["viewer"]).get(reverse("clip", args=[clip.pk])).content.decode()
    assert "No warnings." not in page
    assert re.search(r"<li data-clean-warning>Cleaning: dropped 1 leading frame\(s\)", page)
    assert "foot slide" in page and "m/s" in page
