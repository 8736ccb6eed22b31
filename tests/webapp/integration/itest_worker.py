"""The Celery app that integration-test workers run: webapp's app plus one test-only stage
(registered as a kind of run of its own, ``itest``, like any app's).

Started as ``celery -A itest_worker worker`` with this folder on ``PYTHONPATH``; the
production app (``webapp``) never imports it. The ``itest_pause`` stage makes a
run slow *deterministically*, so a test can kill its worker or its broker in the
middle: it pauses ``parameters["pause_s"]`` seconds (reporting progress, hence
heartbeats, every 0.2 s) on attempts up to ``parameters["pause_attempts"]``
(default 1), and returns at once on later attempts. With ``parameters["quiet"]``
it reports nothing while it pauses (a long computation without progress callbacks).
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings_test")

import django

django.setup()

from webapp.celery import app  # noqa: E402
from webapp.runs import registry  # noqa: E402
from webapp.runs.stages import Context, Progress  # noqa: E402

PAUSE_STAGE = "itest_pause"  # the same name as harness.PAUSE_STAGE
TICK_S = 0.2


def pause(context: Context, progress: Progress) -> None:
    """Sleep ``pause_s`` seconds on the first ``pause_attempts`` attempts, in ticks."""
    parameters = context.run.parameters
    seconds = float(parameters.get("pause_s", 0))
    if context.run.attempts > int(parameters.get("pause_attempts", 1)):
        return
    message = f"Pausing (attempt {context.run.attempts})"
    progress(0.0, message)
    if parameters.get("quiet"):  # no progress until done: only the heartbeat thread beats
        time.sleep(seconds)
        return
    started = time.monotonic()
    while (elapsed := time.monotonic() - started) < seconds:
        progress(elapsed / seconds, message)
        time.sleep(TICK_S)


registry.register("itest", stages={PAUSE_STAGE: pause})

__all__ = ["PAUSE_STAGE", "app"]
