"""Review pages (views in :mod:`webapp.reviews.views`)."""

from django.urls import path

from webapp.reviews import views

urlpatterns = [
    path("proposals/compare/", views.proposal_compare, name="proposal-compare"),
    path("proposals/<int:proposal_id>/", views.proposal_detail, name="proposal"),
    path("proposals/<int:proposal_id>/decide/", views.proposal_decide, name="proposal-decide"),
    path("proposals/<int:proposal_id>/revise/", views.proposal_revise_page, name="proposal-revise"),
    path(
        "proposals/<int:proposal_id>/revise-join/",
        views.proposal_revise_join_page,
        name="proposal-revise-join",
    ),
    path(
        "proposals/<int:proposal_id>/reviewers/",
        views.proposal_reviewers,
        name="proposal-reviewers",
    ),
    path(
        "transitions/<int:transition_id>/propose/",
        views.transition_propose,
        name="transition-propose",
    ),
    path(
        "sequences/<int:sequence_id>/joins/<int:join_number>/propose/",
        views.sequence_join_propose,
        name="sequence-join-propose",
    ),
    path("projects/<int:project_id>/activity/", views.project_activity, name="project-activity"),
    path(
        "projects/<int:project_id>/review-rule/",
        views.project_review_rule,
        name="project-review-rule",
    ),
    path("notifications/", views.notifications, name="notifications"),
    path("notifications/read/", views.notifications_read, name="notifications-read"),
]
