"""The deployment files agree with the code: docker-compose.yml, the Dockerfile and
docs/platform.md against the environment variables webapp/settings.py reads; the
production settings that docs/platform.md lists make ``manage.py check --deploy``
clean (issue 16, finding 8), and the compose file has no secret key to fall back on.

No Docker engine is needed (none runs where these tests run): the compose file is
read as YAML and its structure checked; building and starting it is left to a
machine with Docker.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
APP_SERVICES = ("migrate", "web", "worker")
READ_BY_OTHERS = {"WEB_CONCURRENCY"}  # gunicorn reads it itself


def settings_variables() -> set[str]:
    """Names of the environment variables webapp/settings.py reads through webapp.env."""
    text = (ROOT / "webapp" / "settings.py").read_text()
    return set(re.findall(r"env\.\w+\(\s*\"([A-Z0-9_]+)\"", text))


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def test_settings_variables_are_found() -> None:
    assert {"DJANGO_SECRET_KEY", "DATABASE_URL", "REDIS_URL"} <= settings_variables()


def test_every_settings_variable_is_documented() -> None:
    documented = (ROOT / "docs" / "platform.md").read_text()
    missing = sorted(name for name in settings_variables() if f"`{name}`" not in documented)
    assert missing == []


def test_the_stack_has_its_services(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {*APP_SERVICES, "redis", "postgres"}
    assert services["redis"]["image"] == "redis:7"
    assert services["postgres"]["image"] == "postgres:16"
    assert "postgres:/var/lib/postgresql/data" in services["postgres"]["volumes"]
    for name in ("web", "worker", "redis", "postgres"):
        assert services[name]["healthcheck"]["test"], name


def test_app_services_set_only_variables_the_code_reads(compose: dict[str, Any]) -> None:
    known = settings_variables() | READ_BY_OTHERS
    for name in APP_SERVICES:
        unknown = set(compose["services"][name]["environment"]) - known
        assert unknown == set(), name


def test_web_and_workers_share_the_media_volume(compose: dict[str, Any]) -> None:
    for name in APP_SERVICES:
        service = compose["services"][name]
        media_root = service["environment"]["KINETOGRAPH_MEDIA_ROOT"]
        assert f"media:{media_root}" in service["volumes"], name
        assert service["environment"]["DATABASE_URL"].split("@")[1].startswith("postgres:5432/")
        assert service["environment"]["REDIS_URL"].startswith("redis://redis:6379/")


def test_web_and_workers_wait_for_the_migration(compose: dict[str, Any]) -> None:
    for name in ("web", "worker"):
        depends = compose["services"][name]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully"
        assert depends["postgres"]["condition"] == "service_healthy"
        assert depends["redis"]["condition"] == "service_healthy"


def test_the_worker_pings_itself(compose: dict[str, Any]) -> None:
    worker = compose["services"]["worker"]
    assert "container_name" not in worker and "ports" not in worker  # --scale worker=N
    check = " ".join(worker["healthcheck"]["test"])
    # $$ so that compose leaves it to the container's shell
    assert "inspect ping" in check and "celery@$$HOSTNAME" in check


def test_the_image_runs_as_a_user_without_dev_extras() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim$", dockerfile, flags=re.MULTILINE)
    assert re.search(r"^USER (?!root\b)\w+$", dockerfile, flags=re.MULTILINE)
    assert "manage.py collectstatic" in dockerfile
    assert "pip install --no-deps ." in dockerfile
    assert "[dev]" not in dockerfile


def test_compose_refuses_to_start_without_a_secret_key(compose: dict[str, Any]) -> None:
    """Issue 16, finding 8: no public default key (``${NAME:?message}`` stops compose)."""
    for name in APP_SERVICES:
        value = compose["services"][name]["environment"]["DJANGO_SECRET_KEY"]
        assert re.fullmatch(r"\$\{DJANGO_SECRET_KEY:\?[^}]+\}", value), (name, value)
    assert "insecure" not in (ROOT / "docker-compose.yml").read_text()


def production_settings() -> dict[str, str]:
    """The ``NAME=value`` lines of the first code block under "Production settings
    checklist" in docs/platform.md (a ``<placeholder>`` becomes a fresh random value)."""
    text = (ROOT / "docs" / "platform.md").read_text()
    section = text.split("## Production settings checklist", 1)[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    pairs = dict(line.split("=", 1) for line in block.splitlines() if line.strip())
    return {k: secrets.token_urlsafe(50) if v.startswith("<") else v for k, v in pairs.items()}


def check_deploy(environment: dict[str, str], var_dir: Path) -> subprocess.CompletedProcess[str]:
    """``manage.py check --deploy --fail-level WARNING`` with the real settings module
    under ``environment`` only (none of this process's Django or Kinetograph variables)."""
    inherited = ("KINETOGRAPH_", "DJANGO_", "DATABASE_URL", "REDIS_URL")
    env = {k: v for k, v in os.environ.items() if not k.startswith(inherited)}
    env.update(DJANGO_SETTINGS_MODULE="webapp.settings", KINETOGRAPH_VAR_DIR=str(var_dir))
    env.update(environment)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_production_checklist_passes_the_deploy_check(tmp_path: Path) -> None:
    """Issue 16, finding 8: the documented production values leave no deploy warning."""
    environment = production_settings()
    assert {"KINETOGRAPH_SECURE_SSL_REDIRECT", "KINETOGRAPH_SECURE_COOKIES"} <= set(environment)
    done = check_deploy(environment, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_deploy_check_catches_the_defaults(tmp_path: Path) -> None:
    """Issue 16, finding 8: without the checklist it warns (the check above can fail)."""
    done = check_deploy({"DJANGO_SECRET_KEY": secrets.token_urlsafe(50)}, tmp_path)
    assert done.returncode != 0
    for warning in ("W004", "W008", "W012", "W016"):
        assert f"security.{warning}" in done.stdout + done.stderr, warning
