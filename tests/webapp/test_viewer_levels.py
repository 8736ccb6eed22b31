"""A long clip's viewer files: a preview ``viewer.json`` under the bound, the full-rate
``viewer.f32`` next to it, and downloads that answer a byte range.

Issue 16 finding 2 (viewer arrays): the pipeline wrote the full-rate positions of a
200k-frame take as 596 MB of JSON, twice. The clip here is GAMES-105's walk60 repeated
23 times (4,186 frames × 25 joints: just over the preview's budget, so every 2nd frame).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import AbstractUser, User

from motioncore import export
from support.web import SAMPLES, client_for
from webapp.clips.models import Artifact, ArtifactKind, Clip
from webapp.clips.services import clip_upload_create
from webapp.core.downloads import (
    ByteRange,
    Download,
    RangeNotSatisfiable,
    byte_range,
    ranged_attachment,
)
from webapp.projects.models import Project
from webapp.runs import pipeline
from webapp.runs.models import Status

REPEATS = 23
JOINTS = 25
FRAME_BYTES = JOINTS * 12


def _repeated(path: Path, times: int) -> bytes:
    """The BVH at ``path`` with its motion played ``times`` times over."""
    head, motion = path.read_text().split("MOTION\n", 1)
    lines = motion.splitlines()
    frames = lines[2:]
    return (
        f"{head}MOTION\nFrames: {len(frames) * times}\n{lines[1]}\n"
        + "\n".join(frames * times)
        + "\n"
    ).encode()


def _processed(project: Project, editor: AbstractUser, name: str, data: bytes) -> Clip:
    assert isinstance(editor, User)
    clip = clip_upload_create(project=project, user=editor, name=name, data=data).clip
    run = clip.runs.get()
    pipeline.execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Status.SUCCEEDED, run.error
    return clip


def _stored(clip: Clip, kind: str) -> bytes:
    with Artifact.objects.get(clip=clip, kind=kind).file.open("rb") as handle:
        data: bytes = handle.read()
    return data


def _body(response: Any) -> bytes:
    if response.streaming:
        return b"".join(response.streaming_content)
    return bytes(response.content)


@pytest.fixture
def long_clip(project: Project, members: dict[str, AbstractUser], media_root: Path) -> Clip:
    """walk60 × 23, through ingest → clean → analyze."""
    data = _repeated(SAMPLES / "games105" / "walk60.bvh", REPEATS)
    return _processed(project, members["editor"], "walk60x23.bvh", data)


@pytest.mark.django_db
def test_a_long_clip_stores_a_preview_under_the_bound_and_the_full_rate(
    long_clip: Clip,
) -> None:
    """Issue 16 finding 2 (viewer arrays): viewer.json holds every 2nd frame within the
    JSON bound and names viewer.f32, which holds every frame (F × J × 12 bytes); the
    preview's positions are the binary's at frames 0, 2, 4, …; the raw motion likewise."""
    for name, kind, full_kind in (
        ("viewer", ArtifactKind.VIEWER, ArtifactKind.VIEWER_FULL),
        ("viewer-raw", ArtifactKind.VIEWER_RAW, ArtifactKind.VIEWER_RAW_FULL),
    ):
        stored = _stored(long_clip, kind)
        arrays = json.loads(stored)
        frames = arrays["full"]["frames"]
        assert arrays["stride"] == 2 and arrays["frames"] == -(-frames // 2)
        assert arrays["joints"] == JOINTS and arrays["fps"] == pytest.approx(60.0 / 2, rel=1e-4)
        assert arrays["full"]["name"] == f"{name}.f32"
        assert arrays["full"]["bytes_per_frame"] == FRAME_BYTES
        bound = export.preview_frames(frames, 2) * (7 * JOINTS + 1) * export.JSON_VALUE_MAX_CHARS
        assert len(stored) <= bound + 20_000  # + names, parents, offsets
        full = _stored(long_clip, full_kind)
        assert len(full) == frames * FRAME_BYTES
        positions = export.full_rate_positions(full, JOINTS)
        np.testing.assert_array_equal(
            np.reshape(arrays["positions"], (-1, JOINTS, 3)), positions[::2]
        )


@pytest.mark.django_db
def test_the_full_rate_download_answers_byte_ranges(
    long_clip: Clip, members: dict[str, AbstractUser]
) -> None:
    """Issue 16 finding 2 (viewer arrays): GET viewer.f32 with one range answers 206 and
    exactly those bytes (a window of frames, an open end, a suffix); past the end 416 with
    Content-Range ``*/size``; without a range 200, the whole file, Accept-Ranges."""
    full = _stored(long_clip, ArtifactKind.VIEWER_FULL)
    size = len(full)
    client = client_for(members["viewer"])
    url = f"/api/v1/clips/{long_clip.pk}/download/viewer.f32/"
    whole = client.get(url)
    assert whole.status_code == 200 and whole["Accept-Ranges"] == "bytes"
    assert _body(whole) == full
    first, last = 1000 * FRAME_BYTES, 1120 * FRAME_BYTES - 1  # frames 1000 … 1119
    for header, start, end in (
        (f"bytes={first}-{last}", first, last),
        (f"bytes={size - 10}-", size - 10, size - 1),
        ("bytes=-300", size - 300, size - 1),
        (f"bytes=0-{size + 99}", 0, size - 1),
    ):
        part = client.get(url, HTTP_RANGE=header)
        assert part.status_code == 206, header
        assert part["Content-Range"] == f"bytes {start}-{end}/{size}"
        assert part["Content-Length"] == str(end - start + 1)
        assert _body(part) == full[start : end + 1], header
    refused = client.get(url, HTTP_RANGE=f"bytes={size}-")
    assert refused.status_code == 416 and refused["Content-Range"] == f"bytes */{size}"
    assert refused.json()["error"]["code"] == "range_not_satisfiable"


@pytest.mark.django_db
def test_a_short_clip_keeps_its_json_and_gets_the_binary_too(
    project: Project, members: dict[str, AbstractUser], media_root: Path
) -> None:
    """Issue 16 finding 2 (viewer arrays): the golden sample's viewer.json has no added
    key (stride 1), and its viewer.f32 is every frame's positions."""
    sample = SAMPLES / "games105" / "walk_forward.bvh"
    clip = _processed(project, members["editor"], sample.name, sample.read_bytes())
    arrays = json.loads(_stored(clip, ArtifactKind.VIEWER))
    assert "stride" not in arrays and "full" not in arrays
    full = export.full_rate_positions(_stored(clip, ArtifactKind.VIEWER_FULL), arrays["joints"])
    np.testing.assert_array_equal(full.ravel(), np.asarray(arrays["positions"], np.float32))
    downloads = client_for(members["viewer"]).get(f"/api/v1/clips/{clip.pk}/").json()
    assert downloads["downloads"]["viewer.f32"] and downloads["downloads"]["viewer-raw.f32"]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("bytes=0-99", ByteRange(0, 99)),
        ("bytes=10-", ByteRange(10, 99)),
        ("bytes=-10", ByteRange(90, 99)),
        ("bytes=-500", ByteRange(0, 99)),
        ("bytes=90-500", ByteRange(90, 99)),
        ("BYTES=5-5", ByteRange(5, 5)),
        ("bytes=0-9,20-29", None),  # several ranges: the whole file
        ("bytes=9-5", None),  # not a range
        ("bytes=-", None),
        ("items=0-9", None),
    ],
)
def test_byte_range_reads_one_range_of_a_100_byte_file(
    header: str | None, expected: ByteRange | None
) -> None:
    """Issue 16 finding 2 (viewer arrays): the Range forms a player sends, clamped to the
    file; what is not one range means the whole file."""
    assert byte_range(header, 100) == expected


@pytest.mark.parametrize(
    ("header", "size"), [("bytes=100-", 100), ("bytes=-0", 100), ("bytes=0-", 0)]
)
def test_byte_range_refuses_what_is_not_in_the_file(header: str, size: int) -> None:
    """Issue 16 finding 2 (viewer arrays): a start past the end, an empty suffix."""
    with pytest.raises(RangeNotSatisfiable):
        byte_range(header, size)


def test_a_range_of_bytes_made_for_the_request() -> None:
    """Issue 16 finding 2 (viewer arrays): a download that is bytes answers ranges too."""
    download = Download(bytes(range(50)), "x.f32", "application/octet-stream")
    part = ranged_attachment(download, "bytes=10-19")
    assert part.status_code == 206 and _body(part) == bytes(range(10, 20))
    assert part["Content-Disposition"] == 'attachment; filename="x.f32"'
    assert ranged_attachment(download, "bytes=50-").status_code == 416
