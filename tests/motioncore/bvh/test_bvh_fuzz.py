"""Mutated real BVH files: ``bvh.load`` returns a sound clip or raises a located BVHParseError.

Four small clips from ``tests/data`` (their MOTION block cut to a few frames, the
header intact) get one to three random mutations each: truncation at a byte, a deleted
or inserted token, text in place of a number, swapped or duplicated lines, changed
line ends. Whatever comes out, ``load`` must either return a clip with finite arrays
and unit quaternions, or raise :class:`BVHParseError` whose line and column lie inside
the file. Any other exception fails the test.

The ``slow`` variant runs 10,000 examples (CI runs it); the other one 300.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from motioncore import bvh
from motioncore.errors import BVHParseError
from support.paths import SAMPLE_DIR

SOURCES = (
    "cmu-pybvh/bvh_test2.bvh",
    "deep-motion-editing/rest.bvh",
    "makehuman/walk1.bvh",
    "games105/run_forward.bvh",
)
KEEP_FRAMES = 3

INSERTED_TOKENS = (
    b"0",
    b"-1.5",
    b"3",
    b"1e5",
    b"1e308",
    b"-1.7e308",
    b"1e-320",
    b"Hips",
    b"foo",
    b"{",
    b"}",
    b"ROOT",
    b"JOINT",
    b"End",
    b"Site",
    b"End Site",
    b"OFFSET",
    b"CHANNELS",
    b"CHANNELS 0",
    b"CHANNELS 64",
    b"Xrotation",
    b"Yposition",
    b"HIERARCHY",
    b"MOTION",
    b"Frames:",
    b"Frame Time:",
    b"nan",
    b"inf",
    b"-inf",
    b"1e999",
    b"1" * 400,
    b"9" * 5000,
    b"1_000",
    b"\xef\xbc\x91",  # a full-width digit one (UTF-8)
    b"\xff",  # not UTF-8: the file falls back to latin-1
    b"\x00",
    b"\n",
    b"\r",
)
TEXT_FOR_NUMBERS = (b"abc", b"x", b"1.2.3", b"--1", b"1,5", b"e5", b".", b"+", b"nan", b"inf", b"")
NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
TOKEN = re.compile(rb"\S+")
KINDS = (
    "truncate",
    "delete_token",
    "insert_token",
    "replace_number",
    "swap_lines",
    "duplicate_line",
    "all_line_ends",
    "one_line_end",
)
LINE_ENDS = (b"\n", b"\r\n", b"\r")


@dataclass(frozen=True)
class Mutation:
    """One edit of a file: ``kind``, two free integers (positions) and a token to use."""

    kind: str
    at: int
    other: int
    token: bytes

    def apply(self, data: bytes) -> bytes:
        """``data`` after this edit (positions are taken modulo what is there)."""
        return getattr(self, f"_{self.kind}")(data)

    def _truncate(self, data: bytes) -> bytes:
        return data[: self.at % (len(data) + 1)]

    def _delete_token(self, data: bytes) -> bytes:
        spans = [m.span() for m in TOKEN.finditer(data)]
        if not spans:
            return data
        start, end = spans[self.at % len(spans)]
        return data[:start] + data[end:]

    def _insert_token(self, data: bytes) -> bytes:
        at = self.at % (len(data) + 1)
        spaced = self.other % 2 == 0  # else glued to its neighbours, splitting a token
        token = b" " + self.token + b" " if spaced else self.token
        return data[:at] + token + data[at:]

    def _replace_number(self, data: bytes) -> bytes:
        spans = [m.span() for m in NUMBER.finditer(data)]
        if not spans:
            return data
        start, end = spans[self.at % len(spans)]
        text = TEXT_FOR_NUMBERS[self.other % len(TEXT_FOR_NUMBERS)]
        return data[:start] + text + data[end:]

    def _swap_lines(self, data: bytes) -> bytes:
        lines = data.splitlines(keepends=True)
        if len(lines) < 2:
            return data
        i, j = self.at % len(lines), self.other % len(lines)
        lines[i], lines[j] = lines[j], lines[i]
        return b"".join(lines)

    def _duplicate_line(self, data: bytes) -> bytes:
        lines = data.splitlines(keepends=True)
        if not lines:
            return data
        i = self.at % len(lines)
        return b"".join([*lines[: i + 1], lines[i], *lines[i + 1 :]])

    def _all_line_ends(self, data: bytes) -> bytes:
        end = LINE_ENDS[self.other % len(LINE_ENDS)]
        return b"".join(line.rstrip(b"\r\n") + end for line in data.splitlines(keepends=True))

    def _one_line_end(self, data: bytes) -> bytes:
        lines = data.splitlines(keepends=True)
        if not lines:
            return data
        i = self.at % len(lines)
        lines[i] = lines[i].rstrip(b"\r\n") + LINE_ENDS[self.other % len(LINE_ENDS)]
        return b"".join(lines)


@cache
def base_file(name: str) -> bytes:
    """The sample ``name`` with its header intact and only its first frames kept."""
    lines = (SAMPLE_DIR / name).read_bytes().splitlines(keepends=True)
    time_line = next(i for i, line in enumerate(lines) if re.match(rb"\s*Frame\s*Time", line))
    frames = [line for line in lines[time_line + 1 :] if line.strip()][:KEEP_FRAMES]
    header = b"".join(lines[: time_line + 1])
    header = re.sub(rb"(Frames\s*:\s*)\d+", rb"\g<1>%d" % len(frames), header, count=1)
    return header + b"".join(frames)


mutations = st.builds(
    Mutation,
    kind=st.sampled_from(KINDS),
    at=st.integers(0, 2**32 - 1),
    other=st.integers(0, 2**32 - 1),
    token=st.sampled_from(INSERTED_TOKENS),
)
mutated_files = st.builds(
    lambda name, edits: _apply_all(base_file(name), edits),
    st.sampled_from(SOURCES),
    st.lists(mutations, min_size=1, max_size=3),
)


def _apply_all(data: bytes, edits: list[Mutation]) -> bytes:
    for edit in edits:
        data = edit.apply(data)
    return data


def _text_lines(data: bytes) -> list[str]:
    """The lines the reader sees: UTF-8 (else latin-1), any line end counted once."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def check_load(data: bytes) -> str:
    """``load(data)`` gives a sound clip or a BVHParseError located inside ``data``.

    Returns what happened (``"loaded"`` or ``"raised BVHParseError"``).
    """
    try:
        clip = bvh.load(data)
    except BVHParseError as error:
        lines = _text_lines(data)
        assert isinstance(error.line, int) and isinstance(error.column, int)
        assert 1 <= error.line <= len(lines) + 1, (error, len(lines))
        width = len(lines[error.line - 1]) if error.line <= len(lines) else 0
        assert 1 <= error.column <= width + 1, (error, width)
        assert error.message and error.message.endswith("."), error.message
        return "raised BVHParseError"
    assert clip.num_frames >= 1
    assert np.isfinite(clip.rotations).all()
    assert np.isfinite(clip.translations).all()
    assert np.isfinite(clip.skeleton.offsets).all()
    np.testing.assert_allclose(np.linalg.norm(clip.rotations, axis=-1), 1.0, atol=1e-9)
    assert np.isfinite(clip.fps) and clip.fps > 0
    return "loaded"


@pytest.mark.parametrize("name", SOURCES)
def test_trimmed_samples_load_before_any_mutation(name: str) -> None:
    clip = bvh.load(base_file(name))
    assert clip.meta["warnings"] == []
    assert 1 <= clip.num_frames <= KEEP_FRAMES
    assert clip.num_frames == clip.meta["declared_frames"]


def test_each_mutation_kind_changes_the_file() -> None:
    data = base_file(SOURCES[0])
    for kind in KINDS:
        edited = Mutation(kind, 12345, 2, b"JOINT").apply(data)
        assert edited != data, kind


def test_a_mutated_file_that_still_loads_is_sound() -> None:
    data = base_file("games105/run_forward.bvh")
    swapped = Mutation("all_line_ends", 0, 2, b"").apply(data)  # CRLF -> CR
    assert check_load(swapped) == "loaded"
    assert bvh.load(swapped).num_frames == KEEP_FRAMES


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=mutated_files)
def test_mutated_samples_load_or_raise_located_parse_errors(data: bytes) -> None:
    event(check_load(data))


@pytest.mark.slow
@settings(
    max_examples=10_000,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=mutated_files)
def test_mutated_samples_load_or_raise_located_parse_errors_10k(data: bytes) -> None:
    event(check_load(data))
