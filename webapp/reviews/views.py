"""Review pages: the proposal page (player with comment pins, thread, decisions, revise
and reviewers forms), two proposals compared, the project's activity log and the user's
notifications, the transition page's "Propose this cut" form and the sequence page's
"Propose this join" forms.

Views are thin: a form checks the input, one service writes (or a selector reads), a
presenter shapes the page. A refused write re-renders the proposal page with the
service's message and status (the form keeps what was typed); the transition page's
form reports it on the transition page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Case, IntegerField, QuerySet, Value, When
from django.forms import Form
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from webapp.core.auth import request_user
from webapp.core.errors import ServiceError
from webapp.core.pages import CAMERA_PRESETS, error_page, page
from webapp.projects.selectors import project_get
from webapp.reviews import compare, forms, listings, presenters
from webapp.reviews.decisions import decision_record, review_rule_set, reviewers_assign
from webapp.reviews.models import Notification
from webapp.reviews.proposing import proposal_create_with_reviewers
from webapp.reviews.selectors import (
    activity_list,
    eligible_reviewers,
    notification_list,
    proposal_downloads_ready,
    proposal_get,
    proposal_page_reads,
    revision_joins,
    revision_sources,
)
from webapp.reviews.sequence_joins import proposal_create_from_join, proposal_revise_from_join
from webapp.reviews.services import notification_mark_read, proposal_revise
from webapp.sequences.selectors import sequence_get
from webapp.transitions.selectors import transition_get

HISTORY_ROWS = 20
LOG_PAGE_ROWS = 50


# --- the proposal page ----------------------------------------------------------------------


@require_GET
@page
def proposal_detail(request: HttpRequest, proposal_id: int) -> HttpResponse:
    """One version: status, reviewers, parameters, metrics, player with pins, thread."""
    return _proposal_page(request, proposal_id)


def _proposal_page(
    request: HttpRequest,
    proposal_id: int,
    *,
    failed: str = "",
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    """The page; after a refused write, ``error`` above and the ``failed`` form (its key)
    refilled with what was posted."""
    user = request_user(request)
    proposal = proposal_get(user=user, proposal_id=proposal_id)
    reads = proposal_page_reads(user=user, proposal=proposal, history_rows=HISTORY_ROWS)
    view = presenters.proposal_page(proposal, user, reads)
    context = {
        "page": view,
        "proposal": proposal,
        "project": proposal.project,
        "methods": presenters.method_choices(),
        "columns": presenters.METRIC_COLUMNS,
        "values": _form_values(request, view, failed),
        "failed": failed,
        "error": error,
        "camera_presets": CAMERA_PRESETS,
    }
    return render(request, "pages/proposal.html", context, status=status)


def _form_values(
    request: HttpRequest, view: presenters.ProposalPage, failed: str
) -> dict[str, Any]:
    """The forms' values: the proposal's, or for the form that failed, what was posted."""
    proposal = view.proposal
    values: dict[str, Any] = {
        "note": "",
        "title": proposal.title,
        "summary": proposal.summary,
        "method": proposal.method,
        "transition": proposal.transition_id,
        "source": f"{proposal.sequence_id}:{proposal.join_number}",
        "reviewers": [row.username for row in view.reviewers],
        "decision": "",
    }
    if failed:
        post = request.POST
        for key in ("note", "title", "summary", "method", "decision", "source"):
            if key in post:
                values[key] = post[key]
        if "transition" in post:
            values["transition"] = _int_or_none(post["transition"])
        if failed == "reviewers":
            values["reviewers"] = post.getlist("reviewers")
    return values


def _int_or_none(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def _submit(
    request: HttpRequest,
    proposal_id: int,
    key: str,
    form: Form,
    write: Callable[[dict[str, Any]], int],
) -> HttpResponse:
    """Run ``write`` with the form's data and go to the proposal it returns; an invalid
    form (400) or a refused write (the service's status) re-renders the page."""
    if not form.is_valid():
        return _proposal_page(
            request, proposal_id, failed=key, error=forms.errors_text(form), status=400
        )
    try:
        target = write(form.cleaned_data)
    except ServiceError as refused:
        return _proposal_page(
            request, proposal_id, failed=key, error=refused.message, status=refused.status
        )
    return redirect(reverse("proposal", args=[target]) + f"#{key}")


@require_POST
@page
def proposal_decide(request: HttpRequest, proposal_id: int) -> HttpResponse:
    """Approve, request changes or reject (assigned reviewers), with a note."""
    user = request_user(request)

    def write(data: dict[str, Any]) -> int:
        decision_record(
            user=user, proposal_id=proposal_id, decision=data["decision"], note=data["note"]
        )
        return proposal_id

    return _submit(request, proposal_id, "decide", forms.DecisionForm(request.POST), write)


@require_POST
@page
def proposal_revise_page(request: HttpRequest, proposal_id: int) -> HttpResponse:
    """A new version (editors): another run between the same clips and/or another cut."""
    user = request_user(request)
    proposal = proposal_get(user=user, proposal_id=proposal_id)
    sources = [t.pk for t in revision_sources(proposal=proposal)]
    form = forms.ReviseForm(request.POST, transitions=sources)

    def write(data: dict[str, Any]) -> int:
        made = proposal_revise(
            user=user,
            proposal_id=proposal_id,
            transition_id=data["transition"],
            method=data["method"],
            title=data["title"] or None,  # blank: keep the title
            summary=data["summary"],
        )
        return made.pk

    return _submit(request, proposal_id, "revise", form, write)


@require_POST
@page
def proposal_revise_join_page(request: HttpRequest, proposal_id: int) -> HttpResponse:
    """A new version of a join's proposal (editors) from a sequence joining the same clips."""
    user = request_user(request)
    proposal = proposal_get(user=user, proposal_id=proposal_id)
    joins = presenters.revision_join_choices(revision_joins(proposal=proposal))
    form = forms.ReviseJoinForm(request.POST, joins=joins)

    def write(data: dict[str, Any]) -> int:
        sequence_id, join_number = data["source"]
        made = proposal_revise_from_join(
            user=user,
            proposal_id=proposal_id,
            sequence_id=sequence_id,
            join_number=join_number,
            title=data["title"] or None,  # blank: keep the title
            summary=data["summary"],
        )
        return made.pk

    return _submit(request, proposal_id, "revise", form, write)


@require_POST
@page
def proposal_reviewers(request: HttpRequest, proposal_id: int) -> HttpResponse:
    """Replace the reviewers (editors); none selected removes them all."""
    user = request_user(request)
    proposal = proposal_get(user=user, proposal_id=proposal_id)
    eligible = eligible_reviewers(proposal.project, exclude=[proposal.author_id])
    form = forms.ReviewersForm(request.POST, reviewers=eligible)

    def write(data: dict[str, Any]) -> int:
        reviewers_assign(user=user, proposal_id=proposal_id, usernames=data["reviewers"])
        return proposal_id

    return _submit(request, proposal_id, "reviewers", form, write)


# --- compare --------------------------------------------------------------------------------


@require_GET
@page
def proposal_compare(request: HttpRequest) -> HttpResponse:
    """``?a=&b=``: two proposals on one clock, with both metrics tables."""
    form = forms.CompareForm(request.GET)
    if not form.is_valid():
        return error_page(request, f"Nothing to compare. {forms.errors_text(form)}", 400)
    user = request_user(request)
    chosen = [proposal_get(user=user, proposal_id=form.cleaned_data[k]) for k in ("a", "b")]
    ready = [proposal_downloads_ready(proposal=p) for p in chosen]
    sides, sources = compare.compare_sides(chosen, ready)
    context = {
        "sides": sides,
        "lines": compare.compare_lines(sides),
        "sources": sources,
        "columns": presenters.METRIC_COLUMNS,
        "project": chosen[0].project,
        "camera_presets": CAMERA_PRESETS,
    }
    return render(request, "pages/proposal_compare.html", context)


# --- the transition page's form ---------------------------------------------------------------


@require_POST
@page
def transition_propose(request: HttpRequest, transition_id: int) -> HttpResponse:
    """Propose one cut of this transition run, with its reviewers (editors); a refusal
    is shown on the transition page and stores nothing."""
    user = request_user(request)
    transition = transition_get(user=user, transition_id=transition_id)
    card = listings.propose_card(transition, user)
    form = forms.ProposeForm(request.POST, reviewers=card.reviewers)

    def write(data: dict[str, Any]) -> int:
        return proposal_create_with_reviewers(
            user=user,
            project_id=transition.project_id,
            transition_id=transition.pk,
            method=data["method"],
            title=data["title"],
            summary=data["summary"],
            reviewers=data["reviewers"],
        ).pk

    back = reverse("transition", args=[transition.pk]) + "#propose"
    return _propose_from_page(request, form, back, write)


def _propose_from_page(
    request: HttpRequest, form: Form, back: str, write: Callable[[dict[str, Any]], int]
) -> HttpResponse:
    """Run ``write`` (a proposal service) with the form's data and go to the proposal it
    made; an invalid form or a refused write goes ``back`` with the reason, storing
    nothing."""
    if not form.is_valid():
        messages.error(request, f"Nothing was proposed. {forms.errors_text(form)}")
        return redirect(back)
    try:
        made = write(form.cleaned_data)
    except ServiceError as refused:
        messages.error(request, f"Nothing was proposed. {refused.message}")
        return redirect(back)
    return redirect("proposal", proposal_id=made)


@require_POST
@page
def sequence_join_propose(request: HttpRequest, sequence_id: int, join_number: int) -> HttpResponse:
    """Propose one join of this sequence, with its reviewers (editors); a refusal is shown
    on the sequence page and stores nothing."""
    user = request_user(request)
    sequence = sequence_get(user=user, sequence_id=sequence_id)
    reviewers = eligible_reviewers(sequence.project, exclude=[user.pk])
    form = forms.ProposeJoinForm(request.POST, reviewers=reviewers)

    def write(data: dict[str, Any]) -> int:
        return proposal_create_from_join(
            user=user,
            sequence_id=sequence.pk,
            join_number=join_number,
            title=data["title"],
            summary=data["summary"],
            reviewers=data["reviewers"],
        ).pk

    back = reverse("sequence", args=[sequence.pk]) + "#review"
    return _propose_from_page(request, form, back, write)


@require_POST
@page
def project_review_rule(request: HttpRequest, project_id: int) -> HttpResponse:
    """Set the approvals a version needs (owners); the outcome is shown on the project page."""
    form = forms.ReviewRuleForm(request.POST)
    back = reverse("project", args=[project_id]) + "#proposals-title"
    if not form.is_valid():
        messages.error(request, f"The rule was not changed. {forms.errors_text(form)}")
        return redirect(back)
    try:
        rule = review_rule_set(
            user=request_user(request),
            project_id=project_id,
            approvals_required=form.cleaned_data["approvals_required"],
        )
    except ServiceError as refused:
        messages.error(request, f"The rule was not changed. {refused.message}")
        return redirect(back)
    n = rule.approvals_required
    messages.success(request, f"A version now needs {n} approval{'' if n == 1 else 's'}.")
    return redirect(back)


# --- the activity log, notifications -----------------------------------------------------------


@require_GET
@page
def project_activity(request: HttpRequest, project_id: int) -> HttpResponse:
    """The project's review log, newest first, 50 a page (``?proposal=`` one thread)."""
    user = request_user(request)
    project = project_get(user=user, project_id=project_id)
    thread = _int_or_none(request.GET.get("proposal", ""))
    found = activity_list(user=user, project_id=project.pk, proposal_id=thread)
    listed = Paginator(found.select_related("comment"), LOG_PAGE_ROWS).get_page(
        request.GET.get("page")
    )
    context = {
        "project": project,
        "listed": listed,
        "rows": listings.activity_rows(listed),
        "thread": proposal_get(user=user, proposal_id=thread) if thread else None,
    }
    return render(request, "pages/project_activity.html", context)


def _unread_first(found: QuerySet[Notification]) -> QuerySet[Notification]:
    unread = Case(
        When(read_at__isnull=True, then=Value(0)), default=Value(1), output_field=IntegerField()
    )
    return found.select_related("activity__comment").order_by(unread, "-created_at", "-id")


@require_GET
@page
def notifications(request: HttpRequest) -> HttpResponse:
    """The user's notifications, unread first, 50 a page."""
    found = _unread_first(notification_list(user=request_user(request)))
    listed = Paginator(found, LOG_PAGE_ROWS).get_page(request.GET.get("page"))
    context = {"listed": listed, "rows": listings.notification_rows(listed)}
    return render(request, "pages/notifications.html", context)


@require_POST
@page
def notifications_read(request: HttpRequest) -> HttpResponse:
    """Mark one notification (``id``) or all of them read."""
    form = forms.MarkReadForm(request.POST)
    if not form.is_valid():
        return error_page(request, f"Nothing was marked. {forms.errors_text(form)}", 400)
    chosen = form.cleaned_data["id"]
    marked = notification_mark_read(
        user=request_user(request), ids=None if chosen is None else [chosen]
    )
    messages.success(request, f"{marked} notification{'' if marked == 1 else 's'} marked read.")
    return redirect("notifications")
