"""Browser pages (views in :mod:`webapp.clips.views`)."""

from django.urls import path

from webapp.clips import views

urlpatterns = [
    path("", views.home, name="home"),
    path("projects/new/", views.project_new, name="project-new"),
    path("projects/<int:project_id>/", views.project_detail, name="project"),
    path("projects/<int:project_id>/upload/", views.project_upload, name="project-upload"),
    path("clips/<int:clip_id>/", views.clip_detail, name="clip"),
]
