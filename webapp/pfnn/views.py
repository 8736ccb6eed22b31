"""The Walk page of a clip: draw a path, walk it with the PFNN on the clip's rig, play the
result and earlier walks. Thin: reads through selectors; the walk itself is started by
the page's script through ``POST /api/v1/pfnn/generate/``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from webapp.clips.selectors import clip_get
from webapp.core.auth import request_user
from webapp.core.pages import CAMERA_PRESETS, page
from webapp.pfnn.models import Generation
from webapp.pfnn.selectors import generation_downloads_ready, generation_list_for_clip
from webapp.projects.models import ROLE_RANK, Role
from webapp.projects.permissions import role_of
from webapp.runs.models import Run


@dataclass(frozen=True)
class GenerationRow:
    """A past walk as the page lists it."""

    pk: int
    parameters: dict[str, Any]
    run: Run
    result: dict[str, Any]
    viewer_url: str | None


def _row(generation: Generation) -> GenerationRow:
    ready = generation_downloads_ready(generation)
    url = reverse("api:pfnn-download", args=[generation.pk, "viewer.json"])
    return GenerationRow(
        generation.pk,
        generation.parameters,
        generation.run,
        generation.result or {},
        url if ready["viewer.json"] else None,
    )


@require_GET
@page
def clip_walk(request: HttpRequest, clip_id: int) -> HttpResponse:
    """The path editor, the player and the clip's walks (editors may start one)."""
    user = request_user(request)
    clip = clip_get(user=user, clip_id=clip_id)
    role = role_of(project=clip.project, user=user) or Role.VIEWER
    context = {
        "clip": clip,
        "project": clip.project,
        "can_edit": ROLE_RANK[role] >= ROLE_RANK[Role.EDITOR],
        "generate_url": reverse("api:pfnn-generate"),
        "generations": [_row(g) for g in generation_list_for_clip(clip=clip)],
        "camera_presets": CAMERA_PRESETS,
    }
    return render(request, "pages/walk.html", context)
