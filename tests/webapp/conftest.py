"""Fixtures for web-layer tests: users with each role in a project, API clients."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from webapp.projects.models import Membership, Project, Role

SAMPLES = Path(__file__).resolve().parents[1] / "data"
ROLES = (Role.OWNER, Role.EDITOR, Role.REVIEWER, Role.VIEWER)


@pytest.fixture
def sample_bvh() -> bytes:
    """A small real clip (GAMES-105 walk, BSD-3-Clause; see tests/data/ATTRIBUTION.md)."""
    return (SAMPLES / "games105" / "run_forward.bvh").read_bytes()


def make_user(username: str) -> AbstractUser:
    user: AbstractUser = get_user_model().objects.create_user(
        username=username, password="pw-" + username
    )
    return user


@pytest.fixture
def project(db: None) -> Project:
    return Project.objects.create(name="Project X")


@pytest.fixture
def members(project: Project) -> dict[str, AbstractUser]:
    """One user per role in ``project``, plus ``outsider`` (no membership)."""
    users: dict[str, AbstractUser] = {}
    for role in ROLES:
        user = make_user(f"{role.value}-user")
        Membership.objects.create(project=project, user=user, role=role)
        users[role.value] = user
    users["outsider"] = make_user("outsider")
    return users


def client_for(user: AbstractUser | None) -> APIClient:
    """An API client authenticated with the user's token (anonymous for ``None``)."""
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client
