"""Account security (issue 16): log-in lockout (finding 6), revoking access — password
change, token rotation, log out everywhere, log-out revoking the token (finding 7) —
and the password rules (finding 13). Each test names its finding.

Lockouts are rows in the database (axes' database handler), so each test starts
unlocked: its transaction is rolled back. ``manage.py axes_reset`` lifts them sooner.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.core.management import call_command
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from support.paths import REPO_ROOT
from support.web import client_for, make_user

pytestmark = pytest.mark.django_db

PASSWORD = "pw-viewer-user"  # make_user's (set_password: not validated)
STRONG = "a-long-enough-passphrase-7"
WEAK = [  # (username, password): refused at sign-up and at password change
    ("weak5", "weak5weak5"),  # contains the username (similar only by 0.67)
    ("ada", "83749261"),  # all digits
    ("ada", "kinetograph"),  # the product's name
    ("ada", "Kinetograph-2024"),  # the product's name inside
    ("ada", "zq8-vmx4p"),  # 9 characters
]
TOKEN_URL = "/api/v1/auth/token/"


def limit() -> int:
    """The failure limit (5 where the setting is missing, to show what happens then)."""
    failure_limit: int = getattr(settings, "AXES_FAILURE_LIMIT", 5)
    return failure_limit


def log_in(client: Client, username: str, password: str, **extra: Any) -> Any:
    return client.post(reverse("login"), {"username": username, "password": password}, **extra)


def logged_in(user: AbstractUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


def is_logged_in(client: Client) -> bool:
    return client.get(reverse("home")).status_code == 200


# --- finding 6: lockout ------------------------------------------------------------------------


def test_login_page_locks_out_and_refuses_even_the_right_password(
    members: dict[str, AbstractUser],
) -> None:
    """Finding 6: after the failure limit of wrong passwords the log-in page answers 429
    with Retry-After and a lockout page, and the right password no longer logs in."""
    client = Client()
    for _ in range(limit() - 1):
        assert log_in(client, "viewer-user", "wrong").status_code == 200
    locked = log_in(client, "viewer-user", "wrong")
    assert locked.status_code == 429
    assert locked["Retry-After"] == str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    assert b"Too many failed log-in attempts" in locked.content
    right = log_in(client, "viewer-user", PASSWORD)
    assert right.status_code == 429
    assert not is_logged_in(client)


def test_admin_login_locks_out(db: None) -> None:
    """Finding 6: the admin's log-in form is under the same lockout."""
    get_user_model().objects.create_user("boss", password="pw-boss", is_staff=True)
    client = Client()
    url = reverse("admin:login")
    for _ in range(limit()):
        client.post(url, {"username": "boss", "password": "wrong", "next": "/admin/"})
    response = client.post(url, {"username": "boss", "password": "pw-boss", "next": "/admin/"})
    assert response.status_code == 429
    assert client.get("/admin/").status_code == 302  # still sent to the log-in


def test_token_endpoint_locks_out_with_the_error_shape(members: dict[str, AbstractUser]) -> None:
    """Finding 6: the token endpoint answers 429 ``locked_out`` (retry_after_s, Retry-After)
    at the failure limit, and then refuses the right password too."""
    client = APIClient()
    wrong = {"username": "viewer-user", "password": "wrong"}
    for _ in range(limit() - 1):
        assert client.post(TOKEN_URL, wrong, format="json").status_code == 400
    locked = client.post(TOKEN_URL, wrong, format="json")
    assert locked.status_code == 429
    error = locked.json()["error"]
    assert error["code"] == "locked_out"
    assert error["details"]["retry_after_s"] == int(locked["Retry-After"]) > 0
    right = client.post(TOKEN_URL, {"username": "viewer-user", "password": PASSWORD})
    assert right.status_code == 429
    assert not Token.objects.filter(user=members["viewer"]).exists()


def test_lockout_is_per_username_and_address(members: dict[str, AbstractUser]) -> None:
    """Finding 6: the lockout holds one username from one address: the same user from
    another address, and another user from the same address, still log in."""
    attacker = {"REMOTE_ADDR": "10.0.0.66"}
    for _ in range(limit()):
        log_in(Client(), "viewer-user", "wrong", **attacker)
    assert log_in(Client(), "viewer-user", PASSWORD, **attacker).status_code == 429
    assert log_in(Client(), "viewer-user", PASSWORD, REMOTE_ADDR="10.0.0.7").status_code == 302
    assert log_in(Client(), "editor-user", "pw-editor-user", **attacker).status_code == 302


def test_a_right_password_clears_the_count(members: dict[str, AbstractUser]) -> None:
    """Finding 6: failures are counted in the database and a successful log-in clears
    them, so a user who mistypes now and then is never locked out."""
    from axes.models import AccessAttempt  # imported here: absent before the lockout

    for _ in range(2):
        for _ in range(limit() - 1):
            log_in(Client(), "viewer-user", "wrong")
        attempt = AccessAttempt.objects.get(username="viewer-user")
        assert attempt.failures_since_start == limit() - 1
        assert log_in(Client(), "viewer-user", PASSWORD).status_code == 302
        assert not AccessAttempt.objects.filter(username="viewer-user").exists()


