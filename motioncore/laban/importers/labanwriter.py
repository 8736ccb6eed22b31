"""LabanWriter 4 text files (``.lw4``) into the score format: an **unverified** reading.

No real LabanWriter 4 file has been seen; ``docs/score-format.md`` ("LabanWriter 4 text
(unverified)") says what is public and what is assumed. Public (seed 003 §3; OSU's "LabanWriter
4 file format" page, 2003): text; the header ``LabanWriter; 4000;``; records end with ``;``;
fields are separated by spaces; lines beginning with ``#`` are comments; records come in the
order the user placed them; a record draws one symbol (type, position, size, colour, font)
and has no column or time, which follow from where it stands on the staff. LabanWriter
writes *numeric* symbol types whose codes are not known here: such records are ignored.

Assumed record vocabulary (fields split on whitespace or commas; the first names the record):
``tempo BPM`` and ``meter BEATS`` (60 and 4 when absent); ``staff CENTRE_X BOTTOM_Y TOP_Y
COLUMN_WIDTH`` (the one staff: centre line, start and end lines, one column's width);
``measure Y`` (a bar line; every measure is ``meter`` beats however tall); ``symbol NAME X Y
WIDTH HEIGHT [COLOUR [FONT]]`` (the bounding box, (X, Y) its top-left corner; colour and font
are not read) with NAME one of ``dir:DIRECTION:LEVEL``, ``turn:left|right:AMOUNT``, ``hold``,
``path:straight``, ``path:curved:DEGREES`` (scalable: the height is the duration),
``space:SIZE`` and ``part:PART`` (fixed size). Page units, x right, **y down**: time runs up.

A symbol's column is where its box's centre falls, in column widths from the centre line:
support, leg, body, arm, head outward, right of the line the right side (``body``/``head``
either side); path signs go to ``path``. Its start and end are the beats of its box's bottom
and top between the bar lines, snapped to ``grid_beats``. A step-size sign measures the step
whose box holds its centre; a pre-sign (``part``) names the part of the symbol in its column
that starts within :data:`PRESIGN_GAP_BEATS` above its top. Unknown record types, unknown
symbol families and symbols below the start line (a starting position) are kept in
:attr:`LabanWriterImport.ignored`; malformed records of known types raise
:class:`~motioncore.laban.score.ScoreError` listing every problem with its record and line.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from motioncore.laban.importers.labanwriter_records import (
    FIXED,
    LAYOUTS,
    SCALABLE,
    Drawn,
    Ignored,
    Record,
    body_records,
    decoded,
    field_numbers,
    ignore,
    read_symbol,
    split_records,
)
from motioncore.laban.score import FORMAT, Score, ScoreError, load

MAX_BYTES = 4 * 1024 * 1024
"""The largest file read (a long LabanWriter score is tens of kilobytes)."""
TEMPO_BPM = 60.0
METER = 4
GRID_BEATS = 0.125
EDGE_COLUMNS = 0.1
"""A box centred closer than this (in column widths) to a column's edge is ambiguous."""
PRESIGN_GAP_BEATS = 0.5
STARTING_POSITION = "below the start line (a starting position)"
SIDE_COLUMNS = ("support", "leg", "body", "arm", "head")
"""Column stems outward from the centre line, one column width each."""
_SYMBOL_LABEL = re.compile(r"^symbol (\d+) ")
_RECORD_LABEL = re.compile(r"^record (\d+) ")


@dataclass(frozen=True)
class LabanWriterImport:
    """The score, the records not read, and how many records the body held."""

    score: Score
    ignored: tuple[Ignored, ...]
    records: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": "LabanWriter 4 text (unverified layout)",
            "records": self.records,
            "ignored_records": [i.as_dict() for i in self.ignored],
        }


@dataclass(frozen=True)
class Staff:
    """The staff: centre line x, column width, and its lines' y from the start line up."""

    centre_x: float
    column_width: float
    lines: tuple[float, ...]

    def beat(self, y: float, meter: int) -> float:
        """The beat at height ``y`` (below the start line: negative; above the end: past it)."""
        up = [-line for line in self.lines]
        i = min(max(bisect.bisect_right(up, -y) - 1, 0), len(self.lines) - 2)
        low, high = self.lines[i], self.lines[i + 1]
        return (i + (low - y) / (low - high)) * meter

    def column(self, x: float) -> str:
        """The column whose span holds ``x`` (``ValueError`` outside or on an edge)."""
        offset = (x - self.centre_x) / self.column_width
        k, fraction = int(abs(offset)), abs(offset) % 1.0
        side = "right" if offset > 0 else "left"
        if k >= len(SIDE_COLUMNS):
            raise ValueError(
                f"{abs(offset):.2f} column widths {side} of the centre line, "
                f"outside the staff's {len(SIDE_COLUMNS)} columns a side"
            )
        if not EDGE_COLUMNS <= fraction <= 1.0 - EDGE_COLUMNS:
            raise ValueError(f"on a column edge ({offset:+.2f} column widths from the centre)")
        stem = SIDE_COLUMNS[k]
        return stem if stem in ("body", "head") else f"{stem}_{side}"


