"""Executing a run: claim it, run its stages with progress and timings, finish it.

The stages are looked up by name in :mod:`webapp.runs.registry`, where the app that
defines each kind of run registered them; this module knows none of them.

Errors: bad input (a :class:`motioncore.errors.MotionCoreError`, an unknown
stage) is a permanent, recorded failure with a user-facing message. Database or
storage hiccups release the run and raise :class:`TransientError` so that Celery
retries; the run's ``attempts`` (capped by ``RUN_MAX_RETRIES``) bounds how often.
A hard time limit or a killed worker leaves the run ``running``; its heartbeat
goes stale and the periodic sweep (or the next worker start) requeues it.

While a run executes, a :class:`Heartbeat` thread refreshes ``heartbeat_at``
every few seconds, so a long stage whose progress callbacks are far apart is not
mistaken for a dead one; progress updates refresh it too.
"""

from __future__ import annotations

import logging
import threading
import time
from types import TracebackType

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, connection

from motioncore.errors import MotionCoreError
from webapp.runs import registry, services
from webapp.runs.models import Run
from webapp.runs.services import BudgetExceeded, LostOwnership
from webapp.runs.stages import Context

log = logging.getLogger(__name__)


class TransientError(Exception):
    """A failure worth retrying (database or storage unavailable)."""


class Heartbeat:
    """Refresh the run's heartbeat from a background thread while the block runs.

    The thread has its own database connection, closed when it stops. If the
    run is taken over by another worker, ``lost`` becomes true; the stages notice
    at their next progress update or artifact write.
    """

    def __init__(self, run: Run, interval_s: float) -> None:
        self.run = run
        self.interval_s = interval_s
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-run-{run.pk}")
        self._thread.daemon = True

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=self.interval_s + 5)

    def _beat(self) -> None:
        try:
            while not self._stop.wait(self.interval_s):
                try:
                    if not services.run_heartbeat(run=self.run):
                        self.lost = True
                        return
                except Exception:  # the database is away: keep trying, progress beats too
                    log.warning(
                        "run %s: heartbeat failed, trying again", self.run.pk, exc_info=True
                    )
        finally:
            connection.close()


def execute(*, run_id: int) -> None:
    """Claim and run ``run_id``; a run this worker cannot claim is left alone.

    Raises:
        TransientError: the run was released after a database or storage error;
            retry the task.
    """
    try:
        run = services.run_claim(run_id=run_id, worker=services.worker_name())
    except DatabaseError as error:
        raise TransientError(f"could not claim run {run_id}: {error}") from error
    if run is None:
        log.info(
            "run %s is not claimable (finished, owned by a live worker or out of attempts)", run_id
        )
        return
    try:
        steps = [registry.step(name) for name in run.stages]
    except registry.UnknownStage as unknown:
        services.run_fail(run=run, error=str(unknown), timings={})
        return
    timings: dict[str, float] = {}
    with Heartbeat(run, services.heartbeat_interval_s()):
        try:
            _run_stages(run, steps, timings)
        except LostOwnership:
            log.warning("run %s was taken over by another worker; stopping", run_id)
            return
        except (MotionCoreError, BudgetExceeded) as error:
            services.run_fail(run=run, error=str(error), timings=timings)
            return
        except SoftTimeLimitExceeded:
            limit_s = settings.CELERY_TASK_SOFT_TIME_LIMIT
            services.run_fail(
                run=run,
                error=f"The run took longer than the time limit ({limit_s} s, "
                "KINETOGRAPH_TASK_SOFT_TIME_LIMIT_S).",
                timings=timings,
            )
            return
        except (DatabaseError, OSError) as error:
            _transient(run, error, timings)
        except Exception:  # a bug: record it for the user instead of retrying forever
            log.exception("run %s failed", run_id)
            services.run_fail(run=run, error="An internal error stopped this run.", timings=timings)
            return
    if not services.run_succeed(run=run, timings=timings):
        log.warning("run %s finished but was taken over meanwhile; result not recorded", run_id)


def _run_stages(run: Run, steps: list[registry.Step], timings: dict[str, float]) -> None:
    """Run every step in order, recording each one's duration in ``timings`` (seconds)."""
    context = Context(run=run)
    for index, step in enumerate(steps):
        started = time.perf_counter()

        def progress(fraction: float, message: str, index: int = index) -> None:
            percent = 100.0 * (index + max(0.0, min(1.0, fraction))) / len(steps)
            if not services.run_progress(run=run, percent=percent, stage=message):
                raise LostOwnership(f"run {run.pk} is no longer owned by {run.worker}")

        context.recorder = step.record_result
        step.function(context, progress)
        timings[step.name] = round(time.perf_counter() - started, 4)


def _transient(run: Run, error: Exception, timings: dict[str, float]) -> None:
    """Release the run for a retry, or fail it when it has used all its attempts."""
    log.warning("run %s: transient error on attempt %d: %s", run.pk, run.attempts, error)
    try:
        if run.attempts >= services.max_attempts():
            services.run_fail(
                run=run, error="A storage or database error kept failing.", timings=timings
            )
            return
        services.run_release(run=run)
    except DatabaseError:
        log.warning("run %s: could not release it; the sweep will pick it up", run.pk)
    raise TransientError(str(error)) from error
