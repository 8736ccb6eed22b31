"""Django settings, all from the environment (see ``docs/platform.md`` for the list).

Malformed values fail loudly at start-up (:mod:`webapp.env`). Defaults give the
embedded mode: SQLite and media under ``var/``, a filesystem Celery broker, no
Redis or PostgreSQL needed. ``DATABASE_URL`` switches to PostgreSQL,
``REDIS_URL`` to Redis, ``KINETOGRAPH_STORAGE=s3`` to S3-compatible storage.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from webapp import env

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env.string("KINETOGRAPH_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env.boolean("KINETOGRAPH_DEBUG", False)
SECRET_KEY = env.string("DJANGO_SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when KINETOGRAPH_DEBUG is off.")
    SECRET_KEY = "insecure-development-key-only-for-KINETOGRAPH_DEBUG"
ALLOWED_HOSTS = env.words("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env.words("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "webapp.core",
    "webapp.accounts",
    "webapp.projects",
    "webapp.clips",
    "webapp.runs",
    "webapp.transitions",
    "webapp.pfnn",
    "webapp.laban",
    "webapp.webhooks",
    "webapp.reviews",
    "webapp.api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "webapp.urls"
WSGI_APPLICATION = "webapp.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "webapp.reviews.context.notifications",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env.url(
            "DATABASE_URL",
            f"sqlite:///{VAR_DIR / 'kinetograph.sqlite3'}",
            schemes=("sqlite", "postgres", "postgresql", "pgsql"),
        ),
        conn_max_age=env.integer("DATABASE_CONN_MAX_AGE", 0, minimum=0),
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The web server and the worker share the file: wait for locks instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env.string("KINETOGRAPH_MEDIA_ROOT", str(VAR_DIR / "media")))

STORAGE_BACKEND = env.choice("KINETOGRAPH_STORAGE", "local", ("local", "s3"))
STORAGES: dict[str, dict[str, object]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
if DEBUG:
    STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
if STORAGE_BACKEND == "s3":
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": env.string("KINETOGRAPH_S3_BUCKET"),
            "endpoint_url": env.string("KINETOGRAPH_S3_ENDPOINT_URL") or None,
            "access_key": env.string("KINETOGRAPH_S3_ACCESS_KEY"),
            "secret_key": env.string("KINETOGRAPH_S3_SECRET_KEY"),
            "region_name": env.string("KINETOGRAPH_S3_REGION") or None,
            "file_overwrite": False,
        },
    }
    if not STORAGES["default"]["OPTIONS"]["bucket_name"]:  # type: ignore[index]
        raise ImproperlyConfigured("KINETOGRAPH_STORAGE=s3 needs KINETOGRAPH_S3_BUCKET.")

# --- uploads -----------------------------------------------------------------------------------

UPLOAD_MAX_BYTES = env.integer("KINETOGRAPH_UPLOAD_MAX_BYTES", 50 * 1024 * 1024, minimum=1)
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

# --- Celery ------------------------------------------------------------------------------------

REDIS_URL = env.string("REDIS_URL")
if REDIS_URL:
    env.url("REDIS_URL", REDIS_URL, schemes=("redis", "rediss"))
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "visibility_timeout": env.integer("KINETOGRAPH_VISIBILITY_TIMEOUT_S", 3600, minimum=10),
    }
else:
    BROKER_DIR = VAR_DIR / "broker"
    for _folder in (BROKER_DIR / "queue", BROKER_DIR / "processed", BROKER_DIR / "control"):
        _folder.mkdir(parents=True, exist_ok=True)  # the embedded transport needs them to exist
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env.integer("KINETOGRAPH_TASK_SOFT_TIME_LIMIT_S", 600, minimum=1)
CELERY_TASK_TIME_LIMIT = env.integer("KINETOGRAPH_TASK_TIME_LIMIT_S", 660, minimum=1)
CELERY_TASK_ALWAYS_EAGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Keep a running task alive when the broker connection drops (Redis restart); the run's
# own heartbeat and claim decide ownership (tests/webapp/integration).
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
RUN_MAX_RETRIES = env.integer("KINETOGRAPH_RUN_MAX_RETRIES", 3, minimum=0)
RUN_STALE_AFTER_S = env.integer("KINETOGRAPH_RUN_STALE_AFTER_S", 120, minimum=5)
WEBHOOK_MAX_ATTEMPTS = env.integer("KINETOGRAPH_WEBHOOK_MAX_ATTEMPTS", 5, minimum=1)
WEBHOOK_TIMEOUT_S = env.integer("KINETOGRAPH_WEBHOOK_TIMEOUT_S", 10, minimum=1)

# --- REST API ----------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 25,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "webapp.core.exceptions.api_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
        "rest_framework.throttling.ScopedRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env.string("KINETOGRAPH_THROTTLE_ANON", "60/min"),
        "user": env.string("KINETOGRAPH_THROTTLE_USER", "600/min"),
        "uploads": env.string("KINETOGRAPH_THROTTLE_UPLOADS", "120/min"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Kinetograph API",
    "DESCRIPTION": "Upload motion, run the pipeline, download results.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {  # choice sets that share a field name keep distinct, stable names
        "MethodEnum": "webapp.clips.analysis.MEASURES",
        "CutMethodEnum": "webapp.reviews.models.CutMethod",
        "ProposalStatusEnum": "webapp.reviews.models.Status",
    },
}

CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

EMAIL_BACKEND = env.string("DJANGO_EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env.string("DJANGO_DEFAULT_FROM_EMAIL", "Kinetograph <kinetograph@localhost>")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.string("KINETOGRAPH_LOG_LEVEL", "INFO")},
}
