"""``Idempotency-Key`` for creating POSTs: retry safely, get the first answer again.

Decorate a view method with :func:`idempotent`. With the header, a request:

* reserves the key for this user (one row of
  :class:`~webapp.core.models.IdempotentResponse`, ``status_code`` 0 while it runs);
* runs the view; a 2xx response is stored (status and body), anything else, or
  an exception, frees the key so that the client may try again;
* with a key already used for the *same* request (method, path, body; files by
  their sha256) gets the stored response replayed, marked ``Idempotent-Replayed:
  true``; with a key used for a *different* request, or still running, gets 409.

A reservation left behind by a crashed process is taken over after
:data:`ABANDONED_AFTER`. Without the header the view runs as usual.

A replay is for someone who may still make the request: ``@idempotent(replay_check=f)``
calls ``f(request, *args, **kwargs)`` (the view method's arguments) before answering
the stored response, and whatever it raises (403 for a role since lowered, 404 for a
member since removed) is the answer instead. The stored body never holds a secret:
fields named in :data:`SECRET_FIELDS` (a webhook's ``secret``) are shown once, in the
first response, and left out of the stored copy and so of every replay.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any, Concatenate, ParamSpec, TypeVar, overload

from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.datastructures import MultiValueDict
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.status import HTTP_204_NO_CONTENT, is_success

from webapp.core.auth import request_user
from webapp.core.errors import Conflict, ServiceError
from webapp.core.models import IdempotentResponse

HEADER = "Idempotency-Key"
KEY_MAX_LENGTH = 200  # IdempotentResponse.key
IN_PROGRESS = 0  # status_code of a reserved key whose request has not finished
ABANDONED_AFTER = timedelta(minutes=10)
REPLAYED_HEADER = "Idempotent-Replayed"
KEY_PATTERN = re.compile(rf"[!-~]{{1,{KEY_MAX_LENGTH}}}")
SECRET_FIELDS = frozenset({"secret", "token", "password"})
"""Response fields (at any depth) that are never stored for a replay (a webhook's
``secret``; ``token`` and ``password`` for any creating POST that ever answers one)."""

PARAMETER = OpenApiParameter(
    HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description=(
        f"Makes the request safe to retry: the same key with the same request replays the "
        f"first 2xx response; with a different request it answers 409. 1–{KEY_MAX_LENGTH} "
        "visible ASCII characters, unique per user."
    ),
    pattern=f"^{KEY_PATTERN.pattern}$",
)

P = ParamSpec("P")
V = TypeVar("V")
ViewMethod = Callable[Concatenate[V, Request, P], Response]
ReplayCheck = Callable[..., object]
"""``(request, *args, **kwargs)`` of the view method; raises to refuse a replay."""


@overload
def idempotent(view_method: ViewMethod[V, P], /) -> ViewMethod[V, P]: ...
@overload
def idempotent(*, replay_check: ReplayCheck) -> Callable[[ViewMethod[V, P]], ViewMethod[V, P]]: ...
def idempotent(
    view_method: ViewMethod[V, P] | None = None, /, *, replay_check: ReplayCheck | None = None
) -> ViewMethod[V, P] | Callable[[ViewMethod[V, P]], ViewMethod[V, P]]:
    """Honour ``Idempotency-Key`` on a view method ``(self, request, *args, **kwargs)``:
    ``@idempotent``, or ``@idempotent(replay_check=...)`` to re-check, before a replay,
    that the current user may still make the request."""
    if view_method is not None:
        return _idempotent(view_method, replay_check=replay_check)

    def decorate(method: ViewMethod[V, P]) -> ViewMethod[V, P]:
        return _idempotent(method, replay_check=replay_check)

    return decorate


def _idempotent(
    view_method: ViewMethod[V, P], *, replay_check: ReplayCheck | None
) -> ViewMethod[V, P]:
    @functools.wraps(view_method)
    def wrapper(view: V, request: Request, /, *args: P.args, **kwargs: P.kwargs) -> Response:
        key = idempotency_key(request)
        if key is None:
            return view_method(view, request, *args, **kwargs)
        reservation = IdempotentResponse(
            user=request_user(request),
            key=key,
            method=str(request.method),
            path=request.get_full_path()[:300],
            request_hash=request_fingerprint(request),
        )
        stored = _reserve(reservation)
        if stored is not None:
            if replay_check is not None:
                replay_check(request, *args, **kwargs)
            return _replay(stored)
        try:
            response = view_method(view, request, *args, **kwargs)
        except BaseException:
            reservation.delete()
            raise
        _finish(reservation, response)
        return response

    documented: ViewMethod[V, P] = extend_schema(parameters=[PARAMETER])(wrapper)
    return documented


def idempotency_key(request: Request) -> str | None:
    """The request's key, ``None`` without the header; 400 for a malformed one."""
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not KEY_PATTERN.fullmatch(key):
        raise ServiceError(
            f"{HEADER} must be 1 to {KEY_MAX_LENGTH} visible ASCII characters (no spaces).",
            code="invalid_idempotency_key",
        )
    return key


