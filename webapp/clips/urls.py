"""Browser pages (views in :mod:`webapp.clips.views`)."""

from django.http import HttpRequest, HttpResponse
from django.urls import path


def home(request: HttpRequest) -> HttpResponse:
    return HttpResponse("Kinetograph")


urlpatterns = [path("", home, name="home")]
