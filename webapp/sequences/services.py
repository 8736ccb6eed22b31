"""Sequence writes: start one (a run on its first clip with the ``sequence`` stage), record
its result.

Every clip must be in the project, visible to the user (404 otherwise), have motion and
the first clip's skeleton (joint names and parents, from their validation reports); a
clip may appear more than once. Starting one needs the editor role, like any run.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from motioncore.transition.sequence import MAX_CLIPS
from webapp.clips.models import Clip
from webapp.clips.selectors import clip_get
from webapp.core.errors import Conflict, ServiceError
from webapp.projects.models import Role
from webapp.projects.permissions import require_role
from webapp.runs.models import Run
from webapp.runs.services import run_lock_owned, run_start
from webapp.sequences.models import Sequence
from webapp.transitions.selectors import skeleton_mismatch

SEQUENCE_STAGES = ("sequence",)


def _clips(user: User, project_id: int, clip_ids: list[int]) -> list[Clip]:
    """The clips in order, checked (module docstring)."""
    if not 2 <= len(clip_ids) <= MAX_CLIPS:
        raise ServiceError(
            f"A sequence takes 2 to {MAX_CLIPS} clips, got {len(clip_ids)}.", code="clip_count"
        )
    clips = [clip_get(user=user, clip_id=clip_id) for clip_id in clip_ids]
    for clip in clips:
        if clip.project_id != project_id:
            raise ServiceError(
                f"Clip {clip.pk} is not in project {project_id}.", code="different_projects"
            )
        if not clip.frames:
            raise Conflict(
                f"Clip {clip.pk} has no motion yet: its first run has not finished.",
                code="no_motion_yet",
            )
        mismatch = skeleton_mismatch(clips[0], clip)
        if mismatch:
            raise ServiceError(
                f"Clip {clip.pk} has another skeleton than clip {clips[0].pk}: {mismatch}",
                code="different_skeletons",
            )
    return clips


def _edits(edits: list[dict[str, Any] | None] | None, joins: int) -> list[dict[str, Any] | None]:
    """Per join ``{"cut", "entry"}`` (frames or ``None``) or ``None``; checked for length."""
    given = list(edits or [None] * joins)
    if len(given) != joins:
        raise ServiceError(
            f"{joins + 1} clips have {joins} joins; {len(given)} join edits were given.",
            code="join_edits",
        )
    return [None if e is None else {"cut": e.get("cut"), "entry": e.get("entry")} for e in given]


def sequence_create(
    *,
    user: User,
    project_id: int,
    clip_ids: list[int],
    parameters: dict[str, Any],
    edits: list[dict[str, Any] | None] | None = None,
) -> Sequence:
    """Queue the sequence of ``clip_ids`` (in order) with ``parameters`` (alpha,
    theta_max_deg, measure, blend, blend_s, blend_min_s, blend_max_s; validated by the
    caller) and per-join ``edits``."""
    clips = _clips(user, project_id, clip_ids)
    require_role(project=clips[0].project, user=user, role=Role.EDITOR)
    joins = _edits(edits, len(clips) - 1)
    with transaction.atomic():
        run = run_start(
            clip=clips[0],
            user=user,
            stages=SEQUENCE_STAGES,
            parameters={**parameters, "clips": clip_ids, "edits": joins},
        )
        return Sequence.objects.create(
            project=clips[0].project,
            clips=clip_ids,
            edits=joins,
            parameters=parameters,
            run=run,
            created_by=user,
        )


def sequence_record_result(*, run: Run, result: dict[str, Any]) -> None:
    """Store the report on the run's sequence (only while this worker owns the run)."""
    with transaction.atomic():
        run_lock_owned(run=run)
        Sequence.objects.filter(run=run).update(result=result)
