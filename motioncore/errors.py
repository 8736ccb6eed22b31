"""Errors raised by :mod:`motioncore` (one type per failure family).

The web layer translates these into its single JSON error shape; nothing else
in ``motioncore`` raises on bad *user input*.
"""

from __future__ import annotations


class MotionCoreError(Exception):
    """Base class of every error ``motioncore`` raises on bad input."""


class BVHParseError(MotionCoreError):
    """A BVH file could not be read.

    Attributes:
        line: 1-based line number of the offending token (0 when unknown).
        column: 1-based column of the offending token (0 when unknown).
        message: one sentence a user understands, without the location.
    """

    def __init__(self, line: int, column: int, message: str) -> None:
        self.line = int(line)
        self.column = int(column)
        self.message = message
        where = f"line {self.line}, column {self.column}: " if self.line else ""
        super().__init__(f"{where}{message}")

    def as_dict(self) -> dict[str, int | str]:
        """JSON-able ``{"line", "column", "message"}``."""
        return {"line": self.line, "column": self.column, "message": self.message}


class BVHLimitError(BVHParseError):
    """A well-formed BVH file declares more than the reader was allowed to take
    (:class:`motioncore.bvh.limits.Limits`), found before anything is allocated for it.

    Attributes:
        limit: the :class:`~motioncore.bvh.limits.Limits` field exceeded (``"max_frames"``).
        value: what the file declares, in the limit's unit.
        maximum: the limit.
    """

    def __init__(
        self, line: int, column: int, message: str, *, limit: str, value: float, maximum: float
    ) -> None:
        super().__init__(line, column, message)
        self.limit = limit
        self.value = value
        self.maximum = maximum


class SkeletonError(MotionCoreError):
    """A skeleton lacks what an operation needs (e.g. an unresolved joint role)."""


class CharacterError(MotionCoreError):
    """A character file (glTF) cannot be used: not glTF 2.0, no skin, not a humanoid,
    a separate buffer file, past a limit. The message names the problem."""


class TimelineError(MotionCoreError):
    """An intent timeline (:mod:`motioncore.motornerve.timeline`) is malformed.

    Attributes:
        field: where, as a JSON path (``"keys[2].speed_mps"``).
        message: one sentence a user understands, without the location.
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")

    def as_dict(self) -> dict[str, str]:
        """JSON-able ``{"field", "message"}``."""
        return {"field": self.field, "message": self.message}
