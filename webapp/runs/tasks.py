"""Celery tasks: thin, id-taking, idempotent. The work is in :mod:`webapp.runs.pipeline`."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.signals import worker_ready

from webapp.runs import pipeline, services

log = logging.getLogger(__name__)


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(pipeline.TransientError,),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=None,  # capped by settings.RUN_MAX_RETRIES inside pipeline.execute
)
def run_pipeline(self: Any, run_id: int) -> None:
    """Run the pipeline of run ``run_id`` if this worker can claim it."""
    pipeline.execute(run_id=run_id, attempt=self.request.retries)


@shared_task
def requeue_stale_runs() -> list[int]:
    """Re-enqueue runs left behind by dead workers or lost messages."""
    return services.runs_requeue_stale()


@worker_ready.connect
def _requeue_on_worker_start(**_: Any) -> None:
    """A starting worker picks up runs that a dead worker left ``running``."""
    try:
        services.runs_requeue_stale()
    except Exception:  # never keep a worker from starting
        log.exception("could not requeue stale runs at worker start")
