"""Malformed BVH input: every failure is a located :class:`BVHParseError` with a readable sentence.

One test per kind of damage, on tiny hand-made files, asserting the exact 1-based line
and column. Also the inputs that must *not* fail: odd line ends and spacing, forests,
top-level JOINTs, joints with 0 / 3 / 6 channels, latin-1 bytes.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from motioncore import bvh, quat
from motioncore.bvh import hierarchy as bvh_hierarchy
from motioncore.bvh import text as bvh_text
from motioncore.clip import Clip
from motioncore.errors import BVHParseError

# Line numbers, for reading the tests:
#  1 HIERARCHY            8 OFFSET (Chest)      15 }
#  2 ROOT Hips            9 CHANNELS 3 ...      16 MOTION
#  3 {                   10 End Site            17 Frames: 2
#  4 OFFSET              11 {                   18 Frame Time: 0.033333
#  5 CHANNELS 6 ...      12 OFFSET (end)        19 first frame
#  6 JOINT Chest         13 }                   20 second frame
#  7 {                   14 }
GOOD = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Chest
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 5 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.033333
0 90 0 0 0 0 0 0 0
1 90 0 10 0 0 0 0 0
"""

FOREST = """HIERARCHY
ROOT A
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT A1
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 5 0
    }
  }
}
ROOT B
{
  OFFSET 100 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT B1
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
  }
}
MOTION
Frames: 1
Frame Time: 0.04
0 90 0 0 0 0 0 0 0 100 90 0 0 0 0 0 0 0
"""

