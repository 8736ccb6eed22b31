"""Proposals of a sequence's joins: join ``k`` of a sequence (its clip ``k`` cut into its
clip ``k + 1``) is a transition choice like a transition run's cut, proposed, commented
at its frames and decided with the same thread, reviewers and rule; a new version comes
from a sequence that joins the same two clips (the same one with the join adjusted).

Frames: the proposal's cut is in the leaving clip's own frames and its entry in the
entering clip at the leaving clip's rate, as for a transition; a sequence works at its
first clip's rate, so a join between clips of another rate is converted by time.
Comments pinned to "the transition clip" count in the sequence clip's frames.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from motioncore.clean import resample
from webapp.clips.models import Clip
from webapp.core.errors import Conflict, NotFound, ServiceError
from webapp.projects.models import Role
from webapp.projects.permissions import require_role
from webapp.reviews import snapshot
from webapp.reviews.decisions import reviewers_assign
from webapp.reviews.models import Proposal, ProposalThread
from webapp.reviews.notify import activity_record
from webapp.reviews.selectors import proposal_get
from webapp.reviews.services import Source, frames_in_range, new_version, version_add
from webapp.runs.models import Status as RunStatus
from webapp.sequences.models import Sequence
from webapp.sequences.selectors import sequence_get


def proposal_create_from_join(
    *,
    user: User,
    sequence_id: int,
    join_number: int,
    title: str = "",
    summary: str = "",
    reviewers: list[str] | None = None,
    project_id: int | None = None,
) -> Proposal:
    """Propose join ``join_number`` (1 = the first) of a succeeded sequence (editors and
    owners), then assign ``reviewers`` in the same transaction (a refused reviewer
    leaves nothing behind).

    404 for a sequence the user cannot see or not of ``project_id`` (when given); 409
    ``sequence_not_finished`` before its run succeeded; 400 ``join_out_of_range``,
    ``clip_missing`` (a clip of the join was deleted), ``frame_out_of_range``.
    """
    sequence = sequence_get(user=user, sequence_id=sequence_id)
    if project_id is not None and sequence.project_id != project_id:
        raise NotFound("No such sequence in this project.")
    require_role(project=sequence.project, user=user, role=Role.EDITOR)
    source, snap = _join_source(sequence, join_number)
    with transaction.atomic():
        thread = ProposalThread.objects.create(project=sequence.project)
        proposal = new_version(thread, 1, source, snap, user, title, summary)
        activity_record(
            project=sequence.project,
            actor=user,
            verb="proposal.created",
            proposal=proposal,
            data={"version": 1, **source.as_data()},
        )
        if reviewers:
            reviewers_assign(user=user, proposal_id=proposal.pk, usernames=reviewers)
    return proposal


def proposal_revise_from_join(
    *,
    user: User,
    proposal_id: int,
    sequence_id: int,
    join_number: int,
    title: str | None = None,
    summary: str | None = None,
) -> Proposal:
    """A new version of the proposal from join ``join_number`` of ``sequence_id``, which
    must join the same two clips (400 ``different_clips``); otherwise as
    :func:`webapp.reviews.services.proposal_revise`."""
    current = proposal_get(user=user, proposal_id=proposal_id)
    require_role(project=current.project, user=user, role=Role.EDITOR)
    sequence = sequence_get(user=user, sequence_id=sequence_id)
    if sequence.project_id != current.project_id:
        raise NotFound("No such sequence in this project.")
    source, snap = _join_source(sequence, join_number)
    if (source.clip_a.pk, source.clip_b.pk) != (current.clip_a_id, current.clip_b_id):
        raise ServiceError(
            f"Join {join_number} of sequence {sequence.pk} joins clip {source.clip_a.pk} into "
            f"clip {source.clip_b.pk}; a revision must join the same two clips (clip "
            f"{current.clip_a_id} into clip {current.clip_b_id}): propose anew otherwise.",
            code="different_clips",
        )
    return version_add(
        user=user, current=current, source=source, snap=snap, title=title, summary=summary
    )


def _join_source(sequence: Sequence, join_number: int) -> tuple[Source, snapshot.Snapshot]:
    """The join's two clips and its snapshot in their frames (checked)."""
    if sequence.run.status != RunStatus.SUCCEEDED or not sequence.result:
        raise Conflict(
            f"The sequence's run has not succeeded (it is {sequence.run.status}): propose "
            "a join once the sequence is rendered.",
            code="sequence_not_finished",
        )
    try:
        snap = snapshot.take_join(sequence.result, sequence.parameters, join_number)
    except snapshot.SnapshotError as error:
        raise ServiceError(str(error), code=error.code) from None
    a, b = _join_clips(sequence, join_number)
    rate = float(sequence.result.get("fps") or a.fps)
    snap = snapshot.at_rate(snap, rate, a.fps)
    frames_in_range(snap, a, resample.frame_count(b.frames, b.fps, a.fps))
    return Source(a, b, sequence=sequence, join_number=join_number), snap


def _join_clips(sequence: Sequence, join_number: int) -> tuple[Clip, Clip]:
    """The clips join ``join_number`` leaves and enters (the sequence's clip list)."""
    ids = [int(i) for i in sequence.clips]
    wanted = ids[join_number - 1 : join_number + 1]
    found = {c.pk: c for c in Clip.objects.filter(pk__in=wanted, project=sequence.project)}
    missing = [i for i in wanted if i not in found]
    if missing:
        raise ServiceError(
            f"Clip {missing[0]} of join {join_number} no longer exists.", code="clip_missing"
        )
    return found[wanted[0]], found[wanted[1]]
