"""Fixtures for integration tests: real Celery worker processes, real Redis, real PostgreSQL.

Needs ``DATABASE_URL=postgresql://...`` and ``REDIS_URL=redis://...`` (``.ci/run``
sets both); without them every test here is skipped with that reason. With them,
a Redis that does not answer is a failure, not a skip.

* Rows are committed (``transactional_db``) so that the worker sees them; the
  worker gets ``DATABASE_URL`` pointing at pytest-django's *test* database and
  the same ``KINETOGRAPH_VAR_DIR`` / ``MEDIA_ROOT`` as this process.
* Messages go to Redis database :data:`REDIS_TEST_DB` (flushed before and after
  each test) of the configured server, or to a private ``redis-server``
  (``own_redis``) that a test may stop and start; this process's Celery app is
  pointed at the same URL for the test.
* Workers run ``itest_worker`` (webapp's app plus a test-only pause stage) with
  ``KINETOGRAPH_RUN_STALE_AFTER_S`` = ``harness.STALE_AFTER_S``, each in its own
  process group so that a test can SIGKILL a whole worker like a lost machine.
  Their logs are printed after each test (pytest shows them for failures).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings

from .harness import RedisServer, Worker, celery_broker, redis_url_with_db

SKIP_REASON = (
    "needs PostgreSQL (DATABASE_URL=postgresql://...) and Redis (REDIS_URL); .ci/run sets them"
)
REDIS_TEST_DB = 15


def services_configured() -> bool:
    engine = str(settings.DATABASES["default"]["ENGINE"])
    return "postgresql" in engine and bool(settings.REDIS_URL)


@pytest.fixture(autouse=True)
def _require_services() -> None:
    if not services_configured():
        pytest.skip(SKIP_REASON)


@pytest.fixture
def broker_url() -> Iterator[str]:
    """A flushed Redis database of the configured server, used by this process and workers."""
    url = redis_url_with_db(str(settings.REDIS_URL), REDIS_TEST_DB)
    client = redis.Redis.from_url(url, socket_connect_timeout=5)
    try:
        client.ping()
    except redis.RedisError as error:
        pytest.fail(f"REDIS_URL is set but Redis does not answer: {error}")
    client.flushdb()
    try:
        with celery_broker(url):
            yield url
    finally:
        client.flushdb()
        client.close()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A private Redis this process's Celery app uses; the test may stop and restart it."""
    server = RedisServer(tmp_path)
    server.start()
    try:
        with celery_broker(server.url):
            yield server
    finally:
        server.stop()


@pytest.fixture
def start_worker(transactional_db: None, tmp_path: Path) -> Iterator[Callable[[str], Worker]]:
    """``start_worker(broker_url)`` starts a worker and waits until it is ready.

    All are stopped after the test, before the database is flushed.
    """
    workers: list[Worker] = []

    def start(broker: str) -> Worker:
        worker = Worker(broker, tmp_path / f"worker{len(workers)}.log")
        workers.append(worker)
        return worker.start()

    yield start
    for worker in workers:
        worker.stop()
    for worker in workers:
        print(f"----- {worker.log_path.name} -----\n{worker.log()[-20000:]}")
