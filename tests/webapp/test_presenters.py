"""Presenters take data and never query: given what the selectors read (a proposal with
reviewers, a decision, a thread with a reply and a second version; a transition and a
clip after a succeeded run), shaping every page runs no SQL at all."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractUser, User

from support.web import finish_proposal, finish_run, finish_transition
from webapp.clips import presenters as clip_presenters
from webapp.clips.analysis import clip_analysis_stored
from webapp.clips.models import ArtifactKind, Clip
from webapp.clips.selectors import clip_artifact_json, clip_downloads_ready, clip_get
from webapp.reviews import compare, listings, presenters
from webapp.reviews.comments import comment_create
from webapp.reviews.decisions import decision_record, reviewers_assign
from webapp.reviews.models import Proposal
from webapp.reviews.selectors import proposal_downloads_ready, proposal_get, proposal_page_reads
from webapp.reviews.services import proposal_revise
from webapp.transitions import presenters as transition_presenters
from webapp.transitions.selectors import transition_downloads_ready, transition_get


def _user(members: dict[str, AbstractUser], role: str) -> User:
    user = members[role]
    assert isinstance(user, User)
    return user


def _reviewed(proposal: Proposal, members: dict[str, AbstractUser]) -> Proposal:
    """``proposal`` revised to v2 with the reviewer and the owner assigned, a comment
    with a reply and the reviewer's request for changes on v2."""
    editor, reviewer = _user(members, "editor"), _user(members, "reviewer")
    names = ["reviewer-user", "owner-user"]
    reviewers_assign(user=editor, proposal_id=proposal.pk, usernames=names)
    first = comment_create(user=reviewer, proposal_id=proposal.pk, body="@editor-user early?")
    comment_create(user=editor, proposal_id=proposal.pk, body="Yes.", parent_id=first.pk)
    v2 = proposal_revise(user=editor, proposal_id=proposal.pk)
    decision_record(user=reviewer, proposal_id=v2.pk, decision="request_changes", note="Later.")
    return v2


def test_the_proposal_page_presenter_runs_no_query(
    proposal: Proposal, members: dict[str, AbstractUser], django_assert_num_queries: Any
) -> None:
    v2 = _reviewed(proposal, members)
    for role in ("owner", "editor", "reviewer", "viewer"):
        user = _user(members, role)
        found = proposal_get(user=user, proposal_id=v2.pk)
        reads = proposal_page_reads(user=user, proposal=found, history_rows=20)
        with django_assert_num_queries(0):
            page = presenters.proposal_page(found, user, reads)
            presenters.method_choices()
        assert page.previous_version == proposal.pk and len(page.versions) == 2
        assert page.config["comments"] and page.history and page.reviewers
        assert page.player is not None


def test_the_compare_and_list_presenters_run_no_query(
    proposal: Proposal, members: dict[str, AbstractUser], django_assert_num_queries: Any
) -> None:
    v2 = _reviewed(proposal, members)
    user = _user(members, "viewer")
    chosen = [proposal_get(user=user, proposal_id=pk) for pk in (proposal.pk, v2.pk)]
    ready = [proposal_downloads_ready(proposal=p) for p in chosen]
    history = proposal_page_reads(user=user, proposal=chosen[1], history_rows=20).history
    with django_assert_num_queries(0):
        sides, sources = compare.compare_sides(chosen, ready)
        lines = compare.compare_lines(sides)
        rows = listings.activity_rows(history)
    assert len(sides) == 2 and set(sources) == {f"p{proposal.pk}", f"p{v2.pk}"}
    assert lines and rows


def test_the_transition_page_presenters_run_no_query(
    clip: Clip, members: dict[str, AbstractUser], django_assert_num_queries: Any
) -> None:
    made = finish_transition(clip, clip)
    finish_proposal(made, members["editor"])  # gives the transition its report
    transition = transition_get(user=members["viewer"], transition_id=made.pk)
    ready = transition_downloads_ready(transition)
    with django_assert_num_queries(0):
        rows = transition_presenters.comparison_rows(transition.result)
        sources = transition_presenters.player_sources(transition, ready)
        downloads = transition_presenters.downloads(transition, ready)
        transition_presenters.engine_facts(transition.result.get("engine") or {})
        transition_presenters.parameters_line(transition.parameters)
    assert rows and sources and all(d.available for d in downloads)


def test_the_clip_page_presenters_run_no_query(
    clip: Clip, members: dict[str, AbstractUser], django_assert_num_queries: Any
) -> None:
    finish_run(clip)
    found = clip_get(user=members["viewer"], clip_id=clip.pk)
    ready = clip_downloads_ready(found)
    clean_report = clip_artifact_json(found, ArtifactKind.CLEAN_REPORT)
    analysis = clip_analysis_stored(found)
    with django_assert_num_queries(0):
        report = clip_presenters.report_view(found.report)
        downloads = clip_presenters.downloads(found, ready)
        clip_presenters.viewer_url(found, ready)
        clip_presenters.skate_readout(clean_report)
        clip_presenters.clean_warnings(clean_report)
        clip_presenters.analysis_view(analysis)
    assert report.summary and all(d.available for d in downloads)
