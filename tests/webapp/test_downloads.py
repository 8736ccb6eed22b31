"""Every API download answers the same headers: an attachment with its file name, its
media type and its length, nothing else but what every API response carries.

The bytes of each download are checked where its app is tested (``test_api.py`` for
clips, ``test_analysis_transitions.py``, ``test_pfnn_walks.py``,
``test_laban_scores.py``, ``test_reviews_notifications.py``); this file pins the
headers, which :func:`webapp.core.downloads.attachment` writes once for all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser, User

from support.web import (
    SAMPLES,
    animated_score,
    client_for,
    finish_generation,
    finish_run,
    finish_transition,
)
from webapp.clips.models import Clip
from webapp.reviews.models import Proposal

COMMON = {
    "Allow": "GET, HEAD, OPTIONS",
    "Vary": "Accept",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}
"""What DRF and the security middleware add to every API response."""
CSP_DIRECTIVES = {
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "font-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
}
"""The Content-Security-Policy on every response (its directives in no fixed order)."""

BVH = "application/octet-stream"
JSON = "application/json"
CSV = "text/csv; charset=utf-8"
T = "/api/v1/transitions/{}/download/"
A_TO_A = "run_forward-to-run_forward"
WALK = "run_forward-walk-{}"


def _clip(clip: Clip, proposal: Proposal, user: User) -> int:
    finish_run(clip)
    return clip.pk


def _transition(clip: Clip, proposal: Proposal, user: User) -> int:
    return finish_transition(clip, clip).pk


def _walk(clip: Clip, proposal: Proposal, user: User) -> int:
    return finish_generation(clip).pk


def _score(clip: Clip, proposal: Proposal, user: User) -> int:
    data = (SAMPLES / "scores" / "walk_forward.json").read_bytes()
    made = animated_score(project=clip.project, user=user, name="walk.json", data=data)
    return made.pk


def _proposal(clip: Clip, proposal: Proposal, user: User) -> int:
    return proposal.pk


Make = Callable[[Clip, Proposal, User], int]

DOWNLOADS: list[tuple[Make, str, str, str]] = [
    (_clip, "/api/v1/clips/{}/download/original/", BVH, "run_forward.bvh"),
    (_clip, "/api/v1/clips/{}/download/cleaned.bvh/", BVH, "run_forward.cleaned.bvh"),
    (_clip, "/api/v1/clips/{}/download/viewer.json/", JSON, "run_forward.viewer.json"),
    (_transition, T + "transition.bvh/", BVH, A_TO_A + ".transition.bvh"),
    (_transition, T + "viewer.json/", JSON, A_TO_A + ".viewer.json"),
    (_walk, "/api/v1/pfnn/generations/{}/download/walk.bvh/", BVH, WALK + ".walk.bvh"),
    (_walk, "/api/v1/pfnn/generations/{}/download/report.json/", JSON, WALK + ".report.json"),
    (_score, "/api/v1/scores/{}/download/score.json/", JSON, "walk.score.json"),
    (_score, "/api/v1/scores/{}/download/animation.bvh/", BVH, "walk.animation.bvh"),
    (_score, "/api/v1/scores/{}/download/animation.json/", JSON, "walk.animation.json"),
    (_proposal, "/api/v1/proposals/{}/report.json", JSON, "proposal-{}-v1-review.json"),
    (_proposal, "/api/v1/proposals/{}/report.csv", CSV, "proposal-{}-v1-review.csv"),
]


def _body(response: Any) -> bytes:
    if response.streaming:
        return b"".join(response.streaming_content)
    return bytes(response.content)


@pytest.mark.parametrize(("make", "url", "content_type", "filename"), DOWNLOADS)
def test_every_download_answers_the_same_headers(
    make: Make,
    url: str,
    content_type: str,
    filename: str,
    clip: Clip,
    proposal: Proposal,
    members: dict[str, AbstractUser],
    recorded_runs: list[int],
) -> None:
    editor = members["editor"]
    assert isinstance(editor, User)
    pk = make(clip, proposal, editor)
    response = client_for(members["viewer"]).get(url.format(pk))
    assert response.status_code == 200
    name = filename.format(pk)
    headers = dict(response.headers)
    policy = headers.pop("Content-Security-Policy")
    assert set(policy.split("; ")) == CSP_DIRECTIVES
    assert headers == {
        **COMMON,
        "Content-Type": content_type,
        "Content-Length": str(len(_body(response))),
        "Content-Disposition": f'attachment; filename="{name}"',
        **({"Accept-Ranges": "bytes"} if url.startswith("/api/v1/clips/") else {}),  # ranged
    }
