"""Review writes: propose a transition, revise it, mark notifications read. (A sequence's
joins: :mod:`webapp.reviews.sequence_joins`; reviewers, decisions and the rule:
:mod:`webapp.reviews.decisions`; comments: :mod:`webapp.reviews.comments`.)

Who may do what (``docs/reviews.md``; non-members get 404, roles too low 403):

=====================================  ======  ======  ========  ======
action                                 owner   editor  reviewer  viewer
=====================================  ======  ======  ========  ======
read proposals, threads, reports, log  yes     yes     yes       yes
propose, revise, assign reviewers      yes     yes     no        no
comment                                yes     yes     yes       no
resolve a comment                      yes     yes     own       no
decide (approve, request changes,      when assigned (never on their own
reject)                                version); viewers never
set the review rule                    yes     no      no        no
=====================================  ======  ======  ========  ======

Status changes go through the pure state machine :mod:`webapp.reviews.states`; a
refused event is a 409 ``invalid_transition`` naming the status and the event.
Every write is one transaction that also logs an activity, notifies and sends the
webhook event (:func:`webapp.reviews.notify.activity_record`).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from motioncore.clean import resample
from webapp.clips.models import Clip
from webapp.core.errors import Conflict, NotFound, ServiceError
from webapp.projects.models import Role
from webapp.projects.permissions import require_role
from webapp.projects.selectors import project_get
from webapp.reviews import snapshot, states
from webapp.reviews.decisions import status_after
from webapp.reviews.models import (
    CutMethod,
    Notification,
    Proposal,
    ProposalThread,
)
from webapp.reviews.notify import activity_record
from webapp.reviews.selectors import proposal_get
from webapp.runs.models import Status as RunStatus
from webapp.sequences.models import Sequence
from webapp.transitions.models import Transition
from webapp.transitions.selectors import transition_get


def proposal_create_from_transition(
    *,
    user: User,
    project_id: int,
    transition_id: int,
    method: str = "mtp",
    title: str = "",
    summary: str = "",
) -> Proposal:
    """Propose the ``method`` cut of a succeeded transition run of the project (editors
    and owners).

    The proposal snapshots the run's parameters, the cut and entry frames and the
    whole metrics table. 404 for a transition of another project; 409
    ``transition_not_finished`` before the run succeeded; 400 ``unknown_method``,
    ``frame_out_of_range`` (the report does not fit the clips).
    """
    project = project_get(user=user, project_id=project_id)
    require_role(project=project, user=user, role=Role.EDITOR)
    transition = transition_get(user=user, transition_id=transition_id)
    if transition.project_id != project.pk:
        raise NotFound("No such transition in this project.")
    snap = _snapshot(transition, method)
    source = Source(transition.clip_a, transition.clip_b, transition=transition)
    with transaction.atomic():
        thread = ProposalThread.objects.create(project=transition.project)
        proposal = new_version(thread, 1, source, snap, user, title, summary)
        activity_record(
            project=transition.project,
            actor=user,
            verb="proposal.created",
            proposal=proposal,
            data={"version": 1, "transition": transition.pk, "method": method},
        )
    return proposal


def proposal_revise(
    *,
    user: User,
    proposal_id: int,
    transition_id: int | None = None,
    method: str | None = None,
    title: str | None = None,
    summary: str | None = None,
) -> Proposal:
    """A new version of the proposal (editors and owners); the old one is superseded.

    The new version comes from ``transition_id`` (another run between the same two
    clips, e.g. at other α/θ) or the same run, with ``method`` or the same method;
    title and summary default to the old ones. It keeps the thread (comments) and the
    reviewers and starts ``open`` with no decisions. (A proposal of a sequence's join
    is revised from a sequence: :func:`webapp.reviews.sequence_joins.proposal_revise_from_join`.)
    """
    current = proposal_get(user=user, proposal_id=proposal_id)
    require_role(project=current.project, user=user, role=Role.EDITOR)
    transition = _revision_source(user, current, transition_id)
    snap = _snapshot(transition, method or current.method)
    source = Source(transition.clip_a, transition.clip_b, transition=transition)
    return version_add(
        user=user, current=current, source=source, snap=snap, title=title, summary=summary
    )


def version_add(
    *,
    user: User,
    current: Proposal,
    source: Source,
    snap: snapshot.Snapshot,
    title: str | None,
    summary: str | None,
) -> Proposal:
    """Supersede ``current`` with a new version from ``source`` and ``snap`` (checked by
    the caller) in one transaction that logs ``proposal.revised``."""
    with transaction.atomic():
        old = Proposal.objects.select_for_update().get(pk=current.pk)
        old.status = status_after(old.status, states.Event.REVISE)
        old.save(update_fields=["status", "updated_at"])
        version = (old.thread.versions.aggregate(last=Max("version"))["last"] or 0) + 1
        new = new_version(
            old.thread,
            version,
            source,
            snap,
            user,
            old.title if title is None else title,
            old.summary if summary is None else summary,
        )
        activity_record(
            project=new.project,
            actor=user,
            verb="proposal.revised",
            proposal=new,
            data={"version": version, "previous": old.pk, **source.as_data()},
        )
    return new


def _revision_source(user: User, current: Proposal, transition_id: int | None) -> Transition:
    source_id = transition_id if transition_id is not None else current.transition_id
    if source_id is None:
        raise ServiceError(
            "The proposal's transition no longer exists: name the transition to revise from.",
            code="transition_missing",
        )
    transition = transition_get(user=user, transition_id=source_id)
    if (transition.clip_a_id, transition.clip_b_id) != (current.clip_a_id, current.clip_b_id):
        raise ServiceError(
            "A revision must be a transition between the same two clips "
            f"(clip {current.clip_a_id} into clip {current.clip_b_id}); propose anew otherwise.",
            code="different_clips",
        )
    return transition


def _snapshot(transition: Transition, method: str) -> snapshot.Snapshot:
    if transition.run.status != RunStatus.SUCCEEDED or not transition.result:
        raise Conflict(
            f"The transition's run has not succeeded (it is {transition.run.status}): "
            "propose a transition once its run has finished.",
            code="transition_not_finished",
        )
    try:
        snap = snapshot.take(transition.result, transition.parameters, method)
    except snapshot.SnapshotError as error:
        raise ServiceError(str(error), code=error.code) from None
    a, b = transition.clip_a, transition.clip_b
    frames_in_range(snap, a, resample.frame_count(b.frames, b.fps, a.fps))  # B at A's rate
    return snap


def frames_in_range(snap: snapshot.Snapshot, a: Clip, entry_frames: int) -> None:
    """400 ``frame_out_of_range`` when the snapshot's cut is not a frame of ``a`` or its
    entry not one of the ``entry_frames`` frames of B at A's rate."""
    for what, frame, count in (
        ("cut", snap.cut_frame, a.frames),
        ("entry", snap.entry_frame, entry_frames),
    ):
        if not 0 <= frame < count:
            raise ServiceError(
                f"The {what} frame {frame} is outside its clip (frames 0 to {count - 1}).",
                code="frame_out_of_range",
            )


