"""Comment writes: comment on a proposal version (pinned to frames, a joint, a parameter
set; with @mentions; replying to a comment), resolve and reopen a comment.

Reviewers, editors and owners comment (viewers read); a comment may be made on any
version, whatever its status: the thread is the team's record. Replies attach to
a top-level comment (a reply to a reply joins its top-level comment). A top-level
comment is resolved or reopened by its author, an editor or an owner; resolving a
resolved comment (or reopening an open one) changes nothing and logs nothing.
Pins and mentions are checked by :mod:`webapp.reviews.pins`.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from webapp.core.errors import PermissionDenied, ServiceError
from webapp.projects.models import ROLE_RANK, Role
from webapp.projects.permissions import require_role
from webapp.reviews import pins
from webapp.reviews.models import Comment, FrameClip
from webapp.reviews.notify import activity_record
from webapp.reviews.selectors import comment_get, proposal_get


def comment_create(
    *,
    user: User,
    proposal_id: int,
    body: str,
    frame_clip: str = FrameClip.TRANSITION,
    frame_start: int | None = None,
    frame_end: int | None = None,
    joint: str = "",
    parameter_set: dict[str, Any] | None = None,
    parent_id: int | None = None,
) -> Comment:
    """A comment on the proposal version (reviewers and up). Notifies the proposal's
    author and reviewers, the mentioned members and, for a reply, the parent's author.

    400 ``empty_comment``, ``invalid_parent``, ``invalid_frame_range``,
    ``frame_out_of_range``, ``unknown_joint``, ``unknown_mention``.
    """
    proposal = proposal_get(user=user, proposal_id=proposal_id)
    require_role(project=proposal.project, user=user, role=Role.REVIEWER)
    if not body.strip():
        raise ServiceError("A comment needs some text.", code="empty_comment")
    parent = _parent(proposal.thread_id, parent_id)
    pins.check_frames(proposal, pins.FramePin(frame_clip, frame_start, frame_end))
    pins.check_joint(proposal, joint)
    mentioned = pins.resolve_mentions(body, project_id=proposal.project_id)
    with transaction.atomic():
        comment = Comment.objects.create(
            thread_id=proposal.thread_id,
            proposal=proposal,
            parent=parent,
            author=user,
            body=body,
            frame_clip=frame_clip,
            frame_start=frame_start,
            frame_end=frame_end,
            joint=joint,
            parameter_set=parameter_set or None,
        )
        comment.mentions.set(mentioned)
        extra = {u.pk for u in mentioned}
        if parent is not None and parent.author_id is not None:
            extra.add(parent.author_id)
        activity_record(
            project=proposal.project,
            actor=user,
            verb="comment.created",
            proposal=proposal,
            comment=comment,
            data={"mentions": [u.username for u in mentioned], "reply_to": parent_id},
            extra=extra,
        )
    return comment


def _parent(thread_id: int, parent_id: int | None) -> Comment | None:
    """The top-level comment a reply attaches to; 400 if not in the thread."""
    if parent_id is None:
        return None
    parent = Comment.objects.filter(pk=parent_id, thread_id=thread_id).first()
    if parent is None:
        message = f"Comment {parent_id} is not in this proposal's thread."
        raise ServiceError(
            message, code="invalid_parent", details={"fields": {"parent": [message]}}
        )
    return parent.parent if parent.parent is not None else parent


def comment_resolve(*, user: User, comment_id: int) -> Comment:
    """Mark a top-level comment resolved (its author, editors, owners)."""
    return _set_resolved(user, comment_id, resolved=True)


def comment_unresolve(*, user: User, comment_id: int) -> Comment:
    """Reopen a resolved top-level comment (its author, editors, owners)."""
    return _set_resolved(user, comment_id, resolved=False)


def _set_resolved(user: User, comment_id: int, *, resolved: bool) -> Comment:
    comment = comment_get(user=user, comment_id=comment_id)
    project = comment.thread.project
    role = require_role(project=project, user=user, role=Role.REVIEWER)
    if comment.author_id != user.pk and ROLE_RANK[role] < ROLE_RANK[Role.EDITOR]:
        raise PermissionDenied(
            "Only the comment's author, an editor or an owner resolves it.",
            code="not_comment_author",
        )
    if comment.parent_id is not None:
        raise ServiceError(
            "Replies are not resolved: resolve the comment they answer.", code="not_top_level"
        )
    if (comment.resolved_at is not None) == resolved:
        return comment
    with transaction.atomic():
        comment.resolved_at = timezone.now() if resolved else None
        comment.resolved_by = user if resolved else None
        comment.save(update_fields=["resolved_at", "resolved_by"])
        activity_record(
            project=project,
            actor=user,
            verb="comment.resolved" if resolved else "comment.unresolved",
            proposal=comment.proposal,
            comment=comment,
            data={"comment": comment.pk},
            extra={comment.author_id} if comment.author_id else set(),
        )
    return comment
