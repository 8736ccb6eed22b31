"""The one way the API sends a file: as an attachment, with its name, type and length.

Selectors answer a :class:`Download` (a stored file, or bytes made for the request);
views return :func:`attachment` of it. Every download of every app (clips,
transitions, walks, scores, review reports) carries the same headers::

    Content-Type: <the download's type>
    Content-Length: <bytes>
    Content-Disposition: attachment; filename="<name>"

(Django's ``content_disposition_header``: ``filename*=`` for a name that is not
ASCII.) A stored file is streamed; bytes are sent as they are. The name is
:func:`safe_filename` of what the selector gave (an uploaded name is the user's):
no folders, no control or bidi-override characters, no quotes.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from django.db.models.fields.files import FieldFile
from django.http import FileResponse, HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.http import content_disposition_header

FILENAME_MAX_CHARS = 200
_UNSAFE_IN_NAME = re.compile(r'["*:<>?|;]+')


def safe_filename(name: str, fallback: str = "download") -> str:
    """``name`` fit for ``Content-Disposition`` and for storing: the last part of a path
    (``/`` or ``\\``), without control, format (bidi override) or unassigned characters,
    quotes or ``*:<>?|;`` (each run becomes ``_``), no leading or trailing dots and
    spaces, at most :data:`FILENAME_MAX_CHARS` (the extension kept); ``fallback`` when
    nothing is left. Letters of any script stay."""
    base = unicodedata.normalize("NFC", name.replace("\\", "/").rsplit("/", 1)[-1])
    visible = "".join(ch for ch in base if unicodedata.category(ch)[0] != "C")
    cleaned = _UNSAFE_IN_NAME.sub("_", visible).strip(" .")
    if len(cleaned) > FILENAME_MAX_CHARS:
        _, dot, suffix = cleaned.rpartition(".")
        keep = f"{dot}{suffix}" if dot and len(suffix) <= 16 else ""
        cleaned = cleaned[: FILENAME_MAX_CHARS - len(keep)].rstrip(" .") + keep
    return cleaned or fallback


@dataclass(frozen=True)
class Download:
    """A file to send: a stored file or its bytes, the name to save it as (made
    :func:`safe_filename`), its media type."""

    file: FieldFile | bytes
    filename: str
    content_type: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "filename", safe_filename(self.filename))


def download_bytes(download: Download) -> bytes:
    """The bytes of ``download`` (read from storage when it is a stored file)."""
    if isinstance(download.file, bytes):
        return download.file
    with download.file.open("rb") as handle:
        data: bytes = handle.read()
    return data


def attachment(download: Download) -> HttpResponseBase:
    """``download`` as an attachment (streamed from storage when it is a stored file)."""
    if not isinstance(download.file, bytes):
        return FileResponse(
            download.file.open("rb"),
            as_attachment=True,
            filename=download.filename,
            content_type=download.content_type,
        )
    response = HttpResponse(download.file, content_type=download.content_type)
    response["Content-Length"] = str(len(download.file))
    disposition = content_disposition_header(True, download.filename)
    if disposition:  # always, for an attachment
        response["Content-Disposition"] = disposition
    return response


# --- revalidated bytes ---------------------------------------------------------------------
# What a page fetches on every visit and keeps in the browser's cache (the Drive page's
# weights): sent inline with a strong ETag and ``Cache-Control: private, no-cache``, so the
# browser asks again each time and a matching ``If-None-Match`` answers 304 with no body.


def revalidated(
    request: HttpRequest, data: bytes, *, etag: str, content_type: str
) -> HttpResponseBase:
    """``data`` (200, ``Content-Length``, ``ETag``), or 304 when the request's
    ``If-None-Match`` names ``etag`` (a quoted strong tag)."""
    response = HttpResponse(data, content_type=content_type)
    response["Content-Length"] = str(len(data))
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    conditional = get_conditional_response(request, etag=etag, response=response)
    return conditional if conditional is not None else response


# --- byte ranges ----------------------------------------------------------------------------
# A player fetches a window of a long file (a clip's full-rate viewer positions) with
# ``Range: bytes=first-last``. One range is served (RFC 9110 §14): ``bytes=a-b``,
# ``bytes=a-`` and ``bytes=-n`` (the last n bytes) answer 206 with ``Content-Range``; a
# range that starts past the end answers 416 (``Content-Range: bytes */<size>``, the
# error shape); no header, a malformed one or several ranges get the whole file. Every
# answer but the 416 says ``Accept-Ranges: bytes``. ``If-Range`` is not looked at.

RANGE_CHUNK_BYTES = 64 * 1024
"""How much of a stored file a partial answer reads at a time."""

_RANGE = re.compile(r"bytes=(\d*)-(\d*)", re.IGNORECASE)


class RangeNotSatisfiable(ValueError):
    """The range asks for nothing that is in the file."""


@dataclass(frozen=True)
class ByteRange:
    """Bytes ``first`` … ``last`` (both included) of a file."""

    first: int
    last: int

    @property
    def length(self) -> int:
        return self.last - self.first + 1


def byte_range(header: str | None, size: int) -> ByteRange | None:
    """The one range ``header`` (a ``Range`` value) asks of a ``size``-byte file, its end
    clamped to the file; ``None`` for the whole file (no header, a malformed one, several
    ranges). Raises :class:`RangeNotSatisfiable` when none of it is in the file."""
    match = _RANGE.fullmatch((header or "").strip())
    if match is None or match.group(1) == match.group(2) == "":
        return None
    first, last = match.group(1), match.group(2)
    if first == "":  # the last n bytes
        if int(last) == 0 or size == 0:
            raise RangeNotSatisfiable(header)
        return ByteRange(max(0, size - int(last)), size - 1)
    if last != "" and int(last) < int(first):
        return None  # not a range (RFC 9110 §14.1.1): ignored
    if int(first) >= size:
        raise RangeNotSatisfiable(header)
    return ByteRange(int(first), size - 1 if last == "" else min(int(last), size - 1))


def ranged_attachment(download: Download, range_header: str | None) -> HttpResponseBase:
    """``download`` as :func:`attachment`, or the part ``range_header`` asks for (206),
    or 416 when that part is not in the file."""
    size = len(download.file) if isinstance(download.file, bytes) else download.file.size
    try:
        wanted = byte_range(range_header, size)
    except RangeNotSatisfiable:
        return _not_satisfiable(size)
    response = attachment(download) if wanted is None else _partial(download, wanted, size)
    response["Accept-Ranges"] = "bytes"
    return response


def _partial(download: Download, wanted: ByteRange, size: int) -> HttpResponseBase:
    """206: bytes ``wanted`` of ``download`` (streamed from storage for a stored file)."""
    response: HttpResponseBase
    if isinstance(download.file, bytes):
        part = download.file[wanted.first : wanted.last + 1]
        response = HttpResponse(part, status=206, content_type=download.content_type)
    else:
        chunks = _read(download.file, wanted)
        response = StreamingHttpResponse(chunks, status=206, content_type=download.content_type)
    response["Content-Length"] = str(wanted.length)
    response["Content-Range"] = f"bytes {wanted.first}-{wanted.last}/{size}"
    disposition = content_disposition_header(True, download.filename)
    if disposition:
        response["Content-Disposition"] = disposition
    return response


def _read(file: FieldFile, wanted: ByteRange) -> Iterator[bytes]:
    """Bytes ``wanted`` of a stored file in chunks (its own handle, closed at the end)."""
    with file.storage.open(str(file.name), "rb") as handle:
        handle.seek(wanted.first)
        left = wanted.length
        while left > 0:
            chunk = handle.read(min(RANGE_CHUNK_BYTES, left))
            if not chunk:
                return
            left -= len(chunk)
            yield chunk


def _not_satisfiable(size: int) -> HttpResponse:
    """416 in the API's error shape, with the file's size in ``Content-Range``."""
    from webapp.core.exceptions import error_body  # here: it imports DRF's views (a cycle)

    body = error_body("range_not_satisfiable", f"The file has {size} bytes; ask for fewer.")
    response = HttpResponse(json.dumps(body), status=416, content_type="application/json")
    response["Content-Range"] = f"bytes */{size}"
    return response


def download_urls(
    request: HttpRequest | None, route: str, object_id: int, ready: Mapping[str, bool]
) -> dict[str, str | None]:
    """An API object's ``downloads``: each name of ``ready`` → the absolute URL of
    ``route`` (arguments: the object's id, the name) when the file exists, else ``None``
    (a relative URL without a request)."""
    urls: dict[str, str | None] = {}
    for name, exists in ready.items():
        path = reverse(route, args=[object_id, name])
        urls[name] = (request.build_absolute_uri(path) if request else path) if exists else None
    return urls