def test_lockout_lifts_after_the_cool_off_or_an_axes_reset(
    members: dict[str, AbstractUser],
) -> None:
    """Finding 6: a lockout ends when the cool-off has passed, or at once with
    ``manage.py axes_reset`` (what tests and administrators use)."""
    from axes.models import AccessAttempt

    for _ in range(limit()):
        log_in(Client(), "viewer-user", "wrong")
    assert log_in(Client(), "viewer-user", PASSWORD).status_code == 429
    past = timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(seconds=1)
    AccessAttempt.objects.update(attempt_time=past)
    assert log_in(Client(), "viewer-user", PASSWORD).status_code == 302
    for _ in range(limit()):
        log_in(Client(), "viewer-user", "wrong")
    assert log_in(Client(), "viewer-user", PASSWORD).status_code == 429
    call_command("axes_reset", verbosity=0)
    assert log_in(Client(), "viewer-user", PASSWORD).status_code == 302


def test_the_failure_limit_is_a_setting(members: dict[str, AbstractUser], settings: Any) -> None:
    """Finding 6: ``AXES_FAILURE_LIMIT`` (from ``KINETOGRAPH_LOGIN_FAILURE_LIMIT``) decides."""
    settings.AXES_FAILURE_LIMIT = 2
    assert log_in(Client(), "viewer-user", "wrong").status_code == 200
    assert log_in(Client(), "viewer-user", "wrong").status_code == 429


def _settings_with(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.AXES_FAILURE_LIMIT, int(s.AXES_COOLOFF_TIME.total_seconds()), s.AXES_HANDLER)"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "webapp.settings_test", **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_limit_and_cool_off_come_from_the_environment() -> None:
    """Finding 6: KINETOGRAPH_LOGIN_FAILURE_LIMIT (default 5) and
    KINETOGRAPH_LOGIN_COOLOFF_MIN (default 15) set the lockout, counted by the database
    handler; a malformed value fails at start-up."""
    defaults = _settings_with({})
    assert defaults.stdout.split() == ["5", "900", "axes.handlers.database.AxesDatabaseHandler"]
    chosen = _settings_with(
        {"KINETOGRAPH_LOGIN_FAILURE_LIMIT": "3", "KINETOGRAPH_LOGIN_COOLOFF_MIN": "2"}
    )
    assert chosen.stdout.split()[:2] == ["3", "120"]
    broken = _settings_with({"KINETOGRAPH_LOGIN_FAILURE_LIMIT": "many"})
    assert broken.returncode != 0
    assert "KINETOGRAPH_LOGIN_FAILURE_LIMIT" in broken.stderr


def _authenticate_calls_without_request() -> list[str]:
    found = []
    for path in sorted((REPO_ROOT / "webapp").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None)) == "authenticate"
                and not node.args
                and "request" not in {k.arg for k in node.keywords}
            ):
                found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}")
    return found


def test_every_password_check_goes_through_the_lockout() -> None:
    """Finding 6: the lockout backend comes first, and every ``authenticate()`` in webapp
    passes its request (without one the backend has no address and abstains)."""
    assert settings.AUTHENTICATION_BACKENDS[0] == "webapp.accounts.backends.LockoutBackend"
    assert "axes.middleware.AxesMiddleware" in settings.MIDDLEWARE
    assert _authenticate_calls_without_request() == []


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "6.6.6.6", "10.0.0.1"),  # no proxy: X-Forwarded-For is the client's word
        (1, "6.6.6.6, 203.0.113.9", "203.0.113.9"),  # what the one proxy saw
        (1, "", "10.0.0.1"),
        (2, "6.6.6.6, 203.0.113.9, 10.1.1.1", "203.0.113.9"),
    ],
)
def test_the_client_address_ignores_what_clients_forward(
    settings: Any, proxies: int, forwarded: str, expected: str
) -> None:
    """Finding 6: the address the lockout counts is REMOTE_ADDR, or behind
    KINETOGRAPH_TRUSTED_PROXIES proxies the one the outermost proxy saw; a client cannot
    pick one by writing X-Forwarded-For."""
    from webapp.accounts.lockout import client_ip

    settings.TRUSTED_PROXIES = proxies
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected


def test_password_change_old_password_guesses_lock_out(
    members: dict[str, AbstractUser],
) -> None:
    """Finding 6: a stolen session cannot guess the password through the password-change
    form: wrong old passwords count towards the lockout."""
    client = logged_in(members["viewer"])
    data = {"old_password": "wrong", "new_password1": STRONG, "new_password2": STRONG}
    statuses = [client.post(reverse("password_change"), data).status_code for _ in range(limit())]
    assert statuses == [200] * (limit() - 1) + [429]
    data["old_password"] = PASSWORD
    assert client.post(reverse("password_change"), data).status_code == 429
    members["viewer"].refresh_from_db()
    assert members["viewer"].check_password(PASSWORD)


# --- finding 7: revoking access ----------------------------------------------------------------


