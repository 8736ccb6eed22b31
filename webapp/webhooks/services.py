"""Webhook writes: record an event for every active webhook, deliver it with retries.

Deliveries are rows first (the log), messages second: a delivery that fails is
retried with exponential backoff up to ``WEBHOOK_MAX_ATTEMPTS`` and every attempt
leaves its status code or error on the row.
"""

from __future__ import annotations

import json
import secrets
import time
import urllib.error
import urllib.request
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from webapp.runs.models import Run
from webapp.webhooks.models import Delivery, DeliveryStatus, Webhook
from webapp.webhooks.signing import signature


def new_secret() -> str:
    """A random secret for a new webhook."""
    return secrets.token_hex(32)


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
    """Create a delivery per active webhook of the run's project and send them."""
    run = Run.objects.select_related("clip").get(pk=run_id)
    payload = run_event_payload(run)
    hooks = Webhook.objects.filter(project_id=run.clip.project_id, active=True)
    ids = []
    with transaction.atomic():
        for hook in hooks:
            delivery = Delivery.objects.create(
                webhook=hook, event=str(payload["event"]), payload=payload
            )
            ids.append(delivery.pk)
            transaction.on_commit(partial(_send, delivery.pk))
    return ids


def _send(delivery_id: int) -> None:
    from webapp.webhooks.tasks import deliver

    deliver.delay(delivery_id)


def delivery_attempt(*, delivery_id: int) -> bool:
    """POST the delivery once; record the outcome. True when the receiver answered 2xx."""
    delivery = Delivery.objects.select_related("webhook").get(pk=delivery_id)
    if delivery.status == DeliveryStatus.DELIVERED:
        return True
    body = json.dumps(delivery.payload, separators=(",", ":"), sort_keys=True).encode()
    timestamp = int(time.time())
    request = urllib.request.Request(
        delivery.webhook.url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "Kinetograph-Webhook/1",
            "X-Kinetograph-Event": delivery.event,
            "X-Kinetograph-Delivery": str(delivery.pk),
            "X-Kinetograph-Timestamp": str(timestamp),
            "X-Kinetograph-Signature": signature(delivery.webhook.secret, timestamp, body),
        },
    )
    code: int | None = None
    error = ""
    try:
        with urllib.request.urlopen(request, timeout=settings.WEBHOOK_TIMEOUT_S) as response:
            code = response.status
    except urllib.error.HTTPError as exc:
        code, error = exc.code, f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        error = str(getattr(exc, "reason", exc))[:500]
    ok = code is not None and 200 <= code < 300
    Delivery.objects.filter(pk=delivery_id).update(
        attempts=F("attempts") + 1,
        last_status_code=code,
        last_error="" if ok else error,
        status=DeliveryStatus.DELIVERED if ok else DeliveryStatus.PENDING,
        delivered_at=timezone.now() if ok else None,
    )
    return ok


def delivery_give_up(*, delivery_id: int) -> None:
    """Mark the delivery failed after its last attempt."""
    Delivery.objects.filter(pk=delivery_id).exclude(status=DeliveryStatus.DELIVERED).update(
        status=DeliveryStatus.FAILED
    )
