"""Score pages (views in :mod:`webapp.laban.views`)."""

from django.urls import path

from webapp.laban import views

urlpatterns = [
    path("projects/<int:project_id>/scores/new/", views.score_new, name="score-new"),
    path(
        "projects/<int:project_id>/scores/from-template/",
        views.score_from_template,
        name="score-from-template",
    ),
    path("scores/<int:score_id>/", views.score_detail, name="score"),
]
