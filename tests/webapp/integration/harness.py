"""Processes for integration tests: a Celery worker, a private redis-server, polling.

Imported by ``conftest.py`` and the tests of this folder (``from .harness import ...``).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import redis
from django.conf import settings
from django.db import connection

from webapp.celery import app as celery_app

REPO_ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
PAUSE_STAGE = "itest_pause"  # registered by itest_worker.py, in the workers only
STALE_AFTER_S = 5  # the smallest the settings accept; workers sweep every 2.5 s
WORKER_READY_TIMEOUT_S = 60


def wait_for(
    predicate: Callable[[], bool], *, timeout_s: float, what: str, interval_s: float = 0.1
) -> None:
    """Poll ``predicate`` until true; fail naming ``what`` after ``timeout_s`` seconds."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}")
        time.sleep(interval_s)


def redis_url_with_db(url: str, db: int) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, ""))


def pings(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False


@contextmanager
def celery_broker(url: str) -> Iterator[None]:
    """Point this process's Celery app (what ``run_pipeline.delay`` uses) at ``url``."""
    previous = celery_app.conf.broker_url

    def reset_pools() -> None:  # kombu keeps pools per URL; the app's must point elsewhere
        celery_app._pool = None
        celery_app.amqp._producer_pool = None

    reset_pools()
    celery_app.conf.broker_url = url
    try:
        yield
    finally:
        reset_pools()
        celery_app.conf.broker_url = previous


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RedisServer:
    """A private ``redis-server`` on a loopback port, without persistence (like CI's)."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        executable = shutil.which("redis-server")
        assert executable, "redis-server is not installed"
        self.process = subprocess.Popen(
            [executable, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis(port=self.port, socket_connect_timeout=1)
        wait_for(lambda: pings(client), timeout_s=10, what=f"redis-server on port {self.port}")
        client.close()

    def stop(self) -> None:
        """Stop it; with no persistence, every message in it is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None


def worker_database_url() -> str:
    """``DATABASE_URL`` for pytest-django's test database (what this process uses)."""
    db = connection.settings_dict
    credentials = quote(str(db["USER"] or ""), safe="")
    if db["PASSWORD"]:
        credentials += ":" + quote(str(db["PASSWORD"]), safe="")
    host = str(db["HOST"] or "127.0.0.1")
    port = f":{db['PORT']}" if db["PORT"] else ""
    return f"postgresql://{credentials}@{host}{port}/{quote(str(db['NAME']))}"


def group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (zombies do not count)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


class Worker:
    """``celery worker --pool=prefork --concurrency=1`` in its own process group."""

    def __init__(self, broker: str, log_path: Path) -> None:
        self.name = f"itest-{uuid.uuid4().hex[:8]}@%h"
        self.log_path = log_path
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "webapp.settings_test",
            "DATABASE_URL": worker_database_url(),
            "REDIS_URL": broker,
            "KINETOGRAPH_VAR_DIR": str(settings.VAR_DIR),
            "KINETOGRAPH_MEDIA_ROOT": str(settings.MEDIA_ROOT),
            "KINETOGRAPH_RUN_STALE_AFTER_S": str(STALE_AFTER_S),
            "PYTHONPATH": os.pathsep.join([str(HERE), str(REPO_ROOT)]),
        }
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Worker:
        command = [
            sys.executable, "-m", "celery", "-A", "itest_worker", "worker", "--pool=prefork",
            "--concurrency=1", "-Q", "celery", "--loglevel=INFO", "-n", self.name,
            "--without-gossip", "--without-mingle",
        ]  # fmt: skip
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                command,
                cwd=REPO_ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: kill the pool children too
            )
        wait_for(self._ready, timeout_s=WORKER_READY_TIMEOUT_S, what="the worker to be ready")
        return self

    def _ready(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"the worker exited ({self.process.returncode}):\n{self.log()}")
        return " ready." in self.log()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def kill(self) -> None:
        """SIGKILL the worker and its pool children at once, like a machine that died."""
        assert self.process is not None
        pgid = self.process.pid
        os.killpg(pgid, signal.SIGKILL)
        self.process.wait(timeout=10)
        wait_for(lambda: not group_alive(pgid), timeout_s=10, what="the worker's children to die")
        self.process = None

    def stop(self) -> None:
        """Warm shutdown (SIGTERM); SIGKILL what is left of its group after that."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            with suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=20)
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self.process = None
