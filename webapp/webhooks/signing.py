"""Webhook signatures (the recipe receivers use; documented in ``docs/platform.md``).

Each POST carries ``X-Kinetograph-Timestamp: <unix seconds>`` and
``X-Kinetograph-Signature: sha256=<hex>`` where ``<hex>`` is
``HMAC-SHA256(secret, f"{timestamp}.{raw body}")``. Receivers recompute it over the
raw body, compare in constant time, and reject timestamps more than
:data:`TOLERANCE_S` seconds away from their clock (replay protection).
"""

from __future__ import annotations

import hashlib
import hmac
import time

TOLERANCE_S = 300
SCHEME = "sha256="


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """``sha256=<hex>`` of ``b"<timestamp>." + body`` under ``secret`` (UTF-8)."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"{SCHEME}{mac.hexdigest()}"


def verify(
    secret: str,
    timestamp: str,
    body: bytes,
    header: str,
    *,
    now: float | None = None,
    tolerance_s: int = TOLERANCE_S,
) -> bool:
    """Whether ``header`` is a valid signature of ``body`` sent at ``timestamp`` (unix
    seconds, as a string) no more than ``tolerance_s`` seconds from ``now`` (the
    receiver's check). Malformed input is ``False``, never an exception."""
    if not timestamp.isascii() or not timestamp.strip().isdigit():
        return False
    sent = int(timestamp)
    if abs((time.time() if now is None else now) - sent) > tolerance_s:
        return False
    expected = signature(secret, sent, body).encode()
    # Compare bytes: compare_digest refuses non-ASCII str, and the header is untrusted.
    return hmac.compare_digest(expected, header.strip().encode("utf-8", "replace"))
