"""The transition page's one-step proposal: propose a cut and name its reviewers in one
transaction, so that a refused reviewer leaves no proposal behind (the API does it in
two calls: ``POST projects/{id}/proposals/`` then ``PUT proposals/{id}/reviewers/``)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from webapp.reviews.decisions import reviewers_assign
from webapp.reviews.models import Proposal
from webapp.reviews.services import proposal_create_from_transition


def proposal_create_with_reviewers(
    *,
    user: User,
    project_id: int,
    transition_id: int,
    method: str,
    title: str,
    summary: str,
    reviewers: list[str],
) -> Proposal:
    """:func:`proposal_create_from_transition`, then :func:`reviewers_assign` when
    ``reviewers`` is not empty; either error undoes both (nothing is logged, notified or
    sent for a refused proposal)."""
    with transaction.atomic():
        proposal = proposal_create_from_transition(
            user=user,
            project_id=project_id,
            transition_id=transition_id,
            method=method,
            title=title,
            summary=summary,
        )
        if reviewers:
            reviewers_assign(user=user, proposal_id=proposal.pk, usernames=reviewers)
    return proposal
