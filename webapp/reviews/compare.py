"""Two proposals compared (the compare page): each side's parameters, metrics table and
approvals, the proposed cuts next to each other with the better value marked, and the
sources of the transition page's two-stage player. No queries: the view passes in what
it read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webapp.core.tables import Cell, Row
from webapp.reviews.listings import Approvals
from webapp.reviews.models import Proposal
from webapp.reviews.presenters import approvals, metric_rows, parameter_facts, player_source
from webapp.transitions.selectors import METRIC_COLUMNS


@dataclass(frozen=True)
class CompareSide:
    proposal: Proposal
    key: str
    parameters: list[tuple[str, str]]
    metric_rows: list[Row]
    approvals: Approvals


def compare_sides(
    proposals: list[Proposal], ready: Sequence[Mapping[str, bool]]
) -> tuple[list[CompareSide], dict[str, Any]]:
    """Both proposals' facts and tables, and the compare player's sources (``p<id>`` →
    label, url, layout; the transition page's player reads them) when both can play
    (``ready``: each proposal's transition downloads → whether each exists)."""
    sides = [
        CompareSide(p, f"p{p.pk}", parameter_facts(p), metric_rows(p), approvals(p))
        for p in proposals
    ]
    sources: dict[str, Any] = {}
    for side, downloads in zip(sides, ready, strict=True):
        source = player_source(side.proposal, downloads)
        if source is None:
            return sides, {}
        source["label"] = f"#{side.proposal.pk} {source['label']}"
        sources[side.key] = source
    return sides, sources


@dataclass(frozen=True)
class CompareLine:
    """One line of the proposed cuts' table: a heading (with its unit), each side's
    value as shown and whether it is the better one (bold)."""

    heading: str
    values: list[Cell]


def _marked(values: list[Any], lower_is_better: bool, digits: int) -> list[Cell]:
    """The values to ``digits`` decimals ("—" when missing), the better one(s) in bold."""
    shown = [round(float(v), digits) if isinstance(v, int | float) else None for v in values]
    numbers = [v for v in shown if v is not None]
    best = (min(numbers) if lower_is_better else max(numbers)) if len(numbers) > 1 else None
    return [
        Cell("—" if v is None else f"{v:.{digits}f}", v is not None and v == best) for v in shown
    ]


def compare_lines(sides: list[CompareSide]) -> list[CompareLine]:
    """The two proposed cuts next to each other: where each cuts and enters, then each
    metric of the proposed method (the better value in bold, ties both)."""
    missing = Row("", "—", "—", "—", "", [])
    chosen = [
        next((r for r in side.metric_rows if r.method == side.proposal.method), missing)
        for side in sides
    ]
    lines = [
        CompareLine("Cut", [Cell(row.label, False) for row in chosen]),
        CompareLine("Cut in A (frame · time)", [Cell(row.cut, False) for row in chosen]),
        CompareLine("Entry in B (frame · time)", [Cell(row.entry, False) for row in chosen]),
    ]
    for column in METRIC_COLUMNS:
        values = [
            (side.proposal.metrics.get(side.proposal.method) or {}).get(column.key)
            for side in sides
        ]
        unit = f" ({column.unit})" if column.unit else ""
        cells = _marked(values, column.lower_is_better, column.digits)
        lines.append(CompareLine(f"{column.heading}{unit}", cells))
    return lines
