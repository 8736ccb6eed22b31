"""Run services: start (enqueue on commit), claim (idempotent), progress, finish, requeue.

The database row is the source of truth; the broker message only says "look at
run N". A task claims its run with a conditional UPDATE (``queued`` → ``running``,
or a ``running`` run whose worker stopped sending heartbeats), so a redelivered or
duplicated message never runs the same work twice at once, and a finished run is
never redone.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from webapp.clips.models import Clip
from webapp.runs.models import Run, Status

log = logging.getLogger(__name__)

DEFAULT_STAGES = ("ingest", "clean")


@cache
def code_version() -> str:
    """The git commit of the running code (``unknown`` outside a checkout)."""
    root = Path(__file__).resolve().parents[2]
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except OSError:
        return "unknown"
    return done.stdout.strip() or "unknown"


def worker_name() -> str:
    """This process, as ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


def run_start(
    *,
    clip: Clip,
    user: User | None,
    stages: tuple[str, ...] | list[str],
    parameters: dict[str, object],
) -> Run:
    """Create a queued run and enqueue it when the transaction commits."""
    run = Run.objects.create(
        clip=clip,
        stages=list(stages),
        parameters=parameters,
        created_by=user,
        code_version=code_version(),
        stage="Waiting for a worker",
    )
    transaction.on_commit(lambda: enqueue(run.pk))
    return run


def enqueue(run_id: int) -> None:
    """Send the task message for ``run_id`` (the row must be committed)."""
    from webapp.runs.tasks import run_pipeline

    run_pipeline.delay(run_id)


def _stale_before() -> datetime:
    return timezone.now() - timedelta(seconds=settings.RUN_STALE_AFTER_S)


def run_claim(*, run_id: int, worker: str) -> Run | None:
    """Atomically take ``run_id`` for ``worker``; ``None`` if it is not this worker's to run.

    Claimable: queued, or running with a heartbeat older than ``RUN_STALE_AFTER_S``
    (its worker died). Finished runs are never claimed again.
    """
    now = timezone.now()
    claimable = Q(status=Status.QUEUED) | Q(status=Status.RUNNING, heartbeat_at__lt=_stale_before())
    updated = Run.objects.filter(claimable, pk=run_id).update(
        status=Status.RUNNING,
        worker=worker,
        heartbeat_at=now,
        started_at=now,
        error="",
        attempts=F("attempts") + 1,
    )
    return Run.objects.get(pk=run_id) if updated else None


def run_progress(*, run: Run, percent: float, stage: str) -> None:
    """Record progress (0-100) and the stage message; doubles as the heartbeat."""
    Run.objects.filter(pk=run.pk, status=Status.RUNNING, worker=run.worker).update(
        progress=max(0, min(100, round(percent))),
        stage=stage[:120],
        heartbeat_at=timezone.now(),
    )


def run_succeed(*, run: Run, timings: dict[str, float]) -> bool:
    """Mark the run succeeded (only if this worker still owns it)."""
    done = Run.objects.filter(pk=run.pk, status=Status.RUNNING, worker=run.worker).update(
        status=Status.SUCCEEDED,
        progress=100,
        stage="Done",
        timings=timings,
        finished_at=timezone.now(),
    )
    if done:
        _notify(run.pk)
    return bool(done)


def run_fail(*, run: Run, error: str, timings: dict[str, float]) -> bool:
    """Mark the run failed with a user-facing ``error`` (only if this worker owns it)."""
    done = Run.objects.filter(pk=run.pk, status=Status.RUNNING, worker=run.worker).update(
        status=Status.FAILED,
        stage="Failed",
        error=error[:2000],
        timings=timings,
        finished_at=timezone.now(),
    )
    if done:
        _notify(run.pk)
    return bool(done)


def run_release(*, run: Run) -> None:
    """Give the run back to the queue (a transient error; the task will be retried)."""
    Run.objects.filter(pk=run.pk, status=Status.RUNNING, worker=run.worker).update(
        status=Status.QUEUED,
        stage="Retrying after a transient error",
        worker="",
    )


def runs_requeue_stale() -> list[int]:
    """Re-enqueue runs whose worker died (running, no heartbeat for ``RUN_STALE_AFTER_S``)
    and queued runs older than that (their message may have been lost with the broker).

    Called when a worker starts and periodically; claiming is idempotent, so an
    extra message for a run that is in fact alive is harmless.
    """
    stale = Run.objects.filter(
        Q(status=Status.RUNNING, heartbeat_at__lt=_stale_before())
        | Q(status=Status.QUEUED, created_at__lt=_stale_before())
    ).values_list("pk", flat=True)
    ids = list(stale)
    for run_id in ids:
        enqueue(run_id)
    if ids:
        log.info("requeued %d stale runs: %s", len(ids), ids)
    return ids


def _notify(run_id: int) -> None:
    """Tell the project's webhooks that the run ended (after commit)."""
    from webapp.webhooks.services import webhooks_notify_run_finished

    transaction.on_commit(lambda: webhooks_notify_run_finished(run_id=run_id))
