"""The toy kind's result recorder (a kind of run's writes, like ``transition_record_result``)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from support.toykind.models import ToyResult
from webapp.runs.models import Run
from webapp.runs.services import run_lock_owned


def toy_record_result(*, run: Run, result: dict[str, Any]) -> None:
    """Store ``result`` for ``run`` (only while this worker owns the run)."""
    with transaction.atomic():
        run_lock_owned(run=run)
        ToyResult.objects.update_or_create(run=run, defaults={"result": result})
