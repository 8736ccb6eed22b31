"""Score uploads: parse (the native format, a Microsoft layout or LabanWriter 4 text in
its assumed layout, whose records not read are kept in the animation report), animate,
store, and add the animation to the project as a clip (whose pipeline run is queued as
usual).

An invalid score is refused with every problem the parser found (each naming the symbol
and its beat) and nothing is stored. The same bytes uploaded again return the score
already there. Uploading needs the editor role, like clips.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import PurePosixPath

from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.db import transaction

from motioncore import bvh, export
from motioncore.errors import MotionCoreError
from motioncore.laban.importers import reader
from motioncore.laban.score import ScoreError
from motioncore.laban.synthesize import synthesize
from webapp.clips.services import clip_upload_create
from webapp.core.errors import ServiceError
from webapp.laban.models import Score
from webapp.projects.models import Project, Role
from webapp.projects.permissions import require_role

MAX_SCORE_BYTES = 2 * 1024 * 1024


def score_upload_create(*, project: Project, user: User, name: str, data: bytes) -> Score:
    """Animate the score in ``data`` and store it with its clip (see the module docstring)."""
    require_role(project=project, user=user, role=Role.EDITOR)
    if not data:
        raise ServiceError("The file is empty.", code="empty_file")
    if len(data) > MAX_SCORE_BYTES:
        raise ServiceError("A score file is at most 2 MB.", code="too_large")
    sha256 = hashlib.sha256(data).hexdigest()
    existing = Score.objects.filter(project=project, sha256=sha256).first()
    if existing is not None:
        return existing
    stem = PurePosixPath(name).stem or "score"
    try:
        read = reader.read_bytes(data, title=stem)
        loaded = read.score
        made = synthesize(loaded)
    except ScoreError as error:
        raise ServiceError(
            f"The score is not valid: {'; '.join(error.problems[:5])}",
            code="invalid_score",
            details={"problems": error.problems},
        ) from error
    except MotionCoreError as error:
        raise ServiceError(
            f"The score could not be animated: {error}", code="invalid_score"
        ) from error
    viewer = json.dumps(export.viewer_arrays(made.clip), separators=(",", ":")).encode()
    with transaction.atomic():
        clip = clip_upload_create(
            project=project, user=user, name=f"{stem}.bvh", data=bvh.dump(made.clip).encode()
        ).clip
        row = Score(
            project=project,
            clip=clip,
            name=name,
            title=loaded.title or stem,
            sha256=sha256,
            score=loaded.as_dict(),
            animation={
                "seconds_per_beat": loaded.seconds_per_beat,
                **made.as_dict(),
                **({"labanwriter": read.notes} if read.notes is not None else {}),
            },
            created_by=user,
        )
        row.viewer.save("animation.json", ContentFile(viewer), save=False)
        row.save()
        return row