# Hips: 6 channels; Spine: 0; Chest: 6 (positions on a non-root joint); Neck: 3 positions
# only; a JOINT named Site with CHANNELS 0 (some exporters' end effector); Leg: none at all.
MIXED_CHANNELS = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Spine
  {
    OFFSET 0 10 0
    CHANNELS 0
    JOINT Chest
    {
      OFFSET 0 10 0
      CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
      JOINT Neck
      {
        OFFSET 0 5 0
        CHANNELS 3 Xposition Yposition Zposition
        JOINT Site
        {
          OFFSET 0 3 0
          CHANNELS 0
        }
      }
    }
  }
  JOINT Leg
  {
    OFFSET 5 -10 0
  }
}
MOTION
Frames: 2
Frame Time: 0.01
0 90 0 0 0 0 0 10 0 0 0 0 0 5 0
0 91 0 0 0 0 1 11 2 10 20 30 0 6 0
"""

MIXED_ENDINGS = ("\r\n", "\r", "\n")
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
"""A quoted piece of the input (``repr`` of a token), which may contain anything."""
_REPR_NOISE = re.compile(r"Error|Exception|Traceback|<|>|\\x|\bNone\b|numpy|float64")


def _with_line(number: int, line: str, text: str = GOOD) -> str:
    """``text`` with its 1-based line ``number`` replaced by ``line``."""
    lines = text.split("\n")
    lines[number - 1] = line
    return "\n".join(lines)


def _assert_readable(message: str) -> None:
    """One or more sentences: a capital (or a quoted keyword) first, a full stop last."""
    assert re.match(r"^'?[A-Z]", message), message
    assert message.endswith("."), message
    assert not _REPR_NOISE.search(_QUOTED.sub("'…'", message)), message
    assert "\n" not in message and len(message) < 200, message


def _parse_error(source: str | bytes | Path, **options: str) -> BVHParseError:
    with pytest.raises(BVHParseError) as caught:
        bvh.load(source, **options)  # type: ignore[arg-type]
    error = caught.value
    _assert_readable(error.message)
    return error


def _assert_error_at(
    source: str | bytes, line: int, column: int, words: str, **options: str
) -> BVHParseError:
    error = _parse_error(source, **options)
    assert (error.line, error.column) == (line, column), error
    assert words in error.message, error.message
    return error


def _assert_same_clip(a: Clip, b: Clip) -> None:
    assert a.skeleton.names == b.skeleton.names
    np.testing.assert_array_equal(a.skeleton.parents, b.skeleton.parents)
    np.testing.assert_array_equal(a.rotations, b.rotations)
    np.testing.assert_array_equal(a.translations, b.translations)
    assert a.fps == b.fps


def test_the_reference_file_loads() -> None:
    clip = bvh.load(GOOD)
    assert clip.num_frames == 2
    assert clip.skeleton.names == ("Hips", "Chest", "Chest_End")
    assert clip.meta["warnings"] == []


# --------------------------------------------------------------------------- truncation


def test_file_truncated_in_the_hierarchy() -> None:
    cut = GOOD[: GOOD.index("End Site")]  # ends on line 10
    _assert_error_at(cut, 10, 1, "MOTION section is missing")


def test_file_truncated_in_a_frame_line() -> None:
    cut = GOOD[: GOOD.index("1 90 0 10") + len("1 90 0 10")]
    _assert_error_at(cut, 20, 10, "has 4 values but the hierarchy declares 9 channels")


def test_file_truncated_after_frame_time_has_no_frame_lines() -> None:
    cut = GOOD[: GOOD.index("0 90 0 0")]
    _assert_error_at(cut, 19, 1, "no frame lines")


def test_file_truncated_after_motion() -> None:
    _assert_error_at(GOOD[: GOOD.index("Frames")], 17, 1, "'Frames:' line is missing")


# --------------------------------------------------------------------------- values


def test_non_numeric_value_on_a_frame_line() -> None:
    error = _assert_error_at(_with_line(19, "0 90 0 abc 0 0 0 0 0"), 19, 8, "'abc' is not a number")
    assert str(error).startswith("line 19, column 8: ")


@pytest.mark.parametrize("text", ["1_0", "\uff11", "0x10", "1.2.3", "--1", "e5", "."])
def test_numbers_python_would_accept_but_the_fast_path_refuses_are_located(text: str) -> None:
    _assert_error_at(_with_line(20, f"1 90 0 10 0 {text} 0 0 0"), 20, 13, "is not a number")


@pytest.mark.parametrize(
    ("line", "column", "count"),
    [("0 90 0 0 0 0 0 0", 17, 8), ("0 90 0 0 0 0 0 0 0 7", 19, 10), ("0", 2, 1)],
)
def test_wrong_number_of_values_on_a_frame_line(line: str, column: int, count: int) -> None:
    words = f"has {count} values but the hierarchy declares 9 channels"
    _assert_error_at(_with_line(19, line), 19, column, words)


@pytest.mark.parametrize(
    ("line", "column", "value"),
    [
        (19, 8, "nan"),
        (19, 8, "NaN"),
        (20, 13, "inf"),
        (20, 13, "-Infinity"),
        (20, 13, "1e999"),
    ],
)
def test_nan_and_infinity_in_frames_are_refused(line: int, column: int, value: str) -> None:
    text = _with_line(19, f"0 90 0 {value} 0 0 0 0 0") if line == 19 else GOOD
    if line == 20:
        text = _with_line(20, f"1 90 0 10 0 {value} 0 0 0")
    _assert_error_at(text, line, column, "is not a finite number")


@pytest.mark.parametrize("value", ["nan", "inf", "-1e400"])
def test_nan_and_infinity_in_an_offset_are_refused(value: str) -> None:
    _assert_error_at(_with_line(8, f"    OFFSET 0 {value} 0"), 8, 14, "not a finite number")


def test_text_in_an_offset() -> None:
    _assert_error_at(
        _with_line(8, "    OFFSET 0 ten 0"), 8, 14, "OFFSET value 'ten' is not a number"
    )


def test_offset_with_two_values() -> None:
    _assert_error_at(_with_line(8, "    OFFSET 0 10"), 8, 5, "OFFSET needs three numbers")


# --------------------------------------------------------------------------- frame count


def test_declared_frame_count_above_frames_present() -> None:
    _assert_error_at(_with_line(17, "Frames: 3"), 20, 1, "declares 3 frames but 2 frame lines")


def test_declared_frame_count_below_frames_present_points_at_the_first_extra_frame() -> None:
    _assert_error_at(_with_line(17, "Frames: 1"), 20, 1, "declares 1 frames but 2 frame lines")


@pytest.mark.parametrize("frames", ["3", "1"])
def test_warn_policy_keeps_the_frames_present_and_records_a_warning(frames: str) -> None:
    clip = bvh.load(_with_line(17, f"Frames: {frames}"), frame_count="warn")
    assert clip.num_frames == 2
    assert clip.meta["declared_frames"] == int(frames)
    (warning,) = clip.meta["warnings"]  # type: ignore[misc]
    assert f"declares {frames} frames but 2 frame lines are present" in warning


def test_unknown_frame_count_policy_is_a_parse_error() -> None:
    error = _parse_error(GOOD, frame_count="sometimes")
    assert (error.line, error.column) == (0, 0)
    assert "'error' or 'warn'" in error.message


@pytest.mark.parametrize("frames", ["0", "-3", "99999999999"])
def test_unusable_frame_counts(frames: str) -> None:
    _assert_error_at(_with_line(17, f"Frames: {frames}"), 17, 1, "not a usable frame count")


@pytest.mark.parametrize("frames", ["many", "2.5", ""])
def test_frame_count_that_is_not_a_whole_number(frames: str) -> None:
    _assert_error_at(_with_line(17, f"Frames: {frames}"), 17, 1, "needs a whole number")


@pytest.mark.parametrize("seconds", ["1000", "0", "-0.1", "1e-9", "nan"])
def test_absurd_frame_times(seconds: str) -> None:
    _assert_error_at(_with_line(18, f"Frame Time: {seconds}"), 18, 1, "not a usable frame time")


def test_frame_time_that_is_not_a_number() -> None:
    _assert_error_at(_with_line(18, "Frame Time: fast"), 18, 1, "needs a number, not 'fast'")


# --------------------------------------------------------------------------- hierarchy


def test_unknown_channel_name() -> None:
    text = _with_line(9, "    CHANNELS 3 Zrotation Xrotatoin Yrotation")
    _assert_error_at(text, 9, 26, "Unknown channel name 'Xrotatoin'")


def test_channel_listed_twice() -> None:
    text = _with_line(9, "    CHANNELS 3 Zrotation Zrotation Yrotation")
    _assert_error_at(text, 9, 5, "listed twice")


def test_channels_count_that_is_not_a_number() -> None:
    text = _with_line(9, "    CHANNELS three Zrotation Xrotation Yrotation")
    _assert_error_at(text, 9, 14, "CHANNELS needs a count, not 'three'")


@pytest.mark.parametrize("count", ["-3", "65", "99999"])
def test_absurd_channel_counts(count: str) -> None:
    text = _with_line(9, f"    CHANNELS {count} Zrotation Xrotation Yrotation")
    _assert_error_at(text, 9, 14, f"cannot have {count} channels")


def test_too_few_channel_names_for_the_count() -> None:
    text = _with_line(9, "    CHANNELS 4 Zrotation Xrotation Yrotation")
    _assert_error_at(text, 10, 5, "Unknown channel name 'End'")


def test_extra_closing_brace() -> None:
    text = GOOD.replace("}\nMOTION", "}\n}\nMOTION")
    _assert_error_at(text, 16, 1, "no matching '{'")


def test_missing_closing_brace() -> None:
    text = GOOD.replace("}\nMOTION", "MOTION")  # MOTION moves up to line 15
    _assert_error_at(text, 15, 1, "a '}' is missing")


def test_missing_opening_brace() -> None:
    _assert_error_at(_with_line(7, "  "), 8, 5, "Expected '{' but found 'OFFSET'")


def test_end_site_as_root() -> None:
    text = "HIERARCHY\nEnd Site\n{\n  OFFSET 0 0 0\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n\n"
    _assert_error_at(text, 2, 1, "Expected ROOT but found 'End'")


def test_joint_without_a_name() -> None:
    _assert_error_at(_with_line(6, "  JOINT"), 6, 3, "has no name")


def test_unknown_keyword_inside_a_joint() -> None:
    _assert_error_at(_with_line(10, "    Foo Site"), 10, 5, "found 'Foo'")


def test_too_many_joints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bvh_hierarchy, "MAX_JOINTS", 1)
    _assert_error_at(GOOD, 6, 3, "more than 1 joints")


# --------------------------------------------------------------------------- whole-file problems


@pytest.mark.parametrize("source", ["", "   \n\t\n", b"", b"\n\n"])
def test_empty_file(source: str | bytes) -> None:
    _assert_error_at(source, 1, 1, "The file is empty")


def test_binary_junk() -> None:
    _assert_error_at(bytes(range(256)) * 4, 1, 1, "binary file")


def test_text_junk_without_nul_bytes() -> None:
    junk = bytes(range(32, 256)) * 4 + b"\n"
    _assert_error_at(junk, 1, 1, "starts with HIERARCHY")


def test_utf16_is_reported_as_binary() -> None:
    _assert_error_at(GOOD.encode("utf-16"), 1, 1, "binary file")


def test_missing_motion() -> None:
    _assert_error_at(GOOD[: GOOD.index("MOTION")], 16, 1, "MOTION section is missing")


def test_missing_frames_line() -> None:
    _assert_error_at(GOOD.replace("Frames: 2\n", ""), 17, 1, "'Frames:' line is missing")


def test_missing_frame_time_line() -> None:
    text = GOOD.replace("Frame Time: 0.033333\n", "")
    _assert_error_at(text, 18, 1, "'Frame Time:' line is missing")


def test_junk_between_motion_and_frames() -> None:
    _assert_error_at(GOOD.replace("MOTION\n", "MOTION\njunk\n"), 17, 1, "Unexpected 'junk'")


def test_absurdly_long_value() -> None:
    text = _with_line(19, "0 90 0 " + "1" * (bvh_text.MAX_VALUE_BYTES + 1) + " 0 0 0 0 0")
    _assert_error_at(text, 19, 8, "absurdly long")


def test_file_over_the_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bvh_text, "MAX_FILE_BYTES", 100)
    error = _parse_error(GOOD)
    assert (error.line, error.column) == (0, 0)  # about the whole file
    assert "larger than" in error.message


def test_path_that_does_not_exist(tmp_path: Path) -> None:
    for source in (tmp_path / "missing.bvh", str(tmp_path / "missing.bvh")):
        error = _parse_error(source)
        assert (error.line, error.column) == (0, 0)
        assert "could not be read" in error.message
        assert str(error) == error.message  # no location to show


def test_overrides_that_make_no_sense_are_parse_errors() -> None:
    assert "Unknown unit" in _parse_error(GOOD, unit="furlong").message
    assert "Unknown up axis" in _parse_error(GOOD, up_axis="W").message


def test_as_dict_is_json_ready() -> None:
    error = _parse_error(_with_line(19, "0 90 0 abc 0 0 0 0 0"))
    assert error.as_dict() == {
        "line": 19,
        "column": 8,
        "message": "The value 'abc' is not a number.",
    }


# --------------------------------------------------------------------------- inputs that load


def test_latin1_bytes_load_with_the_accented_name(tmp_path: Path) -> None:
    text = GOOD.replace("Chest", "Brüst")
    path = tmp_path / "latin1.bvh"
    path.write_bytes(text.encode("latin-1"))
    for source in (text.encode("latin-1"), path, text.encode("utf-8"), text):
        assert bvh.load(source).skeleton.names[1] == "Brüst"


def test_utf8_byte_order_mark_is_ignored() -> None:
    _assert_same_clip(bvh.load(b"\xef\xbb\xbf" + GOOD.encode()), bvh.load(GOOD))


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("CRLF", GOOD.replace("\n", "\r\n")),
        ("CR", GOOD.replace("\n", "\r")),
        ("mixed", "".join(ln + MIXED_ENDINGS[i % 3] for i, ln in enumerate(GOOD.split("\n")))),
    ],
)
def test_line_endings_load_identically_to_lf(name: str, text: str) -> None:
    reference = bvh.load(GOOD)
    for source in (text, text.encode()):
        clip = bvh.load(source)
        _assert_same_clip(clip, reference)
        assert clip.meta["line_endings"] == name


@pytest.mark.parametrize("ending", ["\r\n", "\r"])
def test_errors_in_crlf_and_cr_files_point_at_the_same_place(ending: str) -> None:
    text = _with_line(19, "0 90 0 abc 0 0 0 0 0").replace("\n", ending)
    _assert_error_at(text, 19, 8, "'abc' is not a number")
    text = _with_line(9, "    CHANNELS 3 Zrotation Xrotatoin Yrotation").replace("\n", ending)
    _assert_error_at(text, 9, 26, "Xrotatoin")


@pytest.mark.parametrize(
    ("frames", "frame_time"),
    [
        ("Frames:2", "Frame Time:0.033333"),
        ("\tFrames:\t 2 \t", "  Frame   Time:\t0.033333\t"),
        ("frames: 2", "frame time: 0.033333"),
        ("Frames :  2", "Frame Time :   0.033333"),
    ],
)
def test_tabs_and_odd_spacing_in_the_motion_header(frames: str, frame_time: str) -> None:
    text = _with_line(18, frame_time, _with_line(17, frames))
    _assert_same_clip(bvh.load(text), bvh.load(GOOD))


def test_tabs_and_blank_lines_between_frames_are_fine() -> None:
    text = GOOD.replace("0 90 0 0 0 0 0 0 0\n", "0\t90 0  0 0 0 0 0 0\n\n\t\n")
    _assert_same_clip(bvh.load(text), bvh.load(GOOD))


def test_a_one_frame_file() -> None:
    text = _with_line(17, "Frames: 1", GOOD[: GOOD.index("1 90 0 10")])
    clip = bvh.load(text)
    assert clip.num_frames == 1
    assert clip.duration_s == 0.0


def test_several_roots_make_a_forest() -> None:
    clip = bvh.load(FOREST, unit="cm", up_axis="Y", position_mode="replace")
    assert clip.skeleton.names == ("A", "A1", "A1_End", "B", "B1")
    np.testing.assert_array_equal(clip.skeleton.parents, [-1, 0, 1, -1, 3])
    assert clip.skeleton.kinds == ("ROOT", "JOINT", "End Site", "ROOT", "JOINT")
    np.testing.assert_allclose(clip.translations[0, 3], [1.0, 0.9, 0.0], atol=1e-12)
    assert clip.meta["warnings"] == []


def test_a_top_level_joint_is_read_as_a_root_with_a_warning() -> None:
    clip = bvh.load(FOREST.replace("ROOT B", "JOINT B"))
    np.testing.assert_array_equal(clip.skeleton.parents, [-1, 0, 1, -1, 3])
    assert clip.meta["warnings"] == ["Line 16: a top-level JOINT was read as a ROOT."]


def test_joints_with_zero_three_and_six_channels() -> None:
    clip = bvh.load(MIXED_CHANNELS, unit="m", up_axis="Y", position_mode="replace")
    sk = clip.skeleton
    assert sk.names == ("Hips", "Spine", "Chest", "Neck", "Site", "Leg")
    np.testing.assert_array_equal(sk.parents, [-1, 0, 1, 2, 3, 0])
    assert [len(c) for c in sk.channels] == [6, 0, 6, 3, 0, 0]
    assert sk.channels[3] == ("Xposition", "Yposition", "Zposition")
    assert sk.kinds[4] == "JOINT"  # 'JOINT Site' keeps its declared kind and name
    np.testing.assert_array_equal(sk.end_site, [False, False, False, False, True, True])
    # Position channels on non-root joints replace the OFFSET (forced here).
    np.testing.assert_allclose(clip.translations[1, 2], [1.0, 11.0, 2.0])
    np.testing.assert_allclose(clip.translations[1, 3], [0.0, 6.0, 0.0])
    # Joints without rotation channels keep the identity; the rest follow their channels.
    identity = quat.identity((2,))
    for joint in (1, 3, 4, 5):
        np.testing.assert_array_equal(clip.rotations[:, joint], identity)
    expected = quat.from_euler(np.radians([[0.0, 0.0, 0.0], [10.0, 20.0, 30.0]]), "ZXY")
    np.testing.assert_allclose(clip.rotations[:, 2], expected, atol=1e-12)
    # Joints without position channels sit at their OFFSET.
    np.testing.assert_allclose(clip.translations[:, 1], [[0.0, 10.0, 0.0]] * 2)
    np.testing.assert_allclose(clip.translations[:, 5], [[5.0, -10.0, 0.0]] * 2)


def test_a_skeleton_without_channels_has_blank_frame_lines_and_round_trips() -> None:
    text = "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 0\n  End Site\n  {\n"
    text += "    OFFSET 0 1 0\n  }\n}\nMOTION\nFrames: 3\nFrame Time: 0.1\n\n\n\n"
    clip = bvh.load(text, unit="m")
    assert clip.num_frames == 3
    again = bvh.load(bvh.dump(clip), unit="m")
    assert again.num_frames == 3
    _assert_error_at(text.replace("0.1\n\n\n", "0.1\n\n 7\n"), 15, 2, "has 1 values")
