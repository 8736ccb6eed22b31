"""Score reads, scoped to the user's memberships (404 for other projects' scores)."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from webapp.clips.selectors import download_of
from webapp.core.downloads import Download
from webapp.core.errors import NotFound
from webapp.laban.models import Score
from webapp.projects.selectors import project_get, project_list

SCORE_DOWNLOADS = ("score.json", "animation.json", "footprints.json", "animation.bvh")
"""What ``GET scores/{id}/download/{name}/`` offers."""


def score_get(*, user: User | AnonymousUser, score_id: int) -> Score:
    found = (
        Score.objects.filter(pk=score_id, project__in=project_list(user=user))
        .select_related("project", "clip", "created_by")
        .first()
    )
    if found is None:
        raise NotFound("No such score.")
    return found


def score_list(*, user: User | AnonymousUser, project_id: int) -> QuerySet[Score]:
    """The project's scores, newest first; 404 for non-members."""
    project = project_get(user=user, project_id=project_id)
    return Score.objects.filter(project=project).select_related("clip", "created_by")


def score_download_get(*, user: User | AnonymousUser, score_id: int, name: str) -> Download:
    """One of :data:`SCORE_DOWNLOADS` (its bytes); 404 for non-members and unknown names."""
    score = score_get(user=user, score_id=score_id)
    stem = score.name.rsplit(".", 1)[0] or "score"
    documents: dict[str, Any] = {"score.json": score.score, "footprints.json": score.animation}
    if name in documents:
        data = json.dumps(documents[name], indent=1, ensure_ascii=False).encode()
        return Download(data, f"{stem}.{name}", "application/json")
    stored = {"animation.json": score.viewer, "animation.bvh": score.clip.original}.get(name)
    if stored is None:
        raise NotFound(f"No download called {name!r}; try one of {', '.join(SCORE_DOWNLOADS)}.")
    download = download_of(stored, f"{stem}.{name}")
    with stored.open("rb") as handle:
        return Download(handle.read(), download.filename, download.content_type)
