"""Transition reads, scoped to the user's memberships (404 for anything of a project
the user is not a member of). Downloads come from the transition's own run."""

from __future__ import annotations

from pathlib import PurePosixPath

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from webapp.clips.models import Artifact, ArtifactKind
from webapp.clips.selectors import Download, download_of
from webapp.core.errors import NotFound
from webapp.projects.selectors import project_get, project_list
from webapp.runs.models import Status
from webapp.transitions.models import Transition

TRANSITION_DOWNLOADS: dict[str, ArtifactKind] = {
    "transition.bvh": ArtifactKind.TRANSITION_BVH,
    "transition.json": ArtifactKind.TRANSITION_REPORT,
    "viewer.json": ArtifactKind.TRANSITION_VIEWER,
}
"""Download name → artifact kind of the transition's run."""


def _related(transitions: QuerySet[Transition]) -> QuerySet[Transition]:
    """With their run, clips, author and the run's artifacts (no query per row)."""
    return transitions.select_related("run", "clip_a", "clip_b", "created_by").prefetch_related(
        "run__artifacts"
    )


def transition_list(*, user: User | AnonymousUser, project_id: int) -> QuerySet[Transition]:
    """The project's transitions, newest first; 404 for non-members."""
    project = project_get(user=user, project_id=project_id)
    return _related(Transition.objects.filter(project=project))


def transition_get(*, user: User | AnonymousUser, transition_id: int) -> Transition:
    """The transition if the user is a member of its project, else 404."""
    found = _related(
        Transition.objects.filter(pk=transition_id, project__in=project_list(user=user))
    ).first()
    if found is None:
        raise NotFound("No such transition.")
    return found


def transition_downloads_ready(transition: Transition) -> dict[str, bool]:
    """Download name → whether it can be downloaded now (the run succeeded and made it)."""
    if transition.run.status != Status.SUCCEEDED:
        return dict.fromkeys(TRANSITION_DOWNLOADS, False)
    kinds = {artifact.kind for artifact in transition.run.artifacts.all()}
    return {name: kind in kinds for name, kind in TRANSITION_DOWNLOADS.items()}


def transition_download_get(
    *, user: User | AnonymousUser, transition_id: int, name: str
) -> Download:
    """The file behind ``GET transitions/{id}/download/{name}/``; 404 for non-members,
    unknown names and files the run has not produced (yet)."""
    transition = transition_get(user=user, transition_id=transition_id)
    if name not in TRANSITION_DOWNLOADS:
        names = ", ".join(TRANSITION_DOWNLOADS)
        raise NotFound(f"No download called {name!r}; try one of {names}.")
    artifact = Artifact.objects.filter(
        run=transition.run, kind=TRANSITION_DOWNLOADS[name], run__status=Status.SUCCEEDED
    ).first()
    if artifact is None:
        raise NotFound(f"No {name} yet: it appears when the transition's run has succeeded.")
    a, b = PurePosixPath(transition.clip_a.name), PurePosixPath(transition.clip_b.name)
    stem = f"{a.stem}-to-{b.stem}"
    return download_of(artifact.file, f"{stem}.{name}")
