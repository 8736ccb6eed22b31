"""What the webhooks app does when something happens elsewhere (connected in
:meth:`webapp.webhooks.apps.WebhooksConfig.ready`)."""

from __future__ import annotations

from webapp.webhooks.services import webhooks_notify_run_finished


def on_run_finished(sender: object, *, run_id: int, **kwargs: object) -> None:
    """:data:`webapp.runs.signals.run_finished`: record (and, on commit, send) a delivery of
    ``run.succeeded`` / ``run.failed`` to every active webhook of the run's project."""
    webhooks_notify_run_finished(run_id=run_id)
