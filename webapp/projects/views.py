"""Project member pages' writes (POSTs from the project page's members card): owners add
members, change roles and remove members; every member may leave. Each calls one
service; a refusal (403, 404, 409 for the last owner) is an error page (:func:`page`)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from webapp.core.auth import request_user
from webapp.core.errors import ServiceError
from webapp.core.pages import page
from webapp.projects.forms import MemberAddForm, MemberRemoveForm, MemberRoleForm
from webapp.projects.models import Role
from webapp.projects.selectors import project_get
from webapp.projects.services import membership_remove, membership_role_change, membership_set


def _cleaned(form: forms.Form) -> dict[str, Any]:
    """The form's data, or a 400 error page naming what is wrong."""
    if not form.is_valid():
        problems = "; ".join(
            f"{name}: {' '.join(str(e) for e in errs)}" for name, errs in form.errors.items()
        )
        raise ServiceError(f"The form is not valid ({problems}).", code="validation_error")
    return form.cleaned_data


@require_POST
@page
def member_add(request: HttpRequest, project_id: int) -> HttpResponse:
    """Add a member (or change their role) by username. Owners only."""
    user = request_user(request)
    data = _cleaned(MemberAddForm(request.POST))
    role = Role(data["role"])
    project = project_get(user=user, project_id=project_id)
    membership_set(project=project, by=user, username=data["username"], role=role)
    messages.success(request, f"{data['username']} is a member now, as {role.label.lower()}.")
    return redirect("project", project_id=project_id)


@require_POST
@page
def member_role(request: HttpRequest, project_id: int) -> HttpResponse:
    """Change a member's role. Owners only; the last owner cannot step down."""
    user = request_user(request)
    data = _cleaned(MemberRoleForm(request.POST))
    username, role = data["username"], Role(data["role"])
    project = project_get(user=user, project_id=project_id)
    membership_role_change(project=project, by=user, username=username, role=role)
    messages.success(request, f"{username} is {role.label.lower()} now.")
    return redirect("project", project_id=project_id)


@require_POST
@page
def member_remove(request: HttpRequest, project_id: int) -> HttpResponse:
    """Remove a member (owners) or leave (yourself); the last owner can do neither."""
    user = request_user(request)
    username = _cleaned(MemberRemoveForm(request.POST))["username"]
    project = project_get(user=user, project_id=project_id)
    membership_remove(project=project, by=user, username=username)
    if username == user.get_username():
        messages.success(request, f"You left {project.name}.")
        return redirect("home")
    messages.success(request, f"{username} is no longer a member.")
    return redirect("project", project_id=project_id)
