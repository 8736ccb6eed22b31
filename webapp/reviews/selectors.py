"""Review reads, scoped to the user's memberships: anything of a project the user is not
a member of is 404. Every member (viewer included) reads proposals, threads, reports,
the review rule and the activity log; notifications are the user's own."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import OuterRef, Prefetch, QuerySet, Subquery

from webapp.core.errors import NotFound
from webapp.projects.models import Project
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
