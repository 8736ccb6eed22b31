"""Character forms (views in :mod:`webapp.characters.views`)."""

from django.urls import path

from webapp.characters import views

urlpatterns = [
    path("projects/<int:project_id>/characters/new/", views.character_new, name="character-new"),
    path("characters/<int:character_id>/delete/", views.character_remove, name="character-delete"),
]
