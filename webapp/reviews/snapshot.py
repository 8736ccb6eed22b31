"""What a proposal keeps of a transition run (the chosen cut method's frames, the
parameters and the whole metrics table) or of one join of a sequence (:func:`take_join`),
copied so that the proposal stays as it was reviewed whatever happens to the run later.

The report is :meth:`motioncore.transition.Comparison.as_dict` as the ``transition``
stage stores it (``Transition.result``): ``metrics.<method>.<metric>``,
``methods.<method>.{cut, entry, layout, recommendation}``, ``engine``, ``alpha``,
``theta_max_deg``, ``curve``, ``blend_s``, ``blend``, ``sources``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from motioncore import parameters as p


class SnapshotError(ValueError):
    """The report has no usable entry for the method (``code`` for the service error)."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Snapshot:
    """A proposal's fields from one method of a transition report."""

    method: str
    measure: str
    alpha: float
    theta_max_deg: float
    cut_frame: int
    entry_frame: int
    transition_frames: int | None
    blend: dict[str, Any]
    metrics: dict[str, Any]
    parameters: dict[str, Any]


METHOD_ORDER = ("mtp", "end", "fixed70", "threshold")
"""The report's cut methods in the order the pages and messages list them."""


def available_methods(result: Mapping[str, Any]) -> list[str]:
    """The cut methods the report has metrics for, in :data:`METHOD_ORDER` (then any
    other, alphabetically): PostgreSQL's ``jsonb`` does not keep the report's key order."""
    have = set((result.get("metrics") or {}).keys())
    return [m for m in METHOD_ORDER if m in have] + sorted(have - set(METHOD_ORDER))


def take(result: Mapping[str, Any], run_parameters: Mapping[str, Any], method: str) -> Snapshot:
    """The snapshot of ``method`` (``mtp``, ``end``, ``fixed70``, ``threshold``).

    ``run_parameters`` are the transition's own (``alpha``, ``theta_max_deg``,
    ``measure``, ``blend_s``, ``blend``; earlier names read too): the report's values
    win, these fill in what an older report lacks.

    Raises:
        SnapshotError: ``unknown_method`` when the report has no such method,
            ``incomplete_report`` when it lacks the method's cut or entry frame.
    """
    metrics: Mapping[str, Mapping[str, Any]] = result.get("metrics") or {}
    if method not in metrics:
        have = ", ".join(available_methods(result)) or "none"
        raise SnapshotError(
            f"The transition has no {method!r} cut (it has: {have}).", code="unknown_method"
        )
    detail: Mapping[str, Any] = (result.get("methods") or {}).get(method) or {}
    cut = dict(detail.get("cut") or {"frame": metrics[method].get("cut_frame")})
    entry = dict(detail.get("entry") or {"frame": metrics[method].get("entry_frame")})
    if not isinstance(cut.get("frame"), int) or not isinstance(entry.get("frame"), int):
        raise SnapshotError(
            f"The transition report has no cut or entry frame for {method!r}.",
            code="incomplete_report",
        )
    layout = dict(detail.get("layout") or {})
    frames = layout.get("frames")
    reported, _ = p.renamed(dict(result))  # an earlier report says "curve" for the measure
    ran, _ = p.renamed(dict(run_parameters))
    return Snapshot(
        method=method,
        measure=str(reported.get("measure", ran.get("measure", p.MEASURE.default))),
        alpha=float(reported.get("alpha", ran.get("alpha", p.ALPHA.default))),
        theta_max_deg=float(
            reported.get("theta_max_deg", ran.get("theta_max_deg", p.THETA_MAX_DEG.default))
        ),
        cut_frame=int(cut["frame"]),
        entry_frame=int(entry["frame"]),
        transition_frames=frames if isinstance(frames, int) else None,
        blend={
            "method": detail.get(
                "blend", result.get("blend", run_parameters.get("blend", p.BLEND.default))
            ),
            "duration_s": detail.get(
                "blend_s", result.get("blend_s", run_parameters.get("blend_s"))
            ),
            "layout": layout,
        },
        metrics={m: dict(row) for m, row in metrics.items()},
        parameters={
            "run": dict(run_parameters),
            "cut": cut,
            "entry": entry,
            "recommendation": detail.get("recommendation"),
            "engine": result.get("engine") if method == "mtp" else None,
            "sources": result.get("sources"),
        },
    )


def take_join(
    report: Mapping[str, Any], run_parameters: Mapping[str, Any], number: int
) -> Snapshot:
    """The snapshot of join ``number`` (1 = the join of the first two clips) of a sequence
    report (:meth:`motioncore.transition.sequence.Sequenced.as_dict` as the ``sequence``
    stage stores it): its cut in the leaving clip and entry in the entering clip (frames
    at the sequence's rate), its blend, its metrics as the ``mtp`` row (a join is cut by
    MTP unless set by hand, which ``parameters.cut.reason`` says) and its layout in the
    sequence clip's frames.

    Raises:
        SnapshotError: ``join_out_of_range`` when the sequence has no such join,
            ``incomplete_report`` when the join lacks its frames.
    """
    joins = list(report.get("joins") or [])
    if not 1 <= number <= len(joins):
        raise SnapshotError(
            f"The sequence has joins 1 to {len(joins)}, not {number}.", code="join_out_of_range"
        )
    join: Mapping[str, Any] = joins[number - 1]
    cut, entry = dict(join.get("cut") or {}), dict(join.get("entry") or {})
    if not isinstance(cut.get("frame"), int) or not isinstance(entry.get("frame"), int):
        raise SnapshotError(
            f"The sequence report has no cut or entry frame for join {number}.",
            code="incomplete_report",
        )
    ran, _ = p.renamed(dict(run_parameters))
    layout = {**dict(join.get("layout") or {}), "frames": report.get("frames")}
    row = {**dict(join.get("metrics") or {}), "cut_frame": cut["frame"]}
    row["entry_frame"] = entry["frame"]
    return Snapshot(
        method="mtp",
        measure=str(ran.get("measure", p.MEASURE.default)),
        alpha=float(ran.get("alpha", p.ALPHA.default)),
        theta_max_deg=float(ran.get("theta_max_deg", p.THETA_MAX_DEG.default)),
        cut_frame=int(cut["frame"]),
        entry_frame=int(entry["frame"]),
        transition_frames=report.get("frames") if isinstance(report.get("frames"), int) else None,
        blend={"method": join.get("blend"), "duration_s": join.get("blend_s"), "layout": layout},
        metrics={"mtp": row},
        parameters={
            "run": dict(run_parameters),
            "cut": cut,
            "entry": entry,
            "recommendation": None,
            "engine": None,
            "sources": None,
            "verdict": join.get("verdict"),
            "blending": join.get("blending"),
            "sequence_fps": report.get("fps"),
        },
    )


def at_rate(snap: Snapshot, rate: float, fps: float) -> Snapshot:
    """``snap`` with its cut and entry frames, counted at ``rate`` frames per second,
    counted at ``fps`` instead (rounded; unchanged when the rates agree)."""
    if abs(rate - fps) < 1e-6 * max(rate, fps):
        return snap
    return replace(
        snap,
        cut_frame=round(snap.cut_frame * fps / rate),
        entry_frame=round(snap.entry_frame * fps / rate),
    )
