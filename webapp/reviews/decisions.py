"""Review decisions: who reviews a proposal, their decisions, the project's approval rule.

Only assigned reviewers decide (reviewer role or higher, never on a version they
wrote); the N-th approval of distinct assigned reviewers on a version approves it,
any rejection rejects it, a request for changes moves it to ``changes_requested``.
Status changes go through the pure state machine :mod:`webapp.reviews.states`
(:func:`status_after`); who may do what: :mod:`webapp.reviews.services`.
"""

from __future__ import annotations

from typing import NoReturn

from django.contrib.auth.models import User
from django.db import transaction

from webapp.core.errors import Conflict, PermissionDenied, ServiceError
from webapp.projects.models import ROLE_RANK, Membership, Role
from webapp.projects.permissions import require_role
from webapp.projects.selectors import project_get
from webapp.reviews import states
from webapp.reviews.models import (
    MAX_APPROVALS_REQUIRED,
    Decision,
    Proposal,
    ReviewerAssignment,
    ReviewRule,
    Verdict,
)
from webapp.reviews.notify import activity_record
from webapp.reviews.selectors import approvals_required, approver_ids, proposal_get, reviewer_ids

DECISION_VERBS = {
    Verdict.REQUEST_CHANGES: "proposal.changes_requested",
    Verdict.REJECT: "proposal.rejected",
}


def status_after(status: str, event: states.Event, *, approvals: int = 0, required: int = 1) -> str:
    """The state machine's answer, its refusal as a 409 ``invalid_transition``."""
    try:
        return states.next_status(status, event, approvals=approvals, approvals_required=required)
    except states.TransitionRefused as refused:
        raise Conflict(
            str(refused),
            code="invalid_transition",
            details={"status": refused.status.value, "event": refused.event.value},
        ) from None


def reviewers_assign(*, user: User, proposal_id: int, usernames: list[str]) -> Proposal:
    """Make ``usernames`` the reviewers of the proposal's thread (editors and owners).

    Each must be a member with the reviewer role or higher, and not the author of the
    current version. The set is replaced; approvals of removed reviewers stop counting.
    409 ``proposal_closed`` once the proposal is approved, rejected or superseded.
    """
    proposal = proposal_get(user=user, proposal_id=proposal_id)
    require_role(project=proposal.project, user=user, role=Role.EDITOR)
    if proposal.status in states.TERMINAL:
        raise Conflict(
            f"The proposal is {proposal.status}: its reviewers can no longer change.",
            code="proposal_closed",
        )
    wanted = _reviewers(proposal, usernames)
    with transaction.atomic():
        before = set(reviewer_ids(proposal=proposal))
        after = {u.pk for u in wanted}
        ReviewerAssignment.objects.filter(thread_id=proposal.thread_id).exclude(
            reviewer_id__in=after
        ).delete()
        for reviewer in wanted:
            if reviewer.pk not in before:
                ReviewerAssignment.objects.create(
                    thread_id=proposal.thread_id, reviewer=reviewer, assigned_by=user
                )
        if before != after:
            names = dict(User.objects.filter(pk__in=before | after).values_list("pk", "username"))
            activity_record(
                project=proposal.project,
                actor=user,
                verb="proposal.reviewers_assigned",
                proposal=proposal,
                data={
                    "reviewers": sorted(names[i] for i in after),
                    "added": sorted(names[i] for i in after - before),
                    "removed": sorted(names[i] for i in before - after),
                },
                extra=before - after,
            )
    return proposal_get(user=user, proposal_id=proposal_id)


def _reviewers(proposal: Proposal, usernames: list[str]) -> list[User]:
    """The users named, checked (400 ``unknown_reviewer``, ``role_too_low``,
    ``author_cannot_review``)."""
    names = list(dict.fromkeys(usernames))
    rows = Membership.objects.filter(project=proposal.project, user__username__in=names)
    roles = {m.user.username: (m.user, Role(m.role)) for m in rows.select_related("user")}
    unknown = [n for n in names if n not in roles]
    if unknown:
        _refuse_reviewers(
            f"Not a member of this project: {', '.join(unknown)}.", "unknown_reviewer"
        )
    low = [n for n in names if ROLE_RANK[roles[n][1]] < ROLE_RANK[Role.REVIEWER]]
    if low:
        _refuse_reviewers(
            f"Reviewers need the reviewer role or higher: {', '.join(low)}.", "role_too_low"
        )
    if any(roles[n][0].pk == proposal.author_id for n in names):
        _refuse_reviewers("The author of a proposal cannot review it.", "author_cannot_review")
    return [roles[n][0] for n in names]


