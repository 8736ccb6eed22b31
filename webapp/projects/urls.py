"""The project page's member forms (the page itself: :mod:`webapp.clips.urls`)."""

from django.urls import path

from webapp.projects import views

urlpatterns = [
    path("projects/<int:project_id>/members/add/", views.member_add, name="project-member-add"),
    path("projects/<int:project_id>/members/role/", views.member_role, name="project-member-role"),
    path(
        "projects/<int:project_id>/members/remove/",
        views.member_remove,
        name="project-member-remove",
    ),
]
