"""Webhook writes: create and delete webhooks, record an event for every active
webhook of a project, deliver it.

Deliveries are rows first (the log), messages second. The row is the source of
truth: each attempt adds one to ``attempts`` and leaves its status code or error
on the row; after ``WEBHOOK_MAX_ATTEMPTS`` failed attempts the delivery is
``failed``; a delivered or failed delivery is never sent again, however many
times its task message arrives. Delivery is at least once: receivers dedupe on
the ``X-Kinetograph-Delivery`` header.
"""

from __future__ import annotations

import http.client
import json
import logging
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

from celery import current_app
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from webapp.core.errors import ServiceError
from webapp.projects.models import Project, Role
from webapp.projects.permissions import require_role
from webapp.runs.models import Run
from webapp.webhooks.models import Delivery, DeliveryStatus, Webhook
from webapp.webhooks.signing import signature

log = logging.getLogger(__name__)

DELIVER_TASK = "webapp.webhooks.tasks.deliver"
"""The delivery task (:func:`webapp.webhooks.tasks.deliver`), sent by its name: the tasks
module imports this one, never the reverse (``WebhooksConfig.ready`` imports it)."""
USER_AGENT = "Kinetograph-Webhook/1"
ERROR_MAX_CHARS = 500
_URL_SCHEMES = ("http", "https")


def new_secret() -> str:
    """A random secret for a new webhook (64 hex characters, 256 bits)."""
    return secrets.token_hex(32)


def webhook_create(*, project: Project, user: User, url: str) -> Webhook:
    """A new webhook of ``project`` with a fresh secret. Owners only; http(s) URLs only."""
    require_role(project=project, user=user, role=Role.OWNER)
    url = url.strip()
    try:
        URLValidator(schemes=list(_URL_SCHEMES))(url)
    except ValidationError:
        message = "A webhook URL must be an http:// or https:// URL."
        raise ServiceError(
            message, code="invalid_url", details={"fields": {"url": [message]}}
        ) from None
    with transaction.atomic():
        return Webhook.objects.create(project=project, url=url, secret=new_secret())


def webhook_delete(*, webhook: Webhook, user: User) -> None:
    """Remove the webhook and its delivery log. Owners only."""
    require_role(project=webhook.project, user=user, role=Role.OWNER)
    with transaction.atomic():
        webhook.delete()


def run_event_payload(run: Run) -> dict[str, object]:
    """What a receiver learns about a finished run."""
    return {
        "event": f"run.{run.status}",
        "run": {
            "id": run.pk,
            "status": run.status,
            "error": run.error,
            "stages": run.stages,
            "timings_s": run.timings,
            "code_version": run.code_version,
            "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        },
        "clip": {"id": run.clip_id, "name": run.clip.name, "sha256": run.clip.sha256},
        "project": {"id": run.clip.project_id},
    }


def webhooks_notify_run_finished(*, run_id: int) -> list[int]:
    """Tell the run's project's webhooks that the run ended (:func:`webhooks_notify_event`)."""
    run = Run.objects.select_related("clip").get(pk=run_id)
    return webhooks_notify_event(project_id=run.clip.project_id, payload=run_event_payload(run))


def webhooks_notify_event(*, project_id: int, payload: dict[str, object]) -> list[int]:
    """Create a delivery of ``payload`` (whose ``"event"`` names the event: ``run.succeeded``,
    ``proposal.approved``, ...) per active webhook of the project; send each after commit.

    Returns the new deliveries' ids. A failure to enqueue one delivery (broker
    down) is logged and leaves that delivery ``pending``; it does not stop the others.
    """
    hooks = Webhook.objects.filter(project_id=project_id, active=True)
    ids = []
    with transaction.atomic():
        for hook in hooks:
            delivery = Delivery.objects.create(
                webhook=hook, event=str(payload["event"]), payload=payload
            )
            ids.append(delivery.pk)
            transaction.on_commit(_sender(delivery.pk), robust=True)
    return ids


def _sender(delivery_id: int) -> Callable[[], None]:
    """The on-commit callback that enqueues the delivery. A real function, not a
    ``functools.partial``: Django logs a robust callback's failure by its ``__qualname__``."""

    def send_delivery() -> None:
        current_app.tasks[DELIVER_TASK].delay(delivery_id)

    return send_delivery


def delivery_body(delivery: Delivery) -> bytes:
    """The exact bytes POSTed (and signed): compact JSON with sorted keys."""
    return json.dumps(delivery.payload, separators=(",", ":"), sort_keys=True).encode()


@dataclass(frozen=True)
class Outcome:
    """What one POST got: the HTTP status (``None`` when there was no answer) and an error."""

    status_code: int | None
    error: str

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A 3xx is an answer, not an instruction: following it would turn the POST into a GET."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def _post(delivery: Delivery) -> Outcome:
    body = delivery_body(delivery)
    timestamp = int(time.time())
    request = urllib.request.Request(
        delivery.webhook.url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "X-Kinetograph-Event": delivery.event,
            "X-Kinetograph-Delivery": str(delivery.pk),
            "X-Kinetograph-Timestamp": str(timestamp),
            "X-Kinetograph-Signature": signature(delivery.webhook.secret, timestamp, body),
        },
    )
    try:
        with _OPENER.open(request, timeout=settings.WEBHOOK_TIMEOUT_S) as response:
            return Outcome(response.status, "")
    except urllib.error.HTTPError as exc:
        exc.close()
        return Outcome(exc.code, f"HTTP {exc.code} {exc.reason}".strip())
    except urllib.error.URLError as exc:
        reason = exc.reason
        text = f"{type(reason).__name__}: {reason}" if isinstance(reason, BaseException) else reason
        return Outcome(None, str(text))
    except (http.client.HTTPException, OSError, ValueError) as exc:
        return Outcome(None, f"{type(exc).__name__}: {exc}")


def delivery_attempt(*, delivery_id: int) -> Delivery | None:
    """POST a pending delivery once and record the outcome on its row.

    After the ``WEBHOOK_MAX_ATTEMPTS``-th failed attempt the delivery is ``failed``.
    A delivery that is no longer pending (delivered, failed) is not sent again; one
    whose webhook was deactivated fails without a request. Returns the delivery as
    recorded, ``None`` if it no longer exists (its webhook was deleted).
    """
    delivery = Delivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != DeliveryStatus.PENDING:
        return delivery
    if not delivery.webhook.active:
        Delivery.objects.filter(pk=delivery_id, status=DeliveryStatus.PENDING).update(
            status=DeliveryStatus.FAILED, last_error="The webhook is inactive."
        )
    else:
        _record(delivery_id, _post(delivery))
    return Delivery.objects.filter(pk=delivery_id).first()


def _record(delivery_id: int, outcome: Outcome) -> None:
    rows = Delivery.objects.filter(pk=delivery_id)
    if outcome.ok:
        rows.update(
            attempts=F("attempts") + 1,
            last_status_code=outcome.status_code,
            last_error="",
            status=DeliveryStatus.DELIVERED,
            delivered_at=timezone.now(),
        )
        return
    log.info("webhook delivery %s failed: %s", delivery_id, outcome.error)
    rows.filter(status=DeliveryStatus.PENDING).update(
        attempts=F("attempts") + 1,
        last_status_code=outcome.status_code,
        last_error=outcome.error[:ERROR_MAX_CHARS],
    )
    rows.filter(status=DeliveryStatus.PENDING, attempts__gte=settings.WEBHOOK_MAX_ATTEMPTS).update(
        status=DeliveryStatus.FAILED
    )
