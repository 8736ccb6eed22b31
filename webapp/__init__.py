"""Kinetograph's web layer: persistence, auth, jobs and HTTP around :mod:`motioncore`."""

from webapp.celery import app as celery_app

__all__ = ["celery_app"]
