"""The Redis broker transport the worker uses: kombu's, with one fault of kombu 5.7 mended.

When Redis goes away while a task runs (``acks_late``: its message is unacknowledged),
the worker closes the lost connection and kombu's channel tries to put the
unacknowledged message back through ``self.connection.client``, which kombu has
already set to ``None``: ``AttributeError: 'NoneType' object has no attribute
'hostname'`` escapes every handler that expects connection errors, the worker logs
"Unrecoverable error" and exits once its task finishes. Here the channel reports the
closed connection as the connection error it is, so the worker reconnects and goes on.

Nothing is lost by not restoring the message at that moment: it stays in Redis'
unacknowledged set (restored after the visibility timeout) when Redis kept it, and a
run whose message is gone altogether is requeued by the stale-run sweep
(:func:`webapp.runs.services.runs_requeue_stale`); a second delivery of a run that
finished is a no-op (runs are claimed by a conditional update).

``CELERY_BROKER_TRANSPORT`` names :class:`Transport` when ``REDIS_URL`` is set
(``webapp/settings.py``); ``tests/webapp/integration`` restarts Redis under a running
worker to check it.
"""

from __future__ import annotations

from typing import Any

import redis.exceptions
from kombu.transport import redis as kombu_redis


class Channel(kombu_redis.Channel):
    """kombu's Redis channel; connection parameters of a closed connection raise
    :class:`redis.exceptions.ConnectionError` instead of ``AttributeError``."""

    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        if self.connection.client is None:
            raise redis.exceptions.ConnectionError("the broker connection is closed")
        params: dict[str, Any] = super()._connparams(asynchronous=asynchronous)  # type: ignore[misc]
        return params


class Transport(kombu_redis.Transport):
    """kombu's Redis transport with :class:`Channel`."""

    Channel = Channel
