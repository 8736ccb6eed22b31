"""PFNN walk writes: start one (a run on the rig clip with the ``pfnn`` stage), record
its measures. Starting needs the editor role on the clip's project, like any run."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from webapp.clips.selectors import clip_get
from webapp.pfnn.models import Generation
from webapp.projects.models import Role
from webapp.projects.permissions import require_role
from webapp.runs.models import Run
from webapp.runs.services import run_lock_owned, run_start

GENERATION_STAGES = ("pfnn",)


def generation_create(*, user: User, clip_id: int, parameters: dict[str, Any]) -> Generation:
    """Queue a walk along ``parameters["path"]`` put on the rig of clip ``clip_id``
    (``parameters`` validated by the caller: path, speed_mps, seconds, mode, foot_lock)."""
    clip = clip_get(user=user, clip_id=clip_id)
    require_role(project=clip.project, user=user, role=Role.EDITOR)
    with transaction.atomic():
        run = run_start(clip=clip, user=user, stages=GENERATION_STAGES, parameters=parameters)
        return Generation.objects.create(
            project=clip.project, clip=clip, parameters=parameters, run=run, created_by=user
        )


def generation_record_result(*, run: Run, result: dict[str, Any]) -> None:
    """Store the measures on the run's walk (only while this worker owns the run)."""
    with transaction.atomic():
        run_lock_owned(run=run)
        Generation.objects.filter(run=run).update(result=result)
