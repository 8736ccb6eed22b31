"""Deploy hardening (issue 16, finding 8): every page carries a Content-Security-Policy
that the pages can keep (no inline styles, the one inline script nonced), and the HTTPS
settings (HSTS, redirect, secure cookies, the proxy's header) come from the environment,
failing loudly on a malformed value.

``tests/test_deploy.py`` runs ``manage.py check --deploy`` with the production list of
``docs/platform.md``; ``tests/browser/test_csp.py`` loads the pages in Chromium.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser, User
from django.test import Client

from support.paths import REPO_ROOT, SAMPLE_DIR
from support.web import processed
from webapp.projects.models import Project

POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",  # a nonce only on the pages that use one
    "style-src": "'self'",
    "img-src": "'self' data: blob:",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "frame-ancestors": "'none'",
    "form-action": "'self'",
}
IMPORT_MAP = re.compile(r'<script type="importmap" nonce="([^"]+)">')


def directives(response: Any) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    parts = (part.strip().split(" ", 1) for part in header.split(";") if part.strip())
    return {name: value for name, value in parts}


def test_no_template_has_a_style_attribute_or_an_unnonced_inline_script() -> None:
    """Finding 8: style-src 'self' refuses style="…"; script-src refuses inline scripts."""
    problems = []
    for path in sorted((REPO_ROOT / "templates").rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(REPO_ROOT)
        problems += [f"{name}: style attribute" for _ in re.finditer(r"\sstyle=", text)]
        problems += [f"{name}: <style>" for _ in re.finditer(r"<style\b", text)]
        problems += [f"{name}: on… handler" for _ in re.finditer(r"\son[a-z]+=", text)]
        for tag in re.finditer(r"<script\b[^>]*>", text):
            if "src=" not in tag.group(0) and "nonce=" not in tag.group(0):
                problems.append(f"{name}: inline script without a nonce")
    assert problems == []


def test_no_page_script_writes_a_style_attribute() -> None:
    """Finding 8: scripts set styles through element.style (allowed), never as markup."""
    found = [
        str(path.relative_to(REPO_ROOT))
        for path in sorted((REPO_ROOT / "static" / "js").rglob("*.js"))
        if re.search(r"""style=|setAttribute\(\s*['"]style""", path.read_text(encoding="utf-8"))
    ]
    assert found == []


@pytest.mark.django_db
def test_the_login_page_carries_the_policy() -> None:
    """Finding 8: the header is there with every directive, and nothing unsafe."""
    response = Client().get("/accounts/login/")
    assert response.status_code == 200
    got = directives(response)
    for name, value in POLICY.items():
        assert got[name].startswith(value), (name, got.get(name))
    assert "unsafe" not in response["Content-Security-Policy"]


@pytest.mark.django_db
def test_the_import_map_carries_the_requests_nonce(
    project: Project, members: dict[str, AbstractUser], media_root: Path
) -> None:
    """Finding 8: the one inline script is allowed by its nonce, new on every request."""
    clip = processed(project, members["editor"], SAMPLE_DIR / "games105" / "walk60.bvh")
    client = Client()
    viewer = members["viewer"]
    assert isinstance(viewer, User)
    client.force_login(viewer)
    nonces = []
    for _ in range(2):
        response = client.get(f"/clips/{clip.pk}/")
        match = IMPORT_MAP.search(response.content.decode())
        assert match is not None
        assert f"'nonce-{match.group(1)}'" in directives(response)["script-src"]
        nonces.append(match.group(1))
    assert nonces[0] != nonces[1]


@pytest.mark.django_db
def test_the_api_and_the_413_carry_it_too() -> None:
    """Finding 8: JSON answers and the body-limit answer are covered as well."""
    assert "default-src 'self'" in Client().get("/api/v1/no-such/")["Content-Security-Policy"]
    extra: dict[str, Any] = {"CONTENT_LENGTH": str(2**30), "wsgi.input": io.BytesIO()}
    big = Client().generic("POST", "/accounts/login/", b"", **extra)
    assert big.status_code == 413
    assert "default-src 'self'" in big["Content-Security-Policy"]


def settings_under(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Import webapp.settings in a fresh interpreter under ``environment``; its stdout
    is the HTTPS settings as JSON."""
    code = (
        "import json, webapp.settings as s; print(json.dumps({k: getattr(s, k) for k in "
        "('SECURE_HSTS_SECONDS', 'SECURE_HSTS_INCLUDE_SUBDOMAINS', 'SECURE_HSTS_PRELOAD', "
        "'SECURE_SSL_REDIRECT', 'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', "
        "'SECURE_PROXY_SSL_HEADER', 'REQUEST_MAX_BYTES', 'JSON_MAX_DEPTH')}))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KINETOGRAPH_", "DJANGO_"))}
    env.update({"DJANGO_SECRET_KEY": "x" * 50, **environment})
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )


def test_the_https_settings_are_off_by_default(tmp_path: Path) -> None:
    """Finding 8: a laptop on http://127.0.0.1 keeps working (nothing forced)."""
    done = settings_under({"KINETOGRAPH_VAR_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "SECURE_HSTS_SECONDS": 0,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": False,
        "SECURE_HSTS_PRELOAD": False,
        "SECURE_SSL_REDIRECT": False,
        "SESSION_COOKIE_SECURE": False,
        "CSRF_COOKIE_SECURE": False,
        "SECURE_PROXY_SSL_HEADER": None,
        "REQUEST_MAX_BYTES": 1024 * 1024,
        "JSON_MAX_DEPTH": 64,
    }


@pytest.mark.parametrize(
    ("proxy", "expected"),
    [
        ("true", ["HTTP_X_FORWARDED_PROTO", "https"]),
        ("HTTP_X_SCHEME,https", ["HTTP_X_SCHEME", "https"]),
    ],
)
def test_the_https_settings_come_from_the_environment(
    tmp_path: Path, proxy: str, expected: list[str]
) -> None:
    """Finding 8: each KINETOGRAPH_SECURE_* variable sets its Django setting."""
    done = settings_under(
        {
            "KINETOGRAPH_VAR_DIR": str(tmp_path),
            "KINETOGRAPH_SECURE_HSTS_SECONDS": "31536000",
            "KINETOGRAPH_SECURE_HSTS_INCLUDE_SUBDOMAINS": "yes",
            "KINETOGRAPH_SECURE_HSTS_PRELOAD": "on",
            "KINETOGRAPH_SECURE_SSL_REDIRECT": "1",
            "KINETOGRAPH_SECURE_COOKIES": "true",
            "KINETOGRAPH_SECURE_PROXY_SSL_HEADER": proxy,
            "KINETOGRAPH_REQUEST_MAX_BYTES": "4096",
            "KINETOGRAPH_JSON_MAX_DEPTH": "20",
        }
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["SECURE_HSTS_SECONDS"] == 31536000
    assert got["SECURE_HSTS_INCLUDE_SUBDOMAINS"] and got["SECURE_HSTS_PRELOAD"]
    assert got["SECURE_SSL_REDIRECT"] and got["SESSION_COOKIE_SECURE"]
    assert got["CSRF_COOKIE_SECURE"]
    assert got["SECURE_PROXY_SSL_HEADER"] == expected
    assert (got["REQUEST_MAX_BYTES"], got["JSON_MAX_DEPTH"]) == (4096, 20)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("KINETOGRAPH_SECURE_PROXY_SSL_HEADER", "X-Forwarded-Proto"),
        ("KINETOGRAPH_SECURE_PROXY_SSL_HEADER", "X_FORWARDED_PROTO,https"),
        ("KINETOGRAPH_SECURE_HSTS_SECONDS", "a year"),
        ("KINETOGRAPH_SECURE_COOKIES", "maybe"),
    ],
)
def test_a_malformed_https_setting_stops_the_start(tmp_path: Path, name: str, value: str) -> None:
    """Finding 8: a malformed value fails loudly, naming the variable."""
    done = settings_under({"KINETOGRAPH_VAR_DIR": str(tmp_path), name: value})
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr and name in done.stderr
