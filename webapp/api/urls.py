"""REST API routes under /api/v1/ (``docs/api-contract.md``; views in :mod:`webapp.api.views`).

The webhook endpoints come from :mod:`webapp.webhooks.api`, the review endpoints from
:mod:`webapp.reviews.api`. Any other path under
/api/v1/ answers a JSON 404.
"""

from __future__ import annotations

from importlib.util import find_spec

from django.urls import URLPattern, URLResolver, include, path, re_path

from webapp.api import views

app_name = "api"

urlpatterns: list[URLPattern | URLResolver] = [
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
    path("projects/", views.ProjectListView.as_view(), name="projects"),
    path("projects/<int:project_id>/", views.ProjectDetailView.as_view(), name="project"),
    path(
        "projects/<int:project_id>/members/",
        views.ProjectMembersView.as_view(),
        name="project-members",
    ),
    path(
        "projects/<int:project_id>/clips/", views.ProjectClipsView.as_view(), name="project-clips"
    ),
    path("projects/<int:project_id>/runs/", views.ProjectRunsView.as_view(), name="project-runs"),
    path("clips/<int:clip_id>/", views.ClipDetailView.as_view(), name="clip"),
    path(
        "clips/<int:clip_id>/download/<str:kind>/",
        views.ClipDownloadView.as_view(),
        name="clip-download",
    ),
    path("clips/<int:clip_id>/runs/", views.ClipRunsView.as_view(), name="clip-runs"),
    path("runs/<int:run_id>/", views.RunDetailView.as_view(), name="run"),
    path("clips/<int:clip_id>/analysis/", views.ClipAnalysisView.as_view(), name="clip-analysis"),
    path("transitions/", views.TransitionCreateView.as_view(), name="transitions"),
    path(
        "projects/<int:project_id>/transitions/",
        views.ProjectTransitionsView.as_view(),
        name="project-transitions",
    ),
    path(
        "transitions/<int:transition_id>/", views.TransitionDetailView.as_view(), name="transition"
    ),
    path(
        "transitions/<int:transition_id>/download/<str:kind>/",
        views.TransitionDownloadView.as_view(),
        name="transition-download",
    ),
]

urlpatterns.append(path("", include("webapp.pfnn.api")))
urlpatterns.append(path("", include("webapp.laban.api")))
urlpatterns.append(path("", include("webapp.reviews.api")))

if find_spec("webapp.webhooks.api") is not None:  # written separately; absent in early trees
    urlpatterns.append(path("", include("webapp.webhooks.api")))

# Last: a JSON 404 for unknown paths (those without the trailing slash still get
# CommonMiddleware's redirect to the slashed URL first).
urlpatterns.append(re_path(r"^[\s\S]*/$", views.NotFoundView.as_view(), name="not-found"))
