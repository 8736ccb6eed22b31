"""Clip reads, scoped to the user's memberships: a clip of a project the user is not a
member of does not exist for them (:class:`~webapp.core.errors.NotFound`, 404).

Downloads are named as in the API (``docs/api-contract.md``): ``original`` is the
uploaded file, the others the newest artifact of their kind from a succeeded run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Prefetch, QuerySet
from django.db.models.fields.files import FieldFile

from motioncore import bvh
from motioncore.clip import Clip as MotionClip
from motioncore.errors import MotionCoreError
from webapp.clips.models import INGEST, Artifact, ArtifactKind, Clip
from webapp.core.downloads import Download
from webapp.core.errors import NotFound
from webapp.core.glb import glb_download, is_glb
from webapp.projects.selectors import project_get, project_list
from webapp.runs.models import Run, Status

CLIP_ORDERINGS = tuple(
    f"{sign}{field}"
    for field in ("created_at", "name", "frames", "fps", "duration_s", "joints", "size_bytes")
    for sign in ("", "-")
)
"""What ``clip_list(ordering=...)`` accepts (a field, ``-`` for descending)."""

DOWNLOADS: dict[str, ArtifactKind | None] = {
    "original": None,
    "cleaned.bvh": ArtifactKind.CLEANED_BVH,
    "cleaned.glb": ArtifactKind.CLEANED_BVH,
    "viewer.json": ArtifactKind.VIEWER,
    "viewer-raw.json": ArtifactKind.VIEWER_RAW,
    "viewer.f32": ArtifactKind.VIEWER_FULL,
    "viewer-raw.f32": ArtifactKind.VIEWER_RAW_FULL,
    "clean-report.json": ArtifactKind.CLEAN_REPORT,
    "analysis.json": ArtifactKind.ANALYSIS,
}
"""Download name → artifact kind (``None``: the original upload; a ``.glb`` name: made
from that BVH artifact, :mod:`webapp.core.glb`)."""

_CONTENT_TYPES = {".bvh": "application/octet-stream", ".json": "application/json"}


def clip_list(
    *, user: User | AnonymousUser, project_id: int, search: str = "", ordering: str = ""
) -> QuerySet[Clip]:
    """The project's clips, newest first; ``search`` in the name, ``ordering`` from
    :data:`CLIP_ORDERINGS`. 404 for non-members."""
    project = project_get(user=user, project_id=project_id)
    clips = Clip.objects.filter(project=project)
    if search:
        clips = clips.filter(name__icontains=search)
    if ordering:
        if ordering not in CLIP_ORDERINGS:
            raise ValueError(f"unsupported ordering {ordering!r}")
        clips = clips.order_by(ordering, "-id")
    return _with_related(clips)


def clip_get(*, user: User | AnonymousUser, clip_id: int) -> Clip:
    """The clip if the user is a member of its project, else 404."""
    clip = _with_related(
        Clip.objects.filter(pk=clip_id, project__in=project_list(user=user))
    ).first()
    if clip is None:
        raise NotFound("No such clip.")
    return clip


def _with_related(clips: QuerySet[Clip]) -> QuerySet[Clip]:
    """Clips with their uploader, latest run and finished artifacts (three queries in all)."""
    newest_first = Run.objects.filter(transition__isnull=True).order_by("-created_at", "-id")
    finished = Artifact.objects.filter(run__status=Status.SUCCEEDED).order_by(
        "-run__created_at", "-run_id"
    )
    return clips.select_related("uploaded_by").prefetch_related(
        Prefetch("runs", queryset=newest_first[:1], to_attr="latest_runs"),
        Prefetch("artifacts", queryset=finished, to_attr="finished_artifacts"),
    )


def clip_latest_run(clip: Clip) -> Run | None:
    """The clip's newest pipeline run, transitions from it aside (prefetched by
    :func:`clip_list` / :func:`clip_get`)."""
    runs: list[Run] | None = getattr(clip, "latest_runs", None)
    if runs is None:
        return clip.runs.filter(transition__isnull=True).order_by("-created_at", "-id").first()
    return runs[0] if runs else None


def clip_artifact(clip: Clip, kind: str) -> Artifact | None:
    """The newest artifact of ``kind`` from a succeeded run of the clip, if any."""
    artifacts: list[Artifact] | None = getattr(clip, "finished_artifacts", None)
    if artifacts is None:
        return (
            clip.artifacts.filter(kind=kind, run__status=Status.SUCCEEDED)
            .order_by("-run__created_at", "-run_id")
            .first()
        )
    return next((a for a in artifacts if a.kind == kind), None)


def clip_best_motion(clip: Clip) -> tuple[MotionClip, str]:
    """The clip's newest cleaned motion (from a succeeded run), else its original; and
    which one it is (``"cleaned (run 12)"``, ``"original"``), for reports."""
    cleaned = (
        Artifact.objects.filter(
            clip=clip, kind=ArtifactKind.CLEANED_BVH, run__status=Status.SUCCEEDED
        )
        .order_by("-run__created_at", "-run_id")
        .first()
    )
    if cleaned is not None and cleaned.file.storage.exists(cleaned.file.name):
        with cleaned.file.open("rb") as handle:
            return bvh.load(handle.read()), f"cleaned (run {cleaned.run_id})"
    if clip.first_stage != INGEST:  # the original is a score, not motion
        raise MotionCoreError(f"Clip {clip.pk} has no motion yet: its first run has not finished.")
    with clip.original.open("rb") as handle:
        return bvh.load(handle.read()), "original"


def clip_artifact_json(clip: Clip, kind: str) -> dict[str, Any] | None:
    """The newest JSON artifact of ``kind`` (parsed), ``None`` when there is none."""
    stored = clip_artifact(clip, kind)
    if stored is None or not stored.file.name or not stored.file.storage.exists(stored.file.name):
        return None
    with stored.file.open("rb") as handle:
        body: dict[str, Any] = json.loads(handle.read())
    return body


def clip_downloads_ready(clip: Clip) -> dict[str, bool]:
    """Download name → whether it can be downloaded now."""
    return {
        name: kind is None or clip_artifact(clip, kind) is not None
        for name, kind in DOWNLOADS.items()
    }


def clip_download_get(*, user: User | AnonymousUser, clip_id: int, name: str) -> Download:
    """The file behind ``GET clips/{id}/download/{name}/``; 404 for non-members, unknown
    names and artifacts no run has produced yet."""
    clip = clip_get(user=user, clip_id=clip_id)
    if name not in DOWNLOADS:
        raise NotFound(f"No download called {name!r}; try one of {', '.join(DOWNLOADS)}.")
    kind = DOWNLOADS[name]
    if kind is None:
        return download_of(clip.original, clip.name)
    artifact = clip_artifact(clip, kind)
    if artifact is None:
        raise NotFound(f"No {name} yet: it appears when a run of this clip has succeeded.")
    filename = f"{PurePosixPath(clip.name).stem}.{name}"
    if is_glb(name):
        return glb_download(download_of(artifact.file, filename), filename)
    return download_of(artifact.file, filename)


def download_of(file: FieldFile, filename: str) -> Download:
    """``file`` to send as ``filename``; 404 when the stored file is gone."""
    if not file.name or not file.storage.exists(file.name):
        raise NotFound(f"The stored file for {filename} is missing; start a new run or re-upload.")
    suffix = PurePosixPath(filename).suffix.lower()
    return Download(file, filename, _CONTENT_TYPES.get(suffix, "application/octet-stream"))


def run_downloads_ready(run: Run, downloads: Mapping[str, str]) -> dict[str, bool]:
    """Download name → whether ``run`` succeeded and stored that kind (``downloads``:
    name → artifact kind; the run's artifacts are expected prefetched)."""
    if run.status != Status.SUCCEEDED:
        return dict.fromkeys(downloads, False)
    kinds = {artifact.kind for artifact in run.artifacts.all()}
    return {name: kind in kinds for name, kind in downloads.items()}


def run_download_get(
    run: Run, downloads: Mapping[str, str], name: str, filename: str, what: str
) -> Download:
    """The file called ``name`` (one of ``downloads``) of a succeeded ``run``, offered as
    ``filename``; 404 for unknown names and files the run has not produced (yet).
    ``what``: the object in the message ("the transition's run")."""
    if name not in downloads:
        raise NotFound(f"No download called {name!r}; try one of {', '.join(downloads)}.")
    artifact = Artifact.objects.filter(
        run=run, kind=downloads[name], run__status=Status.SUCCEEDED
    ).first()
    if artifact is None:
        raise NotFound(f"No {name} yet: it appears when {what} has succeeded.")
    if is_glb(name):  # made from the BVH artifact named beside it
        return glb_download(download_of(artifact.file, filename), filename)
    return download_of(artifact.file, filename)
