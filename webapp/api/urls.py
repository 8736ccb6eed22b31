"""REST API routes under /api/v1/ (``docs/api-contract.md``): the URL root.

Each app brings its endpoints in its ``api`` module (accounts, projects, clips,
runs, transitions, sequences, pfnn, motornerve, laban, reviews, webhooks,
characters). Any other
path under /api/v1/ answers a JSON 404.
"""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path, re_path

from webapp.core.api import NotFoundView

app_name = "api"

APPS = (
    "webapp.accounts.api",
    "webapp.projects.api",
    "webapp.clips.api",
    "webapp.runs.api",
    "webapp.transitions.api",
    "webapp.sequences.api",
    "webapp.pfnn.api",
    "webapp.motornerve.api",
    "webapp.laban.api",
    "webapp.laban.editing_api",
    "webapp.reviews.api",
    "webapp.webhooks.api",
    "webapp.characters.api",
)

urlpatterns: list[URLPattern | URLResolver] = [path("", include(module)) for module in APPS]

# Last: a JSON 404 for unknown paths (those without the trailing slash still get
# CommonMiddleware's redirect to the slashed URL first).
urlpatterns.append(re_path(r"^[\s\S]*/$", NotFoundView.as_view(), name="not-found"))
