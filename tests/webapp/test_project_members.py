"""Removing members and changing roles (issue 16, finding 7: access could not be
revoked): owners remove members and change roles, in the API and on the project page;
a member may leave; the last owner can neither leave, be removed nor step down."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import AbstractUser
from django.http.response import HttpResponseBase
from django.test import Client
from django.urls import reverse

from support.web import client_for
from webapp.projects.models import Membership, Project, Role

pytestmark = pytest.mark.django_db


def member_url(project: Project, username: str) -> str:
    return f"/api/v1/projects/{project.pk}/members/{username}/"


def logged_in(user: AbstractUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


def role_in(project: Project, username: str) -> str | None:
    membership = Membership.objects.filter(project=project, user__username=username).first()
    return membership.role if membership else None


# --- API -----------------------------------------------------------------------------------------


def test_owner_removes_a_member_who_then_sees_nothing(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    """Finding 7: an owner's DELETE removes a member; their next request gets 404."""
    removed = client_for(members["editor"])
    assert removed.get(f"/api/v1/projects/{project.pk}/").status_code == 200
    response = client_for(members["owner"]).delete(member_url(project, "editor-user"))
    assert response.status_code == 204
    assert role_in(project, "editor-user") is None
    assert removed.get(f"/api/v1/projects/{project.pk}/").status_code == 404


@pytest.mark.parametrize(
    ("who", "target", "status", "message"),
    [
        ("editor", "viewer-user", 403, "owner role"),  # only owners remove others
        ("reviewer", "owner-user", 403, "owner role"),
        ("outsider", "viewer-user", 404, "No such project"),  # it does not exist for them
        ("owner", "outsider", 404, "is not a member"),
        ("owner", "ghost", 404, "is not a member"),
    ],
)
def test_who_may_not_remove(
    project: Project,
    members: dict[str, AbstractUser],
    who: str,
    target: str,
    status: int,
    message: str,
) -> None:
    """Finding 7: non-owners cannot remove others (403), non-members see 404."""
    response = client_for(members[who]).delete(member_url(project, target))
    assert response.status_code == status
    assert message in response.json()["error"]["message"]
    assert Membership.objects.filter(project=project).count() == 4


@pytest.mark.parametrize("who", ["viewer", "reviewer", "editor"])
def test_a_member_leaves(project: Project, members: dict[str, AbstractUser], who: str) -> None:
    """Finding 7: any member may leave a project by deleting their own membership."""
    response = client_for(members[who]).delete(member_url(project, f"{who}-user"))
    assert response.status_code == 204
    assert role_in(project, f"{who}-user") is None


