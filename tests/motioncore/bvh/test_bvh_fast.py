"""The compiled fast path of the BVH reader agrees with the general reader, bit for bit,
and never accepts a file the general reader would reject."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bvh_fuzz import mutated_files

from motioncore import bvh
from motioncore.bvh import fast as bvh_fast
from motioncore.bvh import text as bvh_text
from motioncore.errors import BVHParseError
from support.corpus import corpus_bvh_params

pytestmark = pytest.mark.skipif(not bvh_fast.available(), reason="numba is not installed")


def assert_same_raw(fast: bvh_text.RawBVH, general: bvh_text.RawBVH) -> None:
    assert fast.joints == general.joints
    assert fast.frame_time_s == general.frame_time_s
    assert fast.declared_frames == general.declared_frames
    assert fast.warnings == general.warnings
    assert fast.line_endings == general.line_endings
    assert fast.values.shape == general.values.shape
    assert np.array_equal(fast.values.view(np.int64), general.values.view(np.int64))  # bitwise


@pytest.mark.parametrize(("path", "row"), corpus_bvh_params())
def test_fast_path_is_bit_identical_on_every_corpus_file(path: Path, row: dict[str, str]) -> None:
    data = path.read_bytes()
    fast = bvh_fast.read(data, min_bytes=0)
    assert fast is not None, "the fast path declined a well-formed corpus file"
    assert_same_raw(fast, bvh_text.read(data))


def test_load_takes_the_fast_path_for_large_files(sample_dir: Path) -> None:
    data = (sample_dir / "cmu-bvh11" / "131_02.bvh").read_bytes()
    assert len(data) >= bvh_fast.MIN_BYTES
    assert bvh_fast.read(data) is not None
    clip = bvh.load(data)
    assert clip.num_frames == 1247 and clip.meta["line_endings"] == "mixed"


@given(
    values=st.lists(
        st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6),
        min_size=3,
        max_size=3,
    ),
    style=st.sampled_from(["%.6f", "%g", "%.9g", "%e", "%.3E", "%r", "%d", "%+.4f", "%.0f."]),
)
@settings(max_examples=500, deadline=None)
def test_numbers_convert_exactly_like_the_general_reader(values: list[float], style: str) -> None:
    tokens = [repr(v) if style == "%r" else style % v for v in values]
    text = (
        "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n}\n"
        f"MOTION\nFrames: 1\nFrame Time: 0.1\n{' '.join(tokens)}\n"
    )
    data = text.encode()
    general = bvh_text.read(data)
    fast = bvh_fast.read(data, min_bytes=0)
    if fast is not None:  # declining (e.g. 17 significant digits) is allowed, disagreeing is not
        assert_same_raw(fast, general)


@pytest.mark.parametrize(
    "frame_lines",
    [
        "1 2 3\n1 2\n",  # wrong count
        "1 2 3\n1 2 3 4\n",
        "1 2 x\n1 2 3\n",  # text
        "1 2 nan\n1 2 3\n",
        "1 2 inf\n1 2 3\n",
        "1 2 3\n",  # fewer frames than declared
        "1 2 3\n1 2 3\n1 2 3\n",  # more
        "1 2 1e400\n1 2 3\n",
        "1 2 1.5.1\n1 2 3\n",
        "1 2 --1\n1 2 3\n",
    ],
)
def test_malformed_frames_fall_back_to_the_located_general_error(frame_lines: str) -> None:
    text = (
        "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 3 Xposition Yposition Zposition\n}\n"
        f"MOTION\nFrames: 2\nFrame Time: 0.1\n{frame_lines}"
    )
    data = text.encode()
    assert bvh_fast.read(data, min_bytes=0) is None
    with pytest.raises(BVHParseError) as general:
        bvh_text.read(data)
    assert general.value.line >= 10


def test_lone_cr_line_ends_are_left_to_the_general_path() -> None:
    text = (
        "HIERARCHY\rROOT a\r{\r OFFSET 0 0 0\r CHANNELS 3 Xposition Yposition Zposition\r}\r"
        "MOTION\rFrames: 2\rFrame Time: 0.1\r1 2 3\r4 5 6\r"
    )
    assert bvh_fast.read(text.encode(), min_bytes=0) is None
    raw = bvh_text.read(text.encode())
    assert raw.line_endings == "CR" and raw.values.shape == (2, 3)


def check_fast_agrees(data: bytes) -> None:
    fast = bvh_fast.read(data, min_bytes=0)
    if fast is None:
        return
    try:
        general = bvh_text.read(data)
    except BVHParseError as error:  # pragma: no cover - this is the failure being hunted
        pytest.fail(f"fast path accepted a file the general reader rejects: {error}")
    assert_same_raw(fast, general)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=mutated_files)
def test_fast_path_never_accepts_what_the_general_reader_rejects(data: bytes) -> None:
    check_fast_agrees(data)


@pytest.mark.slow
@settings(
    max_examples=10_000,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=mutated_files)
def test_fast_path_never_accepts_what_the_general_reader_rejects_10k(data: bytes) -> None:
    check_fast_agrees(data)
