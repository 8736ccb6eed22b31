"""Webhook delivery task: thin, takes an id, one attempt per execution, retried with
exponential backoff while the delivery is pending. The attempt cap
(``WEBHOOK_MAX_ATTEMPTS``) is enforced on the delivery's row, not by Celery's retry
count, so a redelivered message never adds attempts."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from webapp.webhooks import services
from webapp.webhooks.models import DeliveryStatus


def backoff_s(attempts: int, *, base_s: int = 2, cap_s: int = 300) -> int:
    """Seconds to wait after ``attempts`` failed attempts: 2, 4, 8, ... at most ``cap_s``."""
    return int(min(base_s**attempts, cap_s))


@shared_task(
    name=services.DELIVER_TASK,
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,
)
def deliver(self: Any, delivery_id: int) -> str | None:
    """Try to deliver; while the delivery stays pending, retry after :func:`backoff_s`.

    Returns the delivery's status (``None`` if it was deleted).
    """
    delivery = services.delivery_attempt(delivery_id=delivery_id)
    if delivery is None:
        return None
    if delivery.status == DeliveryStatus.PENDING:
        raise self.retry(countdown=backoff_s(delivery.attempts))
    return str(delivery.status)
