"""MotorNerve writes: start a drive or a training (runs of the ``motornerve`` kind) and
record their results. Starting needs the editor role on the project, like any run."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from webapp.clips.models import Clip
from webapp.clips.selectors import clip_get
from webapp.core.errors import Conflict, ServiceError
from webapp.motornerve.models import Drive, Training
from webapp.motornerve.stages import DRIVE_STAGE, TRAIN_STAGE
from webapp.projects.models import Role
from webapp.projects.permissions import require_role
from webapp.projects.selectors import project_get
from webapp.runs.models import Run, Status
from webapp.runs.services import run_lock_owned, run_start


def drive_create(
    *, user: User, clip_id: int, parameters: dict[str, Any], training_id: int | None = None
) -> Drive:
    """Queue a drive of ``parameters["timeline"]`` (checked by the caller) on the rig of
    clip ``clip_id``, with the shipped weights or those of training ``training_id`` (a
    succeeded training of the same project)."""
    clip = clip_get(user=user, clip_id=clip_id)
    require_role(project=clip.project, user=user, role=Role.EDITOR)
    training = None
    if training_id is not None:
        training = Training.objects.filter(pk=training_id, project=clip.project).first()
        if training is None:
            raise ServiceError(
                f"No training {training_id} in this project.", code="unknown_training"
            )
        if training.run.status != Status.SUCCEEDED:
            raise Conflict(
                f"Training {training_id} has no weights yet (its run is {training.run.status}).",
                code="training_not_ready",
            )
    stored = {**parameters, "training": training_id}
    with transaction.atomic():
        run = run_start(clip=clip, user=user, stages=(DRIVE_STAGE,), parameters=stored)
        return Drive.objects.create(
            project=clip.project,
            clip=clip,
            training=training,
            parameters=stored,
            run=run,
            created_by=user,
        )


def training_create(
    *,
    user: User,
    project_id: int,
    clip_ids: list[int],
    interact: list[int],
    epochs: int | None,
    name: str,
) -> Training:
    """Queue a training on the project's clips ``clip_ids`` (``interact``: those tagged
    interact; ``epochs`` None: ``settings.MOTORNERVE_TRAIN_EPOCHS``). Clips of another
    project are a 400; the worker refuses too few or footless clips with the reason (a
    failed run)."""
    project = project_get(user=user, project_id=project_id)
    require_role(project=project, user=user, role=Role.EDITOR)
    clips = list(Clip.objects.filter(project=project, pk__in=clip_ids).order_by("pk"))
    missing = sorted(set(clip_ids) - {c.pk for c in clips})
    if missing:
        raise ServiceError(
            f"Clip {missing[0]} is not a clip of this project.",
            code="unknown_clip",
            details={"clips": missing},
        )
    stray = sorted(set(interact) - set(clip_ids))
    if stray:
        raise ServiceError(
            f"Clip {stray[0]} is tagged interact but is not in the training set.",
            code="unknown_clip",
            details={"interact": stray},
        )
    if epochs is None:
        epochs = settings.MOTORNERVE_TRAIN_EPOCHS
    parameters = {"clips": sorted(clip_ids), "interact": sorted(interact), "epochs": epochs}
    with transaction.atomic():
        run = run_start(clip=clips[0], user=user, stages=(TRAIN_STAGE,), parameters=parameters)
        return Training.objects.create(
            project=project, name=name, parameters=parameters, run=run, created_by=user
        )


def motornerve_record_result(*, run: Run, result: dict[str, Any]) -> None:
    """Store the measures on the run's drive or training (while this worker owns it)."""
    with transaction.atomic():
        run_lock_owned(run=run)
        Drive.objects.filter(run=run).update(result=result)
        Training.objects.filter(run=run).update(result=result)
