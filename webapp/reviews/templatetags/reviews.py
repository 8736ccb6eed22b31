"""Review cards on pages whose views belong to other apps: the project page's proposals
and approval rule, the transition page's "Propose this cut for review" form and the
sequence page's review of its joins. Each
tag is one presenter call (reads only), so the other apps' views need not know about
reviews."""

from __future__ import annotations

from django import template
from django.contrib.auth.models import User

from webapp.projects.models import Project
from webapp.reviews import listings
from webapp.reviews.selectors import proposal_newest_list
from webapp.sequences.models import Sequence
from webapp.transitions.models import Transition

register = template.Library()


@register.simple_tag
def project_proposals(project: Project, user: User) -> list[listings.ProposalRow]:
    """``{% project_proposals project user as proposals %}``: each thread's newest version."""
    return listings.proposal_rows(proposal_newest_list(user=user, project_id=project.pk))


@register.simple_tag
def propose_card(transition: Transition, user: User) -> listings.ProposeCard:
    """``{% propose_card transition user as propose %}``: the form's choices and the
    proposals already made from this run."""
    return listings.propose_card(transition, user)


@register.simple_tag
def join_reviews(sequence: Sequence, user: User) -> listings.JoinReviews:
    """``{% join_reviews sequence user as reviews %}``: each join's proposals and the
    propose form's reviewers."""
    return listings.join_reviews(sequence, user)


@register.simple_tag
def review_rule(project: Project, user: User) -> listings.RuleCard:
    """``{% review_rule project user as rule %}``: N, and whether the user may set it."""
    return listings.rule_card(project, user)
