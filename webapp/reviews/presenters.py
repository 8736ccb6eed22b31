"""The proposal page shaped from what was read: what a member may do on a version, its
reviewers and their decisions, its parameters and metrics in words with units, the
player's source and the thread's data for the browser. No queries: the view reads
(:func:`webapp.reviews.selectors.proposal_page_reads`, the proposal prefetched by
:func:`~webapp.reviews.selectors.proposal_get`) and passes the results in. Lists
(activity, notifications, proposals) are :mod:`webapp.reviews.listings`, the compare
page :mod:`webapp.reviews.compare`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.urls import reverse

from motioncore import parameters
from webapp.core.tables import Row, comparison_rows
from webapp.projects.models import ROLE_RANK, Role
from webapp.reviews import pins, states
from webapp.reviews.listings import METHOD_LABELS, ActivityRow, Approvals, activity_rows, rank
from webapp.reviews.models import CutMethod, Proposal, Verdict
from webapp.reviews.selectors import ProposalPageReads
from webapp.reviews.serializers import CommentSerializer
from webapp.sequences.models import Sequence
from webapp.transitions.models import Transition
from webapp.transitions.selectors import METRIC_COLUMNS as METRIC_COLUMNS  # the pages' columns
from webapp.transitions.selectors import VIEWER_DOWNLOADS

STATUS_HINTS: dict[str, str] = {
    states.Status.OPEN: "waiting for the reviewers' decisions",
    states.Status.CHANGES_REQUESTED: "a reviewer asked for changes: revise it to reopen it",
    states.Status.APPROVED: "final: this is the cut the team ships",
    states.Status.REJECTED: "final: propose again to try another cut",
    states.Status.SUPERSEDED: "a newer version replaced this one",
}
"""Status → what it means for the people on the page."""

DECISION_EVENTS = (Verdict.APPROVE, Verdict.REQUEST_CHANGES, Verdict.REJECT)


# --- who may do what ------------------------------------------------------------------------


@dataclass(frozen=True)
class Permissions:
    """The forms the page shows (the services check again on every write)."""

    role: Role | None
    can_comment: bool
    can_edit: bool  # propose, revise, assign (editors and owners)
    can_revise: bool
    can_assign: bool
    is_assigned: bool
    decisions: list[tuple[str, str]]  # the (value, label) decisions the user may make now
    can_resolve_all: bool
    decide_note: str  # why an assigned reviewer cannot decide now ("" otherwise)

    @property
    def can_decide(self) -> bool:
        return bool(self.decisions)


def permissions(proposal: Proposal, user: User, role: Role | None) -> Permissions:
    """What ``user`` (of ``role`` in the project) may do on this version, following
    :mod:`webapp.reviews.services`."""
    level = rank(role)
    editor = level >= ROLE_RANK[Role.EDITOR]
    status = states.Status(proposal.status)
    allowed = set(states.allowed_events(status))
    assigned = any(a.reviewer_id == user.pk for a in proposal.thread.reviewers.all())
    approved_by_me = any(
        d.reviewer_id == user.pk and d.decision == Verdict.APPROVE for d in proposal.decisions.all()
    )
    may_decide = assigned and level >= ROLE_RANK[Role.REVIEWER] and proposal.author_id != user.pk
    decisions = [
        (verdict.value, verdict.label)
        for verdict in DECISION_EVENTS
        if may_decide
        and states.Event(verdict.value) in allowed
        and not (verdict is Verdict.APPROVE and approved_by_me)
    ]
    return Permissions(
        role=role,
        decide_note=_decide_note(proposal, user, assigned, approved_by_me) if not decisions else "",
        can_comment=level >= ROLE_RANK[Role.REVIEWER],
        can_edit=editor,
        can_revise=editor and states.Event.REVISE in allowed,
        can_assign=editor and status not in states.TERMINAL,
        is_assigned=assigned,
        decisions=decisions,
        can_resolve_all=editor,
    )


def _decide_note(proposal: Proposal, user: User, assigned: bool, approved: bool) -> str:
    if not assigned:
        return ""
    if proposal.author_id == user.pk:
        return "You are assigned, but you wrote this version: another reviewer decides."
    if approved and proposal.status == states.Status.OPEN:
        return "You approved this version; it waits for more approvals."
    if proposal.status == states.Status.CHANGES_REQUESTED:
        return "Changes were requested: the author revises before anyone approves."
    return f"This version is {proposal.get_status_display().lower()}: no more decisions."


# --- the proposal page ----------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewerRow:
    username: str
    decision: str  # the verdict's value, "" before a decision
    decision_label: str
    note: str
    at: datetime | None


@dataclass(frozen=True)
class VersionLink:
    id: int
    version: int
    status: str
    status_label: str
    current: bool


def reviewer_rows(proposal: Proposal) -> list[ReviewerRow]:
    """Each assigned reviewer with their latest decision on this version."""
    latest = {d.reviewer_id: d for d in proposal.decisions.all()}  # oldest first: last wins
    rows = []
    for assignment in proposal.thread.reviewers.all():
        made = latest.get(assignment.reviewer_id)
        rows.append(
            ReviewerRow(
                username=assignment.reviewer.username,
                decision=made.decision if made else "",
                decision_label=made.get_decision_display() if made else "no decision yet",
                note=made.note if made else "",
                at=made.created_at if made else None,
            )
        )
    return rows


def approvals(proposal: Proposal) -> Approvals:
    """Approvals of assigned reviewers on this version against the project's N (from the
    prefetched reviewers, decisions and rule)."""
    assigned = {a.reviewer_id for a in proposal.thread.reviewers.all()}
    approved = {d.reviewer_id for d in proposal.decisions.all() if d.decision == Verdict.APPROVE}
    rule = getattr(proposal.project, "review_rule", None)
    return Approvals(len(assigned & approved), rule.approvals_required if rule else 1)


def version_links(proposal: Proposal, versions: Iterable[Proposal]) -> list[VersionLink]:
    return [
        VersionLink(v.pk, v.version, v.status, v.get_status_display(), v.pk == proposal.pk)
        for v in versions
    ]


def _seconds(section: Mapping[str, Any], frame: int, fps: float) -> float:
    """The report's time of a cut or entry, else the frame at A's rate."""
    time_s = section.get("time_s")
    return float(time_s) if isinstance(time_s, int | float) else frame / fps


def parameter_facts(proposal: Proposal) -> list[tuple[str, str]]:
    """α, θ_max, the measure, the cut method, the blend, the cut and entry frames with
    their times, the transition clip's length: label, value with its unit."""
    fps = proposal.clip_a.fps or 1.0
    params = proposal.parameters or {}
    cut_s = _seconds(params.get("cut") or {}, proposal.cut_frame, fps)
    entry_s = _seconds(params.get("entry") or {}, proposal.entry_frame, fps)
    blend = proposal.blend or {}
    duration = blend.get("duration_s")
    blend_text = str(blend.get("method") or "—") + (
        f" over {float(duration):.2f} s" if isinstance(duration, int | float) else ""
    )
    facts = [
        ("Cut method", METHOD_LABELS.get(proposal.method, proposal.method)),
        ("α (momentum fraction)", f"{proposal.alpha:g}"),
        ("θ_max (direction change)", f"{proposal.theta_max_deg:g}°"),
        ("Momentum measure", proposal.measure),
        ("Blend", blend_text),
        (f"Cut in A ({proposal.clip_a.name})", f"frame {proposal.cut_frame} · {cut_s:.2f} s"),
        (
            f"Entry in B ({proposal.clip_b.name})",
            f"frame {proposal.entry_frame} · {entry_s:.2f} s (at A's frame rate)",
        ),
    ]
    if proposal.join_number is not None:
        facts.insert(0, ("From", f"join {proposal.join_number} of sequence {proposal.sequence_id}"))
    if proposal.transition_frames:
        length = (proposal.transition_frames - 1) / float(params.get("sequence_fps") or fps)
        played = "Sequence clip" if proposal.join_number is not None else "Transition clip"
        facts.append((played, f"{proposal.transition_frames} frames · {length:.2f} s"))
    return facts


