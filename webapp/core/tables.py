"""Tables of measures, one row per method, with each column's best value marked: the
transition page's comparison and the review pages' snapshot of it share this shape.

A report is ``{"metrics": {method: {key: value, "cut_frame", "entry_frame", …}},
"methods": {method: {"cut": {frame, time_s, reason}, "entry": {…}, "recommendation"}}}``;
the app that owns the report names its methods (``labels``) and columns. Formatting only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Column:
    """A metric column: report key, heading, unit, digits, whether lower is better."""

    key: str
    heading: str
    unit: str
    digits: int
    lower_is_better: bool


@dataclass(frozen=True)
class Cell:
    text: str
    best: bool


@dataclass(frozen=True)
class Row:
    """One method's line of the table."""

    method: str
    label: str
    cut: str
    entry: str
    note: str
    cells: list[Cell]


def number_text(value: Any, digits: int) -> str:
    """``value`` to ``digits`` decimals, "—" when it is not a number."""
    return "—" if not isinstance(value, int | float) else f"{value:.{digits}f}"


def _best(values: list[Any], lower_is_better: bool) -> float | None:
    numbers = [float(v) for v in values if isinstance(v, int | float)]
    if not numbers:
        return None
    return min(numbers) if lower_is_better else max(numbers)


def _cell(value: Any, best: float | None, digits: int) -> Cell:
    """The value as shown, bold when it equals the column's best as shown (ties too)."""
    if best is None or not isinstance(value, int | float):
        return Cell(number_text(value, digits), False)
    return Cell(number_text(value, digits), round(float(value), digits) == round(best, digits))


def frame_at(section: Mapping[str, Any]) -> str:
    """``"154 · 2.57 s"`` (frame · time), the frame alone without a time."""
    frame, time_s = section.get("frame"), section.get("time_s")
    if not isinstance(frame, int):
        return "—"
    return f"{frame}" + (f" · {time_s:.2f} s" if isinstance(time_s, int | float) else "")


def comparison_rows(
    result: Mapping[str, Any], *, labels: Mapping[str, str], columns: Iterable[Column]
) -> list[Row]:
    """The report's methods (those of ``labels``, in its order) as table rows (empty
    without metrics), each column's best value marked (ties all marked)."""
    metrics: Mapping[str, Mapping[str, Any]] = result.get("metrics") or {}
    methods: Mapping[str, Mapping[str, Any]] = result.get("methods") or {}
    order = [m for m in labels if m in metrics]
    shown = list(columns)
    best = {c.key: _best([metrics[m].get(c.key) for m in order], c.lower_is_better) for c in shown}
    rows = []
    for method in order:
        values, detail = metrics[method], methods.get(method) or {}
        cut = detail.get("cut") or {"frame": values.get("cut_frame")}
        entry = detail.get("entry") or {"frame": values.get("entry_frame")}
        cells = [_cell(values.get(c.key), best[c.key], c.digits) for c in shown]
        notes = (cut.get("reason"), detail.get("recommendation"), values.get("unmeasured"))
        note = " · ".join(str(n) for n in notes if n)
        rows.append(Row(method, labels[method], frame_at(cut), frame_at(entry), note, cells))
    return rows
