"""Review reads shaped as rows for lists: the project page's proposals, the activity log
(also the proposal page's history), notifications, the members who may review, the
transition page's "Propose this cut" card and the sequence page's review of its joins.
Reads only."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User

from webapp.projects.models import ROLE_RANK, Project, Role
from webapp.projects.permissions import role_of
from webapp.reviews.models import (
    MAX_APPROVALS_REQUIRED,
    Activity,
    CutMethod,
    Notification,
    Proposal,
    ReviewRule,
)
from webapp.reviews.notify import VERBS
from webapp.reviews.selectors import eligible_reviewers
from webapp.runs.models import Status as RunStatus
from webapp.sequences.models import Sequence
from webapp.transitions.models import Transition

METHOD_LABELS: dict[str, str] = {method.value: str(method.label) for method in CutMethod}
"""Cut method → its name (the transition page's names; :class:`CutMethod` order)."""


def rank(role: Role | None) -> int:
    """The role's rank (-1 for non-members)."""
    return -1 if role is None else ROLE_RANK[role]


@dataclass(frozen=True)
class Approvals:
    count: int
    required: int

    @property
    def text(self) -> str:
        """``"1 of 2 approvals"``."""
        return f"{self.count} of {self.required} approval{'' if self.required == 1 else 's'}"


# --- the project page, the activity log, notifications -------------------------------------


@dataclass(frozen=True)
class ProposalRow:
    """A thread's newest version, for the project page."""

    id: int
    title: str
    version: int
    status: str
    status_label: str
    author: str
    updated_at: datetime


def proposal_rows(proposals: Iterable[Proposal]) -> list[ProposalRow]:
    """One row per proposal (:func:`~webapp.reviews.selectors.proposal_newest_list`)."""
    return [
        ProposalRow(
            p.pk,
            p.title,
            p.version,
            p.status,
            p.get_status_display(),
            p.author.username if p.author else "—",
            p.updated_at,
        )
        for p in proposals
    ]


@dataclass(frozen=True)
class ActivityRow:
    """One log entry in words: who, did what, to which proposal version, details."""

    id: int
    actor: str
    verb: str
    text: str
    proposal_id: int | None
    proposal_title: str
    version: int | None
    detail: str
    project_name: str
    created_at: datetime


EXCERPT_CHARS = 140


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1] + "…"


def _detail(activity: Activity) -> str:
    data = activity.data or {}
    if activity.verb.startswith("comment.") and activity.comment is not None:
        return f"“{_excerpt(activity.comment.body)}”"
    if activity.verb == "proposal.reviewers_assigned":
        names = ", ".join(data.get("reviewers") or []) or "none"
        return f"reviewers: {names}"
    if activity.verb in {"proposal.approval_added", "proposal.approved"} and "approvals" in data:
        note = f" · “{_excerpt(data['note'])}”" if data.get("note") else ""
        return Approvals(int(data["approvals"]), int(data.get("approvals_required", 1))).text + note
    if data.get("note"):
        return f"“{_excerpt(data['note'])}”"
    if activity.verb == "review_rule.updated":
        return f"{data.get('approvals_required')} approvals needed (was {data.get('before')})"
    if activity.verb == "proposal.revised":
        return f"version {data.get('version')}"
    return ""


def activity_rows(activities: Iterable[Activity]) -> list[ActivityRow]:
    rows = []
    for a in activities:
        proposal = a.proposal
        rows.append(
            ActivityRow(
                id=a.pk,
                actor=a.actor.username if a.actor else "Someone",
                verb=a.verb,
                text=VERBS.get(a.verb, a.verb),
                proposal_id=proposal.pk if proposal else None,
                proposal_title=proposal.title if proposal else "",
                version=proposal.version if proposal else None,
                detail=_detail(a),
                project_name=a.project.name,
                created_at=a.created_at,
            )
        )
    return rows


@dataclass(frozen=True)
class NotificationRow:
    id: int
    unread: bool
    activity: ActivityRow


def notification_rows(notifications: Iterable[Notification]) -> list[NotificationRow]:
    """Unread first, then newest first (``notifications`` newest first)."""
    listed = list(notifications)
    rows = activity_rows(n.activity for n in listed)
    paired = [
        NotificationRow(n.pk, n.read_at is None, row) for n, row in zip(listed, rows, strict=True)
    ]
    return sorted(paired, key=lambda r: not r.unread)  # stable: newest first within each


# --- the transition page's propose form -------------------------------------------------------


@dataclass(frozen=True)
class ProposeCard:
    """The transition page's "Propose this cut for review" card."""

    can_propose: bool
    methods: list[tuple[str, str]]
    reviewers: list[str]
    proposals: list[ProposalRow]


def propose_card(transition: Transition, user: User) -> ProposeCard:
    """The cut methods the run's report has, the members who may review (not the user)
    and the proposals already made from this run; ``can_propose`` for editors and owners
    once the run succeeded."""
    role = role_of(project=transition.project, user=user)
    ready = transition.run.status == RunStatus.SUCCEEDED and bool(transition.result)
    report = (transition.result or {}).get("metrics") or {}
    methods = [(m, METHOD_LABELS[m]) for m in METHOD_LABELS if m in report]
    made = Proposal.objects.filter(transition=transition).select_related("author")
    return ProposeCard(
        can_propose=ready and bool(methods) and rank(role) >= ROLE_RANK[Role.EDITOR],
        methods=methods,
        reviewers=eligible_reviewers(transition.project, exclude=[user.pk]),
        proposals=proposal_rows(made.order_by("-created_at", "-id")),
    )


# --- the sequence page's review of each join ---------------------------------------------------


@dataclass(frozen=True)
class JoinReview:
    """One join's proposals (``number``: 1 = the join of the first two clips)."""

    number: int
    proposals: list[ProposalRow]


@dataclass(frozen=True)
class JoinReviews:
    """The sequence page's review of its joins: whether the user may propose a join, whom
    they may name as reviewers, and each join's proposals."""

    can_propose: bool
    reviewers: list[str]
    joins: list[JoinReview]

    @property
    def any_proposed(self) -> bool:
        return any(join.proposals for join in self.joins)


def join_reviews(sequence: Sequence, user: User) -> JoinReviews:
    """``can_propose`` for editors and owners once the sequence is rendered."""
    role = role_of(project=sequence.project, user=user)
    ready = sequence.run.status == RunStatus.SUCCEEDED and bool(sequence.result)
    made = list(Proposal.objects.filter(sequence=sequence).select_related("author"))
    count = len((sequence.result or {}).get("joins") or [])
    return JoinReviews(
        can_propose=ready and rank(role) >= ROLE_RANK[Role.EDITOR],
        reviewers=eligible_reviewers(sequence.project, exclude=[user.pk]),
        joins=[
            JoinReview(k, proposal_rows(p for p in made if p.join_number == k))
            for k in range(1, count + 1)
        ],
    )


# --- the project page's review rule ------------------------------------------------------------


@dataclass(frozen=True)
class RuleCard:
    """The project's approval rule and whether the user (an owner) may change it."""

    approvals_required: int
    can_set: bool
    maximum: int


def rule_card(project: Project, user: User) -> RuleCard:
    rule = ReviewRule.objects.filter(project=project).first()
    role = role_of(project=project, user=user)
    return RuleCard(
        approvals_required=rule.approvals_required if rule else 1,
        can_set=rank(role) >= ROLE_RANK[Role.OWNER],
        maximum=MAX_APPROVALS_REQUIRED,
    )
