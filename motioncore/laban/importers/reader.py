"""One entry for every score file Kinetograph reads: the native ``kinetograph-score/1``
JSON, Microsoft's LabanotationSuite and gestureBot JSON
(:mod:`motioncore.laban.importers.microsoft`) and LabanWriter 4 text in its assumed
layout (:mod:`motioncore.laban.importers.labanwriter`, recognised by its
``LabanWriter; 4000;`` header)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from motioncore.laban.importers import labanwriter, microsoft
from motioncore.laban.score import Score


@dataclass(frozen=True)
class ReadScore:
    """The score and, for LabanWriter files, what the import did not read (``notes``:
    the records count and every record set aside, with its reason)."""

    score: Score
    notes: dict[str, Any] | None = None


def read_bytes(data: bytes, title: str = "") -> ReadScore:
    """The score in ``data`` (any supported format); raises
    :class:`motioncore.laban.score.ScoreError` naming every problem."""
    if labanwriter.sniff(data):
        imported = labanwriter.load_bytes(data, title)
        return ReadScore(imported.score, imported.as_dict())
    return ReadScore(microsoft.load_bytes(data, title))
