"""Review reads, scoped to the user's memberships: anything of a project the user is not
a member of is 404. Every member (viewer included) reads proposals, threads, reports,
the review rule and the activity log; notifications are the user's own."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import OuterRef, Prefetch, QuerySet, Subquery

from webapp.core.errors import NotFound
from webapp.projects.models import Membership, Project, Role
from webapp.projects.permissions import role_of
from webapp.projects.selectors import project_get, project_list
from webapp.reviews.models import (
    Activity,
    Comment,
    Decision,
    Notification,
    Proposal,
    ReviewerAssignment,
    ReviewRule,
    Verdict,
)
from webapp.runs.models import Status as RunStatus
from webapp.sequences.models import Sequence
from webapp.sequences.selectors import sequence_downloads_ready
from webapp.transitions.models import Transition
from webapp.transitions.selectors import transition_downloads_ready

Viewer = User | AnonymousUser


def _related(proposals: QuerySet[Proposal]) -> QuerySet[Proposal]:
    """With clips, author, the thread's reviewers and the version's decisions."""
    related = proposals.select_related(
        "clip_a", "clip_b", "author", "thread", "project__review_rule"
    )
    return related.prefetch_related(
        Prefetch(
            "thread__reviewers", queryset=ReviewerAssignment.objects.select_related("reviewer")
        ),
        Prefetch("decisions", queryset=Decision.objects.select_related("reviewer")),
    )


def proposal_list(
    *, user: Viewer, project_id: int, status: str | None = None
) -> QuerySet[Proposal]:
    """The project's proposals (every version), newest first, optionally of one status."""
    project = project_get(user=user, project_id=project_id)
    found = Proposal.objects.filter(project=project)
    if status:
        found = found.filter(status=status)
    return _related(found)


def proposal_newest_list(*, user: Viewer, project_id: int) -> QuerySet[Proposal]:
    """Each proposal thread's newest version in the project, last updated first."""
    project = project_get(user=user, project_id=project_id)
    newest = (
        Proposal.objects.filter(thread_id=OuterRef("thread_id"))
        .order_by("-version")
        .values("version")[:1]
    )
    found = Proposal.objects.filter(project=project, version=Subquery(newest))
    return _related(found).order_by("-updated_at", "-id")


def proposal_get(*, user: Viewer, proposal_id: int) -> Proposal:
    """The proposal (one version) if the user is a member of its project, else 404."""
    found = _related(
        Proposal.objects.filter(pk=proposal_id, project__in=project_list(user=user))
    ).first()
    if found is None:
        raise NotFound("No such proposal.")
    return found


def proposal_versions(*, proposal: Proposal) -> QuerySet[Proposal]:
    """Every version of the proposal's thread, oldest first."""
    return Proposal.objects.filter(thread_id=proposal.thread_id).order_by("version")


def approvals_required(*, project: Project) -> int:
    """The project's N (1 without a rule)."""
    rule = ReviewRule.objects.filter(project=project).first()
    return rule.approvals_required if rule else 1


def reviewer_ids(*, proposal: Proposal) -> list[int]:
    """Ids of the users assigned to review the proposal's thread."""
    return list(
        ReviewerAssignment.objects.filter(thread_id=proposal.thread_id).values_list(
            "reviewer_id", flat=True
        )
    )


def approver_ids(*, proposal: Proposal) -> set[int]:
    """Assigned reviewers who approved this version (each counts once)."""
    approved = Decision.objects.filter(proposal=proposal, decision=Verdict.APPROVE)
    ids = set(approved.values_list("reviewer_id", flat=True))
    return ids & set(reviewer_ids(proposal=proposal))


def comment_thread(*, user: Viewer, proposal_id: int) -> QuerySet[Comment]:
    """The thread's top-level comments (all versions), oldest first, with their replies."""
    proposal = proposal_get(user=user, proposal_id=proposal_id)
    replies = Comment.objects.select_related("author", "resolved_by", "proposal")
    return (
        Comment.objects.filter(thread_id=proposal.thread_id, parent__isnull=True)
        .select_related("author", "resolved_by", "proposal")
        .prefetch_related(
            "mentions", Prefetch("replies", queryset=replies.prefetch_related("mentions"))
        )
    )


def comment_get(*, user: Viewer, comment_id: int) -> Comment:
    """The comment if the user is a member of its project, else 404."""
    found = (
        Comment.objects.filter(pk=comment_id, thread__project__in=project_list(user=user))
        .select_related("author", "resolved_by", "proposal", "thread__project")
        .prefetch_related("mentions", "replies")
        .first()
    )
    if found is None:
        raise NotFound("No such comment.")
    return found


def activity_list(
    *, user: Viewer, project_id: int, proposal_id: int | None = None
) -> QuerySet[Activity]:
    """The project's activity log, newest first; optionally of one proposal's thread."""
    project = project_get(user=user, project_id=project_id)
    found = Activity.objects.filter(project=project)
    if proposal_id is not None:
        thread = Proposal.objects.filter(pk=proposal_id, project=project).values("thread_id")
        found = found.filter(proposal__thread_id__in=thread)
    return found.select_related("actor", "proposal", "project")


