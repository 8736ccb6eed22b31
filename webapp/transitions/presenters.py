"""Transition reads shaped for the transition page: the comparison table with the best
value of each column marked, the players' sources and the parameters in words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from motioncore import parameters as p
from webapp.core import tables
from webapp.core.tables import Row
from webapp.transitions.models import Transition
from webapp.transitions.selectors import METRIC_COLUMNS, TRANSITION_DOWNLOADS, VIEWER_DOWNLOADS

METHOD_LABELS: dict[str, str] = {
    "mtp": "MTP",
    "end": "End of clip",
    "fixed70": "70 % of A",
    "threshold": "Speed threshold",
}
"""Cut method → its name in the table and the players' selectors (the page explains
them: the momentum transition point, A's last frame, 70 % of A's length, the first
frame after A's peak where the speed falls below half of it)."""

COLUMNS = METRIC_COLUMNS
"""The table's metric columns."""


def comparison_rows(result: Mapping[str, Any]) -> list[Row]:
    """The report's methods as table rows (empty before the run succeeded), each
    column's best value marked (ties all marked)."""
    return tables.comparison_rows(result, labels=METHOD_LABELS, columns=COLUMNS)


@dataclass(frozen=True)
class PairChoice:
    """One (cut, entry) pair of MTP's search in words: where, its cost and its terms."""

    label: str
    cut: str
    entry: str
    cost: str
    terms: str


def _pair(label: str, cut: Mapping[str, Any], entry: Mapping[str, Any]) -> PairChoice:
    cost = entry.get("cost") or {}
    continuity = cost.get("continuity")
    terms = [
        f"pose {cost.get('pose_m', 0.0):.3f} m",
        f"velocity {cost.get('velocity_m_per_s', 0.0):.3f} m/s",
    ]
    if continuity is not None:
        terms.append(f"continuity {continuity:.3f}")
    if cost.get("phase_rad") is not None:
        terms.append(f"phase {cost['phase_rad']:.2f} rad")
    where = " (past B's first second)" if entry.get("widened") else ""
    return PairChoice(
        label,
        f"frame {cut['frame']} · {cut['time_s']:.2f} s",
        f"frame {entry['frame']} · {entry['time_s']:.2f} s{where}",
        f"{cost.get('total', 0.0):.3f}",
        ", ".join(terms),
    )


def search_choices(result: Mapping[str, Any]) -> list[PairChoice]:
    """MTP's chosen (cut, entry) pair and the next best of its search, with their costs
    (empty for a report without them: before the run succeeded, or written before the
    joint search)."""
    cut, entry = result.get("cut"), result.get("entry")
    if not cut or not entry or "cost" not in entry:
        return []
    out = [_pair("Chosen", cut, entry)]
    runner = result.get("next_best")
    if runner:
        out.append(_pair("Next best", runner["cut"], runner["entry"]))
    return out


def engine_facts(engine: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The engine settings (:func:`motioncore.transition.engine.parameters`) as label, value pairs:
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
    """α, θ_max, the measure and the blend in words (earlier names read too)."""
    value = p.resolved(parameters, p.TRANSITION)
    return (
        f"α {value['alpha']}, θ_max {value['theta_max_deg']}°, {value['measure']}, "
        f"{value['blend']} over {value['blend_s']} s"
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
