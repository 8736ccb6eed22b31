"""Celery tasks: thin, id-taking, idempotent. The work is in :mod:`webapp.runs.pipeline`.

Every worker also sweeps for stale runs (:func:`webapp.runs.services.runs_requeue_stale`)
when it is ready and then every ``RUN_STALE_AFTER_S / 2`` seconds, from a daemon
thread of the worker's main process. A thread rather than celery beat: nothing
else to deploy or keep running exactly once, the sweep lives and dies with the
workers that need it, and several workers sweeping is harmless (each stale run
is re-sent once per period, by whichever sweeper wins a conditional UPDATE;
claims are idempotent). The thread only touches the database and the producer
pool, never the worker's event loop, and closes its database connection after
every sweep so that a pool child forked meanwhile inherits no open connection.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery import shared_task
from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import connection

from webapp.runs import pipeline, services

log = logging.getLogger(__name__)


@shared_task(
    name=services.RUN_PIPELINE_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(pipeline.TransientError,),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=settings.RUN_MAX_RETRIES,  # the run's own attempts are capped in services
)
def run_pipeline(run_id: int) -> None:
    """Run the pipeline of run ``run_id`` if this worker can claim it."""
    pipeline.execute(run_id=run_id)


def sweep_once() -> list[int]:
    """One sweep that never raises (a failure is logged; the next sweep tries again)."""
    try:
        return services.runs_requeue_stale()
    except Exception:
        log.exception("sweep for stale runs failed")
        return []
    finally:
        connection.close()


class Sweeper:
    """A daemon thread that calls :func:`sweep_once` now and every ``interval_s`` seconds."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="stale-run-sweeper")
        self._thread.daemon = True

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _loop(self) -> None:
        sweep_once()
        while not self._stop.wait(self.interval_s):
            sweep_once()


_sweeper: Sweeper | None = None


@worker_ready.connect
def _start_sweeper(**_: Any) -> None:
    """A starting worker picks up runs that a dead worker left, then keeps sweeping."""
    global _sweeper
    if _sweeper is None:
        _sweeper = Sweeper(services.sweep_interval_s())
        _sweeper.start()
        log.info("sweeping for stale runs every %.1f s", _sweeper.interval_s)


@worker_shutdown.connect
def _stop_sweeper(**_: Any) -> None:
    global _sweeper
    if _sweeper is not None:
        _sweeper.stop()
        _sweeper = None
