"""What a BVH file may declare (:class:`motioncore.bvh.Limits`), checked before the frames
are allocated, on both readers (issue 16, findings 2 and 9)."""

from __future__ import annotations

import tracemalloc

import pytest

from motioncore import bvh
from motioncore.bvh import fast
from motioncore.bvh.limits import MAX_DEPTH, Limits
from motioncore.errors import BVHLimitError, BVHParseError
from support.paths import SAMPLE_DIR

WALK = SAMPLE_DIR / "games105" / "walk60.bvh"  # 182 frames at 60 Hz, 25 joints (130 kB: fast)
HEADER = "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xrotation Yrotation Zrotation\n"


def _nested(levels: int) -> str:
    joint = "JOINT j\n{\n  OFFSET 0 1 0\n  CHANNELS 3 Xrotation Yrotation Zrotation\n"
    text = HEADER + joint * levels + "}\n" * (levels + 1)
    return text + "MOTION\nFrames: 1\nFrame Time: 0.1\n" + "0 " * (3 * (levels + 1)) + "\n"


def test_a_channel_less_file_cannot_declare_frames_it_does_not_have() -> None:
    """125 bytes declaring a million frames: refused, and nothing near the 10⁶-frame arrays
    is allocated on the way."""
    text = "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 0\n}\nMOTION\nFrames: 1000000\n"
    text += "Frame Time: 0.0333\n"
    tracemalloc.start()
    with pytest.raises(BVHParseError, match="declares 1000000 frames but 0 frame lines"):
        bvh.load(text, unit="m")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 5_000_000


def test_nesting_deeper_than_the_limit_is_refused_not_a_recursion_error() -> None:
    with pytest.raises(BVHLimitError, match=f"nested more than {MAX_DEPTH} deep") as error:
        bvh.load(_nested(1000))
    assert error.value.limit == "max_depth"
    with pytest.raises(BVHLimitError, match="nested more than 8 deep"):
        bvh.load(_nested(8), limits=Limits(max_depth=8))
    assert bvh.load(_nested(7), limits=Limits(max_depth=8)).skeleton.parents.shape == (8,)


@pytest.mark.parametrize(
    ("limits", "limit"),
    [
        (Limits(max_frames=181), "max_frames"),
        (Limits(max_duration_s=3.0), "max_duration_s"),
        (Limits(max_frame_joints=182 * 25 - 1), "max_frame_joints"),
        (Limits(max_joints=24), "max_joints"),
    ],
)
@pytest.mark.parametrize("reader", ["fast", "general"])
def test_each_limit_stops_both_readers(limits: Limits, limit: str, reader: str) -> None:
    data = WALK.read_bytes()
    source: bytes | str = data if reader == "fast" else data.decode()  # text: general path
    assert fast.read(data) is not None  # bytes this size take the fast path
    with pytest.raises(BVHLimitError) as error:
        bvh.load(source, limits=limits)
    assert error.value.limit == limit and error.value.value > error.value.maximum


def test_a_file_at_the_limits_loads() -> None:
    clip = bvh.load(WALK.read_bytes(), limits=Limits(max_frames=182, max_frame_joints=182 * 25))
    assert clip.num_frames == 182


def test_limits_are_validated() -> None:
    with pytest.raises(ValueError, match="max_depth"):
        Limits(max_depth=MAX_DEPTH + 1)
    with pytest.raises(ValueError, match="max_frames"):
        Limits(max_frames=0)
