"""Sequence reads, scoped to the user's memberships (404 for anything of a project the
user is not a member of). Downloads come from the sequence's own run."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from webapp.clips.selectors import run_download_get, run_downloads_ready
from webapp.core.downloads import Download
from webapp.core.errors import NotFound
from webapp.projects.selectors import project_get, project_list
from webapp.sequences.models import Sequence, SequenceArtifactKind

SEQUENCE_DOWNLOADS: dict[str, SequenceArtifactKind] = {
    "sequence.bvh": SequenceArtifactKind.BVH,
    "sequence.glb": SequenceArtifactKind.BVH,
    "sequence.json": SequenceArtifactKind.REPORT,
    "viewer.json": SequenceArtifactKind.VIEWER,
}
"""Download name → artifact kind of the sequence's run."""


def _related(sequences: QuerySet[Sequence]) -> QuerySet[Sequence]:
    """With their run, project, author and the run's artifacts (no query per row)."""
    return sequences.select_related("run", "project", "created_by").prefetch_related(
        "run__artifacts"
    )


def sequence_list(*, user: User | AnonymousUser, project_id: int) -> QuerySet[Sequence]:
    """The project's sequences, newest first; 404 for non-members."""
    project = project_get(user=user, project_id=project_id)
    return _related(Sequence.objects.filter(project=project))


def sequence_get(*, user: User | AnonymousUser, sequence_id: int) -> Sequence:
    """The sequence if the user is a member of its project, else 404."""
    found = _related(
        Sequence.objects.filter(pk=sequence_id, project__in=project_list(user=user))
    ).first()
    if found is None:
        raise NotFound("No such sequence.")
    return found


def sequence_downloads_ready(sequence: Sequence) -> dict[str, bool]:
    """Download name → whether the sequence's run has stored it."""
    return run_downloads_ready(sequence.run, SEQUENCE_DOWNLOADS)


def sequence_download_get(*, user: User | AnonymousUser, sequence_id: int, name: str) -> Download:
    """The file behind ``GET sequences/{id}/download/{name}/``; 404 for non-members,
    unknown names and files the run has not produced (yet)."""
    sequence = sequence_get(user=user, sequence_id=sequence_id)
    filename = f"sequence-{sequence.pk}.{name}"
    return run_download_get(sequence.run, SEQUENCE_DOWNLOADS, name, filename, "the sequence's run")
