"""Every review write ends here: one :class:`Activity` in the project's log, an in-app
notification and an email for each person concerned, and a webhook event.

Who is concerned: the proposal's author, its assigned reviewers and the users named
in ``extra`` (those @mentioned, a resolved comment's author) — never the actor, and
only current members of the project. Emails go through Django's email backend
(console by default, ``DJANGO_EMAIL_BACKEND``) to those with an address, after the
write commits (a refused write sends nothing); a failing mail server is logged and
does not undo the write. The webhook event is the activity's ``verb``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import send_mass_mail
from django.db import transaction
from django.urls import reverse

from webapp.projects.models import Membership, Project
from webapp.reviews.models import Activity, Comment, Notification, Proposal
from webapp.reviews.selectors import reviewer_ids
from webapp.webhooks.services import webhooks_notify_event

log = logging.getLogger(__name__)

VERBS: dict[str, str] = {
    "proposal.created": "proposed",
    "proposal.revised": "revised",
    "proposal.reviewers_assigned": "changed the reviewers of",
    "proposal.approval_added": "approved (not yet enough approvals)",
    "proposal.approved": "approved",
    "proposal.changes_requested": "requested changes to",
    "proposal.rejected": "rejected",
    "comment.created": "commented on",
    "comment.resolved": "resolved a comment on",
    "comment.unresolved": "reopened a comment on",
    "review_rule.updated": "changed the review rule of",
}
"""Activity verb (= webhook event) → what the actor did, for sentences."""


def activity_record(
    *,
    project: Project,
    actor: User,
    verb: str,
    proposal: Proposal | None = None,
    comment: Comment | None = None,
    data: dict[str, Any] | None = None,
    extra: Iterable[int] = (),
) -> Activity:
    """Log the activity, notify (in the app and by email) and send the webhook event.

    ``extra``: ids of more users to notify (mentioned, a comment's author). Call it
    inside the write's transaction.
    """
    assert verb in VERBS, f"unknown activity verb {verb!r}"
    activity = Activity.objects.create(
        project=project, actor=actor, verb=verb, proposal=proposal, comment=comment, data=data or {}
    )
    recipients = _recipients(project, actor, proposal, extra)
    Notification.objects.bulk_create([Notification(user=u, activity=activity) for u in recipients])
    transaction.on_commit(_mailer(activity, recipients), robust=True)
    webhooks_notify_event(project_id=project.pk, payload=activity_payload(activity))
    return activity


def _recipients(
    project: Project, actor: User, proposal: Proposal | None, extra: Iterable[int]
) -> list[User]:
    ids = set(extra)
    if proposal is not None:
        ids |= set(reviewer_ids(proposal=proposal))
        if proposal.author_id is not None:
            ids.add(proposal.author_id)
    ids.discard(actor.pk)
    members = Membership.objects.filter(project=project, user_id__in=ids).values("user_id")
    return list(User.objects.filter(pk__in=members).order_by("pk"))


def sentence(activity: Activity) -> str:
    """``"alice approved “Walk into run (MTP)” (version 2)"`` — for people."""
    who = activity.actor.username if activity.actor else "Someone"
    what = VERBS.get(activity.verb, activity.verb)
    if activity.proposal is None:
        return f"{who} {what} {activity.project.name}"
    proposal = activity.proposal
    return f"{who} {what} “{proposal.title}” (version {proposal.version})"


def _mailer(activity: Activity, recipients: list[User]) -> Callable[[], None]:
    """The on-commit callback sending one email per recipient with an address (a real
    function: Django logs a robust callback's failure by its ``__qualname__``)."""
    addressed = [user.email for user in recipients if user.email]

    def send_review_email() -> None:
        if not addressed:
            return
        subject = f"[Kinetograph] {activity.project.name}: {sentence(activity)}"
        body = _email_body(activity)
        sender = settings.DEFAULT_FROM_EMAIL
        send_mass_mail([(subject, body, sender, [to]) for to in addressed], fail_silently=False)

    return send_review_email


def _email_body(activity: Activity) -> str:
    lines = [sentence(activity) + ".", ""]
    if activity.comment is not None:
        lines += [activity.comment.body, ""]
    if activity.proposal is not None:
        proposal = activity.proposal
        lines.append(f"Status: {proposal.get_status_display()}.")
        lines.append(f"API: {reverse('api:proposal', args=[proposal.pk])}")
    lines.append(f"Project: {activity.project.name}")
    return "\n".join(lines) + "\n"


def activity_payload(activity: Activity) -> dict[str, object]:
    """What a webhook receiver learns: ``event`` (the verb), the activity, the project,
    the actor, the proposal version and the comment it concerns (``null`` if none)."""
    proposal, comment = activity.proposal, activity.comment
    return {
        "event": activity.verb,
        "activity": {"id": activity.pk, "created_at": activity.created_at.isoformat()},
        "project": {"id": activity.project_id},
        "actor": activity.actor.username if activity.actor else None,
        "proposal": _proposal_payload(proposal) if proposal else None,
        "comment": _comment_payload(comment) if comment else None,
        "data": activity.data,
    }


def _proposal_payload(proposal: Proposal) -> dict[str, object]:
    return {
        "id": proposal.pk,
        "thread": proposal.thread_id,
        "version": proposal.version,
        "status": proposal.status,
        "title": proposal.title,
        "clip_a": proposal.clip_a_id,
        "clip_b": proposal.clip_b_id,
        "method": proposal.method,
        "cut_frame": proposal.cut_frame,
        "entry_frame": proposal.entry_frame,
    }


def _comment_payload(comment: Comment) -> dict[str, object]:
    return {
        "id": comment.pk,
        "parent": comment.parent_id,
        "author": comment.author.username if comment.author else None,
        "body": comment.body,
        "frame_clip": comment.frame_clip,
        "frame_start": comment.frame_start,
        "frame_end": comment.frame_end,
        "joint": comment.joint or None,
        "resolved": comment.resolved_at is not None,
    }
