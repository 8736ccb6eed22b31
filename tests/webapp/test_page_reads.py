"""A GET of a page writes nothing: every page the URL map lists (the API and the admin
aside), opened by the project's owner with unread notifications about the proposal,
runs no INSERT, UPDATE or DELETE. Marking things read is a POST the page makes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import AbstractUser, User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from support.web import (
    SAMPLES,
    animated_score,
    finish_character,
    finish_proposal,
    finish_sequence,
    finish_transition,
)
from webapp.clips.models import Clip
from webapp.reviews.models import Activity, Notification, Proposal

NOT_PAGES = ("admin/", "api/")
WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def _page_names(patterns: list[URLPattern | URLResolver], prefix: str = "") -> Iterator[str]:
    """The names of the browser pages (URL patterns outside the API and the admin)."""
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if route.startswith(NOT_PAGES):
            continue
        if isinstance(entry, URLResolver):
            yield from _page_names(entry.url_patterns, route)
        elif entry.name:
            yield entry.name


PAGES = sorted(set(_page_names(get_resolver().url_patterns)))


@pytest.fixture
def ids(clip: Clip, proposal: Proposal, members: dict[str, AbstractUser]) -> dict[str, int]:
    """An object of every kind a page shows, by its URL argument."""
    owner = members["owner"]
    assert isinstance(owner, User)
    data = (SAMPLES / "scores" / "walk_forward.json").read_bytes()
    score = animated_score(project=clip.project, user=owner, name="walk.json", data=data)
    other = finish_proposal(finish_transition(clip, clip), members["editor"])
    activity = Activity.objects.create(
        project=clip.project, actor=members["editor"], verb="comment.created", proposal=proposal
    )
    Notification.objects.create(user=owner, activity=activity)
    return {
        "project_id": clip.project_id,
        "clip_id": clip.pk,
        "transition_id": proposal.transition_id or 0,
        "sequence_id": finish_sequence([clip, clip]).pk,
        "score_id": score.pk,
        "proposal_id": proposal.pk,
        "other_proposal": other.pk,
        "join_number": 1,
        "character_id": finish_character(clip.project, members["editor"]).pk,
    }


def _url(name: str, ids: dict[str, int]) -> str:
    pattern = get_resolver().reverse_dict.getlist(name)[0][0][0][1]
    url = reverse(name, kwargs={key: ids[key] for key in pattern})
    if name == "proposal-compare":
        url += f"?a={ids['proposal_id']}&b={ids['other_proposal']}"
    if name == "project-activity":
        url += f"?proposal={ids['proposal_id']}"
    return url


def test_the_pages_are_found() -> None:
    assert {"home", "project", "clip", "transition", "proposal", "notifications"} <= set(PAGES)


@pytest.mark.parametrize("name", PAGES)
def test_a_get_of_a_page_writes_nothing(
    name: str, ids: dict[str, int], members: dict[str, AbstractUser], recorded_runs: list[int]
) -> None:
    client = Client()
    client.force_login(members["owner"])
    url = _url(name, ids)
    unread = Notification.objects.filter(read_at__isnull=True).count()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code < 500, url
    writes = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(WRITES)]
    assert writes == [], url
    assert Notification.objects.filter(read_at__isnull=True).count() == unread
