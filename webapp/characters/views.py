"""Character forms on the project page: upload a character (its report then listed with
it) and delete one. The list itself is part of the project page
(:func:`webapp.clips.views.project_detail`)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from webapp.characters.selectors import character_get
from webapp.characters.services import character_bytes_check, character_create, character_delete
from webapp.clips.uploads import MULTIPART_OVERHEAD_BYTES
from webapp.core.auth import request_user
from webapp.core.errors import ServiceError
from webapp.core.limits import request_limit
from webapp.core.pages import error_page, page
from webapp.projects.models import Role
from webapp.projects.permissions import require_role
from webapp.projects.selectors import project_get


def _on_project(project_id: int) -> str:
    return reverse("project", args=[project_id]) + "#characters"


@require_POST
@request_limit(bytes_setting="CHARACTER_MAX_BYTES", overhead_bytes=MULTIPART_OVERHEAD_BYTES)
@page
def character_new(request: HttpRequest, project_id: int) -> HttpResponse:
    """Upload a character (form field ``file``); back to the project page's list."""
    user = request_user(request)
    project = project_get(user=user, project_id=project_id)
    try:
        require_role(project=project, user=user, role=Role.EDITOR)  # before the body is read
        upload = request.FILES.get("file")
        if upload is None:
            return error_page(request, "Choose a character file (.glb or .gltf) to upload.", 400)
        character_bytes_check(size=upload.size or 0)
        character_create(
            project=project, user=user, name=upload.name or "character.glb", data=upload.read()
        )
    except ServiceError as error:
        return error_page(request, error.message, error.status)
    return redirect(_on_project(project.pk))


@require_POST
@page
def character_remove(request: HttpRequest, character_id: int) -> HttpResponse:
    """Delete a character and its files; back to the project page."""
    user = request_user(request)
    character = character_get(user=user, character_id=character_id)
    project_id = character.project_id
    try:
        character_delete(character=character, user=user)
    except ServiceError as error:
        return error_page(request, error.message, error.status)
    return redirect(_on_project(project_id))