def _report_rate(proposal: Proposal) -> float:
    """Frames per second of the run's frame numbers: the report's cut frame over its time,
    else clip A's rate."""
    cut = (proposal.parameters or {}).get("cut") or {}
    frame, time_s = cut.get("frame"), cut.get("time_s")
    if isinstance(frame, int) and isinstance(time_s, int | float) and frame > 0 and time_s > 0:
        return frame / time_s
    return proposal.clip_a.fps or 1.0


def metric_rows(proposal: Proposal) -> list[Row]:
    """The snapshot's metrics table as the transition page shows it (every method, each
    column's best in bold); every method's cut and entry with their times."""
    params = proposal.parameters or {}
    rate = _report_rate(proposal)

    def at(frame: Any) -> dict[str, Any] | None:
        return {"frame": frame, "time_s": frame / rate} if isinstance(frame, int) else None

    methods: dict[str, Any] = {
        method: {"cut": at(row.get("cut_frame")), "entry": at(row.get("entry_frame"))}
        for method, row in (proposal.metrics or {}).items()
    }
    methods[proposal.method] = {"cut": params.get("cut"), "entry": params.get("entry")}
    report = {"metrics": proposal.metrics, "methods": methods}
    return comparison_rows(report, labels=METHOD_LABELS, columns=METRIC_COLUMNS)


