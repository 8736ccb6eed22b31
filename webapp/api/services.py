"""The API's writes: adapters from what a request carries (credentials, an
``UploadedFile``, ids) to the apps' services, one call from each view. The browser
pages use the same app services directly.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.http import HttpRequest
from rest_framework.authtoken.models import Token

from webapp.api.uploads import upload_too_large
from webapp.clips.selectors import clip_get
from webapp.clips.services import UploadResult, clip_upload_create
from webapp.core.errors import ServiceError
from webapp.projects.models import Role
from webapp.projects.permissions import require_role
from webapp.projects.selectors import project_get
from webapp.runs.models import Run
from webapp.runs.services import DEFAULT_STAGES, run_start


def auth_token_obtain(*, request: HttpRequest, username: str, password: str) -> Token:
    """The API token of the user with these credentials (created on first use);
    400 ``invalid_credentials`` for a wrong pair or an inactive user."""
    user = authenticate(request, username=username, password=password)
    if user is None:
        raise ServiceError("Wrong username or password.", code="invalid_credentials")
    token, _ = Token.objects.get_or_create(user=user)
    return token


def clip_upload(*, user: User, project_id: int, upload: UploadedFile) -> UploadResult:
    """Store an uploaded BVH in the project (editors and owners).

    404 for non-members, 403 below editor, 413 for a file over the limit (checked
    before the file is read into memory); then
    :func:`~webapp.clips.services.clip_upload_create` validates, stores and queues it.
    """
    project = project_get(user=user, project_id=project_id)
    require_role(project=project, user=user, role=Role.EDITOR)
    if (upload.size or 0) > settings.UPLOAD_MAX_BYTES:
        raise upload_too_large()
    return clip_upload_create(
        project=project, user=user, name=upload.name or "", data=upload.read()
    )


def clip_run_start(*, user: User, clip_id: int, fps: float | None) -> Run:
    """Queue a run of the default stages on the clip (editors and owners); ``fps``
    overrides the clip's frame rate for the run. The task is sent on commit."""
    clip = clip_get(user=user, clip_id=clip_id)
    require_role(project=clip.project, user=user, role=Role.EDITOR)
    parameters: dict[str, object] = {} if fps is None else {"fps": fps}
    with transaction.atomic():
        return run_start(clip=clip, user=user, stages=DEFAULT_STAGES, parameters=parameters)