def request_fingerprint(request: Request) -> str:
    """sha256 of method, path and body (uploaded files by name, size and sha256)."""
    canonical = {
        "method": request.method,
        "path": request.get_full_path(),
        "data": _canonical(request.data),
    }
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _canonical(data: Any) -> Any:
    """JSON-able stand-in for parsed request data (form data keeps repeated keys)."""
    if isinstance(data, MultiValueDict):
        return {key: [_canonical(value) for value in data.getlist(key)] for key in data}
    if isinstance(data, UploadedFile):
        return {"name": data.name, "size": data.size, "sha256": _file_sha256(data)}
    return data


def _file_sha256(upload: UploadedFile) -> str:
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()


def _reserve(reservation: IdempotentResponse) -> IdempotentResponse | None:
    """Take the key (``None``), or the stored row for it; 409 if it is not replayable."""
    reservation.status_code = IN_PROGRESS
    reservation.body = {}
    try:
        with transaction.atomic():
            reservation.save()
        return None
    except IntegrityError:
        stored = IdempotentResponse.objects.filter(user=reservation.user, key=reservation.key)
    found = stored.first()
    if found is not None and found.request_hash != reservation.request_hash:
        raise Conflict(
            f"This {HEADER} was already used for a different request.",
            code="idempotency_key_reused",
        )
    if found is not None and found.status_code != IN_PROGRESS:
        return found
    if found is not None and _take_over_abandoned(found):
        reservation.pk = found.pk
        return None
    raise Conflict(  # the first request with this key is still running (or just gave it up)
        f"A request with this {HEADER} is still being processed; retry later.",
        code="idempotency_key_in_use",
    )


def _take_over_abandoned(found: IdempotentResponse) -> bool:
    """Claim a reservation whose request died without finishing (conditional UPDATE)."""
    now = timezone.now()
    return bool(
        IdempotentResponse.objects.filter(
            pk=found.pk, status_code=IN_PROGRESS, created_at__lt=now - ABANDONED_AFTER
        ).update(created_at=now)
    )


def _finish(reservation: IdempotentResponse, response: Response) -> None:
    """Store a 2xx response; free the key otherwise."""
    if not is_success(response.status_code):
        reservation.delete()
        return
    body = without_secrets(json.loads(JSONRenderer().render(response.data) or b"null"))
    IdempotentResponse.objects.filter(pk=reservation.pk).update(
        status_code=response.status_code, body={} if body is None else body
    )


def without_secrets(body: Any) -> Any:
    """``body`` (JSON data) without the fields of :data:`SECRET_FIELDS`, at any depth."""
    if isinstance(body, dict):
        return {k: without_secrets(v) for k, v in body.items() if k not in SECRET_FIELDS}
    if isinstance(body, list):
        return [without_secrets(item) for item in body]
    return body


def _replay(stored: IdempotentResponse) -> Response:
    headers = {REPLAYED_HEADER: "true"}
    if stored.status_code == HTTP_204_NO_CONTENT:
        return Response(status=stored.status_code, headers=headers)
    return Response(stored.body, status=stored.status_code, headers=headers)
