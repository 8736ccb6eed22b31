"""Reading BVH text into a raw hierarchy and a channel matrix (no unit or axis logic).

Stages, each a short function: decode the source → split header and motion →
tokenise the header (tokens keep their line and column) → parse the hierarchy
→ read ``Frames:`` / ``Frame Time:`` → read the MOTION block as one
``[F, C]`` float matrix. Every malformed input raises
:class:`~motioncore.errors.BVHParseError` with a 1-based line and column.

Values stay in the file's units, axes and degrees; :mod:`motioncore.bvh`
turns them into a :class:`~motioncore.clip.Clip`.
"""

from __future__ import annotations

import io
import math
import os
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from motioncore.bvh.hierarchy import RawJoint, number, parse_hierarchy, quote, tokenize
from motioncore.bvh.limits import DEFAULT, Limits
from motioncore.errors import BVHParseError

Source = str | bytes | os.PathLike[str]

MAX_FILE_BYTES = 1 << 30
"""Refuse sources over 1 GiB (a BVH that large is not a motion clip)."""
MAX_FRAMES = 10_000_000
MAX_VALUE_BYTES = 1 << 20
"""No token may be longer than this (guards against binary junk)."""

_FRAMES_RE = re.compile(r"^[ \t]*Frames[ \t]*:[ \t]*(\S*)[ \t\r]*$", re.IGNORECASE | re.MULTILINE)
_FRAME_TIME_RE = re.compile(
    r"^[ \t]*Frame[ \t]*Time[ \t]*:[ \t]*(\S*)[ \t\r]*$", re.IGNORECASE | re.MULTILINE
)
_MOTION_RE = re.compile(r"^[ \t]*MOTION[ \t\r]*$", re.MULTILINE)
_NON_BLANK_RE = re.compile(r"\S")


@dataclass(frozen=True)
class RawBVH:
    """A parsed BVH before any interpretation.

    Attributes:
        joints: ``[J]`` joints in file order (parents precede children).
        frame_time_s: the ``Frame Time:`` value, seconds.
        values: ``[F, C]`` channel values in file order (file units, degrees).
        declared_frames: the ``Frames:`` value.
        warnings: non-fatal findings, as sentences.
        line_endings: ``LF``, ``CRLF``, ``CR`` or ``mixed``.
    """

    joints: tuple[RawJoint, ...]
    frame_time_s: float
    values: NDArray[np.float64]
    declared_frames: int
    warnings: tuple[str, ...]
    line_endings: str


# --------------------------------------------------------------------------- decode


def decode(source: Source) -> tuple[str, str]:
    """``(text, line_endings)`` of ``source`` (a path, BVH text or raw bytes).

    Lines of ``text`` end in LF or CRLF (a lone CR is turned into LF; CRLF is left
    alone because every later stage treats the CR as trailing whitespace, which
    saves a copy of the frame data). ``line_endings`` names what the source used:
    ``LF``, ``CRLF``, ``CR`` or ``mixed``.
    """
    data = _read_bytes(source) if not isinstance(source, str) else None
    if data is None:
        text = str(source)
        if "\n" not in text and "\r" not in text and _looks_like_path(text):
            data = _read_bytes(Path(text))
    if data is not None:
        text = _bytes_to_text(data)
    if len(text) > MAX_FILE_BYTES:
        raise BVHParseError(0, 0, f"The file is larger than {MAX_FILE_BYTES >> 20} MiB.")
    if "\r" not in text:
        return text, "LF"
    crlf = text.count("\r\n")
    lone_cr = text.count("\r") - crlf
    lone_lf = text.count("\n") - crlf
    kinds = [name for name, n in (("CRLF", crlf), ("CR", lone_cr), ("LF", lone_lf)) if n]
    if lone_cr:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, "mixed" if len(kinds) > 1 else kinds[0]


def _looks_like_path(text: str) -> bool:
    stripped = text.strip()  # blank text is an empty BVH file, not the path "" (the cwd)
    return len(text) < 4096 and bool(stripped) and not stripped.upper().startswith("HIERARCHY")


def source_bytes(source: Source) -> bytes | None:
    """The raw bytes of a path or bytes ``source``; ``None`` for BVH text given as ``str``."""
    if isinstance(source, str):
        if "\n" in source or "\r" in source or not _looks_like_path(source):
            return None
        return _read_bytes(Path(source))
    return _read_bytes(source)


def _read_bytes(source: Source) -> bytes | None:
    if isinstance(source, bytes | bytearray | memoryview):
        return bytes(source)
    if isinstance(source, str):
        return None
    path = Path(source)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise BVHParseError(0, 0, f"The file is larger than {MAX_FILE_BYTES >> 20} MiB.")
        return path.read_bytes()
    except OSError as exc:
        raise BVHParseError(0, 0, f"The file could not be read: {exc.strerror or exc}.") from exc


