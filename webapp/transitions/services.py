"""Transition writes: start one (a run on clip A with the ``transition`` stage), record its result.

Both clips must be in the same project, visible to the user (404 otherwise), and
have the same skeleton (joint names and parents, from their validation reports);
starting one needs the editor role, like any run.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from webapp.clips.selectors import clip_get
from webapp.core.errors import Conflict, ServiceError
from webapp.projects.models import Role
from webapp.projects.permissions import require_role
from webapp.runs.models import Run
from webapp.runs.services import run_lock_owned, run_start
from webapp.transitions.models import Transition
from webapp.transitions.selectors import skeleton_mismatch

TRANSITION_STAGES = ("transition",)


def transition_create(
    *, user: User, clip_a_id: int, clip_b_id: int, parameters: dict[str, Any]
) -> Transition:
    """Queue the transition from clip A into clip B with ``parameters`` (alpha,
    theta_max_deg, measure, blend_s, blend; validated by the caller)."""
    clip_a = clip_get(user=user, clip_id=clip_a_id)
    clip_b = clip_get(user=user, clip_id=clip_b_id)
    require_role(project=clip_a.project, user=user, role=Role.EDITOR)
    if clip_a.project_id != clip_b.project_id:
        raise ServiceError("Both clips must be in the same project.", code="different_projects")
    for clip in (clip_a, clip_b):
        if not clip.frames:  # a score's clip before its first run has animated it
            raise Conflict(
                f"Clip {clip.pk} has no motion yet: its first run has not finished.",
                code="no_motion_yet",
            )
    mismatch = skeleton_mismatch(clip_a, clip_b)
    if mismatch:
        raise ServiceError(
            f"The clips have different skeletons: {mismatch}", code="different_skeletons"
        )
    with transaction.atomic():
        run = run_start(
            clip=clip_a,
            user=user,
            stages=TRANSITION_STAGES,
            parameters={**parameters, "clip_b": clip_b.pk},
        )
        return Transition.objects.create(
            project=clip_a.project,
            clip_a=clip_a,
            clip_b=clip_b,
            parameters=parameters,
            run=run,
            created_by=user,
        )


def transition_record_result(*, run: Run, result: dict[str, Any]) -> None:
    """Store the report on the run's transition (only while this worker owns the run)."""
    with transaction.atomic():
        run_lock_owned(run=run)
        Transition.objects.filter(run=run).update(result=result)
