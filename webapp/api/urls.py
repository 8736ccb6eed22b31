"""REST API routes under /api/v1/ (views in :mod:`webapp.api.views`)."""

urlpatterns: list[object] = []