def _bytes_to_text(data: bytes) -> str:
    if b"\x00" in data[:4096]:
        raise BVHParseError(1, 1, "This is a binary file, not BVH text.")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# --------------------------------------------------------------------------- header


def split_sections(text: str) -> tuple[str, int, str, int]:
    """``(hierarchy_text, 1, motion_text, motion_first_line)`` around the ``MOTION`` line."""
    stripped = text.lstrip()
    if not stripped:
        raise BVHParseError(1, 1, "The file is empty.")
    first = stripped.split(None, 1)[0]
    if first.upper() != "HIERARCHY":
        line = text[: len(text) - len(stripped)].count("\n") + 1
        raise BVHParseError(line, 1, f"A BVH file starts with HIERARCHY, not {quote(first)}.")
    match = _MOTION_RE.search(text)
    if match is None:
        last = text.count("\n") + 1
        raise BVHParseError(last, 1, "The MOTION section is missing (the file may be truncated).")
    motion_line = text.count("\n", 0, match.start()) + 1
    return text[: match.start()], 1, text[match.end() :], motion_line


# --------------------------------------------------------------------------- motion


def parse_motion_header(motion: str, first_line: int) -> tuple[int, float, str, int]:
    """``(declared_frames, frame_time_s, data_text, data_first_line)`` of the MOTION section.

    ``data_text`` starts right after the ``Frame Time:`` value, so its first line is
    the (empty) rest of that line: ``data_first_line`` is the Frame Time line.
    """
    frames_match = _FRAMES_RE.search(motion)
    time_match = _FRAME_TIME_RE.search(motion)
    if frames_match is None:
        raise BVHParseError(first_line + 1, 1, "The 'Frames:' line is missing after MOTION.")
    frames_line = first_line + motion.count("\n", 0, frames_match.start())
    if time_match is None:
        raise BVHParseError(frames_line + 1, 1, "The 'Frame Time:' line is missing.")
    time_line = first_line + motion.count("\n", 0, time_match.start())
    frames = _frames_value(frames_match.group(1), frames_line, frames_match.start(1))
    frame_time = _frame_time_value(time_match.group(1), time_line)
    _check_motion_preamble(motion, first_line, frames_match, time_match)
    data_start = time_match.end()
    return frames, frame_time, motion[data_start:], time_line


def _check_motion_preamble(
    motion: str, first_line: int, frames: re.Match[str], time: re.Match[str]
) -> None:
    if time.start() < frames.start():
        raise BVHParseError(
            first_line + motion.count("\n", 0, time.start()),
            1,
            "'Frame Time:' must come after 'Frames:'.",
        )
    for gap, at in (
        (motion[: frames.start()], 0),
        (motion[frames.end() : time.start()], frames.end()),
    ):
        junk = gap.split()
        if junk:
            line = first_line + motion.count("\n", 0, at + gap.find(junk[0]))
            raise BVHParseError(line, 1, f"Unexpected {quote(junk[0])} in the MOTION header.")


def _frames_value(text: str, line: int, column: int) -> int:
    try:
        frames = int(text)
    except ValueError:
        raise BVHParseError(
            line, 1, f"'Frames:' needs a whole number, not {quote(text)}."
        ) from None
    if not 0 < frames <= MAX_FRAMES:
        raise BVHParseError(line, 1, f"'Frames: {frames}' is not a usable frame count.")
    return frames


