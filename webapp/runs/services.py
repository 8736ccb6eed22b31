"""Run services: start (enqueue on commit), claim (idempotent), progress, finish, requeue.

The database row is the source of truth; the broker message only says "look at
run N". A task claims its run with a conditional UPDATE (``queued`` → ``running``,
or a ``running`` run whose worker stopped sending heartbeats), so a redelivered or
duplicated message never runs the same work twice at once, and a finished run is
never redone. Every write a worker makes afterwards is conditional on it still
owning the run (``status=running, worker=<it>``): a worker that was presumed dead
and comes back cannot overwrite its successor's result.

Attempts are capped: a run is claimed at most ``RUN_MAX_RETRIES + 1`` times,
whatever interrupted it (a transient error, a killed worker, the hard time limit).

A run that ends (succeeded or failed) sends :data:`webapp.runs.signals.run_finished`
after commit; this module knows no observer and no kind of run (``clip`` is the
clips app's model, which this app does not import).
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.contrib.auth.models import User
from django.db import models, transaction
from django.db.models import F, Q, Sum
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from webapp.runs.models import Run, Status
from webapp.runs.signals import run_finished_send_on_commit

log = logging.getLogger(__name__)

RUN_PIPELINE_TASK = "webapp.runs.tasks.run_pipeline"
"""The task that executes a run (:func:`webapp.runs.tasks.run_pipeline`), sent by its name:
the tasks module imports this one, never the reverse (``RunsConfig.ready`` imports it, so
it is registered wherever Django is set up)."""
HEARTBEAT_MAX_INTERVAL_S = 5.0  # "every few seconds", and well inside RUN_STALE_AFTER_S


class LostOwnership(Exception):
    """This worker no longer owns the run (it was presumed dead and the run was taken over)."""


class BudgetExceeded(Exception):
    """The run asked for more than its budget (artifact bytes): it fails with this message."""


def run_artifact_budget_check(*, run: Run, kind: str, size_bytes: int) -> None:
    """Raise :class:`BudgetExceeded` if storing ``size_bytes`` more as the run's ``kind``
    artifact (replacing an earlier one of that kind) takes the run's artifacts past
    ``RUN_MAX_ARTIFACT_BYTES``; call it under the run's lock, before writing."""
    kept = run.artifacts.exclude(kind=kind).aggregate(total=Sum("size_bytes"))["total"] or 0
    limit = settings.RUN_MAX_ARTIFACT_BYTES
    if kept + size_bytes > limit:
        raise BudgetExceeded(
            f"The run's results would take {(kept + size_bytes) / 2**20:.1f} MiB; at most "
            f"{limit / 2**20:.1f} MiB are allowed per run (KINETOGRAPH_RUN_MAX_ARTIFACT_BYTES)."
        )


@cache
def code_version() -> str:
    """``$KINETOGRAPH_CODE_VERSION`` (set in images), else the checkout's git commit, else
    ``unknown``."""
    if os.environ.get("KINETOGRAPH_CODE_VERSION"):
        return os.environ["KINETOGRAPH_CODE_VERSION"]
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


def max_attempts() -> int:
    """How many times a run may be claimed before it is failed for good."""
    return int(settings.RUN_MAX_RETRIES) + 1


def heartbeat_interval_s() -> float:
    """Seconds between heartbeats: a few seconds, and at most a quarter of the stale threshold."""
    return max(0.5, min(HEARTBEAT_MAX_INTERVAL_S, settings.RUN_STALE_AFTER_S / 4))


def sweep_interval_s() -> float:
    """Seconds between two sweeps for stale runs (half the stale threshold)."""
    return max(1.0, settings.RUN_STALE_AFTER_S / 2)


def run_start(
    *,
    clip: models.Model,
    user: User | None,
    stages: tuple[str, ...] | list[str],
    parameters: dict[str, object],
) -> Run:
    """Create a queued run of ``stages`` (names registered with :mod:`webapp.runs.registry`)
    on ``clip`` (a :class:`webapp.clips.models.Clip`) and enqueue it when the transaction
    commits."""
    run = Run.objects.create(
        clip=clip,  # type: ignore[misc]  # a Clip, typed loosely: this app does not import clips
        stages=list(stages),
        parameters=parameters,
        created_by=user,
        code_version=code_version(),
        stage="Waiting for a worker",
        enqueued_at=timezone.now(),
    )
    transaction.on_commit(lambda: enqueue(run.pk))
    return run


def enqueue(run_id: int) -> bool:
    """Send the task message for ``run_id`` (the row must be committed).

    A broker that is down is logged, not raised: the run stays ``queued`` in the
    database and the workers' periodic sweep (:func:`runs_requeue_stale`) sends it
    again once the broker is back. The upload that created it has succeeded.
    """
    try:
        current_app.tasks[RUN_PIPELINE_TASK].delay(run_id)
    except BrokerError:
        log.warning("broker unavailable: run %s stays queued until the next sweep", run_id)
        return False
    return True


def _stale_before() -> datetime:
    return timezone.now() - timedelta(seconds=settings.RUN_STALE_AFTER_S)


def _stale_running() -> Q:
    return Q(status=Status.RUNNING) & (
        Q(heartbeat_at__lt=_stale_before()) | Q(heartbeat_at__isnull=True)
    )


def _owned(run: Run) -> Q:
    return Q(pk=run.pk, status=Status.RUNNING, worker=run.worker)


