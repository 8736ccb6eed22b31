"""Account pages: sign-up, the account page (API token, log out everywhere) and the
password change (log-in and log-out are Django's own views, see
:mod:`webapp.accounts.urls`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from webapp.accounts.forms import GuardedPasswordChangeForm, SignUpForm
from webapp.accounts.selectors import auth_token_get
from webapp.accounts.services import (
    auth_token_revoke,
    auth_token_rotate,
    user_create,
    user_logout_everywhere,
)
from webapp.core.auth import request_user
from webapp.core.pages import page


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


@require_GET
@page
def account(request: HttpRequest) -> HttpResponse:
    """The account page: password, API token, log out everywhere."""
    token = auth_token_get(user=request_user(request))
    return render(request, "accounts/account.html", {"token": token})


@never_cache  # the page shows the new token: no cache may keep it
@require_POST
@page
def token_rotate(request: HttpRequest) -> HttpResponse:
    """A new API token, shown once on the account page; the old one stops working."""
    token = auth_token_rotate(user=request_user(request))
    return render(request, "accounts/account.html", {"token": token, "new_token": token.key})


@require_POST
@page
def logout_everywhere(request: HttpRequest) -> HttpResponse:
    """Revoke the API token, end every session (this one too) and go to the log-in page."""
    ended = user_logout_everywhere(user=request_user(request))
    logout(request)
    messages.success(request, f"Logged out everywhere ({ended} session{'s' * (ended != 1)}).")
    return redirect(settings.LOGIN_URL)


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's password change (other sessions end, this one stays) that also revokes
    the API token and counts wrong old passwords towards the lockout."""

    form_class = GuardedPasswordChangeForm

    def get_form_kwargs(self) -> dict[str, Any]:
        """The form also gets the request (for ``authenticate``)."""
        kwargs: dict[str, Any] = super().get_form_kwargs()
        kwargs["request"] = self.request
        return kwargs

    def form_valid(self, form: GuardedPasswordChangeForm) -> HttpResponse:
        """Save the new password, keep this session, revoke the API token."""
        response: HttpResponse = super().form_valid(form)
        auth_token_revoke(user=form.user)
        return response