def _refuse_reviewers(message: str, code: str) -> NoReturn:
    raise ServiceError(message, code=code, details={"fields": {"reviewers": [message]}})


def decision_record(*, user: User, proposal_id: int, decision: str, note: str = "") -> Decision:
    """An assigned reviewer approves, requests changes or rejects the proposal version.

    Approvals of distinct assigned reviewers on this version count toward the
    project's N; the N-th approves the version. Any rejection rejects it; a request
    for changes moves it to ``changes_requested``. 403 ``not_assigned`` /
    ``own_proposal``; 409 ``invalid_transition``, ``already_approved``.
    """
    proposal = proposal_get(user=user, proposal_id=proposal_id)
    require_role(project=proposal.project, user=user, role=Role.REVIEWER)
    if user.pk not in reviewer_ids(proposal=proposal):
        raise PermissionDenied(
            "Only the proposal's assigned reviewers decide; you are not assigned.",
            code="not_assigned",
        )
    if proposal.author_id == user.pk:
        raise PermissionDenied("You cannot decide on your own version.", code="own_proposal")
    verdict = Verdict(decision)
    with transaction.atomic():
        locked = Proposal.objects.select_for_update().get(pk=proposal.pk)
        approvers = approver_ids(proposal=locked)
        count = len(approvers | ({user.pk} if verdict is Verdict.APPROVE else set()))
        required = approvals_required(project=proposal.project)
        status = status_after(
            locked.status, states.Event(verdict.value), approvals=count, required=required
        )
        if verdict is Verdict.APPROVE and user.pk in approvers:
            raise Conflict("You already approved this version.", code="already_approved")
        locked.status = status
        locked.save(update_fields=["status", "updated_at"])
        made = Decision.objects.create(
            proposal=locked, reviewer=user, decision=verdict, note=note, status_after=locked.status
        )
        activity_record(
            project=proposal.project,
            actor=user,
            verb=_decision_verb(verdict, locked.status),
            proposal=locked,
            data={
                "decision": verdict.value,
                "note": note,
                "approvals": count,
                "approvals_required": required,
                "status": locked.status,
            },
        )
    return made


def _decision_verb(verdict: Verdict, status: str) -> str:
    if verdict is Verdict.APPROVE:
        return (
            "proposal.approved" if status == states.Status.APPROVED else "proposal.approval_added"
        )
    return DECISION_VERBS[verdict]


def review_rule_set(*, user: User, project_id: int, approvals_required: int) -> ReviewRule:
    """Set N, the approvals a version needs (owners; 1 to :data:`MAX_APPROVALS_REQUIRED`).

    Versions already approved stay approved; open ones that already have N approvals
    are approved at once (``proposal.approved`` with ``data.by_rule``).
    """
    project = project_get(user=user, project_id=project_id)
    require_role(project=project, user=user, role=Role.OWNER)
    if not 1 <= approvals_required <= MAX_APPROVALS_REQUIRED:
        message = f"approvals_required must be between 1 and {MAX_APPROVALS_REQUIRED}."
        raise ServiceError(
            message, code="invalid_rule", details={"fields": {"approvals_required": [message]}}
        )
    with transaction.atomic():
        rule, _ = ReviewRule.objects.select_for_update().get_or_create(project=project)
        before = rule.approvals_required
        rule.approvals_required = approvals_required
        rule.updated_by = user
        rule.save()
        activity_record(
            project=project,
            actor=user,
            verb="review_rule.updated",
            data={"approvals_required": approvals_required, "before": before},
        )
        _approve_by_rule(user, project_id=project.pk, required=approvals_required)
    return rule


def _approve_by_rule(user: User, *, project_id: int, required: int) -> None:
    """Approve the project's open versions that have ``required`` approvals already."""
    for proposal in Proposal.objects.select_for_update().filter(
        project_id=project_id, status=states.Status.OPEN
    ):
        count = len(approver_ids(proposal=proposal))
        if count < required:
            continue
        proposal.status = status_after(
            proposal.status, states.Event.APPROVE, approvals=count, required=required
        )
        proposal.save(update_fields=["status", "updated_at"])
        activity_record(
            project=proposal.project,
            actor=user,
            verb="proposal.approved",
            proposal=proposal,
            data={"by_rule": True, "approvals": count, "approvals_required": required},
        )
