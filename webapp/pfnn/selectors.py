"""PFNN walk reads, scoped to the user's memberships (404 for anything of a project the
user is not a member of). Downloads come from the walk's own run."""

from __future__ import annotations

from pathlib import PurePosixPath

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from webapp.clips.models import Clip
from webapp.clips.selectors import run_download_get, run_downloads_ready
from webapp.core.downloads import Download
from webapp.core.errors import NotFound
from webapp.pfnn.models import Generation, PfnnArtifactKind
from webapp.projects.selectors import project_list

GENERATION_DOWNLOADS: dict[str, PfnnArtifactKind] = {
    "walk.bvh": PfnnArtifactKind.BVH,
    "walk.glb": PfnnArtifactKind.BVH,
    "walk-canonical.bvh": PfnnArtifactKind.CANONICAL_BVH,
    "viewer.json": PfnnArtifactKind.VIEWER,
    "report.json": PfnnArtifactKind.REPORT,
}
"""Download name → artifact kind of the walk's run."""


def _related(found: QuerySet[Generation]) -> QuerySet[Generation]:
    return found.select_related("run", "clip", "created_by").prefetch_related("run__artifacts")


def generation_get(*, user: User | AnonymousUser, generation_id: int) -> Generation:
    """The walk if the user is a member of its project, else 404."""
    found = _related(
        Generation.objects.filter(pk=generation_id, project__in=project_list(user=user))
    ).first()
    if found is None:
        raise NotFound("No such walk.")
    return found


def generation_list_for_clip(*, clip: Clip) -> QuerySet[Generation]:
    """Walks put on ``clip`` (fetched with :func:`clip_get`, so visible), newest first."""
    return _related(Generation.objects.filter(clip=clip))


def generation_downloads_ready(generation: Generation) -> dict[str, bool]:
    """Download name → whether it can be downloaded now."""
    return run_downloads_ready(generation.run, GENERATION_DOWNLOADS)


def generation_download_get(
    *, user: User | AnonymousUser, generation_id: int, name: str
) -> Download:
    """The file behind ``GET pfnn/generations/{id}/download/{name}/``; 404 for
    non-members, unknown names and files the run has not produced (yet)."""
    generation = generation_get(user=user, generation_id=generation_id)
    stem = PurePosixPath(generation.clip.name).stem
    filename = f"{stem}-walk-{generation.pk}.{name}"
    return run_download_get(generation.run, GENERATION_DOWNLOADS, name, filename, "the walk's run")
