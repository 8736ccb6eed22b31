"""REST endpoints for reviewing transition choices (included from :mod:`webapp.api.urls`
under ``/api/v1/``; ``docs/reviews.md``).

* ``GET  projects/{id}/proposals/``  ``?status=`` → the project's proposals (every version)
* ``POST projects/{id}/proposals/``  ``{transition, method?, title?, summary?}`` → 201
* ``GET  proposals/{id}/``  the version with its decisions and the list of versions
* ``POST proposals/{id}/revise/``  ``{transition?, method?, title?, summary?}`` → 201 new version
* ``PUT  proposals/{id}/reviewers/``  ``{reviewers: [username]}`` → the proposal
* ``POST proposals/{id}/decisions/``  ``{decision, note?}`` → 201 the decision
* ``GET/POST proposals/{id}/comments/``  the thread (nested) / a new comment → 201
* ``POST/DELETE comments/{id}/resolve/``  resolve / reopen → the comment
* ``GET/PUT projects/{id}/review-rule/``  ``{approvals_required}``
* ``GET  projects/{id}/activity/``  ``?proposal=`` → the log, newest first
* ``GET  notifications/``  ``?unread=true`` → yours, with ``unread_count``
* ``POST notifications/read/``  ``{ids?}`` → ``{marked, unread_count}``
* ``GET  proposals/{id}/report.json``, ``report.csv``  the review report

Views are thin: validate, call one selector or service, serialize. Who may do what:
:mod:`webapp.reviews.services`. POSTs honour ``Idempotency-Key``.
"""

from __future__ import annotations

import json
from typing import Any

from django.http.response import HttpResponseBase
from django.urls import path, re_path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.core.api import NotFoundView
from webapp.core.auth import request_user
from webapp.core.downloads import Download, attachment
from webapp.core.idempotency import idempotent
from webapp.core.parsers import JSONParser
from webapp.core.schema import READ, errors
from webapp.reviews import comments, decisions, export, selectors, sequence_joins, services
from webapp.reviews import serializers as s
from webapp.reviews.models import Activity, Proposal

WRITE = errors(400, 401, 403, 404, 409, 415)


def _valid(serializer_class: type[Any], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _detail(request: Request, proposal_id: int, code: int = status.HTTP_200_OK) -> Response:
    found = selectors.proposal_get(user=request_user(request), proposal_id=proposal_id)
    body = s.ProposalDetailSerializer(found, context={"request": request})
    return Response(body.data, status=code)


@extend_schema(tags=["reviews"])
class ProjectProposalsView(GenericAPIView[Proposal]):
    serializer_class = s.ProposalSerializer

    @extend_schema(
        parameters=[s.ProposalListQuerySerializer],
        responses={200: s.ProposalSerializer(many=True), **errors(400, 401, 404)},
    )
    def get(self, request: Request, project_id: int) -> Response:
        query = _valid(s.ProposalListQuerySerializer, request.query_params)
        found = selectors.proposal_list(
            user=request_user(request), project_id=project_id, status=query.get("status")
        )
        page = self.paginate_queryset(found)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        request=s.ProposalCreateInputSerializer,
        responses={201: s.ProposalDetailSerializer, **WRITE},
        description="Propose one cut method of a succeeded transition run of the project, or "
        "one join of a rendered sequence of it (editors and owners): its frames, parameters "
        "and metrics table are copied.",
    )
    @idempotent
    def post(self, request: Request, project_id: int) -> Response:
        data = _valid(s.ProposalCreateInputSerializer, request.data)
        user = request_user(request)
        if data.get("sequence") is not None:
            created = sequence_joins.proposal_create_from_join(
                user=user,
                sequence_id=data["sequence"],
                join_number=data["join"],
                title=data["title"],
                summary=data["summary"],
                project_id=project_id,
            )
        else:
            created = services.proposal_create_from_transition(
                user=user,
                project_id=project_id,
                transition_id=data["transition"],
                method=data["method"],
                title=data["title"],
                summary=data["summary"],
            )
        return _detail(request, created.pk, status.HTTP_201_CREATED)


@extend_schema(tags=["reviews"])
class ProposalDetailView(APIView):
    @extend_schema(responses={200: s.ProposalDetailSerializer, **READ})
    def get(self, request: Request, proposal_id: int) -> Response:
        return _detail(request, proposal_id)


@extend_schema(tags=["reviews"])
class ProposalReviseView(APIView):
    @extend_schema(
        request=s.ProposalReviseInputSerializer,
        responses={201: s.ProposalDetailSerializer, **WRITE},
        description="A new version (editors and owners); this one becomes `superseded`. "
        "The thread and the reviewers are kept, the decisions start afresh.",
    )
    @idempotent
    def post(self, request: Request, proposal_id: int) -> Response:
        data = _valid(s.ProposalReviseInputSerializer, request.data)
        if data.get("sequence") is not None:
            created = sequence_joins.proposal_revise_from_join(
                user=request_user(request),
                proposal_id=proposal_id,
                sequence_id=data["sequence"],
                join_number=data["join"],
                title=data.get("title"),
                summary=data.get("summary"),
            )
            return _detail(request, created.pk, status.HTTP_201_CREATED)
        created = services.proposal_revise(
            user=request_user(request),
            proposal_id=proposal_id,
            transition_id=data.get("transition"),
            method=data.get("method"),
            title=data.get("title"),
            summary=data.get("summary"),
        )
        return _detail(request, created.pk, status.HTTP_201_CREATED)