def sniff(data: bytes) -> bool:
    """Whether ``data`` opens like a LabanWriter file (its first record is ``LabanWriter``)."""
    records = split_records(data[:4096].decode("utf-8-sig", errors="replace"))
    return bool(records) and records[0][1].strip().lower() == "labanwriter"


def load_file(path: str | Path, *, grid_beats: float = GRID_BEATS) -> LabanWriterImport:
    """A LabanWriter 4 text file (see the module docstring); the title is the file's stem."""
    return load_bytes(Path(path).read_bytes(), Path(path).stem, grid_beats=grid_beats)


def load_bytes(
    data: bytes, title: str = "", *, grid_beats: float = GRID_BEATS, max_bytes: int = MAX_BYTES
) -> LabanWriterImport:
    """The score in LabanWriter 4 text ``data`` and the records it did not read.

    Raises:
        ScoreError: not a LabanWriter 4 text file, malformed records (every one, each
            naming its record index and line), or an invalid score (each problem naming
            the record, the symbol and its beat).
    """
    records = body_records(decoded(data, max_bytes))
    problems: list[str] = []
    ignored: list[Ignored] = []
    (tempo, meter), staff, drawn = _read(records, problems, ignored)
    if staff is None:
        raise ScoreError(sorted(problems, key=_record_index) or [_no_staff(ignored)])
    symbols, origins = _place(drawn, staff, meter, grid_beats, problems, ignored)
    if problems:
        raise ScoreError(sorted(problems, key=_record_index))
    meta = {"source": "LabanWriter 4 text (unverified layout)", "records": len(records)}
    source = {
        "format": FORMAT,
        "title": title,
        "tempo_bpm": tempo,
        "meter": meter,
        "measures": len(staff.lines) - 1,
        "symbols": symbols,
        "meta": meta | {"ignored_records": len(ignored)},
    }
    try:
        score = load(source)
    except ScoreError as error:
        located = [_located(p, origins) for p in error.problems]
        raise ScoreError(sorted(located, key=_record_index)) from None
    return LabanWriterImport(score, tuple(sorted(ignored, key=lambda i: i.index)), len(records))


def _read(
    records: Sequence[Record], problems: list[str], ignored: list[Ignored]
) -> tuple[tuple[float, int], Staff | None, list[Drawn]]:
    """((tempo, meter), the staff with its bar lines, the symbols) of the records."""
    firsts: dict[str, Record] = {}
    values: dict[str, list[float]] = {}
    bars: list[tuple[Record, float]] = []
    drawn: list[Drawn] = []
    for record in records:
        kind = record.kind
        if kind not in LAYOUTS:
            ignored.append(ignore(record, "unknown record type"))
        elif kind == "symbol":
            read_symbol(record, problems, ignored, drawn)
        elif kind in firsts and kind != "measure":
            problems.append(
                f"{record.where()}: a second {kind} record "
                f"(the first is record {firsts[kind].index}); only one is read"
            )
        else:
            firsts[kind] = record
            numbers = field_numbers(record, record.fields[1:], LAYOUTS[kind], problems)
            if numbers is not None and kind == "measure":
                bars.append((record, numbers[0]))
            elif numbers is not None:
                values[kind] = numbers
    staff = _staff(firsts.get("staff"), values.get("staff"), bars, problems)
    return _timing(firsts, values, problems), staff, drawn


def _timing(
    firsts: dict[str, Record], values: dict[str, list[float]], problems: list[str]
) -> tuple[float, int]:
    """(tempo, meter) from their records (the defaults where absent or invalid)."""
    tempo, meter = values.get("tempo", [TEMPO_BPM])[0], values.get("meter", [float(METER)])[0]
    if not 20 <= tempo <= 400:
        problems.append(f"{firsts['tempo'].where()}: BPM must be from 20 to 400")
    if not meter.is_integer() or not 1 <= meter <= 16:
        problems.append(f"{firsts['meter'].where()}: BEATS must be a whole number from 1 to 16")
        meter = METER
    return tempo, int(meter)


