"""The one way the API sends a file: as an attachment, with its name, type and length.

Selectors answer a :class:`Download` (a stored file, or bytes made for the request);
views return :func:`attachment` of it. Every download of every app (clips,
transitions, walks, scores, review reports) carries the same headers::

    Content-Type: <the download's type>
    Content-Length: <bytes>
    Content-Disposition: attachment; filename="<name>"

(Django's ``content_disposition_header``: ``filename*=`` for a name that is not
ASCII.) A stored file is streamed; bytes are sent as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models.fields.files import FieldFile
from django.http import FileResponse, HttpResponse
from django.http.response import HttpResponseBase
from django.utils.http import content_disposition_header


@dataclass(frozen=True)
class Download:
    """A file to send: a stored file or its bytes, the name to save it as, its media type."""

    file: FieldFile | bytes
    filename: str
    content_type: str


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