def test_the_last_owner_can_neither_leave_nor_be_demoted(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    """Finding 7: 409 for the last owner leaving or stepping down; a second owner may."""
    owner = client_for(members["owner"])
    left = owner.delete(member_url(project, "owner-user"))
    assert left.status_code == 409
    assert left.json()["error"]["code"] == "conflict"
    assert "at least one owner" in left.json()["error"]["message"]
    demoted = owner.patch(member_url(project, "owner-user"), {"role": "editor"}, format="json")
    assert demoted.status_code == 409
    assert role_in(project, "owner-user") == Role.OWNER
    promoted = owner.patch(member_url(project, "editor-user"), {"role": "owner"}, format="json")
    assert promoted.status_code == 200
    assert owner.delete(member_url(project, "owner-user")).status_code == 204
    new_owner = client_for(members["editor"])
    assert new_owner.delete(member_url(project, "editor-user")).status_code == 409


def test_owner_changes_a_role_with_patch(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    """Finding 7: PATCH members/{username}/ changes a role (owners only; 400 for a bad
    role, 404 for a non-member)."""
    owner = client_for(members["owner"])
    url = member_url(project, "editor-user")
    response = owner.patch(url, {"role": "viewer"}, format="json")
    assert response.status_code == 200
    assert response.json()["username"] == "editor-user" and response.json()["role"] == "viewer"
    assert role_in(project, "editor-user") == Role.VIEWER
    assert owner.patch(url, {"role": "admin"}, format="json").status_code == 400
    assert (
        owner.patch(member_url(project, "outsider"), {"role": "viewer"}, format="json").status_code
        == 404
    )
    viewer = client_for(members["viewer"])
    assert viewer.patch(url, {"role": "owner"}, format="json").status_code == 403
    assert role_in(project, "editor-user") == Role.VIEWER


# --- the project page ----------------------------------------------------------------------------


def forms_in(html: str, name: str, project: Project) -> list[str]:
    """The usernames that the page's forms posting to the URL ``name`` carry."""
    action = re.escape(reverse(name, args=[project.pk]))
    return re.findall(rf'<form[^>]*action="{action}".*?name="username" value="([^"]+)"', html, re.S)


def test_owner_sees_member_controls_and_others_only_leave(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    """Finding 7: the project page's members card gives owners role and remove forms and
    an add form, and every other member only a "Leave project" form for themselves; it
    has no inline script, handler or style (CSP)."""
    page = reverse("project", args=[project.pk])
    owner_html = logged_in(members["owner"]).get(page).content.decode()
    everyone = {"owner-user", "editor-user", "reviewer-user", "viewer-user"}
    assert set(forms_in(owner_html, "project-member-role", project)) == everyone
    assert set(forms_in(owner_html, "project-member-remove", project)) == everyone  # own: leave
    assert reverse("project-member-add", args=[project.pk]) in owner_html
    viewer_html = logged_in(members["viewer"]).get(page).content.decode()
    assert forms_in(viewer_html, "project-member-remove", project) == ["viewer-user"]
    assert "Leave project" in viewer_html
    assert forms_in(viewer_html, "project-member-role", project) == []
    assert reverse("project-member-add", args=[project.pk]) not in viewer_html
    card = owner_html[owner_html.index('id="members-title"') :]
    assert not re.search(r"<script(?![^>]*\bsrc=)|\son[a-z]+=|\sstyle=", card)


def post(client: Client, name: str, project: Project, **data: str) -> HttpResponseBase:
    return client.post(reverse(name, args=[project.pk]), data)


def test_owner_adds_changes_and_removes_members_on_the_page(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    """Finding 7: the page's forms add a member, change a role and remove a member."""
    client = logged_in(members["owner"])
    back = reverse("project", args=[project.pk])
    added = post(client, "project-member-add", project, username="outsider", role="viewer")
    assert added.status_code == 302 and added["Location"] == back
    assert role_in(project, "outsider") == Role.VIEWER
    changed = post(client, "project-member-role", project, username="outsider", role="editor")
    assert changed.status_code == 302
    assert role_in(project, "outsider") == Role.EDITOR
    removed = post(client, "project-member-remove", project, username="outsider")
    assert removed.status_code == 302 and removed["Location"] == back
    assert role_in(project, "outsider") is None
    bad = post(client, "project-member-role", project, username="editor-user", role="admin")
    assert bad.status_code == 400
    assert role_in(project, "editor-user") == Role.EDITOR


def test_a_member_leaves_on_the_page_and_the_last_owner_cannot(
    project: Project, members: dict[str, AbstractUser]
) -> None:
    """Finding 7: leaving sends the member home; the last owner gets a 409 page; a
    non-owner cannot change roles (403) or remove others (403)."""
    viewer = logged_in(members["viewer"])
    role = post(viewer, "project-member-role", project, username="editor-user", role="viewer")
    assert role.status_code == 403
    assert post(viewer, "project-member-remove", project, username="editor-user").status_code == 403
    left = post(viewer, "project-member-remove", project, username="viewer-user")
    assert left.status_code == 302 and left["Location"] == reverse("home")
    assert viewer.get(reverse("project", args=[project.pk])).status_code == 404
    owner = logged_in(members["owner"])
    refused = post(owner, "project-member-remove", project, username="owner-user")
    assert refused.status_code == 409
    assert b"at least one owner" in refused.content
    assert role_in(project, "owner-user") == Role.OWNER
