"""Settings for the test suite: :mod:`webapp.settings` with test-friendly environment defaults.

Anything set in the real environment wins (CI sets ``DATABASE_URL`` and
``REDIS_URL`` so that integration tests run against PostgreSQL and Redis).
"""

import importlib.util
import os
import tempfile

os.environ.setdefault("DJANGO_SECRET_KEY", "kinetograph-test-suite-only")
os.environ.setdefault("KINETOGRAPH_VAR_DIR", tempfile.mkdtemp(prefix="kinetograph-test-"))
os.environ.setdefault("KINETOGRAPH_THROTTLE_USER", "100000/min")
os.environ.setdefault("KINETOGRAPH_THROTTLE_ANON", "100000/min")
os.environ.setdefault("KINETOGRAPH_THROTTLE_UPLOADS", "100000/min")

from webapp.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast test users


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its parent package is not on sys.path
        return False


# A toy kind of run (tests/support/toykind: a new kind is an app of its own). Installed
# where the test helpers are importable (pytest puts tests/ on sys.path), not in
# manage.py, mypy or the integration tests' workers.
if _importable("support.toykind"):
    INSTALLED_APPS = [*INSTALLED_APPS, "support.toykind"]  # noqa: F405
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405 - whitenoise warns when it is missing

if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    # A file, not the shared-cache in-memory database: threads that share it (the live
    # server, an in-process worker in the browser tests) then wait for each other's
    # locks (the 20 s timeout) instead of failing with "database table is locked".
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}  # noqa: F405
