"""Settings for the test suite: :mod:`webapp.settings` with test-friendly environment defaults.

Anything set in the real environment wins (CI sets ``DATABASE_URL`` and
``REDIS_URL`` so that integration tests run against PostgreSQL and Redis).
"""

import os
import tempfile

os.environ.setdefault("DJANGO_SECRET_KEY", "kinetograph-test-suite-only")
os.environ.setdefault("KINETOGRAPH_VAR_DIR", tempfile.mkdtemp(prefix="kinetograph-test-"))
os.environ.setdefault("KINETOGRAPH_THROTTLE_USER", "100000/min")
os.environ.setdefault("KINETOGRAPH_THROTTLE_ANON", "100000/min")
os.environ.setdefault("KINETOGRAPH_THROTTLE_UPLOADS", "100000/min")

from webapp.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast test users
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405 - whitenoise warns when it is missing

if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    # A file, not the shared-cache in-memory database: threads that share it (the live
    # server, an in-process worker in the browser tests) then wait for each other's
    # locks (the 20 s timeout) instead of failing with "database table is locked".
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}  # noqa: F405
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"  # noqa: F405