@extend_schema(tags=["reviews"])
class ProposalReviewersView(APIView):
    @extend_schema(
        request=s.ReviewersInputSerializer,
        responses={200: s.ProposalDetailSerializer, **WRITE},
        description="Replace the reviewers (editors and owners): members with the reviewer "
        "role or higher, not the author.",
    )
    def put(self, request: Request, proposal_id: int) -> Response:
        data = _valid(s.ReviewersInputSerializer, request.data)
        decisions.reviewers_assign(
            user=request_user(request), proposal_id=proposal_id, usernames=data["reviewers"]
        )
        return _detail(request, proposal_id)


@extend_schema(tags=["reviews"])
class ProposalDecisionsView(APIView):
    @extend_schema(
        request=s.DecisionInputSerializer,
        responses={201: s.DecisionSerializer, **WRITE},
        description="Approve, request changes or reject (assigned reviewers). The N-th "
        "approval approves the version; any rejection rejects it.",
    )
    @idempotent
    def post(self, request: Request, proposal_id: int) -> Response:
        data = _valid(s.DecisionInputSerializer, request.data)
        made = decisions.decision_record(
            user=request_user(request),
            proposal_id=proposal_id,
            decision=data["decision"],
            note=data["note"],
        )
        return Response(s.DecisionSerializer(made).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["reviews"])
class ProposalCommentsView(APIView):
    @extend_schema(responses={200: s.CommentSerializer(many=True), **READ})
    def get(self, request: Request, proposal_id: int) -> Response:
        found = selectors.comment_thread(user=request_user(request), proposal_id=proposal_id)
        return Response(s.CommentSerializer(found, many=True).data)

    @extend_schema(
        request=s.CommentInputSerializer,
        responses={201: s.CommentSerializer, **WRITE},
        description="Comment on this version (reviewers, editors, owners), optionally pinned "
        "to a frame or an inclusive frame range of the transition clip, A or B, a joint and a "
        "parameter set; `@username` mentions a member.",
    )
    @idempotent
    def post(self, request: Request, proposal_id: int) -> Response:
        data = _valid(s.CommentInputSerializer, request.data)
        made = comments.comment_create(
            user=request_user(request),
            proposal_id=proposal_id,
            body=data["body"],
            frame_clip=data["frame_clip"],
            frame_start=data.get("frame_start"),
            frame_end=data.get("frame_end"),
            joint=data["joint"],
            parameter_set=data.get("parameter_set"),
            parent_id=data.get("reply_to"),
        )
        found = selectors.comment_get(user=request_user(request), comment_id=made.pk)
        return Response(s.CommentSerializer(found).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["reviews"])
class CommentResolveView(APIView):
    @extend_schema(
        request=None,
        responses={200: s.CommentSerializer, **WRITE},
        description="Resolve a top-level comment (its author, editors, owners).",
    )
    @idempotent
    def post(self, request: Request, comment_id: int) -> Response:
        done = comments.comment_resolve(user=request_user(request), comment_id=comment_id)
        return Response(s.CommentSerializer(done).data)

    @extend_schema(
        responses={200: s.CommentSerializer, **errors(400, 401, 403, 404)},
        description="Reopen a resolved comment.",
    )
    def delete(self, request: Request, comment_id: int) -> Response:
        done = comments.comment_unresolve(user=request_user(request), comment_id=comment_id)
        return Response(s.CommentSerializer(done).data)


@extend_schema(tags=["reviews"])
class ReviewRuleView(APIView):
    @extend_schema(responses={200: s.ReviewRuleSerializer, **READ})
    def get(self, request: Request, project_id: int) -> Response:
        rule = selectors.review_rule_get(user=request_user(request), project_id=project_id)
        return Response(s.ReviewRuleSerializer(rule).data)

    @extend_schema(
        request=s.ReviewRuleInputSerializer,
        responses={200: s.ReviewRuleSerializer, **errors(400, 401, 403, 404, 415)},
        description="Set N, the approvals a version needs (owners); open versions that have "
        "N approvals already are approved. Any rejection blocks.",
    )
    def put(self, request: Request, project_id: int) -> Response:
        data = _valid(s.ReviewRuleInputSerializer, request.data)
        rule = decisions.review_rule_set(user=request_user(request), project_id=project_id, **data)
        return Response(s.ReviewRuleSerializer(rule).data)


