"""Turn stored records into what the pages show: the validation report as labelled rows,
download links. Presentation only: no queries, no numerics beyond formatting."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse

from webapp.clips.models import Clip

UNIT_NAMES: dict[str, str] = {
    "m": "metres",
    "dm": "decimetres",
    "cm": "centimetres",
    "mm": "millimetres",
    "inch": "inches",
    "cmu": "CMU units (1/0.45 in ≈ 5.64 cm)",
}

DOWNLOAD_LABELS: dict[str, str] = {
    # names of GET /api/v1/clips/{id}/download/{name}/ (webapp.clips.selectors.DOWNLOADS)
    "original": "Original BVH (as uploaded)",
    "cleaned.bvh": "Cleaned BVH",
    "cleaned.glb": "Cleaned motion on the mannequin (GLB)",
    "viewer.json": "Viewer arrays (JSON)",
    "viewer-raw.json": "Viewer arrays before cleaning (JSON)",
    "viewer.f32": "Viewer positions, every frame (float32 [frames, joints, 3])",
    "viewer-raw.f32": "Viewer positions before cleaning, every frame (float32)",
    "clean-report.json": "Cleaning report (JSON)",
    "analysis.json": "Phase and momentum analysis (JSON)",
}


@dataclass(frozen=True)
class Guess:
    """A detected convention: value, what it means, confidence in percent, evidence."""

    label: str
    value: str
    meaning: str
    confidence_pct: int | None
    evidence: str
    overridden: bool


@dataclass(frozen=True)
class Download:
    label: str
    url: str
    available: bool


@dataclass(frozen=True)
class ReportView:
    """The validation report in display order."""

    summary: list[tuple[str, str]]
    rotation_orders: list[tuple[str, int]]
    guesses: list[Guess]
    roles: list[tuple[str, str, str]]
    unresolved_roles: list[str]
    is_humanoid: bool | None
    warnings: list[str]
    joints: list[dict[str, str]]
    root_channels: list[tuple[str, str]] = field(default_factory=list)


def role_label(role: str) -> str:
    """``left_upper_leg`` → ``Left upper leg``."""
    return role.replace("_", " ").capitalize()


def _number(value: Any, digits: int, unit: str) -> str:
    if not isinstance(value, int | float):
        return "—"
    return f"{value:,.{digits}f} {unit}".strip()


def _guess(label: str, raw: Any, meanings: Mapping[str, str]) -> Guess | None:
    if not isinstance(raw, Mapping) or "value" not in raw:
        return None
    value = str(raw.get("used") or raw["value"])
    confidence = raw.get("confidence")
    return Guess(
        label=label,
        value=value,
        meaning=meanings.get(value, value),
        confidence_pct=round(100 * confidence) if isinstance(confidence, int | float) else None,
        evidence=str(raw.get("evidence", "")),
        overridden=bool(raw.get("overridden", False)),
    )


def _summary(report: Mapping[str, Any]) -> list[tuple[str, str]]:
    body = report.get("body") or {}
    frame_time = report.get("frame_time_s")
    fps = _number(report.get("fps"), 3, "fps")
    if isinstance(frame_time, int | float):
        fps += f" (frame time {frame_time:.6g} s)"
    return [
        ("Joints", f"{report.get('joints', '—')} (+ {report.get('end_sites', 0)} end sites)"),
        ("Channels", str(report.get("channels", "—"))),
        ("Frames", _number(report.get("frames"), 0, "")),
        ("Frame rate", fps),
        ("Duration", _number(report.get("duration_s"), 3, "s")),
        ("Root joints", ", ".join(report.get("roots") or []) or "—"),
        ("Body height", _number(body.get("height_m"), 2, "m")),
        ("Lowest foot", _number(body.get("lowest_foot_m"), 3, "m")),
        ("Line endings", str(report.get("line_endings") or "—")),
    ]


def report_view(report: Mapping[str, Any]) -> ReportView:
    """The validation report of :func:`motioncore.bvh.report.validation_report`, for a page."""
    conventions = report.get("conventions") or {}
    roles = report.get("roles") or {}
    how = roles.get("how") or {}
    guesses = [
        _guess("Unit", conventions.get("unit"), UNIT_NAMES),
        _guess("Up axis", conventions.get("up_axis"), {"Y": "Y up", "Z": "Z up"}),
        _guess("Up axis of the rest pose", conventions.get("rest_up_axis"), {}),
    ]
    return ReportView(
        summary=_summary(report),
        rotation_orders=sorted((report.get("rotation_orders") or {}).items()),
        guesses=[g for g in guesses if g is not None],
        roles=[
            (role_label(role), str(joint), str(how.get(role, "")))
            for role, joint in (roles.get("joints") or {}).items()
        ],
        unresolved_roles=[role_label(r) for r in roles.get("unresolved") or []],
        is_humanoid=roles.get("is_humanoid"),
        warnings=[str(w) for w in report.get("warnings") or []],
        joints=[
            {
                "name": str(j.get("name", "")),
                "parent": str(j.get("parent") or "—"),
                "channels": " ".join(j.get("channels") or []),
                "rotation_order": str(j.get("rotation_order") or "—"),
            }
            for j in report.get("joint_list") or []
        ],
        root_channels=[
            (str(name), " ".join(channels))
            for name, channels in (report.get("root_channels") or {}).items()
        ],
    )


def download_url(clip_id: int, name: str) -> str:
    """The API's download URL, ``/api/v1/clips/{id}/download/{name}/``."""
    return reverse("api:clip-download", args=[clip_id, name])


