"""Cross-cutting records: stored responses for ``Idempotency-Key``."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class IdempotentResponse(models.Model):
    """The response a creating POST gave, replayed when the same key comes again."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=200)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=300)
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="one_response_per_key")]
