"""Executing a run: claim it, run its stages with progress and timings, finish it.

Errors: bad input (a :class:`motioncore.errors.MotionCoreError`, an unknown
stage) is a permanent, recorded failure with a user-facing message. Database or
storage hiccups (:class:`TransientError`) release the run and let Celery retry,
at most ``RUN_MAX_RETRIES`` times. A hard time limit or a killed worker leaves
the run ``running``; its heartbeat goes stale and the next worker start (or the
periodic sweep) requeues it.
"""

from __future__ import annotations

import logging
import time

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError

from motioncore.errors import MotionCoreError
from webapp.runs import services
from webapp.runs.stages import STAGES, Context

log = logging.getLogger(__name__)


class TransientError(Exception):
    """A failure worth retrying (database or storage unavailable)."""


def execute(*, run_id: int, attempt: int) -> None:
    """Claim and run ``run_id``; a run this worker cannot claim is left alone."""
    run = services.run_claim(run_id=run_id, worker=services.worker_name())
    if run is None:
        log.info("run %s is not claimable (finished or owned by a live worker)", run_id)
        return
    timings: dict[str, float] = {}
    context = Context(run=run)
    stages = list(run.stages)
    try:
        for index, name in enumerate(stages):
            stage = STAGES.get(name)
            if stage is None:
                services.run_fail(
                    run=run, error=f"Unknown pipeline stage {name!r}.", timings=timings
                )
                return
            started = time.perf_counter()

            def progress(fraction: float, message: str, index: int = index) -> None:
                percent = 100.0 * (index + max(0.0, min(1.0, fraction))) / len(stages)
                services.run_progress(run=run, percent=percent, stage=message)

            stage(context, progress)
            timings[name] = round(time.perf_counter() - started, 4)
    except MotionCoreError as error:
        services.run_fail(run=run, error=str(error), timings=timings)
        return
    except SoftTimeLimitExceeded:
        services.run_fail(
            run=run, error="The run took longer than the time limit.", timings=timings
        )
        return
    except (DatabaseError, OSError) as error:
        if attempt >= settings.RUN_MAX_RETRIES:
            services.run_fail(
                run=run, error="A storage or database error kept failing.", timings=timings
            )
            return
        services.run_release(run=run)
        raise TransientError(str(error)) from error
    except Exception:  # a bug: record it for the user instead of retrying forever
        log.exception("run %s failed", run_id)
        services.run_fail(run=run, error="An internal error stopped this run.", timings=timings)
        return
    services.run_succeed(run=run, timings=timings)