def review_rule_get(*, user: Viewer, project_id: int) -> ReviewRule:
    """The project's rule; an unsaved one with the defaults when none was set."""
    project = project_get(user=user, project_id=project_id)
    rule = ReviewRule.objects.filter(project=project).select_related("updated_by").first()
    return rule or ReviewRule(project=project)


def notification_list(*, user: User, unread: bool = False) -> QuerySet[Notification]:
    """The user's notifications, newest first (only the unread ones with ``unread``)."""
    found = Notification.objects.filter(user=user)
    if unread:
        found = found.filter(read_at__isnull=True)
    return found.select_related("activity__actor", "activity__proposal", "activity__project")


def notification_unread_count(*, user: User) -> int:
    return Notification.objects.filter(user=user, read_at__isnull=True).count()


def notification_unread_ids(*, user: User, proposal: Proposal) -> list[int]:
    """The user's unread notifications about any version of ``proposal``'s thread (what
    the proposal page marks read, with a POST, once it is open)."""
    unread = Notification.objects.filter(
        user=user, read_at__isnull=True, activity__proposal__thread_id=proposal.thread_id
    )
    return list(unread.order_by("id").values_list("id", flat=True))


def eligible_reviewers(project: Project, *, exclude: Iterable[int | None] = ()) -> list[str]:
    """Usernames of members who may review (reviewer role or higher), by name."""
    excluded = {pk for pk in exclude if pk is not None}
    roles = [Role.REVIEWER, Role.EDITOR, Role.OWNER]
    rows = Membership.objects.filter(project=project, role__in=roles).select_related("user")
    return sorted(m.user.username for m in rows if m.user_id not in excluded)


def revision_sources(*, proposal: Proposal) -> list[Transition]:
    """Succeeded transition runs between the proposal's two clips (what a revision may
    come from), newest first."""
    found = Transition.objects.filter(
        project_id=proposal.project_id,
        clip_a_id=proposal.clip_a_id,
        clip_b_id=proposal.clip_b_id,
        run__status=RunStatus.SUCCEEDED,
    )
    return list(found.order_by("-created_at", "-id"))


def revision_joins(*, proposal: Proposal) -> list[tuple[Sequence, int]]:
    """For a proposal of a sequence's join: the joins of the project's rendered sequences
    between its two clips (what a revision may come from) as (sequence, join number),
    newest first; none for a proposal of a transition run."""
    if proposal.join_number is None:
        return []
    pair = [proposal.clip_a_id, proposal.clip_b_id]
    found = Sequence.objects.filter(project_id=proposal.project_id, run__status=RunStatus.SUCCEEDED)
    return [
        (sequence, k)
        for sequence in found.order_by("-created_at", "-id")
        for k in range(1, len(sequence.clips))
        if [int(i) for i in sequence.clips[k - 1 : k + 1]] == pair
    ]


def proposal_downloads_ready(*, proposal: Proposal) -> dict[str, bool]:
    """The downloads of the proposal's transition or sequence → whether each exists (none
    when its run is gone)."""
    if proposal.sequence is not None:
        return sequence_downloads_ready(proposal.sequence)
    transition = proposal.transition
    return {} if transition is None else transition_downloads_ready(transition)


@dataclass(frozen=True)
class ProposalPageReads:
    """What the proposal page shows besides the proposal, read for one user."""

    role: Role | None
    versions: list[Proposal]  # every version of the thread, oldest first
    history: list[Activity]  # the thread's activity, newest first
    thread: list[Comment]  # top-level comments with their replies
    members: list[str]  # every member's username (who can be @mentioned)
    eligible: list[str]  # who may review this version (its author aside)
    revision_sources: list[Transition]
    revision_joins: list[tuple[Sequence, int]]  # for a proposal of a sequence's join
    compare_choices: list[Proposal]  # the project's other proposals (every version)
    downloads_ready: dict[str, bool]  # the downloads of its transition or sequence
    unread_notifications: list[int]


def proposal_page_reads(*, user: User, proposal: Proposal, history_rows: int) -> ProposalPageReads:
    """Every read of the proposal page (``history_rows``: how much of the log)."""
    project = proposal.project
    history = activity_list(user=user, project_id=project.pk, proposal_id=proposal.pk)
    members = Membership.objects.filter(project=project).select_related("user")
    others = proposal_list(user=user, project_id=project.pk).exclude(pk=proposal.pk)
    return ProposalPageReads(
        role=role_of(project=project, user=user),
        versions=list(proposal_versions(proposal=proposal)),
        history=list(history.select_related("comment")[:history_rows]),
        thread=list(comment_thread(user=user, proposal_id=proposal.pk)),
        members=sorted(m.user.username for m in members),
        eligible=eligible_reviewers(project, exclude=[proposal.author_id]),
        revision_sources=revision_sources(proposal=proposal),
        revision_joins=revision_joins(proposal=proposal),
        compare_choices=list(others),
        downloads_ready=proposal_downloads_ready(proposal=proposal),
        unread_notifications=notification_unread_ids(user=user, proposal=proposal),
    )
