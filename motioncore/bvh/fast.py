"""The fast path of the BVH reader: header as text, frame values by a compiled scan of the bytes.

:func:`read` handles well-formed files with plain decimal values; it returns
``None`` for anything it is not sure about (an odd encoding, a malformed frame
line, a count mismatch, numba not installed), and :func:`motioncore.bvh.text.read`
then takes the general path, which parses everything and reports located
errors. Both paths give bit-identical values (tested on the whole corpus).

Why: ``np.loadtxt`` (the general path) spends about 17 ns per byte on this
machine; the compiled scan about 2. The frame block is also never decoded to a
``str`` (four bytes per character for the copy ``io.StringIO`` makes), which
keeps the peak memory of a load near the size of the arrays it returns.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from motioncore.bvh import hierarchy
from motioncore.bvh import text as bvh_text
from motioncore.bvh.limits import DEFAULT, Limits
from motioncore.bvh.text import RawBVH
from motioncore.errors import BVHLimitError, BVHParseError

MIN_BYTES = 1 << 16
"""Below this size the general path is as fast (and needs no JIT)."""

_MOTION_RE = re.compile(rb"^[ \t]*MOTION[ \t\r]*$", re.MULTILINE)
_PREAMBLE_BYTES = 4096
_kernel: Any = None


def available() -> bool:
    """Whether the compiled scan can run (numba importable); imports it on first call."""
    global _kernel
    if _kernel is None:
        try:
            from motioncore.bvh import kernel
        except ImportError:  # pragma: no cover - numba is a dependency; degrade gracefully
            _kernel = False
        else:
            _kernel = kernel
    return _kernel is not False


def read(
    data: bytes, *, frame_count: str = "error", min_bytes: int = MIN_BYTES, limits: Limits = DEFAULT
) -> RawBVH | None:
    """Parse ``data`` (a whole BVH file) or return ``None`` to ask for the general path.

    A file over ``limits`` raises :class:`~motioncore.errors.BVHLimitError` here already
    (before the frames are scanned); other errors are left to the general path."""
    if not min_bytes <= len(data) <= bvh_text.MAX_FILE_BYTES:
        return None
    if data[:3] == b"\xef\xbb\xbf" or b"\x00" in data[:4096]:
        return None
    if not available():
        return None
    motion = _MOTION_RE.search(data)
    if motion is None:
        return None
    try:
        header = data[: motion.start()].decode("utf-8")
        preamble = data[motion.end() : motion.end() + _PREAMBLE_BYTES].decode("ascii")
        if header.count("\r") != header.count("\r\n"):
            return None  # lone CRs: the general path turns them into line ends
        motion_line = header.count("\n") + 1
        joints, notes = hierarchy.parse_hierarchy(
            hierarchy.tokenize(header), motion_line, limits=limits
        )
        declared, frame_time, rest, _ = bvh_text.parse_motion_header(preamble, motion_line)
    except BVHLimitError:
        raise
    except (UnicodeDecodeError, BVHParseError):
        return None  # the general path reports it, with the right location
    limits.check_motion(
        frames=declared, frame_time_s=frame_time, joints=len(joints), line=motion_line + 1
    )
    channels = sum(len(j.channels) for j in joints)
    if channels == 0:
        return None
    start = motion.end() + len(preamble) - len(rest)
    while data[start - 1] == 13:  # the Frame Time pattern ate the CR of its CRLF: give it back
        start -= 1
    if declared * channels > (len(data) - start) // 2 + 1:
        return None  # fewer bytes than the declared values need: never allocate for them
    buffer = np.frombuffer(data, dtype=np.uint8)
    status, values, lf, crlf, lone_cr = _kernel.scan(buffer, start, channels, declared * channels)
    if status != _kernel.OK or lone_cr or values.shape[0] != declared * channels:
        return None  # malformed, mismatched or odd line ends: the general path explains it
    endings = _line_endings(data[:start], lf, crlf)
    return RawBVH(
        joints, frame_time, values.reshape(declared, channels), declared, tuple(notes), endings
    )


def _line_endings(head: bytes, data_lf: int, data_crlf: int) -> str:
    """``LF``, ``CRLF`` or ``mixed`` (files with lone CRs never reach this path)."""
    crlf = head.count(b"\r\n") + data_crlf
    lone_lf = head.count(b"\n") + data_lf - crlf
    if crlf and lone_lf:
        return "mixed"
    return "CRLF" if crlf else "LF"
