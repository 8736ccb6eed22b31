"""The Redis transport's mended fault (issue 16, finding 1): a channel of a connection
kombu has already closed reports a connection error, which the worker survives, instead
of ``AttributeError: 'NoneType' object has no attribute 'hostname'``, which stopped it.
The real thing (Redis restarted under a running worker) is
``tests/webapp/integration/test_scripts_run.py``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import redis.exceptions
from kombu.transport import redis as kombu_redis

from webapp.runs import broker


def test_a_closed_connection_is_a_connection_error_not_an_attribute_error() -> None:
    closed = SimpleNamespace(connection=SimpleNamespace(client=None, default_port=6379))
    with pytest.raises(AttributeError, match="hostname"):  # kombu's own, unmended
        kombu_redis.Channel._connparams(closed)
    with pytest.raises(redis.exceptions.ConnectionError, match="closed"):
        broker.Channel._connparams(closed)
    assert redis.exceptions.ConnectionError in kombu_redis.Transport.connection_errors


def test_the_worker_uses_it_with_redis(tmp_path: Path) -> None:
    code = (
        "import os; os.environ['REDIS_URL'] = 'redis://127.0.0.1:6379/0';"
        "os.environ.setdefault('DJANGO_SECRET_KEY', 'x');"
        "from django.conf import settings; import django; django.setup();"
        "from webapp.celery import app; print(app.connection_for_write().transport_cls)"
    )
    env = {
        "DJANGO_SETTINGS_MODULE": "webapp.settings",
        "PATH": "/usr/bin:/bin",
        "KINETOGRAPH_VAR_DIR": str(tmp_path),
    }
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "webapp.runs.broker:Transport"
