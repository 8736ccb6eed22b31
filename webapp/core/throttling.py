"""DRF's throttles, failing open when the cache does not answer (issue 16, finding 1).

The counters live in the Django cache (Redis with ``REDIS_URL``). While it is down,
DRF's own throttles raise its connection error, and every API call becomes a 500: an
outage of a rate limiter turns into an outage of the API. These classes let the
request through instead and log a warning, at most once every
:data:`WARNING_INTERVAL_S` seconds per process (with the count of requests let through
since the last one), so a flood of requests is not a flood of log lines.

``REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"]`` names them; a view that lists its own
throttles uses these classes (or subclasses of them), not DRF's.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from redis.exceptions import RedisError
from rest_framework import throttling

if TYPE_CHECKING:  # rest_framework.views imports this module (its default throttles)
    from rest_framework.request import Request
    from rest_framework.views import APIView

log = logging.getLogger(__name__)

CACHE_ERRORS: tuple[type[Exception], ...] = (RedisError, OSError)
"""What a cache backend raises when its server is unreachable (``OSError`` covers
socket errors of backends other than Redis)."""
WARNING_INTERVAL_S = 60.0


class CacheFailureLog:
    """At most one warning per ``interval_s``; counts the failures it kept quiet about."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self.lock = threading.Lock()
        self.last_at: float | None = None
        self.quiet = 0

    def cache_failed(self, throttle: throttling.BaseThrottle, error: Exception) -> None:
        now = time.monotonic()
        with self.lock:
            if self.last_at is not None and now - self.last_at < self.interval_s:
                self.quiet += 1
                return
            quiet, self.quiet, self.last_at = self.quiet, 0, now
        log.warning(
            "Throttle %s let a request through: the cache failed (%s: %s); "
            "%d more since the last warning.",
            type(throttle).__name__,
            type(error).__name__,
            error,
            quiet,
        )


WARNINGS = CacheFailureLog(WARNING_INTERVAL_S)


class FailOpenThrottle(throttling.SimpleRateThrottle):
    """A rate throttle that allows the request when the cache raises
    (:data:`CACHE_ERRORS`) and warns (:data:`WARNINGS`)."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        try:
            return super().allow_request(request, view)
        except CACHE_ERRORS as error:
            WARNINGS.cache_failed(self, error)
            return True


class AnonRateThrottle(FailOpenThrottle, throttling.AnonRateThrottle):
    """DRF's ``anon`` scope (anonymous clients, by IP address), failing open."""


class UserRateThrottle(FailOpenThrottle, throttling.UserRateThrottle):
    """DRF's ``user`` scope (each authenticated user, else by IP address), failing open."""


class ScopedRateThrottle(FailOpenThrottle, throttling.ScopedRateThrottle):
    """The view's ``throttle_scope`` rate (``uploads``), failing open."""
