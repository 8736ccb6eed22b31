"""Webhook writes: create and delete webhooks, record an event for every active
webhook of a project, deliver it.

Deliveries are rows first (the log), messages second. The row is the source of
truth: each attempt adds one to ``attempts`` and leaves its status code or error
on the row; after ``WEBHOOK_MAX_ATTEMPTS`` failed attempts the delivery is
``failed``; a delivered or failed delivery is never sent again, however many
times its task message arrives. Delivery is at least once: receivers dedupe on
the ``X-Kinetograph-Delivery`` header.

Only public addresses are POSTed to (:mod:`webapp.webhooks.egress`): a URL that leads
elsewhere is refused when registered, and a delivery whose host has come to resolve
elsewhere fails at once, without a request. The log tells an owner no more about the
network than ``unreachable``: which error it was (refused, timed out, TLS) goes to the
server log only.
"""

from __future__ import annotations

import http.client
import json
import logging
import secrets
import time
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
from webapp.webhooks import egress
from webapp.webhooks.models import Delivery, DeliveryStatus, Webhook
from webapp.webhooks.signing import signature

log = logging.getLogger(__name__)

DELIVER_TASK = "webapp.webhooks.tasks.deliver"
"""The delivery task (:func:`webapp.webhooks.tasks.deliver`), sent by its name: the tasks
module imports this one, never the reverse (``WebhooksConfig.ready`` imports it)."""
USER_AGENT = "Kinetograph-Webhook/1"
ERROR_MAX_CHARS = 500
UNREACHABLE = "unreachable"
"""``last_error`` of an attempt that got no HTTP answer, whatever the reason."""
_URL_SCHEMES = ("http", "https")


def new_secret() -> str:
    """A random secret for a new webhook (64 hex characters, 256 bits)."""
    return secrets.token_hex(32)


def webhook_create(*, project: Project, user: User, url: str) -> Webhook:
    """A new webhook of ``project`` with a fresh secret. Owners only; http(s) URLs to
    public addresses only (``url_not_allowed`` names the reason)."""
    require_role(project=project, user=user, role=Role.OWNER)
    url = url.strip()
    try:
        URLValidator(schemes=list(_URL_SCHEMES))(url)
    except ValidationError:
        message = "A webhook URL must be an http:// or https:// URL."
        raise _url_error(message, "invalid_url") from None
    try:
        egress.url_check(url)
    except egress.EgressRefused as exc:
        message = f"{exc.reason} Webhooks only POST to public addresses."
        raise _url_error(message, "url_not_allowed") from None
    with transaction.atomic():
        return Webhook.objects.create(project=project, url=url, secret=new_secret())


def _url_error(message: str, code: str) -> ServiceError:
    return ServiceError(message, code=code, details={"fields": {"url": [message]}})


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
    """What one POST got: the HTTP status (``None`` when there was no answer) and an error;
    ``final`` when trying again cannot help (the URL leads to a non-public address)."""

    status_code: int | None
    error: str
    final: bool = False

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def _post(delivery: Delivery) -> Outcome:
    body = delivery_body(delivery)
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Kinetograph-Event": delivery.event,
        "X-Kinetograph-Delivery": str(delivery.pk),
        "X-Kinetograph-Timestamp": str(timestamp),
        "X-Kinetograph-Signature": signature(delivery.webhook.secret, timestamp, body),
    }
    try:
        code = egress.post(
            delivery.webhook.url, body=body, headers=headers, timeout_s=settings.WEBHOOK_TIMEOUT_S
        )
    except egress.EgressRefused as exc:
        return Outcome(None, exc.reason, final=True)
    except (http.client.HTTPException, OSError, ValueError) as exc:
        log.info("webhook delivery %s unreachable: %s: %s", delivery.pk, type(exc).__name__, exc)
        return Outcome(None, UNREACHABLE)
    return Outcome(code, "" if 200 <= code < 300 else _status_text(code))


def _status_text(code: int) -> str:
    """``HTTP 503 Service Unavailable``: the standard phrase, not the receiver's."""
    try:
        return f"HTTP {code} {http.HTTPStatus(code).phrase}"
    except ValueError:
        return f"HTTP {code}"


def delivery_attempt(*, delivery_id: int) -> Delivery | None:
    """POST a pending delivery once and record the outcome on its row.

    After the ``WEBHOOK_MAX_ATTEMPTS``-th failed attempt the delivery is ``failed``; at
    once when its host leads to a non-public address (nothing is sent). A delivery that
    is no longer pending (delivered, failed) is not sent again; one whose webhook was
    deactivated fails without a request. Returns the delivery as
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
    ending = rows.filter(status=DeliveryStatus.PENDING)
    if not outcome.final:
        ending = ending.filter(attempts__gte=settings.WEBHOOK_MAX_ATTEMPTS)
    ending.update(status=DeliveryStatus.FAILED)
