"""What the run engine tells observers: :data:`run_finished`.

Observers of finished runs (the webhooks app's notifier) connect a receiver in their
``AppConfig.ready()``::

    run_finished.connect(on_run_finished, dispatch_uid="webhooks.run_finished")

    def on_run_finished(sender: type[Run], *, run_id: int, status: str, **kwargs: object):
        ...

The signal is sent once the transaction that finished the run has committed, with
``send_robust``: a receiver that raises is logged and does not stop the other
receivers, and nothing an observer does can undo the finished run.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.dispatch import Signal

from webapp.runs.models import Run

log = logging.getLogger(__name__)

run_finished = Signal()
"""A run ended (``status``: ``"succeeded"`` or ``"failed"``), committed; sent with
``sender=Run`` and the keyword arguments ``run_id`` and ``status``."""


def run_finished_send_on_commit(*, run_id: int, status: str) -> None:
    """Send :data:`run_finished` for ``run_id`` after the current transaction commits
    (at once outside a transaction); a failure is logged, never raised."""

    def notify_run_finished() -> None:  # named: Django logs a robust callback by its name
        run_finished_send(run_id=run_id, status=status)

    transaction.on_commit(notify_run_finished, robust=True)


def run_finished_send(*, run_id: int, status: str) -> None:
    """Send :data:`run_finished` now to every receiver, even when some of them raise
    (each failure is logged with the run's id; Django logs its traceback)."""
    responses = run_finished.send_robust(sender=Run, run_id=run_id, status=status)
    for receiver, response in responses:
        if isinstance(response, Exception):
            name = getattr(receiver, "__qualname__", repr(receiver))
            log.warning("run %s finished, but its observer %s failed: %r", run_id, name, response)
