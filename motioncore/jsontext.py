"""JSON text with bounded nesting: the depth is measured by a scan of the text before the
(recursive) decoder sees it, so a document nested thousands deep is refused with
:class:`TooDeep` instead of a ``RecursionError``.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

MAX_DEPTH = 64
"""The default bound on nesting (arrays and objects); real documents here are under 10."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class TooDeep(ValueError):
    """JSON nested deeper than allowed (``depth`` levels, ``limit`` allowed)."""

    def __init__(self, depth: int, limit: int) -> None:
        super().__init__(f"The JSON is nested {depth} levels deep; at most {limit} are accepted.")
        self.depth = depth
        self.limit = limit


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (``0`` for a scalar;
    brackets inside strings do not count; for malformed text, an estimate)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(_STEP[b] for b in brackets), default=0)


def loads(text: str, *, max_depth: int = MAX_DEPTH, **options: Any) -> Any:
    """``json.loads(text, **options)``, raising :class:`TooDeep` past ``max_depth``."""
    found = depth(text)
    if found > max_depth:
        raise TooDeep(found, max_depth)
    try:
        return json.loads(text, **options)
    except RecursionError:  # a bound above what the decoder can nest
        raise TooDeep(found, max_depth) from None
