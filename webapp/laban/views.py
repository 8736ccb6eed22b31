"""Score pages: upload a score or start one from a template on the project page (forms),
and the score page (the animation, the staff with its cursor and, for editors, the
editor; footprints, measures, versions, downloads)."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from webapp.clips.uploads import MULTIPART_OVERHEAD_BYTES
from webapp.core.auth import request_user
from webapp.core.errors import ServiceError
from webapp.core.limits import request_limit
from webapp.core.pages import CAMERA_PRESETS, error_page, page
from webapp.laban.editing import score_template_create, score_versions
from webapp.laban.selectors import score_animated, score_get
from webapp.laban.services import score_bytes_check, score_upload_create
from webapp.projects.models import ROLE_RANK, Role
from webapp.projects.permissions import require_role, role_of
from webapp.projects.selectors import project_get


@dataclass(frozen=True)
class Link:
    label: str
    url: str


@require_POST
@request_limit(bytes_setting="SCORE_MAX_BYTES", overhead_bytes=MULTIPART_OVERHEAD_BYTES)
@page
def score_new(request: HttpRequest, project_id: int) -> HttpResponse:
    """Upload a score file (form field ``file``) and show its page, where the run that
    animates it shows its progress."""
    user = request_user(request)
    project = project_get(user=user, project_id=project_id)
    try:
        require_role(project=project, user=user, role=Role.EDITOR)  # before the body is read
        upload = request.FILES.get("file")
        if upload is None:
            return error_page(request, "Choose a score file (.json) to upload.", 400)
        score_bytes_check(size=upload.size or 0)
        score = score_upload_create(
            project=project, user=user, name=upload.name or "score.json", data=upload.read()
        )
    except ServiceError as error:
        problems = (error.details or {}).get("problems") or []
        message = (
            error.message if not problems else "The score is not valid: " + " · ".join(problems)
        )
        return error_page(request, message, error.status)
    return redirect("score", score_id=score.pk)


@require_POST
@page
def score_from_template(request: HttpRequest, project_id: int) -> HttpResponse:
    """A new score from the template named in the form (``template``), then its page."""
    user = request_user(request)
    project = project_get(user=user, project_id=project_id)
    try:
        score = score_template_create(
            project=project, user=user, template=request.POST.get("template", "")
        )
    except ServiceError as error:
        return error_page(request, error.message, error.status)
    return redirect("score", score_id=score.pk)


@require_GET
@page
def score_detail(request: HttpRequest, score_id: int) -> HttpResponse:
    score = score_get(user=request_user(request), score_id=score_id)

    def url(name: str) -> str:
        return reverse("api:score-download", args=[score.pk, name])

    animated = score_animated(score)
    role = role_of(project=score.project, user=request_user(request))
    versions = list(score_versions(score).select_related("created_by"))

    context = {
        "score_obj": score,
        "project": score.project,
        "score_url": url("score.json"),
        "animation_url": url("animation.json"),
        "footprints_url": url("footprints.json"),
        "downloads": [
            link
            for link, ready in (
                (Link("Animation (BVH, canonical skeleton)", url("animation.bvh")), animated),
                (Link("Animation on the mannequin (GLB)", url("animation.glb")), animated),
                (Link("Score (JSON, kinetograph-score/1)", url("score.json")), True),
                (
                    Link("Footprints, centre path and measures (JSON)", url("footprints.json")),
                    animated,
                ),
                (Link("Viewer arrays (JSON)", url("animation.json")), animated),
            )
            if ready
        ],
        "camera_presets": CAMERA_PRESETS,
        "import_notes": score.animation.get("labanwriter"),
        "animated": animated,
        "run": score.clip.runs.order_by("-created_at", "-id").first(),
        "versions": versions,
        "next_version": max(v.version for v in versions) + 1,
        "can_edit": role is not None and ROLE_RANK[role] >= ROLE_RANK[Role.EDITOR],
        "preview_url": reverse("api:score-preview", args=[score.pk]),
        "versions_url": reverse("api:score-versions", args=[score.pk]),
    }
    return render(request, "pages/score.html", context)
