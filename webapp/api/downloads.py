"""The one way the API sends a stored file: as an attachment, with its name and type."""

from __future__ import annotations

from django.http import FileResponse

from webapp.clips.selectors import Download


def file_response(download: Download) -> FileResponse:
    """``download`` as an attachment (clips, transitions and walks share this)."""
    return FileResponse(
        download.file.open("rb"),
        as_attachment=True,
        filename=download.filename,
        content_type=download.content_type,
    )
