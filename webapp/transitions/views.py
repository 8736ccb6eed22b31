"""Transition pages: start one from a clip's page (a form), and the transition page
(the comparison table, the compare player, downloads). Views are thin: the form is
checked here, everything else goes through selectors, presenters and services."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from motioncore import parameters as p
from webapp.core.auth import request_user
from webapp.core.pages import CAMERA_PRESETS, error_page, page
from webapp.core.parameters import form_field
from webapp.transitions import presenters
from webapp.transitions.models import Transition
from webapp.transitions.selectors import transition_downloads_ready, transition_get
from webapp.transitions.services import transition_create


class TransitionForm(forms.Form):
    """The clip page's "Transition into…" form (the same ranges as the API's)."""

    clip_b = forms.IntegerField(min_value=1, label="Clip B")
    alpha = form_field(p.ALPHA)
    theta_max_deg = form_field(p.THETA_MAX_DEG)
    measure = form_field(p.MEASURE)
    blend_s = form_field(p.BLEND_S, label="Blend (s)")
    blend = form_field(p.BLEND)
    blend_min_s = form_field(p.BLEND_MIN_S, label="Shortest blend (s)", required=False)
    blend_max_s = form_field(p.BLEND_MAX_S, label="Longest blend (s)", required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for bound in (p.BLEND_MIN_S, p.BLEND_MAX_S):
            if data.get(bound.name) is None and bound.name not in self.errors:
                data[bound.name] = bound.default
        low, high = data.get("blend_min_s"), data.get("blend_max_s")
        if low is not None and high is not None and low > high:
            self.add_error("blend_max_s", "must not be shorter than the shortest blend")
        return data


def _form_errors(form: TransitionForm) -> str:
    return " ".join(
        f"{form.fields[name].label or name}: {' '.join(str(e) for e in errors)}"
        for name, errors in form.errors.items()
    )


@require_POST
@page
def transition_new(request: HttpRequest, clip_id: int) -> HttpResponse:
    """Queue the transition from this clip into the chosen clip B, then show it."""
    form = TransitionForm(request.POST)
    if not form.is_valid():
        return error_page(request, f"The transition was not started. {_form_errors(form)}", 400)
    data = dict(form.cleaned_data)
    clip_b = data.pop("clip_b")
    created = transition_create(
        user=request_user(request), clip_a_id=clip_id, clip_b_id=clip_b, parameters=data
    )
    return redirect("transition", transition_id=created.pk)


@require_GET
@page
def transition_detail(request: HttpRequest, transition_id: int) -> HttpResponse:
    """The comparison of MTP with the baselines and the players (once the run succeeded)."""
    transition: Transition = transition_get(user=request_user(request), transition_id=transition_id)
    ready = transition_downloads_ready(transition)
    context = {
        "transition": transition,
        "project": transition.project,
        "run": transition.run,
        "parameters": presenters.parameters_line(transition.parameters),
        "columns": presenters.COLUMNS,
        "rows": presenters.comparison_rows(transition.result or {}),
        "choices": presenters.search_choices(transition.result or {}),
        "blends": presenters.blend_lines(transition.result or {}),
        "verdict": presenters.verdict_view(transition.result or {}),
        "result": transition.result or {},
        "sources": presenters.player_sources(transition, ready),
        "engine": presenters.engine_facts((transition.result or {}).get("engine") or {}),
        "downloads": presenters.downloads(transition, ready),
        "camera_presets": CAMERA_PRESETS,
    }
    return render(request, "pages/transition.html", context)