def run_claim(*, run_id: int, worker: str) -> Run | None:
    """Atomically take ``run_id`` for ``worker``; ``None`` if it is not this worker's to run.

    Claimable: queued, or running with a heartbeat older than ``RUN_STALE_AFTER_S``
    (its worker died), and claimed fewer than :func:`max_attempts` times. Finished
    runs are never claimed again.
    """
    now = timezone.now()
    claimable = (Q(status=Status.QUEUED) | _stale_running()) & Q(attempts__lt=max_attempts())
    updated = Run.objects.filter(claimable, pk=run_id).update(
        status=Status.RUNNING,
        worker=worker,
        heartbeat_at=now,
        started_at=now,
        finished_at=None,
        progress=0,
        stage="Starting",
        error="",
        attempts=F("attempts") + 1,
    )
    return Run.objects.get(pk=run_id) if updated else None


def run_progress(*, run: Run, percent: float, stage: str) -> bool:
    """Record progress (0-100) and the stage message; doubles as the heartbeat.

    ``False`` when this worker no longer owns the run (nothing was written).
    """
    return bool(
        Run.objects.filter(_owned(run)).update(
            progress=max(0, min(100, round(percent))),
            stage=stage[:120],
            heartbeat_at=timezone.now(),
        )
    )


def run_heartbeat(*, run: Run) -> bool:
    """Say "still alive" without changing progress; ``False`` when the run is no longer ours."""
    return bool(Run.objects.filter(_owned(run)).update(heartbeat_at=timezone.now()))


def run_lock_owned(*, run: Run) -> None:
    """Lock the run's row for the current transaction; raise :class:`LostOwnership` if not ours.

    Stages call this before writing artifacts, so two workers never write the
    same run's output at once and a worker presumed dead cannot write at all.
    """
    if not Run.objects.select_for_update().filter(_owned(run)).exists():
        raise LostOwnership(f"run {run.pk} is no longer owned by {run.worker}")


def run_succeed(*, run: Run, timings: dict[str, float]) -> bool:
    """Mark the run succeeded (only if this worker still owns it)."""
    done = Run.objects.filter(_owned(run)).update(
        status=Status.SUCCEEDED,
        progress=100,
        stage="Done",
        timings=timings,
        heartbeat_at=timezone.now(),
        finished_at=timezone.now(),
    )
    if done:
        run_finished_send_on_commit(run_id=run.pk, status=Status.SUCCEEDED.value)
    return bool(done)


def run_fail(*, run: Run, error: str, timings: dict[str, float]) -> bool:
    """Mark the run failed with a user-facing ``error`` (only if this worker owns it)."""
    done = Run.objects.filter(_owned(run)).update(
        status=Status.FAILED,
        stage="Failed",
        error=error[:2000],
        timings=timings,
        finished_at=timezone.now(),
    )
    if done:
        run_finished_send_on_commit(run_id=run.pk, status=Status.FAILED.value)
    return bool(done)


def run_release(*, run: Run) -> bool:
    """Give the run back to the queue (a transient error; the task will be retried)."""
    return bool(
        Run.objects.filter(_owned(run)).update(
            status=Status.QUEUED,
            stage="Retrying after a transient error",
            worker="",
            enqueued_at=timezone.now(),  # the retry message is on its way
        )
    )


def runs_requeue_stale() -> list[int]:
    """Re-enqueue runs that nobody is working on, fail those out of attempts.

    Stale: ``running`` without a heartbeat for ``RUN_STALE_AFTER_S`` (the worker
    died: SIGKILL, out of memory, hard time limit), or ``queued`` with no message
    sent for that long (the message may have been lost with the broker). Each run
    is re-sent at most once per ``RUN_STALE_AFTER_S`` however many workers sweep
    (a conditional UPDATE of ``enqueued_at`` decides who sends); an extra message
    for a run that is in fact alive or waiting is harmless, its claim fails.

    Called when a worker starts and every :func:`sweep_interval_s` in each worker.
    """
    _fail_exhausted()
    stale_before = _stale_before()
    not_recently_sent = Q(enqueued_at__lt=stale_before) | Q(enqueued_at__isnull=True)
    candidates = Run.objects.filter(
        (Q(status=Status.QUEUED) | _stale_running()) & not_recently_sent
    ).values_list("pk", flat=True)
    requeued = []
    for run_id in list(candidates):
        mine = Run.objects.filter(not_recently_sent, pk=run_id).update(enqueued_at=timezone.now())
        if mine and enqueue(run_id):
            requeued.append(run_id)
    if requeued:
        log.info("requeued %d stale runs: %s", len(requeued), requeued)
    return requeued


def _fail_exhausted() -> None:
    """Fail stale runs that used all their attempts (e.g. a clip that kills its worker)."""
    exhausted = Run.objects.filter(_stale_running(), attempts__gte=max_attempts())
    for run_id in list(exhausted.values_list("pk", flat=True)):
        done = Run.objects.filter(_stale_running(), pk=run_id).update(
            status=Status.FAILED,
            stage="Failed",
            error=(
                f"The run was interrupted {max_attempts()} times (its worker stopped or it ran "
                "past the time limit); giving up."
            ),
            finished_at=timezone.now(),
        )
        if done:
            log.warning("run %s failed: out of attempts", run_id)
            run_finished_send_on_commit(run_id=run_id, status=Status.FAILED.value)
