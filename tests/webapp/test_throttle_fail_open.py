"""Issue 16, finding 1 (part): the API's throttles fail open while the cache is down.

The cache is Django's real ``RedisCache`` pointed at a port where nothing listens, so
every ``get``/``set`` raises ``redis.exceptions.ConnectionError`` as it does while Redis
is down. The default throttle classes (``webapp.core.throttling``) then let requests
through and warn, once per interval; with a working cache they still answer 429.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from typing import cast
from unittest import mock

import pytest
from django.core.cache import cache
from pytest_django import Settings
from rest_framework.settings import api_settings
from rest_framework.test import APIClient

from support.web import client_for, make_user
from webapp.core import throttling

LOGGER = "webapp.core.throttling"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def redis_down(settings: Settings) -> Iterator[None]:
    """The default cache is Redis on a closed port; a fresh warning log."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/0",
        }
    }
    with mock.patch.object(throttling, "WARNINGS", throttling.CacheFailureLog(60)):
        yield


@pytest.fixture
def user_client(db: None) -> APIClient:
    client: APIClient = client_for(make_user("throttled-user"))
    return client


def test_finding_1_the_api_throttles_are_the_fail_open_ones() -> None:
    """Finding 1: every view without its own list gets the fail-open classes."""
    classes = cast("list[type]", list(api_settings.DEFAULT_THROTTLE_CLASSES))  # imported
    assert classes == [
        throttling.AnonRateThrottle,
        throttling.UserRateThrottle,
        throttling.ScopedRateThrottle,
    ]
    assert all(issubclass(c, throttling.FailOpenThrottle) for c in classes)


@pytest.mark.django_db
def test_finding_1_with_redis_down_an_api_get_answers_and_warns_once(
    redis_down: None, user_client: APIClient, caplog: pytest.LogCaptureFixture
) -> None:
    """Finding 1: 200, not 500, and one warning for many requests."""
    with pytest.raises(Exception) as raised:  # the cache really is down
        cache.get("probe")
    assert type(raised.value).__module__.startswith("redis")

    with caplog.at_level(logging.WARNING, logger=LOGGER):
        answers = [user_client.get("/api/v1/projects/").status_code for _ in range(3)]

    assert answers == [200, 200, 200]
    warnings = [r for r in caplog.records if r.name == LOGGER]
    assert len(warnings) == 1
    assert warnings[0].levelno == logging.WARNING
    assert "ConnectionError" in warnings[0].getMessage()


@pytest.mark.django_db
def test_finding_1_with_redis_down_anonymous_requests_are_not_500(redis_down: None) -> None:
    """Finding 1: the ``anon`` throttle (an AllowAny view: the API's JSON 404) fails open."""
    assert APIClient().get("/api/v1/no-such-endpoint/").status_code == 404


def test_finding_1_the_warning_repeats_after_its_interval_with_a_count() -> None:
    """Finding 1: at most one warning per interval, saying how many it kept quiet."""
    log = throttling.CacheFailureLog(60)
    throttle = throttling.UserRateThrottle()
    error = ConnectionError("down")
    with mock.patch.object(throttling.log, "warning") as warning:
        for now in (1000.0, 1001.0, 1030.0, 1059.0, 1061.0):
            with mock.patch("time.monotonic", return_value=now):
                log.cache_failed(throttle, error)

    assert [c.args[-1] for c in warning.call_args_list] == [0, 3]


@pytest.mark.django_db
def test_finding_1_with_a_working_cache_the_user_rate_still_answers_429(
    user_client: APIClient,
) -> None:
    """Finding 1: failing open is only for a failing cache."""
    cache.clear()
    with mock.patch.object(throttling.UserRateThrottle, "THROTTLE_RATES", {"user": "2/min"}):
        answers = [user_client.get("/api/v1/projects/").status_code for _ in range(3)]
    assert answers == [200, 200, 429]
