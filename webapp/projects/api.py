"""REST endpoints for projects and their members (included from :mod:`webapp.api.urls`
under ``/api/v1/``).

* ``GET/POST projects/``  yours, with your role / a new one (you own it) → 201
* ``GET  projects/{id}/``  one of yours
* ``GET/POST projects/{id}/members/``  its members / add one or change a role (owners)
* ``PATCH projects/{id}/members/{username}/``  change a member's role (owners)
* ``DELETE projects/{id}/members/{username}/``  remove a member (owners) or leave (yourself)

Non-members get 404, roles too low 403, the last owner stepping down or leaving 409.
POSTs honour ``Idempotency-Key``.
"""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.core.api import created_or_ok
from webapp.core.auth import request_user
from webapp.core.idempotency import idempotent
from webapp.core.schema import READ, errors
from webapp.projects.models import Membership, Project, Role
from webapp.projects.selectors import (
    membership_list,
    project_get,
    project_get_with_role,
    project_list_with_role,
)
from webapp.projects.services import (
    membership_remove,
    membership_role_change,
    membership_upsert,
    project_create,
)

CREATE = errors(400, 401, 404, 409, 415)


class ProjectSerializer(serializers.ModelSerializer[Project]):
    """A project as :func:`webapp.projects.selectors.project_list_with_role` annotates it."""

    role = serializers.ChoiceField(
        source="my_role", choices=Role.choices, read_only=True, help_text="Your role."
    )
    member_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Project
        fields = ["id", "name", "created_at", "role", "member_count"]
        read_only_fields = fields


class ProjectInputSerializer(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=120)


class MembershipSerializer(serializers.ModelSerializer[Membership]):
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = Membership
        fields = ["username", "role", "created_at"]
        read_only_fields = fields


class MembershipInputSerializer(serializers.Serializer[dict[str, Any]]):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=Role.choices)


class RoleInputSerializer(serializers.Serializer[dict[str, Any]]):
    role = serializers.ChoiceField(choices=Role.choices)


@extend_schema(tags=["projects"])
class ProjectListView(GenericAPIView[Project]):
    serializer_class = ProjectSerializer

    @extend_schema(responses={200: ProjectSerializer(many=True), **READ})
    def get(self, request: Request) -> Response:
        projects = project_list_with_role(user=request_user(request))
        page = self.paginate_queryset(projects)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(request=ProjectInputSerializer, responses={201: ProjectSerializer, **CREATE})
    @idempotent
    def post(self, request: Request) -> Response:
        data = ProjectInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = request_user(request)
        project = project_create(user=user, name=data.validated_data["name"])
        project = project_get_with_role(user=user, project_id=project.pk)
        return Response(ProjectSerializer(project).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["projects"])
class ProjectDetailView(APIView):
    @extend_schema(responses={200: ProjectSerializer, **READ})
    def get(self, request: Request, project_id: int) -> Response:
        project = project_get_with_role(user=request_user(request), project_id=project_id)
        return Response(ProjectSerializer(project).data)


@extend_schema(tags=["projects"])
class ProjectMembersView(GenericAPIView[Membership]):
    serializer_class = MembershipSerializer

    @extend_schema(responses={200: MembershipSerializer(many=True), **READ})
    def get(self, request: Request, project_id: int) -> Response:
        members = membership_list(user=request_user(request), project_id=project_id)
        page = self.paginate_queryset(members)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        request=MembershipInputSerializer,
        responses={
            200: OpenApiResponse(MembershipSerializer, description="Role changed."),
            201: OpenApiResponse(MembershipSerializer, description="Member added."),
            **errors(400, 401, 403, 404, 409, 415),
        },
        description="Add a member or change a member's role (owners only; 404 for an "
        "unknown username, 409 if no owner would be left).",
    )
    @idempotent
    def post(self, request: Request, project_id: int) -> Response:
        data = MembershipInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = request_user(request)
        membership, created = membership_upsert(
            project=project_get(user=user, project_id=project_id),
            by=user,
            username=data.validated_data["username"],
            role=Role(data.validated_data["role"]),
        )
        return Response(MembershipSerializer(membership).data, status=created_or_ok(created))


@extend_schema(tags=["projects"])
class ProjectMemberView(APIView):
    @extend_schema(
        request=RoleInputSerializer,
        responses={200: MembershipSerializer, **errors(400, 401, 403, 404, 409, 415)},
        description="Change a member's role (owners only; 409 if no owner would be left).",
    )
    def patch(self, request: Request, project_id: int, username: str) -> Response:
        data = RoleInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = request_user(request)
        membership = membership_role_change(
            project=project_get(user=user, project_id=project_id),
            by=user,
            username=username,
            role=Role(data.validated_data["role"]),
        )
        return Response(MembershipSerializer(membership).data)

    @extend_schema(
        responses={204: None, **errors(401, 403, 404, 409)},
        description="Remove a member (owners), or leave the project (your own username; any "
        "member). 409 for the last owner.",
    )
    def delete(self, request: Request, project_id: int, username: str) -> Response:
        user = request_user(request)
        membership_remove(
            project=project_get(user=user, project_id=project_id), by=user, username=username
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


urlpatterns = [
    path("projects/", ProjectListView.as_view(), name="projects"),
    path("projects/<int:project_id>/", ProjectDetailView.as_view(), name="project"),
    path(
        "projects/<int:project_id>/members/", ProjectMembersView.as_view(), name="project-members"
    ),
    path(
        "projects/<int:project_id>/members/<str:username>/",
        ProjectMemberView.as_view(),
        name="project-member",
    ),
]
