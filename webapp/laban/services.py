"""Score uploads: read and validate the score (the native format, a Microsoft layout or
LabanWriter 4 text in its assumed layout), store it with its clip and queue the clip's
first run, which animates it (:mod:`webapp.laban.stages`), then cleans and analyses the
animation. Nothing heavy happens in the request: reading a score is bounded by its size
(``SCORE_MAX_BYTES``), its nesting and its length (``SCORE_MAX_DURATION_S``).

An invalid score is refused with every problem the parser found (each naming the symbol
and its beat) and nothing is stored. The same bytes uploaded again return the score
already there. Uploading needs the editor role, like clips.
"""

from __future__ import annotations

import hashlib
from pathlib import PurePosixPath
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from motioncore.errors import MotionCoreError
from motioncore.laban.importers import reader
from motioncore.laban.score import Score as ParsedScore
from motioncore.laban.score import ScoreError
from webapp.clips.services import clip_source_create
from webapp.core.errors import ServiceError, TooLarge, limit_exceeded
from webapp.laban.models import Score
from webapp.projects.models import Project, Role
from webapp.projects.permissions import require_role
from webapp.runs.models import Run
from webapp.runs.services import run_lock_owned

SCORE_STAGE = "score"
"""The stage that animates a score (the first of its clip's runs)."""


def score_upload_create(*, project: Project, user: User, name: str, data: bytes) -> Score:
    """Validate the score in ``data`` and store it with its clip, whose first run (queued
    on commit) animates it (see the module docstring)."""
    require_role(project=project, user=user, role=Role.EDITOR)
    score_bytes_check(size=len(data))
    sha256 = hashlib.sha256(data).hexdigest()
    existing = Score.objects.filter(project=project, sha256=sha256).first()
    if existing is not None:
        return existing
    stem = PurePosixPath(name).stem or "score"
    loaded = _read(data, stem)
    try:
        with transaction.atomic():
            clip = clip_source_create(
                project=project, user=user, name=name, data=data, first_stage=SCORE_STAGE
            )
            return Score.objects.create(
                project=project,
                clip=clip,
                name=clip.name,
                title=loaded.title or stem,
                sha256=sha256,
                score=loaded.as_dict(),
                animation={},
                created_by=user,
            )
    except IntegrityError:  # a concurrent upload of the same bytes won
        winner = Score.objects.filter(project=project, sha256=sha256).first()
        if winner is None:
            raise
        return winner


def score_bytes_check(*, size: int) -> None:
    """Refuse an empty score file or one over ``SCORE_MAX_BYTES`` (before reading it)."""
    if size == 0:
        raise ServiceError("The file is empty.", code="empty_file")
    if size > settings.SCORE_MAX_BYTES:
        raise TooLarge(
            f"A score file is at most {settings.SCORE_MAX_BYTES / 2**20:g} MiB.",
            code="file_too_large",
            details={"setting": "KINETOGRAPH_SCORE_MAX_BYTES"},
        )


def _read(data: bytes, stem: str) -> ParsedScore:
    try:
        loaded = reader.read_bytes(data, title=stem).score
    except ScoreError as error:
        raise invalid_score(error) from error
    except MotionCoreError as error:
        raise ServiceError(f"The score could not be read: {error}", code="invalid_score") from error
    score_duration_check(loaded)
    return loaded


def invalid_score(error: ScoreError) -> ServiceError:
    """400 ``invalid_score`` listing every problem of ``error`` (each naming its symbol
    and beat; the message the first five)."""
    return ServiceError(
        f"The score is not valid: {'; '.join(error.problems[:5])}",
        code="invalid_score",
        details={"problems": error.problems},
    )


def score_duration_check(score: ParsedScore) -> None:
    """Refuse a score longer than ``SCORE_MAX_DURATION_S`` (413 ``limit_exceeded``)."""
    seconds = score.beats * score.seconds_per_beat
    if seconds > settings.SCORE_MAX_DURATION_S:
        raise limit_exceeded(
            f"The score lasts {seconds:.0f} s; at most {settings.SCORE_MAX_DURATION_S} s are "
            "allowed.",
            limit="max_duration_s",
            value=seconds,
            setting="KINETOGRAPH_SCORE_MAX_DURATION_S",
        )


def score_animation_record_result(*, run: Run, result: dict[str, Any]) -> None:
    """Store the animation's footprints and measures on the run's score (only while this
    worker owns the run)."""
    with transaction.atomic():
        run_lock_owned(run=run)
        Score.objects.filter(clip=run.clip).update(animation=result)
