"""Kinetograph's Labanotation score format (JSON, ``kinetograph-score/1``): reading,
validating and writing it. ``docs/score-format.md`` describes it for people and
``score.schema.json`` (beside this module) for programs; :func:`load` checks what a
schema cannot (overlaps, columns a symbol may not stand in, modifiers without a
symbol to modify) and names the symbol and its beat in every error.

A score is one staff read bottom to top: ``tempo_bpm``, ``meter`` (beats per measure),
``measures`` and a list of symbols. Each symbol stands in a column (seed 003 §2: the
support columns in the middle, then leg gestures, body, arms, head; other body parts
through a pre-sign, ``part``), starts on ``beat`` (0 = the start of the first measure)
and lasts ``duration`` beats. Kinds:

* ``direction``: one of nine directions (place included) at one of three levels; in a
  support column a step (a transfer of weight), elsewhere a gesture of the column's
  limb (its extremity, or the ``part``'s);
* ``turn``: a pivot ``left`` or ``right`` by ``amount`` of a full turn (0.25 = 90°);
* ``hold``: keep the support or the gesture (in a support column: the weight stays);
* ``path``: (``path`` column) walk ``straight`` or ``curved`` by ``amount_deg`` over
  the symbol's length (positive: curving to the right);
* ``step_size``: a space-measurement sign on the nearest support direction symbol of
  the same column, starting within :data:`MODIFIER_TOLERANCE_BEATS` of it, ``size``
  from -3 (very short) to 3 (very long).

A gap in both support columns is a jump (the body is in the air).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from motioncore import jsontext
from motioncore.errors import MotionCoreError

FORMAT = "kinetograph-score/1"
DIRECTIONS = (
    "place",
    "forward",
    "backward",
    "left",
    "right",
    "left_forward",
    "right_forward",
    "left_backward",
    "right_backward",
)
_DIAGONAL = 0.5**0.5
DIRECTION_XZ: dict[str, tuple[float, float]] = {
    "place": (0.0, 0.0),
    "forward": (0.0, 1.0),
    "backward": (0.0, -1.0),
    "left": (1.0, 0.0),
    "right": (-1.0, 0.0),
    "left_forward": (_DIAGONAL, _DIAGONAL),
    "right_forward": (-_DIAGONAL, _DIAGONAL),
    "left_backward": (_DIAGONAL, -_DIAGONAL),
    "right_backward": (-_DIAGONAL, -_DIAGONAL),
}
"""Direction → its horizontal unit vector (x, z) in the body frame (facing +Z, left +X);
``place`` has none. Steps (footprints) and gestures share it."""
LEVELS = ("low", "middle", "high")
KINDS = ("direction", "turn", "hold", "path", "step_size")
SUPPORTS = ("support_left", "support_right")
COLUMNS = (*SUPPORTS, "leg_left", "leg_right", "body", "arm_left", "arm_right", "head", "path")
PARTS: dict[str, tuple[str, ...]] = {
    "support_left": ("foot",),
    "support_right": ("foot",),
    "leg_left": ("leg", "thigh", "lower_leg", "knee", "foot"),
    "leg_right": ("leg", "thigh", "lower_leg", "knee", "foot"),
    "body": ("body", "chest", "pelvis"),
    "arm_left": ("arm", "upper_arm", "forearm", "elbow", "wrist", "hand"),
    "arm_right": ("arm", "upper_arm", "forearm", "elbow", "wrist", "hand"),
    "head": ("head",),
    "path": ("body",),
}
"""Column → the body parts a pre-sign may name there (the first is the default)."""
KIND_COLUMNS: dict[str, tuple[str, ...]] = {
    "direction": tuple(c for c in COLUMNS if c != "path"),
    "turn": (*SUPPORTS, "body", "head"),
    "hold": tuple(c for c in COLUMNS if c != "path"),
    "path": ("path",),
    "step_size": SUPPORTS,
}
"""Kind → the columns it may stand in."""
TIME_EPS = 1e-6
MODIFIER_TOLERANCE_BEATS = 0.25
"""How far (beats) a modifier (a step-size sign) may stand from the symbol it modifies:
it attaches to the nearest one in its column (seed 003 §5, by proximity)."""
MAX_SECONDS = 1800.0
"""The longest score accepted (half an hour): what one animation may cost."""
MAX_PATH_DEG = 1440.0
"""The most a curved path may turn (four full turns, like the turn sign's ``amount``)."""


class ScoreError(MotionCoreError):
    """An invalid score; ``problems`` lists every one found (symbol, beat, what)."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


@dataclass(frozen=True)
class Symbol:
    """One symbol (see the module docstring); unused fields stay ``None``."""

    column: str
    kind: str
    beat: float
    duration: float = 0.0
    direction: str | None = None
    level: str | None = None
    part: str | None = None
    turn: str | None = None
    amount: float | None = None
    path: str | None = None
    amount_deg: float | None = None
    size: int | None = None

    @property
    def end(self) -> float:
        """The beat it arrives on (``beat + duration``)."""
        return self.beat + self.duration

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    def label(self, index: int) -> str:
        """``"symbol 3 (direction in support_left at beat 2)"`` for error messages."""
        return f"symbol {index} ({self.kind} in {self.column} at beat {self.beat:g})"


@dataclass(frozen=True)
class Score:
    """A whole score: timing and the symbols sorted by beat, then column."""

    tempo_bpm: float
    meter: int
    measures: int
    symbols: tuple[Symbol, ...]
    title: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def beats(self) -> float:
        """Length in beats (``meter × measures``)."""
        return float(self.meter * self.measures)

    @property
    def seconds_per_beat(self) -> float:
        return 60.0 / self.tempo_bpm

    def column(self, name: str) -> tuple[Symbol, ...]:
        """The symbols of one column, by beat."""
        return tuple(s for s in self.symbols if s.column == name)

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "title": self.title,
            "tempo_bpm": self.tempo_bpm,
            "meter": self.meter,
            "measures": self.measures,
            "symbols": [s.as_dict() for s in self.symbols],
            **({"meta": self.meta} if self.meta else {}),
        }


_SYMBOL_FIELDS = {f for f in Symbol.__dataclass_fields__}


def load(source: str | Path | Mapping[str, Any]) -> Score:
    """A validated :class:`Score` from JSON text, a path or a parsed mapping.

    Raises:
        ScoreError: every problem found, each naming the symbol and its beat.
    """
    data = _parsed(source)
    problems: list[str] = []
    header = _header(data, problems)
    raw = data.get("symbols")
    if not isinstance(raw, list):
        problems.append("'symbols' must be a list")
        raw = []
    symbols = []
    for index, item in enumerate(raw):
        symbol = _symbol(index, item, problems)
        if symbol is not None:
            symbols.append((index, symbol))
    if header is not None:
        tempo, meter, measures = header
        _check_timing(symbols, meter * measures, problems)
    _check_overlaps(symbols, problems)
    _check_step_sizes(symbols, problems)
    if problems or header is None:
        raise ScoreError(problems)
    tempo, meter, measures = header
    ordered = tuple(
        sorted((s for _, s in symbols), key=lambda s: (s.beat, COLUMNS.index(s.column)))
    )
    meta: dict[str, Any] = data["meta"] if isinstance(data.get("meta"), dict) else {}
    return Score(tempo, meter, measures, ordered, str(data.get("title", "")), meta)


def dump(score: Score) -> str:
    """The score as JSON text (what :func:`load` reads back)."""
    return json.dumps(score.as_dict(), indent=2, ensure_ascii=False)


def schema() -> dict[str, Any]:
    """The JSON Schema of the format (``score.schema.json``)."""
    path = Path(__file__).with_name("score.schema.json")
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _parsed(source: str | Path | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(source, Mapping):
        return source
    text = source.read_text(encoding="utf-8") if isinstance(source, Path) else source
    try:
        data = jsontext.loads(text)
    except jsontext.TooDeep as error:
        raise ScoreError([str(error)]) from None
    except json.JSONDecodeError as error:
        raise ScoreError(
            [f"not JSON: {error.msg} at line {error.lineno}, column {error.colno}"]
        ) from None
    if not isinstance(data, dict):
        raise ScoreError(["a score is a JSON object"])
    return data


def _header(data: Mapping[str, Any], problems: list[str]) -> tuple[float, int, int] | None:
    if data.get("format") != FORMAT:
        problems.append(f"'format' must be {FORMAT!r}")
    tempo: Any = data.get("tempo_bpm")
    meter: Any = data.get("meter")
    measures: Any = data.get("measures")
    ok = True
    if not _number(tempo) or not 20 <= float(tempo) <= 400:
        problems.append("'tempo_bpm' must be a number from 20 to 400")
        ok = False
    for name, value, top in (("meter", meter, 16), ("measures", measures, 10_000)):
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= top:
            problems.append(f"'{name}' must be a whole number from 1 to {top}")
            ok = False
    if ok and meter * measures * 60.0 / float(tempo) > MAX_SECONDS:
        seconds = meter * measures * 60.0 / float(tempo)
        problems.append(f"the score lasts {seconds:.0f} s; at most {MAX_SECONDS:.0f} s")
        ok = False
    return (float(tempo), int(meter), int(measures)) if ok else None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


def _symbol(index: int, item: Any, problems: list[str]) -> Symbol | None:
    where = f"symbol {index}"
    if not isinstance(item, dict):
        problems.append(f"{where}: must be an object")
        return None
    unknown = set(item) - _SYMBOL_FIELDS
    if unknown:
        problems.append(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    column, kind = item.get("column"), item.get("kind")
    beat: Any = item.get("beat")
    if column not in COLUMNS or kind not in KINDS or not _number(beat):
        problems.append(
            f"{where}: needs 'column' ({', '.join(COLUMNS)}), 'kind' ({', '.join(KINDS)}) "
            "and a numeric 'beat'"
        )
        return None
    duration: Any = item.get("duration", 0.0)
    try:
        known = {k: v for k, v in item.items() if k in _SYMBOL_FIELDS}
        symbol = Symbol(**{**known, "beat": float(beat), "duration": float(duration)})
    except (TypeError, ValueError):
        problems.append(f"{where}: 'duration' must be a number")
        return None
    label = symbol.label(index)
    problems.extend(f"{label}: {p}" for p in _kind_problems(symbol))
    return symbol


def _kind_problems(s: Symbol) -> list[str]:
    out = []
    if s.column not in KIND_COLUMNS[s.kind]:
        out.append(f"a {s.kind} cannot stand in the {s.column} column")
    if s.beat < 0 or s.duration < 0:
        out.append("beat and duration must not be negative")
    if s.part is not None and s.part not in PARTS[s.column]:
        out.append(f"part {s.part!r} is not one of {', '.join(PARTS[s.column])}")
    own = _OWN_PROBLEMS.get(s.kind)
    return out + own(s) if own is not None else out


def _direction_problems(s: Symbol) -> list[str]:
    out = []
    if s.direction not in DIRECTIONS:
        out.append(f"direction must be one of {', '.join(DIRECTIONS)}")
    if s.level not in LEVELS:
        out.append(f"level must be one of {', '.join(LEVELS)}")
    return out


def _turn_problems(s: Symbol) -> list[str]:
    out = []
    if s.turn not in ("left", "right"):
        out.append("turn must be 'left' or 'right'")
    if not _number(s.amount) or not 0 < float(s.amount or 0) <= 4:
        out.append("amount must be a fraction of a full turn, more than 0 and at most 4")
    return out


def _path_problems(s: Symbol) -> list[str]:
    out = []
    if s.path not in ("straight", "curved"):
        out.append("path must be 'straight' or 'curved'")
    if s.path == "curved" and (not _number(s.amount_deg) or s.amount_deg == 0):
        out.append("a curved path needs a non-zero amount_deg")
    elif _number(s.amount_deg) and not abs(float(s.amount_deg or 0)) <= MAX_PATH_DEG:
        out.append(f"amount_deg must be at most {MAX_PATH_DEG:g}° either way (four full turns)")
    if s.duration <= 0:
        out.append("a path sign needs a duration")
    return out


def _step_size_problems(s: Symbol) -> list[str]:
    if isinstance(s.size, int) and not isinstance(s.size, bool) and -3 <= s.size <= 3:
        return []
    return ["size must be a whole number from -3 to 3"]


_OWN_PROBLEMS: dict[str, Callable[[Symbol], list[str]]] = {
    "direction": _direction_problems,
    "turn": _turn_problems,
    "path": _path_problems,
    "step_size": _step_size_problems,
}
"""Kind -> the checks of the fields only that kind has."""


def _check_timing(symbols: list[tuple[int, Symbol]], beats: int, problems: list[str]) -> None:
    for index, s in symbols:
        if s.end > beats + TIME_EPS:
            problems.append(f"{s.label(index)}: ends on beat {s.end:g}, after the score's {beats}")


def _check_overlaps(symbols: list[tuple[int, Symbol]], problems: list[str]) -> None:
    """Movements (directions, turns, holds) in one column (and part) must not overlap."""
    lanes: dict[tuple[str, str | None], list[tuple[int, Symbol]]] = {}
    for index, s in symbols:
        if s.kind in ("direction", "turn", "hold"):
            lanes.setdefault((s.column, s.part), []).append((index, s))
    for lane in lanes.values():
        lane.sort(key=lambda item: (item[1].beat, item[1].end))
        for (_, a), (j, b) in itertools.pairwise(lane):
            if b.beat < a.end - TIME_EPS:
                problems.append(
                    f"{b.label(j)}: starts before the {a.kind} before it ends ({a.end:g})"
                )


def _check_step_sizes(symbols: list[tuple[int, Symbol]], problems: list[str]) -> None:
    steps: dict[str, list[float]] = {}
    for _, s in symbols:
        if s.kind == "direction":
            steps.setdefault(s.column, []).append(s.beat)
    for index, s in symbols:
        near = [b for b in steps.get(s.column, []) if abs(b - s.beat) <= MODIFIER_TOLERANCE_BEATS]
        if s.kind == "step_size" and not near:
            problems.append(
                f"{s.label(index)}: no step starts within {MODIFIER_TOLERANCE_BEATS:g} beat "
                "of it to measure"
            )
