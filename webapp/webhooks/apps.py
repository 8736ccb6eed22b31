from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webapp.webhooks"
    label = "webhooks"

    def ready(self) -> None:
        """Observe finished runs (each one notifies its project's webhooks), register the
        delivery task with Celery (:mod:`webapp.webhooks.services` sends it by name) and
        refuse a malformed ``KINETOGRAPH_WEBHOOK_ALLOW_HOSTS`` at start-up."""
        from django.conf import settings

        from webapp.runs.signals import run_finished
        from webapp.webhooks import tasks  # noqa: F401
        from webapp.webhooks.egress import allow_list
        from webapp.webhooks.receivers import on_run_finished

        allow_list(settings.WEBHOOK_ALLOW_HOSTS)

        run_finished.connect(on_run_finished, dispatch_uid="webhooks.on_run_finished")
