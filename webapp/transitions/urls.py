"""Transition pages (views in :mod:`webapp.transitions.views`)."""

from django.urls import path

from webapp.transitions import views

urlpatterns = [
    path("clips/<int:clip_id>/transitions/new/", views.transition_new, name="transition-new"),
    path("transitions/<int:transition_id>/", views.transition_detail, name="transition"),
]