def player_source(proposal: Proposal, ready: Mapping[str, bool]) -> dict[str, Any] | None:
    """The proposal's transition clip for the player: the viewer arrays of its cut method
    (``viewer.json``, ``viewer-<method>.json``) and their layout, or for a sequence's join
    the sequence clip with that join's layout; ``None`` when the run or its file is gone
    (``ready``: the downloads of the transition or sequence → whether each exists)."""
    layout = (proposal.blend or {}).get("layout") or None
    if proposal.sequence_id is not None:
        if not ready.get("viewer.json"):
            return None
        return {
            "label": f"v{proposal.version} · join {proposal.join_number} of the sequence",
            "url": reverse("api:sequence-download", args=[proposal.sequence_id, "viewer.json"]),
            "layout": layout,
        }
    name = VIEWER_DOWNLOADS.get(proposal.method)
    if proposal.transition_id is None or name is None or not ready.get(name):
        return None
    return {
        "label": f"v{proposal.version} · {METHOD_LABELS.get(proposal.method, proposal.method)}",
        "url": reverse("api:transition-download", args=[proposal.transition_id, name]),
        "layout": (proposal.blend or {}).get("layout") or None,
    }


def report_links(proposal: Proposal) -> list[tuple[str, str]]:
    return [
        ("Review report (JSON)", reverse("api:proposal-report-json", args=[proposal.pk])),
        ("Review report (CSV)", reverse("api:proposal-report-csv", args=[proposal.pk])),
    ]


def revision_choices(proposal: Proposal, sources: Iterable[Transition]) -> list[tuple[int, str]]:
    """The transition runs a revision may come from
    (:func:`~webapp.reviews.selectors.revision_sources`) as (id, label)."""
    return [(t.pk, _transition_label(t, current=t.pk == proposal.transition_id)) for t in sources]


def _transition_label(transition: Transition, *, current: bool) -> str:
    value = parameters.resolved(transition.parameters or {}, parameters.ANALYSIS)
    text = (
        f"Transition {transition.pk}: α {value['alpha']}, θ_max "
        f"{value['theta_max_deg']}°, {value['measure']}"
    )
    return text + (" (this version's)" if current else "")


def revision_join_choices(joins: Iterable[tuple[Sequence, int]]) -> list[tuple[str, str]]:
    """The sequences' joins a revision of a join's proposal may come from
    (:func:`~webapp.reviews.selectors.revision_joins`) as (``"<sequence>:<join>"``, label)."""
    return [(f"{s.pk}:{k}", f"Sequence {s.pk}, join {k}") for s, k in joins]


