"""Score reads, scoped to the user's memberships (404 for other projects' scores)."""

from __future__ import annotations

import json

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet
from django.db.models.fields.files import FieldFile

from webapp.clips.models import INGEST
from webapp.clips.selectors import clip_artifact, download_of
from webapp.core.downloads import Download
from webapp.core.errors import NotFound
from webapp.core.glb import glb_download, is_glb
from webapp.laban.models import Score, ScoreArtifactKind
from webapp.projects.selectors import project_get, project_list

SCORE_DOWNLOADS = (
    "score.json",
    "animation.json",
    "footprints.json",
    "animation.bvh",
    "animation.glb",
)
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
    """One of :data:`SCORE_DOWNLOADS` (its bytes); 404 for non-members and unknown names,
    and for the animation's files until the score's first run has animated it."""
    score = score_get(user=user, score_id=score_id)
    if name not in SCORE_DOWNLOADS:
        raise NotFound(f"No download called {name!r}; try one of {', '.join(SCORE_DOWNLOADS)}.")
    stem = score.name.rsplit(".", 1)[0] or "score"
    if name == "score.json":
        data = json.dumps(score.score, indent=1, ensure_ascii=False).encode()
        return Download(data, f"{stem}.{name}", "application/json")
    stored = score_animation_file(score, "animation.bvh" if is_glb(name) else name)
    if stored is None:
        raise NotFound(f"No {name} yet: it appears when the score has been animated.")
    if is_glb(name):
        return glb_download(download_of(stored, f"{stem}.animation.bvh"), f"{stem}.{name}")
    download = download_of(stored, f"{stem}.{name}")
    with stored.open("rb") as handle:
        return Download(handle.read(), download.filename, download.content_type)


_ARTIFACT_OF = {
    "animation.json": ScoreArtifactKind.ANIMATION_VIEWER,
    "animation.bvh": ScoreArtifactKind.ANIMATION_BVH,
    "footprints.json": ScoreArtifactKind.FOOTPRINTS,
}


def score_animation_file(score: Score, name: str) -> FieldFile | None:
    """The stored file of ``name`` (a download other than ``score.json``): the artifact of
    the newest succeeded run of the score's clip; for scores animated at upload (before
    animation was a run), the stored viewer arrays and the clip's original BVH."""
    artifact = clip_artifact(score.clip, _ARTIFACT_OF[name])
    if artifact is not None:
        found: FieldFile = artifact.file
        return found
    if score.clip.first_stage == INGEST:  # animated at upload
        legacy: dict[str, FieldFile] = {
            "animation.json": score.viewer,
            "animation.bvh": score.clip.original,
        }
        return legacy.get(name)
    return None


def score_animated(score: Score) -> bool:
    """Whether the score's animation is there (its measures and files)."""
    return bool(score.animation)
