"""LabanWriter 4 text into the score format (motioncore.laban.importers.labanwriter).

No real LabanWriter file is available: every input here is hand-written in the module's
*assumed* record vocabulary (``tests/data/labanwriter/*.lw4.txt`` and inline texts), so
these tests check the importer against its own documented layout, not against LabanWriter.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from motioncore.laban import score
from motioncore.laban.importers import labanwriter
from motioncore.laban.score import ScoreError, Symbol
from motioncore.laban.synthesize import FPS, synthesize
from support.paths import REPO_ROOT, SAMPLE_DIR

DATA = SAMPLE_DIR / "labanwriter"
ROOT = REPO_ROOT
# centre line x=300, start line y=500, end line y=100, columns 20 wide, 2 beats a measure
# and bar lines every 100 units: one beat is 50 units.
STAFF = (
    "LabanWriter; 4000;\nmeter 2;\nstaff 300 500 100 20;\nmeasure 400; measure 300; measure 200;\n"
)


def _load(body: str, grid_beats: float = labanwriter.GRID_BEATS) -> labanwriter.LabanWriterImport:
    return labanwriter.load_bytes((STAFF + body).encode(), "inline", grid_beats=grid_beats)


def _problems(data: bytes | str) -> list[str]:
    raw = data.encode() if isinstance(data, str) else data
    with pytest.raises(ScoreError) as caught:
        labanwriter.load_bytes(raw)
    return caught.value.problems


def _at(imported: labanwriter.LabanWriterImport, column: str, beat: float) -> Symbol:
    (found,) = [
        s for s in imported.score.column(column) if s.beat == beat and s.kind != "step_size"
    ]
    return found


def _body_records(text: str) -> tuple[str, list[str]]:
    """(header, body records) of a text: comment lines dropped, split on ``;``."""
    kept = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    records = [r.strip() for r in kept.split(";") if r.strip()]
    return "; ".join(records[:2]) + ";\n", records[2:]


# --- the container -------------------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        "LabanWriter; 4000;",
        "labanwriter;4000;",
        "  LABANWRITER ;\n\t4000 ;",
        "# a comment first\nLabanWriter; 4000;",
        "\ufeffLabanWriter; 4000;",
    ],
)
def test_the_header_tolerates_whitespace_case_comments_and_a_bom(header: str) -> None:
    text = header + STAFF.split(";", 2)[2] + "symbol hold 302 450 16 50;"
    imported = labanwriter.load_bytes(text.encode("utf-8"))
    assert [s.kind for s in imported.score.symbols] == ["hold"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "empty file: expected the header 'LabanWriter; 4000;'"),
        ("# only a comment\n", "empty file"),
        ("Labanotation; 4000;", "found 'Labanotation'"),
        ("LabanWriter 4000; staff 1 2 3 4;", "found 'LabanWriter 4000'"),
        ('{"format": "kinetograph-score/1"}', 'found \'{"format": "kinetograph-score/1"}\''),
        ("LabanWriter; 3000;", "LabanWriter version '3000' is not read: only 4000"),
        ("LabanWriter; 4.0;", "version '4.0'"),
        ("LabanWriter;", "version ''"),
    ],
)
def test_anything_but_the_header_is_refused_naming_what_was_found(text: str, said: str) -> None:
    (problem,) = _problems(text)
    assert said in problem


def test_binary_non_utf8_and_oversized_input_is_refused() -> None:
    assert "control byte 0x00 at offset 12" in _problems(b"LabanWriter;\x00 4000;")[0]
    assert "not UTF-8" in _problems(b"LabanWriter; 4000; tempo \xff;")[0]
    with pytest.raises(ScoreError, match="at most 100 are read"):
        labanwriter.load_bytes(STAFF.encode() + b" " * 100, max_bytes=100)


def test_comment_lines_are_skipped_even_inside_a_record_and_with_semicolons() -> None:
    imported = _load(
        "# symbol dir:forward:high 362 400 16 100; a commented-out record\n"
        "symbol dir:forward:middle\n"
        "  # a comment line in the middle of a record; it holds a ';' too\n"
        "  302 450 16 50;\n"
    )
    (symbol,) = imported.score.symbols
    assert (symbol.column, symbol.direction, symbol.beat, symbol.duration) == (
        "support_right",
        "forward",
        0.0,
        1.0,
    )
    assert imported.records == 6 and imported.ignored == ()  # meter, staff, 3 bars, 1


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_unix_windows_and_classic_mac_line_ends_read_alike(newline: str) -> None:
    text = (DATA / "walk.lw4.txt").read_text(encoding="utf-8")
    imported = labanwriter.load_bytes(text.replace("\n", newline).encode(), "walk.lw4")
    assert imported.score == labanwriter.load_file(DATA / "walk.lw4.txt").score
    assert [i.line for i in imported.ignored] == [31, 32, 33, 34]


def test_sniff_knows_a_labanwriter_header_from_json_and_bvh() -> None:
    assert labanwriter.sniff((DATA / "walk.lw4.txt").read_bytes())
    assert labanwriter.sniff(b"\xef\xbb\xbf# x\n labanwriter ; 9999;")
    assert not labanwriter.sniff(b'{"format": "kinetograph-score/1"}')
    assert not labanwriter.sniff(b"HIERARCHY\nROOT Hips\n")
    assert not labanwriter.sniff(b"")


# --- the fixture score ---------------------------------------------------------------


def test_the_walk_fixture_becomes_the_score_it_draws() -> None:
    imported = labanwriter.load_file(DATA / "walk.lw4.txt")
    got = imported.score
    assert (got.title, got.tempo_bpm, got.meter, got.measures) == ("walk.lw4", 120.0, 2, 4)
    supports = [
        (s.column, s.kind, s.beat, s.duration, s.direction)
        for s in got.symbols
        if s.column.startswith("support") and s.kind != "step_size"
    ]
    assert supports == [
        ("support_right", "direction", 0.0, 1.0, "forward"),
        ("support_left", "direction", 1.0, 1.0, "forward"),
        ("support_right", "direction", 2.0, 1.0, "forward"),
        ("support_left", "direction", 3.0, 1.0, "forward"),
        ("support_right", "hold", 4.0, 1.0, None),
        ("support_left", "direction", 5.0, 1.0, "left_forward"),
        ("support_right", "direction", 6.0, 1.0, "place"),
        ("support_left", "direction", 7.0, 1.0, "place"),
    ]
    assert _at(imported, "support_right", 2.0).level == "high"
    (size,) = [s for s in got.symbols if s.kind == "step_size"]
    assert (size.column, size.beat, size.size) == ("support_right", 0.0, 1)
    hand = _at(imported, "arm_left", 2.0)
    assert (hand.part, hand.duration, hand.direction) == ("hand", 2.0, "forward")
    assert _at(imported, "arm_right", 0.0).part is None
    turn = _at(imported, "body", 4.0)
    assert (turn.kind, turn.turn, turn.amount, turn.duration) == ("turn", "right", 0.25, 1.0)
    assert (_at(imported, "head", 0.0).direction, _at(imported, "path", 0.0).duration) == (
        "right",
        8.0,
    )
    assert got.meta["source"] == "LabanWriter 4 text (unverified layout)"


def test_unknown_records_are_kept_with_index_line_text_and_reason() -> None:
    imported = labanwriter.load_file(DATA / "walk.lw4.txt")
    assert imported.records == 25
    assert [i.as_dict() for i in imported.ignored] == [
        {"index": 21, "line": 31, "kind": "bow", "raw": "bow 290 120 40 10",
         "reason": "unknown record type"},
        {"index": 22, "line": 32, "kind": "12", "raw": "12 3 300 200 16 50 0 0",
         "reason": "unknown record type"},
        {"index": 23, "line": 33, "kind": "symbol", "raw": "symbol effort:punch 400 300 10 10",
         "reason": "symbol 'effort:punch' not understood"},
        {"index": 24, "line": 34, "kind": "symbol",
         "raw": "symbol dir:place:middle 282 520 16 30",
         "reason": "below the start line (a starting position)"},
    ]  # fmt: skip
    assert imported.score.meta["ignored_records"] == 4
    report = imported.as_dict()
    assert report["records"] == 25 and len(report["ignored_records"]) == 4


def test_a_file_of_labanwriter_numeric_records_says_nothing_could_be_placed() -> None:
    (problem,) = _problems("LabanWriter; 4000;\n12 3 300 200 16 50 0 0;\n7 1 40 40 8 8;")
    assert problem == (
        "no staff record: nothing can be placed in time or in a column (2 record(s) not understood)"
    )


@pytest.mark.parametrize("seed", range(5))
def test_record_order_does_not_matter(seed: int) -> None:
    text = (DATA / "walk.lw4.txt").read_text(encoding="utf-8")
    header, records = _body_records(text)
    shuffled = records[:]
    random.Random(seed).shuffle(shuffled)
    assert shuffled != records
    again = labanwriter.load_bytes((header + ";\n".join(shuffled) + ";").encode(), "walk.lw4")
    original = labanwriter.load_file(DATA / "walk.lw4.txt")
    assert again.score == original.score
    assert sorted(i.raw for i in again.ignored) == sorted(i.raw for i in original.ignored)


def test_the_walk_fixture_animates() -> None:
    # a smoke check only: how well it animates is test_laban_synthesize's business
    loaded = labanwriter.load_file(DATA / "walk.lw4.txt").score
    made = synthesize(loaded)
    assert made.clip.num_frames == round(loaded.beats * loaded.seconds_per_beat * FPS) + 1
    assert np.isfinite(made.clip.rotations).all()
    assert sum(1 for p in made.prints.prints if p.kind != "start") >= 7


# --- columns and time ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("columns_from_centre", "column"),
    [
        (0.5, "support_right"),
        (-0.5, "support_left"),
        (1.5, "leg_right"),
        (-1.5, "leg_left"),
        (2.5, "body"),
        (-2.5, "body"),
        (3.5, "arm_right"),
        (-3.5, "arm_left"),
        (4.5, "head"),
        (-4.5, "head"),
        (0.2, "support_right"),
        (-1.85, "leg_left"),
    ],
)
def test_the_column_follows_the_box_centre_on_both_sides(
    columns_from_centre: float, column: str
) -> None:
    x = 300 + columns_from_centre * 20 - 4  # a box 8 wide centred there
    imported = _load(f"symbol dir:forward:middle {x} 450 8 50;")
    assert [s.column for s in imported.score.symbols] == [column]


@pytest.mark.parametrize(
    ("columns_from_centre", "said"),
    [
        (0.0, "on a column edge (+0.00 column widths from the centre)"),
        (1.02, "on a column edge (+1.02"),
        (-2.95, "on a column edge (-2.95"),
        (5.3, "5.30 column widths right of the centre line, outside the staff's 5 columns"),
        (-7.5, "7.50 column widths left of the centre line"),
    ],
)
def test_a_box_on_a_column_edge_or_off_the_staff_is_refused(
    columns_from_centre: float, said: str
) -> None:
    x = 300 + columns_from_centre * 20 - 4
    with pytest.raises(ScoreError) as caught:
        _load(f"meter 2;\nsymbol dir:forward:middle {x} 450 8 50;")
    assert said in caught.value.problems[-1]
    assert caught.value.problems[-1].startswith("record ")


def test_beats_come_from_the_bar_lines_and_durations_from_the_height() -> None:
    imported = labanwriter.load_file(DATA / "rounded.lw4.txt")
    got = [(s.column, s.beat, s.duration) for s in imported.score.symbols]
    assert got == [
        ("support_right", 0.0, 2.0),  # drawn a unit short: snapped
        ("support_left", 2.0, 3.0),  # across a bar line between measures of unequal height
        ("leg_right", 6.0, 1.0),
        ("arm_left", 8.0, 4.0),  # the third measure, 200 units for 4 beats
    ]
    assert imported.score.measures == 3 and imported.score.meter == 4
    assert imported.score.tempo_bpm == labanwriter.TEMPO_BPM  # no tempo record


@pytest.mark.parametrize(
    ("grid", "beat", "duration"), [(0.125, 0.25, 0.875), (0.5, 0.5, 0.5), (0.01, 0.26, 0.9)]
)
def test_times_snap_to_the_grid(grid: float, beat: float, duration: float) -> None:
    # bottom at y=487 (beat 0.26), top at y=442 (beat 1.16)
    imported = _load("symbol dir:forward:middle 302 442 16 45;", grid)
    (symbol,) = imported.score.symbols
    np.testing.assert_allclose([symbol.beat, symbol.duration], [beat, duration], atol=1e-9)


def test_without_tempo_and_meter_records_the_defaults_hold() -> None:
    text = "LabanWriter; 4000; staff 0 400 0 10; symbol hold 1 200 8 100;"
    got = labanwriter.load_bytes(text.encode()).score
    assert (got.tempo_bpm, got.meter, got.measures) == (60.0, 4, 1)
    assert (got.symbols[0].beat, got.symbols[0].duration) == (1.0, 1.0)


# --- errors --------------------------------------------------------------------------


def test_malformed_records_are_all_named_with_index_and_line_in_order() -> None:
    problems = _problems((DATA / "malformed.lw4.txt").read_bytes())
    expected = [
        "record 1 (line 7, 'tempo'): a second tempo record (the first is record 0)",
        "record 2 (line 8, 'meter'): BEATS must be a whole number from 1 to 16",
        "record 4 (line 10, 'measure'): bar line y=600 must lie between the staff's start "
        "(500) and end (100) lines",
        "record 5 (line 11, 'symbol'): symbol 'dir:forwards:middle': expected dir:DIRECTION:LEVEL",
        "record 6 (line 12, 'symbol'): Y must be a number, found 'abc'",
        "record 7 (line 13, 'symbol'): symbol 'turn:left': expected turn:left:AMOUNT",
        "record 8 (line 14, 'symbol'): expected symbol NAME X Y WIDTH HEIGHT [COLOUR [FONT]], "
        "found 4 field(s)",
        "record 9 (line 15, 'symbol'): WIDTH and HEIGHT must be positive",
        "record 10 (line 16, 'symbol'): symbol 'dir:forward:middle': on a column edge",
        "record 11 (line 17, 'symbol'): symbol 'dir:forward:middle': 15.40 column widths right",
        "record 12 (line 18, 'symbol'): symbol 'dir:forward:middle': it crosses the start line",
        "record 13 (line 19, 'symbol'): symbol 'space:2': no direction symbol in arm_left",
        "record 14 (line 20, 'symbol'): symbol 'part:elbow': no symbol in arm_right starts "
        "within 0.5 beat above it",
    ]
    assert len(problems) == len(expected)
    for problem, start in zip(problems, expected, strict=True):
        assert problem.startswith(start), (problem, start)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("staff 300 100 500 20;", "needs TOP_Y above BOTTOM_Y (y grows downward)"),
        ("staff 300 500 100 0;", "a positive COLUMN_WIDTH"),
        ("staff 300 500 100;", "expected staff CENTRE_X BOTTOM_Y TOP_Y COLUMN_WIDTH, found 3"),
        ("staff 300 500 100 nan;", "COLUMN_WIDTH must be a number, found 'nan'"),
        ("staff 300 500 100 20; staff 600 500 100 20;", "a second staff record"),
    ],
)
def test_a_bad_or_second_staff_is_refused(body: str, said: str) -> None:
    problems = _problems("LabanWriter; 4000;\n" + body)
    assert any(said in p for p in problems), problems


def test_without_a_usable_staff_the_record_problems_still_come_in_record_order() -> None:
    problems = _problems(
        "LabanWriter; 4000;\ntempo 5;\nsymbol dir:up:middle 1 2 3 4;\nstaff 300 500 100 -20;"
    )
    assert [p.split(":")[0] for p in problems] == [
        "record 0 (line 2, 'tempo')",
        "record 1 (line 3, 'symbol')",
        "record 2 (line 4, 'staff')",
    ]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("dir:forward", "expected dir:DIRECTION:LEVEL"),
        ("dir:forward:middle:x", "expected dir:DIRECTION:LEVEL"),
        ("turn:up:0.25", "expected turn:left:AMOUNT"),
        ("hold:3", "expected hold, with nothing after it"),
        ("path:wiggly", "expected path:straight or path:curved:DEGREES"),
        ("space:big", "expected space:SIZE"),
        ("part:tail", "expected part:PART"),
    ],
)
def test_a_malformed_symbol_name_of_a_known_family_is_refused(name: str, said: str) -> None:
    with pytest.raises(ScoreError) as caught:
        _load(f"symbol {name} 302 450 16 50;")
    (problem,) = caught.value.problems
    assert problem.startswith("record 5 (line 5, 'symbol'): ") and said in problem


def test_score_errors_name_the_record_the_symbol_came_from() -> None:
    with pytest.raises(ScoreError) as caught:
        _load(
            "symbol dir:forward:middle 302 400 16 100;\n"  # record 5, beats 0-2
            "symbol turn:right:9 342 450 16 50;\n"  # record 6, amount > 4
            "symbol dir:forward:middle 302 350 16 100;\n"  # record 7, beats 1-3: overlaps
            "symbol path:curved 420 100 10 400;\n"  # record 8, no degrees
            "symbol dir:forward:middle 362 50 16 100;\n"  # record 9, past the end line
        )
    assert [p.split(": ", 2)[:2] for p in caught.value.problems] == [
        ["record 6 (line 6, 'symbol')", "symbol 1 (turn in body at beat 0)"],
        ["record 7 (line 7, 'symbol')", "symbol 2 (direction in support_right at beat 1)"],
        ["record 8 (line 8, 'symbol')", "symbol 3 (path in path at beat 0)"],
        ["record 9 (line 9, 'symbol')", "symbol 4 (direction in arm_right at beat 7)"],
    ]
    said = " | ".join(caught.value.problems)
    for words in ("amount must be", "starts before", "curved path", "after the score's 8"):
        assert words in said


def test_a_second_pre_sign_for_one_symbol_is_refused() -> None:
    with pytest.raises(ScoreError, match=r"record 7 .*a second pre-sign"):
        _load(
            "symbol dir:forward:high 362 400 16 100;\n"
            "symbol part:wrist 364 500 12 12;\n"
            "symbol part:elbow 364 505 12 8;\n"
        )


def test_a_pre_sign_of_the_starting_position_is_ignored_with_it() -> None:
    imported = _load("symbol dir:forward:high 362 530 16 30;\nsymbol part:wrist 364 560 12 12;")
    assert imported.score.symbols == ()
    assert [i.index for i in imported.ignored] == [5, 6]


# --- the command line ----------------------------------------------------------------


def _cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "motioncore", "laban", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_cli_animates_a_labanwriter_file_and_reports_the_records_it_skipped(
    tmp_path: Path,
) -> None:
    out = tmp_path / "walk.bvh"
    result = _cli(DATA / "walk.lw4.txt", "-o", out, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["title"] == "walk.lw4" and report["frames"] > 0
    skipped = report["labanwriter"]["ignored_records"]
    assert [(r["index"], r["kind"], r["raw"]) for r in skipped][:2] == [
        (21, "bow", "bow 290 120 40 10"),
        (22, "12", "12 3 300 200 16 50 0 0"),
    ]
    assert out.read_text(encoding="utf-8").startswith("HIERARCHY")
    plain = _cli(DATA / "walk.lw4.txt", "-o", out)
    assert plain.returncode == 0 and "4 LabanWriter record(s) not read" in plain.stderr


def test_the_cli_lists_every_problem_of_a_bad_labanwriter_file(tmp_path: Path) -> None:
    result = _cli(DATA / "malformed.lw4.txt", "-o", tmp_path / "x.bvh")
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: record ")]
    assert len(errors) == 13
    assert re.search(r"record 14 \(line 20, 'symbol'\): symbol 'part:elbow'", result.stderr)
    assert not (tmp_path / "x.bvh").exists()


def test_the_cli_still_reads_native_scores(tmp_path: Path) -> None:
    result = _cli(SAMPLE_DIR / "scores" / "hold.json", "-o", tmp_path / "h.bvh", "--json")
    assert result.returncode == 0, result.stderr
    assert "labanwriter" not in json.loads(result.stdout)


def test_the_score_round_trips_through_the_native_format() -> None:
    got = labanwriter.load_file(DATA / "walk.lw4.txt").score
    assert score.load(score.dump(got)) == got
