"""Sequence pages: the builder (a timeline of the project's clips, in order) and a
sequence (its run, its joins, the player, downloads). Thin: services and selectors do
the work."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from motioncore import parameters as p
from webapp.clips.selectors import clip_list
from webapp.core.auth import request_user
from webapp.core.errors import ServiceError
from webapp.core.pages import CAMERA_PRESETS, error_page, page
from webapp.core.parameters import form_field
from webapp.projects.models import Role
from webapp.projects.permissions import require_role
from webapp.projects.selectors import project_get
from webapp.sequences import presenters
from webapp.sequences.selectors import sequence_downloads_ready, sequence_get, sequence_list
from webapp.sequences.services import sequence_create


class SequenceForm(forms.Form):
    """The builder's parameters (the clips come as repeated ``clips`` fields, in order)."""

    alpha = form_field(p.ALPHA)
    theta_max_deg = form_field(p.THETA_MAX_DEG)
    measure = form_field(p.MEASURE)
    blend = form_field(p.BLEND)


def _clip_ids(request: HttpRequest) -> list[int]:
    try:
        return [int(value) for value in request.POST.getlist("clips")]
    except ValueError as error:
        raise ServiceError("The timeline holds something that is not a clip.") from error


@require_http_methods(["GET", "POST"])
@page
def sequence_new(request: HttpRequest, project_id: int) -> HttpResponse:
    """GET: the builder; POST: queue the sequence of the timeline's clips, then show it."""
    user = request_user(request)
    project = project_get(user=user, project_id=project_id)
    require_role(project=project, user=user, role=Role.EDITOR)
    if request.method == "POST":
        form = SequenceForm(request.POST)
        if not form.is_valid():
            return error_page(request, f"The sequence was not started: {form.errors}", 400)
        created = sequence_create(
            user=user,
            project_id=project.pk,
            clip_ids=_clip_ids(request),
            parameters=dict(form.cleaned_data),
        )
        return redirect("sequence", sequence_id=created.pk)
    context: dict[str, Any] = {
        "project": project,
        "clips": [c for c in clip_list(user=user, project_id=project_id) if c.frames],
        "form": SequenceForm(),
        "sequences": sequence_list(user=user, project_id=project_id)[:10],
    }
    return render(request, "pages/sequence_new.html", context)


def _frame(value: str | None) -> int | None:
    """A frame typed into a join's field: empty is ``None`` (searched)."""
    if value is None or not value.strip():
        return None
    try:
        frame = int(value)
    except ValueError as error:
        raise ServiceError(f"{value!r} is not a frame number.") from error
    if frame < 0:
        raise ServiceError(f"Frame {frame} is before the clip's start.")
    return frame


@require_http_methods(["POST"])
@page
def sequence_adjust(request: HttpRequest, sequence_id: int) -> HttpResponse:
    """Render the sequence again with its joins' cuts and entries as typed on its page
    (empty fields are searched): a new sequence of the same clips and parameters."""
    user = request_user(request)
    sequence = sequence_get(user=user, sequence_id=sequence_id)
    joins = len(sequence.clips) - 1
    edits: list[dict[str, Any] | None] = []
    for k in range(1, joins + 1):
        cut, entry = _frame(request.POST.get(f"cut-{k}")), _frame(request.POST.get(f"entry-{k}"))
        edits.append(None if cut is None and entry is None else {"cut": cut, "entry": entry})
    created = sequence_create(
        user=user,
        project_id=sequence.project_id,
        clip_ids=list(sequence.clips),
        parameters=dict(sequence.parameters),
        edits=edits,
    )
    return redirect("sequence", sequence_id=created.pk)


@require_http_methods(["GET"])
@page
def sequence_detail(request: HttpRequest, sequence_id: int) -> HttpResponse:
    """The sequence: its run, the player over its joins, the joins table, downloads."""
    sequence = sequence_get(user=request_user(request), sequence_id=sequence_id)
    ready = sequence_downloads_ready(sequence)
    context = {
        "sequence": sequence,
        "project": sequence.project,
        "run": sequence.run,
        "joins": presenters.join_rows(sequence.result or {}),
        "clips": (sequence.result or {}).get("clips") or [],
        "source": presenters.player_source(sequence, ready),
        "downloads": presenters.downloads(sequence, ready),
        "camera_presets": CAMERA_PRESETS,
    }
    return render(request, "pages/sequence.html", context)
