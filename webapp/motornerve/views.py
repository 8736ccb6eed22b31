"""The Drive page: steer a character live with the keyboard or a gamepad, the network
running in the browser; from a project (the canonical character) or from a clip (the
character sized to the clip's rig; a recording is put on the rig itself by the server).
Thin: reads through selectors; recordings are started by the page's script through
``POST /api/v1/motornerve/drives/``."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from webapp.clips.models import Clip
from webapp.clips.selectors import clip_get, clip_list
from webapp.core.auth import request_user
from webapp.core.pages import page
from webapp.motornerve.selectors import drive_list_for_clip, training_list
from webapp.projects.models import ROLE_RANK, Project, Role
from webapp.projects.permissions import role_of
from webapp.projects.selectors import project_get


def _context(request: HttpRequest, project: Project, clip: Clip | None) -> dict[str, object]:
    user = request_user(request)
    role = role_of(project=project, user=user) or Role.VIEWER
    trainings = [t for t in training_list(project_id=project.pk) if t.run.status == "succeeded"]
    return {
        "project": project,
        "clip": clip,
        "can_edit": ROLE_RANK[role] >= ROLE_RANK[Role.EDITOR],
        "weights_url": reverse("drive-weights"),
        "drives_url": reverse("api:motornerve-drives"),
        "drive_url": reverse("api:motornerve-drive", args=[0]),
        "trainings": trainings,
        "drives": list(drive_list_for_clip(clip=clip))[:10] if clip is not None else [],
        "rig_clips": list(clip_list(user=user, project_id=project.pk)[:50]),
    }


@require_GET
@page
def project_drive(request: HttpRequest, project_id: int) -> HttpResponse:
    """Drive the canonical character (recordings need a rig: pick a clip)."""
    project = project_get(user=request_user(request), project_id=project_id)
    return render(request, "pages/drive.html", _context(request, project, None))


@require_GET
@page
def clip_drive(request: HttpRequest, clip_id: int) -> HttpResponse:
    """Drive a character sized to the clip's rig; recordings are put on the rig."""
    clip = clip_get(user=request_user(request), clip_id=clip_id)
    return render(request, "pages/drive.html", _context(request, clip.project, clip))
