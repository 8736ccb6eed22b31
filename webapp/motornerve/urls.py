"""MotorNerve pages and the Drive page's JSON endpoints (views in
:mod:`webapp.motornerve.views`)."""

from django.urls import path

from webapp.motornerve import views

urlpatterns = [
    path("projects/<int:project_id>/drive/", views.project_drive, name="project-drive"),
    path("clips/<int:clip_id>/drive/", views.clip_drive, name="clip-drive"),
    path(
        "projects/<int:project_id>/drive/weights/",
        views.DriveWeightsView.as_view(),
        name="drive-weights",
    ),
    path(
        "projects/<int:project_id>/drive/weights/blob/",
        views.DriveWeightsBlobView.as_view(),
        name="drive-weights-blob",
    ),
    path("clips/<int:clip_id>/drive/rig/", views.DriveRigView.as_view(), name="drive-rig"),
]
