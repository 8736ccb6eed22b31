"""Webhook signatures (the recipe receivers use; documented in ``docs/platform.md``).

Each POST carries ``X-Kinetograph-Timestamp: <unix seconds>`` and
``X-Kinetograph-Signature: sha256=<hex>`` where ``<hex>`` is
``HMAC-SHA256(secret, f"{timestamp}.{raw body}")``. Receivers recompute it over the
raw body, compare with :func:`hmac.compare_digest`, and reject timestamps older
than a few minutes (replay protection).
"""

from __future__ import annotations

import hashlib
import hmac
import time

TOLERANCE_S = 300


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """``sha256=<hex>`` of ``timestamp.body`` under ``secret``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"sha256={mac.hexdigest()}"


def verify(
    secret: str, timestamp: str, body: bytes, header: str, *, now: float | None = None
) -> bool:
    """Whether ``header`` is a valid, fresh signature of ``body`` (the receiver's check)."""
    try:
        sent = int(timestamp)
    except ValueError:
        return False
    if abs((time.time() if now is None else now) - sent) > TOLERANCE_S:
        return False
    return hmac.compare_digest(signature(secret, sent, body), header)