def _frame_time_value(text: str, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise BVHParseError(line, 1, f"'Frame Time:' needs a number, not {quote(text)}.") from None
    if not (math.isfinite(value) and 1e-5 <= value <= 10.0):
        raise BVHParseError(line, 1, f"'Frame Time: {text}' seconds is not a usable frame time.")
    return value


def parse_values(data: str, first_line: int, channels: int) -> NDArray[np.float64]:
    """``[F, channels]`` floats of the frame lines (blank lines skipped).

    The fast path is one ``np.loadtxt`` call; on any problem a line-by-line scan
    finds the first bad token and raises a located error. ``first_line`` is the
    line ``data`` starts on (the rest of the ``Frame Time:`` line). A skeleton
    without channels has blank frame lines, so any value there is an error and the
    result has no rows (the caller trusts ``Frames:``).
    """
    if channels == 0:
        _raise_first_bad_value(data, first_line, 0)
        return np.zeros((0, 0))
    if _NON_BLANK_RE.search(data) is None:
        raise BVHParseError(first_line + 1, 1, "The file has no frame lines (it may be truncated).")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            values = np.loadtxt(io.StringIO(data), dtype=np.float64, ndmin=2, comments=None)
    except (ValueError, UserWarning):
        _raise_first_bad_value(data, first_line, channels)
        raise BVHParseError(first_line, 1, "The frame data could not be read.") from None
    if values.shape[0] == 0:
        raise BVHParseError(first_line + 1, 1, "The file has no frame lines (it may be truncated).")
    if values.shape[1] != channels:
        _raise_first_bad_value(data, first_line, channels)
    if not np.isfinite(values).all():
        _raise_first_bad_value(data, first_line, channels)
    return values


def _data_lines(data: str, first_line: int) -> Iterator[tuple[int, str]]:
    for offset, line in enumerate(data.split("\n")):
        if line.strip():
            yield first_line + offset, line


def _raise_first_bad_value(data: str, first_line: int, channels: int) -> None:
    for line_no, line in _data_lines(data, first_line):
        words = list(re.finditer(r"\S+", line))
        for match in words:
            _check_value(match.group(), line_no, match.start() + 1)
        if len(words) != channels:
            raise BVHParseError(
                line_no,
                _count_mismatch_column(words, channels),
                f"This frame line has {len(words)} values but the hierarchy declares "
                f"{channels} channels.",
            )


def _count_mismatch_column(words: list[re.Match[str]], channels: int) -> int:
    """1-based column to blame on a frame line with the wrong number of values."""
    if not words:
        return 1
    if channels == 0:
        return words[0].start() + 1  # the first value is already one too many
    return words[min(len(words), channels) - 1].end() + 1  # just after the last expected one


def _check_value(text: str, line: int, column: int) -> None:
    if len(text) > MAX_VALUE_BYTES:
        raise BVHParseError(line, column, "A value on this frame line is absurdly long.")
    value = number(text)
    if value is None:
        raise BVHParseError(line, column, f"The value {quote(text)} is not a number.")
    if not math.isfinite(value):
        raise BVHParseError(line, column, f"The value {quote(text)} is not a finite number.")


def frame_line_number(data: str, first_line: int, row: int) -> int:
    """The 1-based line number of frame ``row`` (0-based) in ``data``."""
    for index, (line_no, _) in enumerate(_data_lines(data, first_line)):
        if index == row:
            return line_no
    return first_line


# --------------------------------------------------------------------------- whole file


def read(source: Source, *, frame_count: str = "error", limits: Limits = DEFAULT) -> RawBVH:
    """Parse ``source`` into a :class:`RawBVH`.

    ``frame_count`` is the policy when ``Frames:`` disagrees with the frame lines
    present: ``"error"`` (default; a short file is usually truncated) raises
    :class:`BVHParseError`, ``"warn"`` keeps the frames present and records a warning.
    A file declaring more than ``limits`` allow raises
    :class:`~motioncore.errors.BVHLimitError` before its frames are read.
    """
    check_frame_count_policy(frame_count)
    text, endings = decode(source)
    header, _, motion, motion_line = split_sections(text)
    joints, notes = parse_hierarchy(tokenize(header), motion_line, limits=limits)
    declared, frame_time, data, data_line = parse_motion_header(motion, motion_line)
    limits.check_motion(
        frames=declared, frame_time_s=frame_time, joints=len(joints), line=motion_line + 1
    )
    channels = sum(len(j.channels) for j in joints)
    values = parse_values(data, data_line, channels)
    if channels == 0:  # frame lines are blank: count the lines, never trust 'Frames:' alone
        values = np.zeros((min(declared, blank_frame_lines(data)), 0))
    notes += _frame_count_check(values.shape[0], declared, data, data_line, frame_count)
    return RawBVH(joints, frame_time, values, declared, tuple(notes), endings)


def blank_frame_lines(data: str) -> int:
    """How many frame lines ``data`` (the text after the ``Frame Time:`` value) holds when
    every frame line is blank: its line ends after the Frame Time line's own, plus an
    unterminated last line."""
    lines = data.count("\n") - 1
    if data and not data.endswith("\n"):
        lines += 1
    return max(lines, 0)


def check_frame_count_policy(frame_count: str) -> None:
    """Raise :class:`BVHParseError` unless ``frame_count`` is ``"error"`` or ``"warn"``."""
    if frame_count not in ("error", "warn"):
        raise BVHParseError(
            0, 0, f"The frame_count policy must be 'error' or 'warn', not {quote(frame_count)}."
        )


def _frame_count_check(
    present: int, declared: int, data: str, data_line: int, policy: str
) -> list[str]:
    if present == declared:
        return []
    message = f"'Frames:' declares {declared} frames but {present} frame lines are present"
    if policy == "warn":
        return [message + "; the frames present were kept."]
    if present < declared:
        last = data_line + data.rstrip().count("\n")
        raise BVHParseError(last, 1, message + " (the file looks truncated).")
    line = frame_line_number(data, data_line, declared)
    raise BVHParseError(line, 1, message + ".")