def compare_choices(others: Iterable[Proposal]) -> list[tuple[int, str]]:
    """The project's other proposals (every version) to compare this one with."""
    return [(p.pk, f"{p.title} (v{p.version}, {p.get_status_display().lower()})") for p in others]


def previous_version(proposal: Proposal, versions: Iterable[Proposal]) -> int | None:
    older = [v for v in versions if v.version < proposal.version]
    return max(older, key=lambda v: v.version).pk if older else None


def review_config(
    proposal: Proposal, user: User, perms: Permissions, reads: ProposalPageReads
) -> dict[str, Any]:
    """What the thread's script needs (``json_script``): who is reading, the API's URLs,
    the joints and members a comment may name, the parameters a comment may pin, the
    clips' frame rates (to place pins made on A or B), the thread itself and the
    notifications about it to mark read (``unread``: ids and the URL to POST them to)."""
    return {
        "proposal": proposal.pk,
        "version": proposal.version,
        "me": user.username,
        "canComment": perms.can_comment,
        "canResolveAll": perms.can_resolve_all,
        "commentsUrl": reverse("api:proposal-comments", args=[proposal.pk]),
        "resolveUrl": reverse("api:comment-resolve", args=[0]),
        "joints": pins.joint_names(proposal),
        "members": reads.members,
        "parameters": {
            "alpha": proposal.alpha,
            "theta_max_deg": proposal.theta_max_deg,
            "measure": proposal.measure,
            "method": proposal.method,
            "blend": (proposal.blend or {}).get("method"),
        },
        "clips": {
            "a": {"fps": proposal.clip_a.fps, "frames": proposal.clip_a.frames},
            "b": {"fps": proposal.clip_b.fps, "frames": proposal.clip_b.frames},
        },
        "transitionFrames": proposal.transition_frames,
        "comments": CommentSerializer(reads.thread, many=True).data,
        "unread": {
            "ids": reads.unread_notifications,
            "url": reverse("api:notifications-read"),
        },
    }


@dataclass(frozen=True)
class ProposalPage:
    """Everything the proposal page shows (the view adds the forms' posted values)."""

    proposal: Proposal
    perms: Permissions
    status_hint: str
    versions: list[VersionLink]
    reviewers: list[ReviewerRow]
    approvals: Approvals
    parameters: list[tuple[str, str]]
    metric_rows: list[Row]
    player: dict[str, Any] | None
    reports: list[tuple[str, str]]
    config: dict[str, Any]
    assignable: list[str] = field(default_factory=list)
    revision_sources: list[tuple[int, str]] = field(default_factory=list)
    revision_joins: list[tuple[str, str]] = field(default_factory=list)
    compare_choices: list[tuple[int, str]] = field(default_factory=list)
    previous_version: int | None = None
    history: list[ActivityRow] = field(default_factory=list)


def proposal_page(proposal: Proposal, user: User, reads: ProposalPageReads) -> ProposalPage:
    """The proposal page of ``user`` from what :func:`proposal_page_reads` read."""
    perms = permissions(proposal, user, reads.role)
    return ProposalPage(
        proposal=proposal,
        perms=perms,
        status_hint=STATUS_HINTS.get(proposal.status, ""),
        versions=version_links(proposal, reads.versions),
        reviewers=reviewer_rows(proposal),
        approvals=approvals(proposal),
        parameters=parameter_facts(proposal),
        metric_rows=metric_rows(proposal),
        player=player_source(proposal, reads.downloads_ready),
        reports=report_links(proposal),
        config=review_config(proposal, user, perms, reads),
        assignable=reads.eligible if perms.can_assign else [],
        revision_sources=revision_choices(proposal, reads.revision_sources)
        if perms.can_revise
        else [],
        revision_joins=revision_join_choices(reads.revision_joins) if perms.can_revise else [],
        compare_choices=compare_choices(reads.compare_choices),
        previous_version=previous_version(proposal, reads.versions),
        history=activity_rows(reads.history),
    )


def method_choices() -> list[tuple[str, str]]:
    return [(value, str(label)) for value, label in CutMethod.choices]
