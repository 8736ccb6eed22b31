"""URL map: the browser pages, the REST API under /api/v1/, the OpenAPI schema and docs."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("webapp.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("accounts/", include("webapp.accounts.urls")),
    path("", include("webapp.projects.urls")),
    path("", include("webapp.clips.urls")),
    path("", include("webapp.transitions.urls")),
    path("", include("webapp.sequences.urls")),
    path("", include("webapp.pfnn.urls")),
    path("", include("webapp.motornerve.urls")),
    path("", include("webapp.laban.urls")),
    path("", include("webapp.reviews.urls")),
    path("", include("webapp.characters.urls")),
]
