"""The API's JSON parser: DRF's, refusing input nested deeper than
``settings.JSON_MAX_DEPTH`` with 400 ``json_too_deep`` instead of a ``RecursionError``.

The depth is measured by a scan of the text before it is decoded
(:func:`motioncore.jsontext.depth`: brackets outside strings), so a body 5,000 levels
deep never reaches the recursive decoder. :func:`loads` is the same check for JSON
read anywhere else (an uploaded JSON file, a stored document).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils.json import strict_constant

from motioncore import jsontext

JSONTooDeep = jsontext.TooDeep
"""JSON nested deeper than allowed (``depth``, ``limit``)."""


def loads(text: str | bytes, *, max_depth: int | None = None, strict: bool = True) -> Any:
    """``json.loads`` of ``text``, :class:`JSONTooDeep` past ``max_depth`` levels
    (default ``settings.JSON_MAX_DEPTH``); ``strict`` refuses NaN and Infinity."""
    limit = settings.JSON_MAX_DEPTH if max_depth is None else max_depth
    decoded = text.decode() if isinstance(text, bytes) else text
    options = {"parse_constant": strict_constant} if strict else {}
    return jsontext.loads(decoded, max_depth=limit, **options)


class JSONParser(parsers.JSONParser):
    """``application/json`` as DRF parses it, with the depth limit of :func:`loads`."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return loads(stream.read().decode(encoding), strict=self.strict)
        except JSONTooDeep as error:
            raise ParseError(str(error), code="json_too_deep") from None
        except ValueError as error:  # UnicodeDecodeError too
            raise ParseError(f"JSON parse error - {error}") from None


class NamedNonFiniteJSONParser(JSONParser):
    """:class:`JSONParser` that decodes ``NaN`` and ``±Infinity`` instead of refusing the
    whole body, for endpoints whose validation names the field that holds one (a 400
    ``keys[2].speed_mps: must be a finite number`` rather than a parse error)."""

    strict = False