def test_password_change_page_changes_it_ends_other_sessions_and_the_token(
    members: dict[str, AbstractUser],
) -> None:
    """Finding 7: the account page (linked from the nav) leads to a password-change page;
    changing the password ends the other sessions, keeps this one and revokes the token."""
    user = members["viewer"]
    api, other, client = client_for(user), logged_in(user), logged_in(user)
    home = client.get(reverse("home")).content.decode()
    assert f'href="{reverse("account")}"' in home
    assert reverse("password_change") in client.get(reverse("account")).content.decode()
    assert client.get(reverse("password_change")).status_code == 200
    data = {"old_password": PASSWORD, "new_password1": STRONG, "new_password2": STRONG}
    response = client.post(reverse("password_change"), data)
    assert response.status_code == 302
    assert response["Location"] == reverse("password_change_done")
    user.refresh_from_db()
    assert user.check_password(STRONG)
    assert is_logged_in(client)
    assert not is_logged_in(other)
    assert api.get("/api/v1/projects/").status_code == 401


def test_token_rotation_returns_a_new_token_and_kills_the_old(
    members: dict[str, AbstractUser],
) -> None:
    """Finding 7: POST auth/token/rotate/ gives a new token; the old one is dead."""
    old = client_for(members["viewer"])
    response = old.post("/api/v1/auth/token/rotate/")
    assert response.status_code == 200
    new_key = response.json()["token"]
    assert old.get("/api/v1/projects/").status_code == 401
    new = APIClient()
    new.credentials(HTTP_AUTHORIZATION=f"Token {new_key}")
    assert new.get("/api/v1/projects/").status_code == 200
    assert APIClient().post("/api/v1/auth/token/rotate/").status_code == 401


def test_logout_everywhere_api_ends_every_session_and_the_token(
    members: dict[str, AbstractUser],
) -> None:
    """Finding 7: POST auth/logout-everywhere/ deletes the token and every browser session
    of the user (other users' sessions stay)."""
    user = members["viewer"]
    api, browsers = client_for(user), [logged_in(user) for _ in range(2)]
    bystander = logged_in(members["editor"])
    assert api.post("/api/v1/auth/logout-everywhere/").status_code == 204
    assert api.get("/api/v1/projects/").status_code == 401
    assert not any(is_logged_in(browser) for browser in browsers)
    assert is_logged_in(bystander)


def test_logout_revokes_the_api_token(members: dict[str, AbstractUser]) -> None:
    """Finding 7: logging out of the site deletes the user's API token."""
    api = client_for(members["viewer"])
    browser = logged_in(members["viewer"])
    assert browser.post(reverse("logout")).status_code == 302
    assert api.get("/api/v1/projects/").status_code == 401
    assert not Token.objects.filter(user=members["viewer"]).exists()


def test_account_page_rotates_the_token_and_logs_out_everywhere(
    members: dict[str, AbstractUser],
) -> None:
    """Finding 7: the account page replaces the token (shown once) and logs out
    everywhere (this browser, the others and the token)."""
    user = members["viewer"]
    api, other, client = client_for(user), logged_in(user), logged_in(user)
    rotated = client.post(reverse("account-token-rotate"))
    assert rotated.status_code == 200
    new_key = Token.objects.get(user=user).key
    assert new_key.encode() in rotated.content
    assert new_key.encode() not in client.get(reverse("account")).content
    assert api.get("/api/v1/projects/").status_code == 401
    response = client.post(reverse("logout-everywhere"))
    assert response.status_code == 302
    assert response["Location"] == reverse("login")
    assert not is_logged_in(client) and not is_logged_in(other)
    assert not Token.objects.filter(user=user).exists()


# --- finding 13: password rules ----------------------------------------------------------------


@pytest.mark.parametrize(("username", "password"), WEAK)
def test_signup_refuses_weak_passwords(username: str, password: str) -> None:
    """Finding 13: sign-up refuses all-digit, short, product-name and username-containing
    passwords."""
    response = Client().post(
        reverse("signup"), {"username": username, "password1": password, "password2": password}
    )
    assert response.status_code == 400
    assert not get_user_model().objects.filter(username=username).exists()


@pytest.mark.parametrize(("username", "password"), WEAK)
def test_password_change_refuses_weak_passwords(username: str, password: str) -> None:
    """Finding 13: the password-change page applies the same rules."""
    user = make_user(username)
    client = logged_in(user)
    data = {"old_password": f"pw-{username}", "new_password1": password, "new_password2": password}
    response = client.post(reverse("password_change"), data)
    assert response.status_code == 200
    assert b'aria-invalid="true"' in response.content
    user.refresh_from_db()
    assert user.check_password(f"pw-{username}")


def test_a_good_passphrase_is_accepted_at_signup() -> None:
    """Finding 13: the rules name all five validators and still let a passphrase through."""
    names = [v["NAME"].rsplit(".", 1)[1] for v in settings.AUTH_PASSWORD_VALIDATORS]
    assert names == [
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
        "SiteWordsValidator",
    ]
    data = {"username": "weak5", "password1": STRONG, "password2": STRONG}
    assert Client().post(reverse("signup"), data).status_code == 302
