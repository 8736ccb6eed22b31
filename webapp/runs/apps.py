from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "webapp.runs"
    label = "runs"

    def ready(self) -> None:
        """Register the run tasks with Celery (:func:`webapp.runs.services.enqueue` sends
        them by name)."""
        from webapp.runs import tasks  # noqa: F401
