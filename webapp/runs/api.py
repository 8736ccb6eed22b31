"""The run endpoints (``docs/api-contract.md``): every kind of run reads the same.

They read runs only (the run engine knows no app that defines a kind of run); the
apps' endpoints embed runs with :class:`webapp.runs.serializers.RunSerializer`.
Non-members get 404.
"""

from __future__ import annotations

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.core.auth import request_user
from webapp.core.schema import READ
from webapp.runs.models import Run
from webapp.runs.selectors import run_get, run_list
from webapp.runs.serializers import RunSerializer


@extend_schema(tags=["runs"])
class ProjectRunsView(GenericAPIView[Run]):
    serializer_class = RunSerializer

    @extend_schema(responses={200: RunSerializer(many=True), **READ})
    def get(self, request: Request, project_id: int) -> Response:
        runs = run_list(user=request_user(request), project_id=project_id)
        page = self.paginate_queryset(runs)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


@extend_schema(tags=["runs"])
class RunDetailView(APIView):
    @extend_schema(responses={200: RunSerializer, **READ})
    def get(self, request: Request, run_id: int) -> Response:
        return Response(RunSerializer(run_get(user=request_user(request), run_id=run_id)).data)


urlpatterns = [
    path("projects/<int:project_id>/runs/", ProjectRunsView.as_view(), name="project-runs"),
    path("runs/<int:run_id>/", RunDetailView.as_view(), name="run"),
]
