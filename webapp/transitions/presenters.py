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


def blend_lines(result: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each method's blend in words (kind, length and why), ``(label, text)``; empty for a
    report written before blends were chosen from the mismatch."""
    methods: Mapping[str, Mapping[str, Any]] = result.get("methods") or {}
    lines = []
    for method, label in METHOD_LABELS.items():
        blending = (methods.get(method) or {}).get("blending")
        if blending:
            lines.append(
                (
                    label,
                    f"{blending['method']} over {blending['blend_s']:.2f} s: {blending['reason']}",
                )
            )
    return lines


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
    length = (
        f"{value['blend_min_s']}–{value['blend_max_s']} s by the mismatch"
        if value["blend_s"] is None
        else f"{value['blend_s']} s"
    )
    return (
        f"α {value['alpha']}, θ_max {value['theta_max_deg']}°, {value['measure']}, "
        f"blend {value['blend']} over {length}"
    )


def download_url(transition_id: int, name: str) -> str:
    """``/api/v1/transitions/{id}/download/{name}/``."""
    return reverse("api:transition-download", args=[transition_id, name])


def player_sources(transition: Transition, ready: Mapping[str, bool]) -> dict[str, Any]:
    """What the compare player needs (``json_script``): per method its label, viewer URL
    and layout (where A, the blend and B lie in its frames); only methods whose arrays
    can be downloaded."""
    result = transition.result or {}
    methods = result.get("methods") or {}
    sources = {
        method: {
            "label": METHOD_LABELS[method],
            "url": download_url(transition.pk, name),
            "layout": (methods.get(method) or {}).get("layout"),
        }
        for method, name in VIEWER_DOWNLOADS.items()
        if ready.get(name)
    }
    found = result.get("bridge") or {}
    if found.get("found") and ready.get(BRIDGE_VIEWER):
        sources["bridge"] = {
            "label": f"Bridge via {found['via']['name']}",
            "url": download_url(transition.pk, BRIDGE_VIEWER),
            "layout": bridge_layout(found),
        }
    return sources


def bridge_layout(found: Mapping[str, Any]) -> dict[str, Any]:
    """The bridge clip's layout for the player: the first join (into C) as a transition's,
    the second (into B) under ``bridge`` (``static/js/viewer/compare-timeline.js``)."""
    first, second = (join["layout"] for join in found["joins"])
    keys = ("cut_frame", "entry_frame", "blend_start_frame", "blend_stop_frame")
    return {
        "frames": found["frames"],
        **{key: first[key] for key in keys},
        "bridge": {key: second[key] for key in keys},
    }


@dataclass(frozen=True)
class JoinView:
    """One join of a bridge in words."""

    label: str
    where: str
    blend: str
    continuity: str
    pose: str
    good: bool


@dataclass(frozen=True)
class VerdictView:
    """Whether MTP's join meets the limits; if not, the bridge (or that there is none)."""

    good: bool
    sentence: str
    limits: str
    bridge_text: str
    joins: list[JoinView]


def _join_view(label: str, join: Mapping[str, Any], cut: str, entry: str) -> JoinView:
    metrics = join["metrics"]
    return JoinView(
        label,
        f"{cut} → {entry}",
        f"{join['blend']} over {join['blend_s']:.2f} s",
        f"{metrics['velocity_continuity']:.3f}",
        f"{metrics['pose_discontinuity_m']:.3f}",
        bool(join["verdict"]["good"]),
    )


def verdict_view(result: Mapping[str, Any]) -> VerdictView | None:
    """MTP's verdict and the bridge for the page; ``None`` for a report without a verdict
    (before the run succeeded, or written before verdicts)."""
    verdict = result.get("verdict")
    if not verdict:
        return None
    limits = verdict["limits"]
    stated = (
        f"velocity continuity under {limits['continuity']:g}, "
        f"pose jump at most {limits['pose_m']:g} m"
    )
    if verdict["good"]:
        return VerdictView(True, "MTP's join meets the limits.", stated, "", [])
    sentence = "No good direct transition: " + "; ".join(verdict["misses"]) + "."
    found = result.get("bridge") or {}
    searched = found.get("searched_clips", 0)
    if not found.get("found"):
        text = (
            f"No clip of the project with this skeleton ({searched} searched) makes a better "
            "path through it: there is no good transition from A into B with these clips."
        )
        return VerdictView(False, sentence, stated, text, [])
    span = found["c_span"]
    text = (
        f"Bridge through {found['via']['name']} (of {searched} clips searched): it plays "
        f"{span['played_s']:.2f} s of it, from frame {span['entry_frame']} to frame "
        f"{span['cut_frame']}, between A and B."
    )
    first, second = found["joins"]
    c_entry, c_cut = f"C frame {span['entry_frame']}", f"C frame {span['cut_frame']}"
    joins = [
        _join_view("A → C", first, f"A frame {first['cut']['frame']}", c_entry),
        _join_view("C → B", second, c_cut, f"B frame {second['entry']['frame']}"),
    ]
    return VerdictView(False, sentence, stated, text, joins)


DOWNLOAD_LABELS: dict[str, str] = {
    "transition.bvh": "Transition clip, MTP cut (BVH)",
    "transition.glb": "Transition clip on the mannequin (GLB)",
    "transition.json": "Comparison report (JSON)",
    "viewer.json": "Viewer arrays, MTP cut (JSON)",
    "viewer-end.json": "Viewer arrays, end-of-clip cut (JSON)",
    "viewer-fixed70.json": "Viewer arrays, 70 % cut (JSON)",
    "viewer-threshold.json": "Viewer arrays, speed-threshold cut (JSON)",
    "bridge.bvh": "Bridge clip A → C → B (BVH)",
    "viewer-bridge.json": "Viewer arrays, bridge (JSON)",
}
BRIDGE_VIEWER = "viewer-bridge.json"
BRIDGE_DOWNLOADS = ("bridge.bvh", BRIDGE_VIEWER)
"""Downloads that exist only when the run built a bridge (listed only then)."""


@dataclass(frozen=True)
class DownloadLink:
    label: str
    url: str
    available: bool


def downloads(transition: Transition, ready: Mapping[str, bool]) -> list[DownloadLink]:
    """Every download of the transition, in API order, with whether it exists yet (a
    bridge's only when it was built)."""
    return [
        DownloadLink(DOWNLOAD_LABELS[name], download_url(transition.pk, name), ready[name])
        for name in TRANSITION_DOWNLOADS
        if ready[name] or name not in BRIDGE_DOWNLOADS
    ]
