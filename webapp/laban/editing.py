"""Editing a score in the browser: animate an edited score without storing it (the
editor's preview), save it as the score's next version, and start a score from a
template.

The preview animates in the request, bounded by ``SCORE_PREVIEW_MAX_DURATION_S`` (a
score's seconds at its tempo): the synthesizer takes about 14 ms per second of score
on one core (``bench/score_edit_latency.py``: 16 s of walking with arm gestures in
0.2 s, 64 s in 0.9 s), so the default bound (180 s) keeps a preview within about 3 s.
Longer scores are animated by saving them (a version is a clip whose first run
animates it, like an upload). Nothing the preview makes is stored.

A version is a new :class:`~webapp.laban.models.Score` (its own clip, run, animation
and downloads), numbered after the newest of its family (``origin`` and its later
versions). Saving a score that is already there (the same bytes in the project, or
the same score as a version of the family) is refused (409 ``unchanged``, naming that
score).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q, QuerySet

from motioncore import export
from motioncore.errors import MotionCoreError
from motioncore.laban import score as score_format
from motioncore.laban.score import Score as ParsedScore
from motioncore.laban.score import ScoreError
from motioncore.laban.synthesize import synthesize
from webapp.clips.services import clip_source_create
from webapp.core.errors import Conflict, ServiceError, limit_exceeded
from webapp.laban.models import Score
from webapp.laban.services import (
    SCORE_STAGE,
    invalid_score,
    score_bytes_check,
    score_duration_check,
    score_upload_create,
)
from webapp.projects.models import Project, Role
from webapp.projects.permissions import require_role

PREVIEW_DECIMALS = 4
"""Decimals kept in the preview's arrays (0.1 mm; 1e-4 of a unit quaternion): about a
third of the full-precision JSON, which matters at 60 frames a second."""

TEMPLATES_DIR = Path(__file__).resolve().parent / "starters"
TEMPLATES: dict[str, str] = {
    "walk": "Walk: four steps forward, a quarter turn, four steps back",
    "turn": "Turn: steps in place with a half turn each way and the arms out",
    "jump": "Jump: pliés, a jump on both feet, a hop and a leap",
}
"""Template name → what it holds (each is ``starters/<name>.json``)."""


@dataclass(frozen=True)
class Preview:
    """An edited score's animation, not stored.

    Attributes:
        viewer: the animation's viewer arrays (``motioncore.export``, values rounded to
            :data:`PREVIEW_DECIMALS`).
        animation: footprints, centre path and measures (``synthesize``'s ``as_dict``)
            with ``seconds_per_beat``, the layout of the score's ``footprints.json``.
        synthesis_ms: how long the animation took to make, milliseconds.
    """

    viewer: dict[str, Any]
    animation: dict[str, Any]
    synthesis_ms: float


def score_preview(*, score: Score, user: User, data: Any) -> Preview:
    """Animate ``data`` (an edited ``kinetograph-score/1`` object) without storing it;
    400 ``invalid_score`` naming every problem, 413 over the preview's bound."""
    require_role(project=score.project, user=user, role=Role.EDITOR)
    parsed = _parsed(data)
    seconds = parsed.beats * parsed.seconds_per_beat
    if seconds > settings.SCORE_PREVIEW_MAX_DURATION_S:
        raise limit_exceeded(
            f"The score lasts {seconds:.0f} s; the editor animates up to "
            f"{settings.SCORE_PREVIEW_MAX_DURATION_S} s as you edit. Save it as a version to "
            "animate it in full.",
            limit="preview_max_duration_s",
            value=seconds,
            setting="KINETOGRAPH_SCORE_PREVIEW_MAX_DURATION_S",
        )
    started = time.perf_counter()
    try:
        made = synthesize(parsed)
    except MotionCoreError as error:
        raise ServiceError(
            f"The score could not be animated: {error}", code="not_animated"
        ) from error
    elapsed_ms = (time.perf_counter() - started) * 1000.0
    return Preview(
        viewer=export.viewer_arrays(made.clip, decimals=PREVIEW_DECIMALS),
        animation={"seconds_per_beat": parsed.seconds_per_beat, **made.as_dict()},
        synthesis_ms=round(elapsed_ms, 1),
    )


def score_version_create(*, score: Score, user: User, data: Any) -> Score:
    """Save ``data`` (an edited score) as the next version of ``score``'s family: a new
    score whose clip's first run animates it (queued on commit)."""
    project = score.project
    require_role(project=project, user=user, role=Role.EDITOR)
    parsed = _parsed(data)
    score_duration_check(parsed)
    body = (json.dumps(parsed.as_dict(), indent=1, ensure_ascii=False) + "\n").encode()
    score_bytes_check(size=len(body))
    sha256 = hashlib.sha256(body).hexdigest()
    origin = score.origin or score
    with transaction.atomic():
        Score.objects.select_for_update().filter(pk=origin.pk).first()  # one number at a time
        content = parsed.as_dict()
        family = list(score_versions(origin))
        same = Score.objects.filter(project=project, sha256=sha256).first() or next(
            (v for v in family if v.score == content), None
        )
        if same is not None:
            raise Conflict(
                f"This score is already in the project: version {same.version} of "
                f"{same.title or same.name}.",
                code="unchanged",
                details={"score": same.pk},
            )
        version = max(v.version for v in family) + 1
        stem = PurePosixPath(origin.name).stem or "score"
        clip = clip_source_create(
            project=project,
            user=user,
            name=f"{stem}-v{version}.json",
            data=body,
            first_stage=SCORE_STAGE,
        )
        return Score.objects.create(
            project=project,
            clip=clip,
            name=clip.name,
            title=parsed.title or origin.title,
            sha256=sha256,
            score=content,
            animation={},
            version=version,
            origin=origin,
            created_by=user,
        )


def score_versions(score: Score) -> QuerySet[Score]:
    """Every version of ``score``'s family, oldest first."""
    origin_id = score.origin_id or score.pk
    family = Score.objects.filter(Q(pk=origin_id) | Q(origin_id=origin_id))
    return family.order_by("version", "id")


def score_template_create(*, project: Project, user: User, template: str) -> Score:
    """A new score from one of :data:`TEMPLATES` (uploaded like a file of that name; the
    same template twice answers the score already made from it)."""
    if template not in TEMPLATES:
        raise ServiceError(
            f"No template called {template!r}; try one of {', '.join(TEMPLATES)}.",
            code="unknown_template",
        )
    data = (TEMPLATES_DIR / f"{template}.json").read_bytes()
    return score_upload_create(project=project, user=user, name=f"{template}.json", data=data)


def _parsed(data: Any) -> ParsedScore:
    if not isinstance(data, Mapping):
        raise ServiceError("Send the score as a JSON object.", code="invalid_score")
    try:
        return score_format.load(data)
    except ScoreError as error:
        raise invalid_score(error) from error
