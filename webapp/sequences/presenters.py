"""Sequence reads shaped for its pages: the joins as table rows, the downloads, the
player's source."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from webapp.sequences.models import Sequence
from webapp.sequences.selectors import SEQUENCE_DOWNLOADS

DOWNLOAD_LABELS: dict[str, str] = {
    "sequence.bvh": "Sequence clip (BVH)",
    "sequence.glb": "Sequence clip on the mannequin (GLB)",
    "sequence.json": "Sequence report (JSON)",
    "viewer.json": "Viewer arrays (JSON)",
}


@dataclass(frozen=True)
class JoinRow:
    """One join in words and numbers (frames in each clip's own frames)."""

    number: int
    leaving: str
    entering: str
    cut: int
    entry: int
    at_frame: int
    blend: str
    continuity: str
    pose: str
    verdict: str
    good: bool
    set_by_hand: bool


def join_rows(result: Mapping[str, Any]) -> list[JoinRow]:
    """The report's joins (empty before the run succeeded)."""
    clips = result.get("clips") or []
    names = [str(c.get("name", c.get("id"))) for c in clips]
    rows = []
    for k, join in enumerate(result.get("joins") or [], start=1):
        metrics, verdict = join["metrics"], join["verdict"]
        rows.append(
            JoinRow(
                k,
                f"{join['from_clip'] + 1}. {names[join['from_clip']]}",
                f"{join['to_clip'] + 1}. {names[join['to_clip']]}",
                int(join["cut"]["frame"]),
                int(join["entry"]["frame"]),
                int(join["layout"]["cut_frame"]),
                f"{join['blend']} over {join['blend_s']:.2f} s",
                f"{metrics['velocity_continuity']:.3f}",
                f"{metrics['pose_discontinuity_m']:.3f}",
                "meets the limits" if verdict["good"] else "; ".join(verdict["misses"]),
                bool(verdict["good"]),
                join["cut"].get("reason") == "set by hand",
            )
        )
    return rows


def player_source(sequence: Sequence, ready: Mapping[str, bool]) -> dict[str, Any] | None:
    """What the player needs (``json_script``): the viewer URL, where the joins (blend and
    cut) and clips lie in the output's frames and each join's cut in its leaving clip's
    frames (the bar's handles); ``None`` before the arrays exist."""
    if not ready.get("viewer.json"):
        return None
    result = sequence.result or {}
    names = [str(c.get("name")) for c in result.get("clips") or []]
    return {
        "url": download_url(sequence.pk, "viewer.json"),
        "joins": [
            {
                "start": j["layout"]["blend_start_frame"],
                "stop": j["layout"]["blend_stop_frame"],
                "at": j["layout"]["cut_frame"],
                "cut": j["cut"]["frame"],
            }
            for j in result.get("joins") or []
        ],
        "segments": [
            {"start": s["start"], "name": names[s["index"]] if s["index"] < len(names) else ""}
            for s in result.get("segments") or []
        ],
    }


def download_url(sequence_id: int, name: str) -> str:
    """``/api/v1/sequences/{id}/download/{name}/``."""
    return reverse("api:sequence-download", args=[sequence_id, name])


def downloads(sequence: Sequence, ready: Mapping[str, bool]) -> list[tuple[str, str, bool]]:
    """Every download: label, URL and whether it exists yet."""
    return [
        (DOWNLOAD_LABELS[name], download_url(sequence.pk, name), ready[name])
        for name in SEQUENCE_DOWNLOADS
    ]
