"""Browser pages: my projects, a project (clips, members), the upload page, a clip.

Views are thin: reads go through selectors, writes through services, and a service
error becomes an error page in one place, :func:`page`. A project a user is not a
member of does not exist for them (404), as in the API.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from motioncore import parameters as p
from webapp.characters.selectors import character_list
from webapp.clips import presenters
from webapp.clips.analysis import analysis_parameters, clip_analysis_stored
from webapp.clips.models import ArtifactKind
from webapp.clips.selectors import (
    clip_artifact_json,
    clip_downloads_ready,
    clip_get,
    clip_latest_run,
    clip_list,
)
from webapp.core.auth import request_user
from webapp.core.pages import CAMERA_PRESETS, page
from webapp.core.parameters import choices
from webapp.laban.editing import TEMPLATES as SCORE_TEMPLATES
from webapp.laban.selectors import score_list
from webapp.projects.models import ROLE_RANK, Role
from webapp.projects.permissions import require_role, role_of
from webapp.projects.selectors import membership_list, project_get, project_list_with_role
from webapp.projects.services import project_create
from webapp.runs.selectors import run_list
from webapp.sequences.selectors import sequence_list
from webapp.transitions.selectors import (
    transition_list,
    transition_list_for_clip,
    transition_targets,
)


class ProjectForm(forms.Form):
    name = forms.CharField(max_length=120, strip=True, label="Project name")


@require_GET
@page
def home(request: HttpRequest) -> HttpResponse:
    """My projects and the new-project form."""
    projects = project_list_with_role(user=request_user(request))
    return render(request, "pages/home.html", {"projects": projects, "form": ProjectForm()})


@require_POST
@page
def project_new(request: HttpRequest) -> HttpResponse:
    """Create a project (I become its owner) and open it."""
    form = ProjectForm(request.POST)
    if not form.is_valid():
        context = {"projects": project_list_with_role(user=request_user(request)), "form": form}
        return render(request, "pages/home.html", context, status=400)
    project = project_create(user=request_user(request), name=form.cleaned_data["name"])
    return redirect("project", project_id=project.pk)


@require_GET
@page
def project_detail(request: HttpRequest, project_id: int) -> HttpResponse:
    """A project's clips (with their latest run) and members."""
    user = request_user(request)
    project = project_get(user=user, project_id=project_id)
    role = require_role(project=project, user=user, role=Role.VIEWER)
    clips = clip_list(user=user, project_id=project_id)
    members = membership_list(user=user, project_id=project_id)
    context = {
        "project": project,
        "role": role,
        "can_upload": ROLE_RANK[role] >= ROLE_RANK[Role.EDITOR],
        "clips": [(clip, clip_latest_run(clip)) for clip in clips],
        "members": sorted(members, key=lambda m: -ROLE_RANK[Role(m.role)]),  # stable: by name
        "transitions": transition_list(user=user, project_id=project_id),
        "sequences": sequence_list(user=user, project_id=project_id),
        "scores": score_list(user=user, project_id=project_id),
        "score_templates": SCORE_TEMPLATES,
        "characters": character_list(user=user, project_id=project_id),
    }
    return render(request, "pages/project.html", context)


@require_GET
@page
def project_upload(request: HttpRequest, project_id: int) -> HttpResponse:
    """Drag-and-drop upload with progress (editors and owners)."""
    user = request_user(request)
    project = project_get(user=user, project_id=project_id)
    require_role(project=project, user=user, role=Role.EDITOR)
    context = {
        "project": project,
        "max_bytes": settings.UPLOAD_MAX_BYTES,
        "max_mb": f"{settings.UPLOAD_MAX_BYTES / (1024 * 1024):g}",
    }
    return render(request, "pages/upload.html", context)


@require_GET
@page
def clip_detail(request: HttpRequest, clip_id: int) -> HttpResponse:
    """A clip's player and curves, validation report, cut points, transitions (and the
    form that starts one, for editors), downloads and runs."""
    user = request_user(request)
    clip = clip_get(user=user, clip_id=clip_id)
    ready = clip_downloads_ready(clip)
    can_edit = (
        ROLE_RANK[role_of(project=clip.project, user=user) or Role.VIEWER] >= ROLE_RANK[Role.EDITOR]
    )
    clean_report = clip_artifact_json(clip, ArtifactKind.CLEAN_REPORT)
    context = {
        "clip": clip,
        "project": clip.project,
        "report": presenters.report_view(clip.report),
        "downloads": presenters.downloads(clip, ready),
        "analysis": presenters.analysis_view(clip_analysis_stored(clip)),
        "viewer_url": presenters.viewer_url(clip, ready),
        "raw_viewer_url": presenters.viewer_url(clip, ready, "viewer-raw.json"),
        "skate": presenters.skate_readout(clean_report),
        "clean_warnings": presenters.clean_warnings(clean_report),
        "camera_presets": CAMERA_PRESETS,
        "analysis_url": reverse("api:clip-analysis", args=[clip.pk]),
        "saved": analysis_parameters(clip, {}),
        "measures": choices(p.MEASURE),
        "parameters": p.as_json(),
        "can_edit": can_edit,
        "runs": run_list(user=user, project_id=clip.project_id).filter(clip=clip),
        "transitions": transition_list_for_clip(clip=clip),
        "targets": transition_targets(user=user, clip=clip) if can_edit else [],
        "blends": choices(p.BLEND),
    }
    return render(request, "pages/clip.html", context)
