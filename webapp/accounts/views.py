"""Sign-up page (log-in and log-out are Django's own views, see :mod:`webapp.accounts.urls`)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from webapp.accounts.forms import SignUpForm
from webapp.accounts.services import user_create


@sensitive_post_parameters("password1", "password2")
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account and log in; signed-in users go straight home."""
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    form = SignUpForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        user = user_create(
            username=form.cleaned_data["username"], password=form.cleaned_data["password1"]
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(settings.LOGIN_REDIRECT_URL)
    status = 400 if form.errors else 200
    return render(request, "registration/signup.html", {"form": form}, status=status)