def _staff(
    record: Record | None,
    values: list[float] | None,
    bars: Sequence[tuple[Record, float]],
    problems: list[str],
) -> Staff | None:
    if record is None or values is None:
        return None
    centre, bottom, top, width = values
    if not top < bottom or width <= 0:
        problems.append(
            f"{record.where()}: needs TOP_Y above BOTTOM_Y (y grows downward) "
            "and a positive COLUMN_WIDTH"
        )
        return None
    lines = [bottom]
    for bar, y in sorted(bars, key=lambda b: -b[1]):
        if not top < y < bottom or y >= lines[-1]:
            problems.append(
                f"{bar.where()}: bar line y={y:g} must lie between the staff's "
                f"start ({bottom:g}) and end ({top:g}) lines, once"
            )
        else:
            lines.append(y)
    return Staff(centre, width, (*lines, top))


def _no_staff(ignored: Sequence[Ignored]) -> str:
    note = f" ({len(ignored)} record(s) not understood)" if ignored else ""
    return f"no staff record: nothing can be placed in time or in a column{note}"


def _place(
    drawn: Sequence[Drawn],
    staff: Staff,
    meter: int,
    grid: float,
    problems: list[str],
    ignored: list[Ignored],
) -> tuple[list[dict[str, Any]], list[Record]]:
    """The score's symbols (scalable ones, then step sizes) and the record of each."""
    placed: list[tuple[Drawn, dict[str, Any]]] = []
    for d in sorted(drawn, key=lambda d: d.family in FIXED):
        start = round(staff.beat(d.y + d.height, meter) / grid) * grid
        end = round(staff.beat(d.y, meter) / grid) * grid
        low, high = staff.beat(d.y + d.height, meter), staff.beat(d.y, meter)
        if end <= 0.0 and d.family in SCALABLE:
            ignored.append(ignore(d.record, STARTING_POSITION))
            continue
        try:
            column = "path" if d.family == "path" else staff.column(d.x + d.width / 2)
            if d.family in SCALABLE and start < 0.0:
                raise ValueError("it crosses the start line")
            if d.family in FIXED and not _attach(d, column, low, high, placed):
                ignored.append(ignore(d.record, STARTING_POSITION))
            elif d.family in SCALABLE:
                placed.append(
                    (d, {"column": column, "beat": start, "duration": end - start} | d.meaning)
                )
        except ValueError as error:
            problems.append(f"{d.record.where()}: symbol {d.record.fields[1]!r}: {error}")
    return [s for _, s in placed], [d.record for d, _ in placed]


def _attach(
    sign: Drawn, column: str, low: float, high: float, placed: list[tuple[Drawn, dict[str, Any]]]
) -> bool:
    """A step size (beats ``low``–``high``) onto the step holding its centre, a pre-sign
    onto the symbol in its column that starts just above its top; ``False`` for a sign
    below the start line with nothing to attach to (the starting position's)."""
    mine = [s for _, s in placed if s["column"] == column and s["kind"] != "step_size"]
    if sign.family == "space":
        centre = (low + high) / 2
        steps = [
            s
            for s in mine
            if s["kind"] == "direction" and s["beat"] <= centre <= s["beat"] + s["duration"]
        ]
        if not steps and centre < 0.0:
            return False
        if not steps:
            raise ValueError(f"no direction symbol in {column} at its height to measure")
        placed.append((sign, {"column": column, "beat": steps[0]["beat"]} | sign.meaning))
        return True
    above = [s for s in mine if -GRID_BEATS <= s["beat"] - high <= PRESIGN_GAP_BEATS]
    if not above and high < 0.0:
        return False
    if not above:
        raise ValueError(f"no symbol in {column} starts within {PRESIGN_GAP_BEATS:g} beat above it")
    target = min(above, key=lambda s: abs(s["beat"] - high))
    if "part" in target:
        raise ValueError(f"a second pre-sign for the symbol at beat {target['beat']:g}")
    target.update(sign.meaning)
    return True


def _located(problem: str, origins: Sequence[Record]) -> str:
    """``symbol 3 (…): …`` from the score's check, prefixed with the record it came from."""
    match = _SYMBOL_LABEL.match(problem)
    if match is None or int(match.group(1)) >= len(origins):
        return problem
    return f"{origins[int(match.group(1))].where()}: {problem}"


def _record_index(problem: str) -> int:
    match = _RECORD_LABEL.match(problem)
    return int(match.group(1)) if match else -1
