"""Fixtures for web-layer tests: users with each role in a project, API clients.

Helpers used by the fixtures and by tests are in :mod:`support.web`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser, User

from support.web import (
    ROLES,
    SAMPLES,
    finish_proposal,
    finish_run,
    finish_transition,
    make_user,
)
from webapp.clips.models import Clip
from webapp.clips.services import clip_upload_create
from webapp.projects.models import Membership, Project
from webapp.reviews.models import Proposal
from webapp.runs import services, tasks
from webapp.runs.models import Run


@pytest.fixture
def sample_bvh() -> bytes:
    """A small real clip (GAMES-105 walk, BSD-3-Clause; see tests/data/ATTRIBUTION.md)."""
    return (SAMPLES / "games105" / "run_forward.bvh").read_bytes()


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


@pytest.fixture
def media_root(settings: Any, tmp_path: Path) -> Path:
    """A fresh, empty ``MEDIA_ROOT`` for the test (to assert what was or was not stored)."""
    root = tmp_path / "media"
    root.mkdir()
    settings.MEDIA_ROOT = str(root)
    return root


@pytest.fixture
def clip(
    members: dict[str, AbstractUser], project: Project, sample_bvh: bytes, media_root: Path
) -> Clip:
    """``sample_bvh`` uploaded to ``project`` by its editor (parsed for real; the first
    run is queued, its task never sent: the test transaction does not commit). Files go
    to the test's own ``media_root``."""
    editor = members["editor"]
    assert isinstance(editor, User)
    result = clip_upload_create(
        project=project, user=editor, name="run_forward.bvh", data=sample_bvh
    )
    return result.clip


@pytest.fixture
def succeeded_run(clip: Clip) -> Run:
    """A succeeded run of ``clip`` with its artifacts."""
    return finish_run(clip)


@pytest.fixture
def recorded_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """No heartbeat thread (short runs) and no broker: the ids of the runs sent to a
    worker are recorded here instead."""
    monkeypatch.setattr(services, "heartbeat_interval_s", lambda: 3600.0)
    sent: list[int] = []
    monkeypatch.setattr(tasks.run_pipeline, "delay", sent.append)
    return sent


@pytest.fixture
def proposal(clip: Clip, members: dict[str, AbstractUser]) -> Proposal:
    """A proposal by the editor of a succeeded transition of ``clip`` into itself
    (:func:`transition_report`: MTP cut 30, entry 5, a 50-frame transition clip); no
    reviewers yet."""
    return finish_proposal(finish_transition(clip, clip), members["editor"])
