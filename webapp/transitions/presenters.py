"""Transition reads shaped for the transition page: the comparison table with the best
value of each column marked, the players' sources and the parameters in words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from webapp.transitions.models import Transition
from webapp.transitions.selectors import TRANSITION_DOWNLOADS

METHOD_LABELS: dict[str, str] = {
    "mtp": "MTP",
    "end": "End of clip",
    "fixed70": "70 % of A",
    "threshold": "Speed threshold",
}
"""Cut method → its name in the table and the players' selectors (the page explains
them: the momentum transition point, A's last frame, 70 % of A's length, the first
frame after A's peak where the speed falls below half of it)."""

VIEWER_DOWNLOADS: dict[str, str] = {
    "mtp": "viewer.json",
    "end": "viewer-end.json",
    "fixed70": "viewer-fixed70.json",
    "threshold": "viewer-threshold.json",
}
"""Cut method → the download holding its transition clip's viewer arrays."""


@dataclass(frozen=True)
class Column:
    """A metric column: report key, heading, unit, digits, whether lower is better."""

    key: str
    heading: str
    unit: str
    digits: int
    lower_is_better: bool


COLUMNS: tuple[Column, ...] = (
    Column("velocity_continuity", "Continuity", "", 3, True),
    Column("momentum_retention", "Retention", "", 3, False),
    Column("energy_loss", "Energy loss", "", 3, True),
    Column("foot_slide_mps", "Foot slide", "m/s", 3, True),
    Column("pose_discontinuity_m", "Pose jump", "m", 3, True),
    Column("max_joint_acceleration_m_per_s2", "Peak accel.", "m/s²", 0, True),
)
"""The table's metric columns (seed 000 §6.1 and the transition's own checks)."""


@dataclass(frozen=True)
class Cell:
    text: str
    best: bool


@dataclass(frozen=True)
class Row:
    """One cut method's line of the comparison table."""

    method: str
    label: str
    cut: str
    entry: str
    note: str
    cells: list[Cell]


def _format(value: Any, digits: int) -> str:
    return "—" if not isinstance(value, int | float) else f"{value:.{digits}f}"


def _best(values: list[Any], lower_is_better: bool) -> float | None:
    numbers = [float(v) for v in values if isinstance(v, int | float)]
    if not numbers:
        return None
    return min(numbers) if lower_is_better else max(numbers)


def _cell(value: Any, best: float | None, digits: int) -> Cell:
    """The value as shown, bold when it equals the column's best as shown (ties too)."""
    if best is None or not isinstance(value, int | float):
        return Cell(_format(value, digits), False)
    return Cell(_format(value, digits), round(float(value), digits) == round(best, digits))


def _frame_at(section: Mapping[str, Any]) -> str:
    """``"154 · 2.57 s"`` (frame · time), the frame alone without a time."""
    frame, time_s = section.get("frame"), section.get("time_s")
    if not isinstance(frame, int):
        return "—"
    return f"{frame}" + (f" · {time_s:.2f} s" if isinstance(time_s, int | float) else "")


def comparison_rows(result: Mapping[str, Any]) -> list[Row]:
    """The report's methods as table rows (empty before the run succeeded), each
    column's best value marked (ties all marked)."""
    metrics: Mapping[str, Mapping[str, Any]] = result.get("metrics") or {}
    methods: Mapping[str, Mapping[str, Any]] = result.get("methods") or {}
    order = [m for m in METHOD_LABELS if m in metrics]
    best = {
        c.key: _best([metrics[m].get(c.key) for m in order], c.lower_is_better) for c in COLUMNS
    }
    rows = []
    for method in order:
        values, detail = metrics[method], methods.get(method) or {}
        cut = detail.get("cut") or {"frame": values.get("cut_frame")}
        entry = detail.get("entry") or {"frame": values.get("entry_frame")}
        cells = [_cell(values.get(c.key), best[c.key], c.digits) for c in COLUMNS]
        notes = (cut.get("reason"), detail.get("recommendation"), values.get("unmeasured"))
        note = " · ".join(str(n) for n in notes if n)
        rows.append(
            Row(method, METHOD_LABELS[method], _frame_at(cut), _frame_at(entry), note, cells)
        )
    return rows


def engine_facts(engine: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The engine settings (:func:`motioncore.engine.parameters`) as label, value pairs:
    numbers to 3 decimals (seconds or normalised time, as the key says), yes/no."""

    def text(value: Any) -> str:
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, int | float):
            return f"{value:.3f}"
        return str(value)

    return [
        (f"{engine_name} {key.replace('_', ' ')}", text(value))
        for engine_name, section in (("Unity", "unity"), ("Unreal", "unreal"))
        for key, value in (engine.get(section) or {}).items()
    ]


def parameters_line(parameters: Mapping[str, Any]) -> str:
    """α, θ_max, the measure and the blend in words."""
    return (
        f"α {parameters.get('alpha', 0.6)}, θ_max {parameters.get('theta_max_deg', 75.0)}°, "
        f"{parameters.get('method', 'speed')}, {parameters.get('blend', 'crossfade')} "
        f"over {parameters.get('blend_s', 0.12)} s"
    )


def download_url(transition_id: int, name: str) -> str:
    """``/api/v1/transitions/{id}/download/{name}/``."""
    return reverse("api:transition-download", args=[transition_id, name])


def player_sources(transition: Transition, ready: Mapping[str, bool]) -> dict[str, Any]:
    """What the compare player needs (``json_script``): per method its label, viewer URL
    and layout (where A, the blend and B lie in its frames); only methods whose arrays
    can be downloaded."""
    methods = (transition.result or {}).get("methods") or {}
    return {
        method: {
            "label": METHOD_LABELS[method],
            "url": download_url(transition.pk, name),
            "layout": (methods.get(method) or {}).get("layout"),
        }
        for method, name in VIEWER_DOWNLOADS.items()
        if ready.get(name)
    }


DOWNLOAD_LABELS: dict[str, str] = {
    "transition.bvh": "Transition clip, MTP cut (BVH)",
    "transition.json": "Comparison report (JSON)",
    "viewer.json": "Viewer arrays, MTP cut (JSON)",
    "viewer-end.json": "Viewer arrays, end-of-clip cut (JSON)",
    "viewer-fixed70.json": "Viewer arrays, 70 % cut (JSON)",
    "viewer-threshold.json": "Viewer arrays, speed-threshold cut (JSON)",
}


@dataclass(frozen=True)
class DownloadLink:
    label: str
    url: str
    available: bool


def downloads(transition: Transition, ready: Mapping[str, bool]) -> list[DownloadLink]:
    """Every download of the transition, in API order, with whether it exists yet."""
    return [
        DownloadLink(DOWNLOAD_LABELS[name], download_url(transition.pk, name), ready[name])
        for name in TRANSITION_DOWNLOADS
    ]
