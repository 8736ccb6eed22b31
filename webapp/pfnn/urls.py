"""PFNN pages (views in :mod:`webapp.pfnn.views`)."""

from django.urls import path

from webapp.pfnn import views

urlpatterns = [
    path("clips/<int:clip_id>/walk/", views.clip_walk, name="clip-walk"),
]