@dataclass(frozen=True)
class Source:
    """Where a version comes from: its two clips and the transition run, or the sequence
    and its join number."""

    clip_a: Clip
    clip_b: Clip
    transition: Transition | None = None
    sequence: Sequence | None = None
    join_number: int | None = None

    def as_data(self) -> dict[str, int]:
        """The activity's note of the source: ``transition`` or ``sequence`` and ``join``."""
        if self.sequence is not None and self.join_number is not None:
            return {"sequence": self.sequence.pk, "join": self.join_number}
        return {"transition": self.transition.pk} if self.transition is not None else {}

    def default_title(self, method: str) -> str:
        names = f"{self.clip_a.name} into {self.clip_b.name}"
        if self.sequence is not None:
            return f"{names} (join {self.join_number} of sequence {self.sequence.pk})"
        return f"{names} ({CutMethod(method).label})"


def new_version(
    thread: ProposalThread,
    version: int,
    source: Source,
    snap: snapshot.Snapshot,
    author: User,
    title: str,
    summary: str,
) -> Proposal:
    """Store version ``version`` of ``thread`` (no checks, no log)."""
    return Proposal.objects.create(
        project=thread.project,
        thread=thread,
        version=version,
        transition=source.transition,
        sequence=source.sequence,
        join_number=source.join_number,
        clip_a=source.clip_a,
        clip_b=source.clip_b,
        method=snap.method,
        measure=snap.measure,
        alpha=snap.alpha,
        theta_max_deg=snap.theta_max_deg,
        cut_frame=snap.cut_frame,
        entry_frame=snap.entry_frame,
        transition_frames=snap.transition_frames,
        blend=snap.blend,
        metrics=snap.metrics,
        parameters=snap.parameters,
        title=title.strip() or source.default_title(snap.method),
        summary=summary,
        author=author,
        status=states.INITIAL,
    )


def notification_mark_read(*, user: User, ids: list[int] | None = None) -> int:
    """Mark the user's notifications ``ids`` (all of them for ``None``) read; others'
    ids are ignored. Returns how many were unread and are now read."""
    unread = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        unread = unread.filter(pk__in=ids)
    return unread.update(read_at=timezone.now())