@extend_schema(tags=["reviews"])
class ProjectActivityView(GenericAPIView[Activity]):
    serializer_class = s.ActivitySerializer

    @extend_schema(
        parameters=[s.ActivityQuerySerializer],
        responses={200: s.ActivitySerializer(many=True), **errors(400, 401, 404)},
    )
    def get(self, request: Request, project_id: int) -> Response:
        query = _valid(s.ActivityQuerySerializer, request.query_params)
        found = selectors.activity_list(
            user=request_user(request), project_id=project_id, proposal_id=query.get("proposal")
        )
        page = self.paginate_queryset(found)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


@extend_schema(tags=["reviews"])
class NotificationsView(APIView):
    @extend_schema(
        parameters=[s.NotificationQuerySerializer],
        responses={200: s.NotificationPageSerializer, **errors(400, 401)},
    )
    def get(self, request: Request) -> Response:
        query = _valid(s.NotificationQuerySerializer, request.query_params)
        found = selectors.notification_list(user=request_user(request), unread=query["unread"])
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(found, request, view=self)
        body = paginator.get_paginated_response(s.NotificationSerializer(page, many=True).data)
        body.data["unread_count"] = selectors.notification_unread_count(user=request_user(request))
        return body


@extend_schema(tags=["reviews"])
class NotificationsReadView(APIView):
    parser_classes = [JSONParser]  # a list of ids: JSON only (a form would hit Django's field cap)

    @extend_schema(
        request=s.NotificationsReadInputSerializer,
        responses={200: s.NotificationsReadSerializer, **errors(400, 401, 409, 415)},
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = _valid(s.NotificationsReadInputSerializer, request.data)
        marked = services.notification_mark_read(user=request_user(request), ids=data.get("ids"))
        unread = selectors.notification_unread_count(user=request_user(request))
        return Response({"marked": marked, "unread_count": unread})


@extend_schema(tags=["reviews"])
class ReportJsonView(APIView):
    @extend_schema(
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="The review report: `format`, `generated_at`, `proposal`, "
                "`decision`, `parameters`, `metrics`, `versions`, `thread`.",
            ),
            **READ,
        }
    )
    def get(self, request: Request, proposal_id: int) -> HttpResponseBase:
        proposal = selectors.proposal_get(user=request_user(request), proposal_id=proposal_id)
        body = json.dumps(export.review_report(proposal), indent=2)
        name = f"proposal-{proposal.pk}-v{proposal.version}-review.json"
        return attachment(Download(body.encode(), name, "application/json"))


@extend_schema(tags=["reviews"])
class ReportCsvView(APIView):
    @extend_schema(
        responses={
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR,
                description="The review report as CSV: a `section,key,value` block, an empty "
                "row, then one row per comment.",
            ),
            **READ,
        }
    )
    def get(self, request: Request, proposal_id: int) -> HttpResponseBase:
        proposal = selectors.proposal_get(user=request_user(request), proposal_id=proposal_id)
        name = f"proposal-{proposal.pk}-v{proposal.version}-review.csv"
        body = export.review_report_csv(proposal).encode()
        return attachment(Download(body, name, "text/csv; charset=utf-8"))


urlpatterns = [
    path(
        "projects/<int:project_id>/proposals/",
        ProjectProposalsView.as_view(),
        name="project-proposals",
    ),
    path("proposals/<int:proposal_id>/", ProposalDetailView.as_view(), name="proposal"),
    path(
        "proposals/<int:proposal_id>/revise/", ProposalReviseView.as_view(), name="proposal-revise"
    ),
    path(
        "proposals/<int:proposal_id>/reviewers/",
        ProposalReviewersView.as_view(),
        name="proposal-reviewers",
    ),
    path(
        "proposals/<int:proposal_id>/decisions/",
        ProposalDecisionsView.as_view(),
        name="proposal-decisions",
    ),
    path(
        "proposals/<int:proposal_id>/comments/",
        ProposalCommentsView.as_view(),
        name="proposal-comments",
    ),
    path(
        "comments/<int:comment_id>/resolve/", CommentResolveView.as_view(), name="comment-resolve"
    ),
    path("projects/<int:project_id>/review-rule/", ReviewRuleView.as_view(), name="review-rule"),
    path(
        "projects/<int:project_id>/activity/",
        ProjectActivityView.as_view(),
        name="project-activity",
    ),
    path("notifications/", NotificationsView.as_view(), name="notifications"),
    path("notifications/read/", NotificationsReadView.as_view(), name="notifications-read"),
    path(
        "proposals/<int:proposal_id>/report.json",
        ReportJsonView.as_view(),
        name="proposal-report-json",
    ),
    path(
        "proposals/<int:proposal_id>/report.csv",
        ReportCsvView.as_view(),
        name="proposal-report-csv",
    ),
    # A JSON 404 for a report path whose id is not a number (these paths have no trailing
    # slash, so CommonMiddleware would otherwise redirect them to the catch-all 404).
    re_path(r"^proposals/[^/]*/report\.(?:json|csv)$", NotFoundView.as_view(), name="not-found"),
]
