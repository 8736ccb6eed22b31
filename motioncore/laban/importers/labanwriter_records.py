"""The records of a LabanWriter 4 text file (:mod:`motioncore.laban.importers.labanwriter`):
the text, its ``;``-terminated records after the header, their fields as numbers, and
the ``symbol`` records read into their family, meaning and box.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Any

from motioncore.laban.score import DIRECTIONS, LEVELS, PARTS, ScoreError

VERSION = "4000"
SCALABLE = ("dir", "turn", "hold", "path")
FIXED = ("space", "part")
LAYOUTS = {
    "tempo": ("BPM",),
    "meter": ("BEATS",),
    "staff": ("CENTRE_X", "BOTTOM_Y", "TOP_Y", "COLUMN_WIDTH"),
    "measure": ("Y",),
    "symbol": ("NAME", "X", "Y", "WIDTH", "HEIGHT", "[COLOUR [FONT]]"),
}
"""Record type → its fields after the type word (the assumed vocabulary)."""
_ALL_PARTS = sorted({p for parts in PARTS.values() for p in parts})
_FIELD_SPLIT = re.compile(r"[\s,]+")


@dataclass(frozen=True)
class Record:
    """One ``;``-terminated record: its index (0 = the first after the header) and line."""

    index: int
    line: int
    raw: str

    @cached_property
    def fields(self) -> list[str]:
        return [f for f in _FIELD_SPLIT.split(self.raw) if f]

    @property
    def kind(self) -> str:
        return self.fields[0].lower()

    def where(self) -> str:
        return f"record {self.index} (line {self.line}, {self.fields[0]!r})"


@dataclass(frozen=True)
class Ignored:
    """A record kept but not read: where it was, its first field, its text and why."""

    index: int
    line: int
    kind: str
    raw: str
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Drawn:
    """A ``symbol`` record read: its family, what it means and its box."""

    record: Record
    family: str
    meaning: dict[str, Any]
    x: float
    y: float
    width: float
    height: float


def decoded(data: bytes, max_bytes: int) -> str:
    """``data`` as text (``ScoreError`` when over ``max_bytes``, binary or not UTF-8)."""
    if len(data) > max_bytes:
        raise ScoreError([f"the file has {len(data)} bytes; at most {max_bytes} are read"])
    binary = re.search(rb"[\x00-\x08\x0e-\x1f\x7f]", data)
    if binary:
        at = binary.start()
        raise ScoreError([f"not a text file (control byte 0x{data[at]:02x} at offset {at})"])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ScoreError([f"not UTF-8 or ASCII text (at byte {error.start})"]) from None


def split_records(text: str) -> list[tuple[int, str]]:
    """(line of its first field, text) of every non-empty record; comment lines dropped."""
    records: list[tuple[int, str]] = []
    parts: list[str] = []
    first = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("#"):
            continue
        pieces = line.split(";")
        for i, piece in enumerate(pieces):
            first = first or (number if piece.strip() else 0)
            parts.append(piece)
            if i < len(pieces) - 1:  # a ";" ends the record
                records.extend([(first, "\n".join(parts).strip())] if first else [])
                parts, first = [], 0
    records.extend([(first, "\n".join(parts).strip())] if first else [])
    return records


def body_records(text: str) -> list[Record]:
    """The records after the header ``LabanWriter; 4000;`` (``ScoreError`` without it)."""
    split = split_records(text)
    expected = "expected the header 'LabanWriter; 4000;'"
    if not split:
        raise ScoreError([f"empty file: {expected}"])
    if split[0][1].lower() != "labanwriter":
        raise ScoreError([f"not a LabanWriter file: {expected}, found {split[0][1][:40]!r}"])
    version = split[1][1] if len(split) > 1 else ""
    if version != VERSION:
        raise ScoreError(
            [f"LabanWriter version {version[:40]!r} is not read: only {VERSION} (LabanWriter 4)"]
        )
    return [Record(i, line, raw) for i, (line, raw) in enumerate(split[2:])]


def ignore(record: Record, reason: str) -> Ignored:
    """``record`` kept but not read, for ``reason``."""
    return Ignored(record.index, record.line, record.fields[0], record.raw, reason)


def field_numbers(
    record: Record, fields: Sequence[str], names: Sequence[str], problems: list[str]
) -> list[float] | None:
    """``fields`` as finite numbers, one per name (else a problem and ``None``)."""
    layout = f"{record.fields[0]} {' '.join(names)}"
    if len(fields) != len(names):
        problems.append(f"{record.where()}: expected {layout}, found {len(fields)} field(s)")
        return None
    out = []
    for name, text in zip(names, fields, strict=True):
        value = _float(text)
        if value is None:
            problems.append(f"{record.where()}: {name} must be a number, found {text!r}")
            return None
        out.append(value)
    return out


def _float(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def read_symbol(
    record: Record, problems: list[str], ignored: list[Ignored], drawn: list[Drawn]
) -> None:
    fields = record.fields
    if not 6 <= len(fields) <= 8:
        usage = " ".join(LAYOUTS["symbol"])
        problems.append(
            f"{record.where()}: expected symbol {usage}, found {len(fields) - 1} field(s)"
        )
        return
    family = fields[1].lower().split(":")[0]
    if family not in SCALABLE + FIXED:
        ignored.append(ignore(record, f"symbol {fields[1]!r} not understood"))
        return
    box = field_numbers(record, fields[2:6], ("X", "Y", "WIDTH", "HEIGHT"), problems)
    try:
        meaning = _meaning(family, fields[1].lower())
    except ValueError as error:
        problems.append(f"{record.where()}: symbol {fields[1]!r}: {error}")
        return
    if box is None:
        return
    if box[2] <= 0 or box[3] <= 0:
        problems.append(f"{record.where()}: WIDTH and HEIGHT must be positive")
        return
    drawn.append(Drawn(record, family, meaning, *box))


def _meaning(family: str, name: str) -> dict[str, Any]:
    """The score fields a symbol name stands for (``ValueError`` naming the usage)."""
    pattern, usage = _NAMES[family]
    match = re.fullmatch(pattern, name)
    if match is None:
        raise ValueError(f"expected {usage}")
    fields: dict[str, Any] = {k: v for k, v in match.groupdict().items() if v is not None}
    for key in ("amount", "amount_deg"):
        if key in fields:
            fields[key] = float(fields[key])
    if "size" in fields:
        fields["size"] = int(fields["size"])
    kind = {"dir": "direction", "space": "step_size", "part": None}.get(family, family)
    return fields | ({"kind": kind} if kind else {})


def _alt(words: Sequence[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)"


_NAMES: dict[str, tuple[str, str]] = {
    "dir": (
        rf"dir:(?P<direction>{_alt(DIRECTIONS)}):(?P<level>{_alt(LEVELS)})",
        f"dir:DIRECTION:LEVEL, DIRECTION one of {', '.join(DIRECTIONS)}, "
        f"LEVEL one of {', '.join(LEVELS)}",
    ),
    "turn": (
        rf"turn:(?P<turn>left|right):(?P<amount>{_NUMBER})",
        "turn:left:AMOUNT or turn:right:AMOUNT (a fraction of a full turn)",
    ),
    "hold": ("hold", "hold, with nothing after it"),
    "path": (
        rf"path:(?P<path>straight|curved)(?::(?P<amount_deg>{_NUMBER}))?",
        "path:straight or path:curved:DEGREES",
    ),
    "space": (r"space:(?P<size>[+-]?\d)", "space:SIZE, a whole number from -3 to 3"),
    "part": (
        rf"part:(?P<part>{_alt(_ALL_PARTS)})",
        f"part:PART, PART one of {', '.join(_ALL_PARTS)}",
    ),
}
"""Symbol family → (the pattern of its full name, its usage for errors)."""
