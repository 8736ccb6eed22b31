"""Sequence pages (views in :mod:`webapp.sequences.views`)."""

from django.urls import path

from webapp.sequences import views

urlpatterns = [
    path("projects/<int:project_id>/sequences/new/", views.sequence_new, name="sequence-new"),
    path("sequences/<int:sequence_id>/", views.sequence_detail, name="sequence"),
    path("sequences/<int:sequence_id>/adjust/", views.sequence_adjust, name="sequence-adjust"),
]
