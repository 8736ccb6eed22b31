"""Webhook delivery task: one attempt per execution, retried with backoff."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

from webapp.webhooks import services


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def deliver(self: Any, delivery_id: int) -> None:
    """Try to deliver; on failure retry in 2, 4, 8, ... s until WEBHOOK_MAX_ATTEMPTS."""
    if services.delivery_attempt(delivery_id=delivery_id):
        return
    if self.request.retries + 1 >= settings.WEBHOOK_MAX_ATTEMPTS:
        services.delivery_give_up(delivery_id=delivery_id)
        return
    raise self.retry(countdown=min(2 ** (self.request.retries + 1), 300))