def skate_readout(report: Mapping[str, Any] | None) -> list[str]:
    """Per foot: median foot slide while planted before → after cleaning, m/s (the
    independent measures of the cleaning report), and the worst floor penetration."""
    if not report:
        return []
    before = _feet(report.get("measures_before"))
    after = _feet(report.get("measures_after"))
    lines = [
        f"{side} foot slide {_number(before[side].get('slide_median_mps'), 3, '')} → "
        f"{_number((after.get(side) or {}).get('slide_median_mps'), 3, 'm/s')}"
        for side in ("left", "right")
        if side in before
    ]
    depth_before = (report.get("measures_before") or {}).get("penetration_worst_m")
    depth_after = (report.get("measures_after") or {}).get("penetration_worst_m")
    if depth_before is not None and depth_after is not None:
        lines.append(
            f"deepest foot point under the floor {_number(100 * depth_before, 1, '')} → "
            f"{_number(100 * depth_after, 1, 'cm')}"
        )
    return lines


def clean_warnings(report: Mapping[str, Any] | None) -> list[str]:
    """The cleaning report's warnings (bind-pose frames dropped, no contact found, ...)."""
    return [str(w) for w in (report or {}).get("warnings") or []]


def _feet(measured: Any) -> dict[str, dict[str, Any]]:
    feet = (measured or {}).get("feet") if isinstance(measured, Mapping) else None
    return {str(k): dict(v) for k, v in feet.items()} if isinstance(feet, Mapping) else {}


def viewer_url(clip: Clip, ready: Mapping[str, bool], name: str = "viewer.json") -> str | None:
    """Where the player fetches the clip's ready-to-play arrays (``name``: ``viewer.json``,
    or ``viewer-raw.json`` before cleaning); ``None`` until a run made them."""
    return download_url(clip.pk, name) if ready.get(name) else None


def downloads(clip: Clip, ready: Mapping[str, bool]) -> list[Download]:
    """The clip's downloads in API order; ``ready`` is name → whether it exists yet."""
    return [
        Download(DOWNLOAD_LABELS.get(name, name), download_url(clip.pk, name), available)
        for name, available in ready.items()
    ]


@dataclass(frozen=True)
class AnalysisView:
    """The stored analysis (``docs/analysis.md``) in a few lines."""

    available: bool
    reason: str
    parameters: str
    best_cut: str
    candidates: int
    units: int
    phases: list[tuple[str, int]]
    gait: str
    cuts: str
    recommendation: str


def _fraction_pct(fractions: Mapping[str, Any]) -> list[tuple[str, int]]:
    return [(name, round(100 * float(value))) for name, value in fractions.items()]


def _count(n: int, noun: str) -> str:
    """``"1 cycle"``, ``"3 cycles"``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _gait_line(gait: Mapping[str, Any]) -> str:
    if not gait.get("periodic"):
        return f"not periodic ({gait.get('reason') or 'no reason given'})"
    cycle, cadence = gait.get("cycle_s"), gait.get("cadence_steps_per_min")
    return (
        f"periodic: {_count(len(gait.get('cycles') or []), 'cycle')} of {_number(cycle, 2, 's')}, "
        f"{_number(cadence, 0, 'steps/min')}"
    )


def analysis_view(body: Mapping[str, Any] | None) -> AnalysisView | None:
    """The analysis summary for the clip page; ``None`` before any analysis ran."""
    if body is None:
        return None
    if not body.get("available", True):
        return AnalysisView(False, str(body.get("reason", "")), "", "", 0, 0, [], "", "", "")
    par = body.get("parameters") or {}
    measure = par.get("measure", par.get("method"))  # an analysis stored before the rename
    best = body.get("best")
    cuts = body.get("cuts") or {}
    times = ", ".join(f"{t:.2f}" for t in (cuts.get("times_s") or [])[:10])
    return AnalysisView(
        available=True,
        reason=str(body.get("reason") or ""),
        parameters=f"α {par.get('alpha')}, θ_max {par.get('theta_max_deg')}°, {measure}",
        best_cut=(
            f"frame {best['frame']} ({best['time_s']:.3f} s)" if isinstance(best, Mapping) else ""
        ),
        candidates=len(body.get("candidates") or []),
        units=len(body.get("units") or []),
        phases=_fraction_pct((body.get("phases") or {}).get("fractions") or {}),
        gait=_gait_line(body.get("gait") or {}),
        cuts=f"{cuts.get('strategy', 'none')}: {times} s" if times else "",
        recommendation=str(body.get("recommendation") or ""),
    )
