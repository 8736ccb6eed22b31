"""Django settings, all from the environment (see ``docs/platform.md`` for the list).

Malformed values fail loudly at start-up (:mod:`webapp.env`). Defaults give the
embedded mode: SQLite and media under ``var/``, a filesystem Celery broker, no
Redis or PostgreSQL needed. ``DATABASE_URL`` switches to PostgreSQL,
``REDIS_URL`` to Redis, ``KINETOGRAPH_STORAGE=s3`` to S3-compatible storage.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONCE, NONE, SELF
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
    "axes",
    "drf_spectacular",
    "webapp.core",
    "webapp.accounts",
    "webapp.projects",
    "webapp.clips",
    "webapp.runs",
    "webapp.transitions",
    "webapp.sequences",
    "webapp.pfnn",
    "webapp.motornerve",
    "webapp.laban",
    "webapp.webhooks",
    "webapp.reviews",
    "webapp.characters",
    "webapp.api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "webapp.core.limits.RequestSizeLimitMiddleware",  # early: before anything reads a body
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a lockout into the 429 answer
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
    # The web server and the worker share the file: wait for locks instead of failing
    # (IMMEDIATE: a transaction takes the write lock when it begins, so it waits for it
    # instead of failing at once when a read turns into a write), and let readers go on
    # while one writes (WAL).
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_PASSWORD_VALIDATORS = [  # sign-up and password change (set_password is not checked)
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 10},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "webapp.accounts.validators.SiteWordsValidator"},
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

# --- log-in lockout (django-axes, webapp.accounts.lockout) --------------------------------------

# Failed log-ins (the log-in page, the admin's, POST /api/v1/auth/token/, the password
# change's old password) are counted in the database, shared by every process, per
# username *and* client address: an attacker cannot lock a user out from everywhere,
# and a locked-out pair gets 429 with Retry-After until the cool-off has passed.
AUTHENTICATION_BACKENDS = [
    "webapp.accounts.backends.LockoutBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT = env.integer("KINETOGRAPH_LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env.integer("KINETOGRAPH_LOGIN_COOLOFF_MIN", 15, minimum=1))
AXES_RESET_ON_SUCCESS = True  # a right password clears the pair's count
AXES_LOCKOUT_CALLABLE = "webapp.accounts.lockout.lockout_response"
AXES_CLIENT_IP_CALLABLE = "webapp.accounts.lockout.client_ip"
AXES_DISABLE_ACCESS_LOG = True  # no row per successful log-in (nothing would prune them)
TRUSTED_PROXIES = env.integer("KINETOGRAPH_TRUSTED_PROXIES", 0, minimum=0)
"""Reverse proxies in front of the app that append to X-Forwarded-For (0: REMOTE_ADDR)."""

# --- HTTPS, cookies, Content-Security-Policy ----------------------------------------------------
# All off by default (a laptop on http://127.0.0.1); docs/platform.md, "Production settings
# checklist", lists the values that make `manage.py check --deploy` clean (tests/test_deploy.py).


def _proxy_ssl_header(words: list[str]) -> tuple[str, str] | None:
    """``KINETOGRAPH_SECURE_PROXY_SSL_HEADER``: ``HTTP_X_FORWARDED_PROTO,https`` (the META
    name and the value meaning HTTPS), or true for exactly that; false or unset: none."""
    if len(words) < 2:  # a boolean (a lone word that is not one fails loudly)
        on = env.boolean("KINETOGRAPH_SECURE_PROXY_SSL_HEADER")
        return ("HTTP_X_FORWARDED_PROTO", "https") if on else None
    if len(words) != 2 or not words[0].startswith("HTTP_"):
        raise ImproperlyConfigured(
            f"KINETOGRAPH_SECURE_PROXY_SSL_HEADER={','.join(words)!r} must be true/false or "
            "'HTTP_<HEADER>,<value>' (e.g. HTTP_X_FORWARDED_PROTO,https)."
        )
    return (words[0], words[1])


SECURE_PROXY_SSL_HEADER = _proxy_ssl_header(env.words("KINETOGRAPH_SECURE_PROXY_SSL_HEADER"))
SECURE_SSL_REDIRECT = env.boolean("KINETOGRAPH_SECURE_SSL_REDIRECT", False)
SECURE_REDIRECT_EXEMPT = [r"^api/schema/$"]  # the compose healthcheck asks over plain HTTP
SECURE_HSTS_SECONDS = env.integer("KINETOGRAPH_SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.boolean("KINETOGRAPH_SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env.boolean("KINETOGRAPH_SECURE_HSTS_PRELOAD", False)
SESSION_COOKIE_SECURE = env.boolean("KINETOGRAPH_SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

# django-csp: scripts and styles from this site only; the one inline script (the three.js
# import map) carries the request's nonce. The players' data-driven styles are set from
# JS (element.style), which style-src 'self' allows.
CONTENT_SECURITY_POLICY = {
    "EXCLUDE_URL_PREFIXES": ["/api/docs/"],  # Swagger UI: a CDN's script and inline styles
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF],
        "img-src": [SELF, "data:", "blob:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "worker-src": [SELF, "blob:"],
        "object-src": [NONE],
        "base-uri": [NONE],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    },
}

# --- uploads -----------------------------------------------------------------------------------

UPLOAD_MAX_BYTES = env.integer("KINETOGRAPH_UPLOAD_MAX_BYTES", 50 * 1024 * 1024, minimum=1)
# Every other request body (webapp.core.limits: 413 before it is read; a view raises its
# own bound with @request_limit), and the JSON nesting the API parses (webapp.core.parsers).
REQUEST_MAX_BYTES = env.integer("KINETOGRAPH_REQUEST_MAX_BYTES", 1024 * 1024, minimum=1024)
JSON_MAX_DEPTH = env.integer("KINETOGRAPH_JSON_MAX_DEPTH", 64, minimum=2, maximum=500)
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_MAX_BYTES  # a form's fields, a body read whole
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

# --- work limits (docs/platform.md → Operations) ------------------------------------------------
# What one upload or run may ask for; checked while parsing, before allocating (a 413 naming
# the limit), and again when a run starts, so that no input outgrows the worker's budget.
MOTION_MAX_FRAMES = env.integer("KINETOGRAPH_MAX_FRAMES", 216_000, minimum=1)  # 30 min at 120 Hz
MOTION_MAX_DURATION_S = env.integer("KINETOGRAPH_MAX_DURATION_S", 3600, minimum=1)
MOTION_MAX_JOINTS = env.integer("KINETOGRAPH_MAX_JOINTS", 300, minimum=1, maximum=10_000)
MOTION_MAX_DEPTH = env.integer("KINETOGRAPH_MAX_DEPTH", 64, minimum=1, maximum=256)
MOTION_MAX_FRAME_JOINTS = env.integer("KINETOGRAPH_MAX_FRAME_JOINTS", 6_000_000, minimum=1)
SCORE_MAX_BYTES = env.integer("KINETOGRAPH_SCORE_MAX_BYTES", 2 * 1024 * 1024, minimum=1024)
SCORE_MAX_DURATION_S = env.integer("KINETOGRAPH_SCORE_MAX_DURATION_S", 1800, minimum=1)
GLB_MAX_SAMPLES = env.integer("KINETOGRAPH_GLB_MAX_SAMPLES", 2_000_000, minimum=1)
CHARACTER_MAX_BYTES = env.integer("KINETOGRAPH_CHARACTER_MAX_BYTES", 32 * 1024 * 1024, minimum=1024)
SCORE_PREVIEW_MAX_DURATION_S = env.integer(
    "KINETOGRAPH_SCORE_PREVIEW_MAX_DURATION_S", 180, minimum=1
)
# Past this many frames the analysis API serves the stored analysis instead of recomputing.
ANALYSIS_SYNC_MAX_FRAMES = env.integer("KINETOGRAPH_ANALYSIS_SYNC_MAX_FRAMES", 30_000, minimum=1)
# MotorNerve trainings on a project's clips (a worker's CPU): the default epochs and the
# windows each teacher-forced epoch draws (rolled-out epochs draw an eighth).
MOTORNERVE_TRAIN_EPOCHS = env.integer("KINETOGRAPH_MOTORNERVE_TRAIN_EPOCHS", 10, minimum=1)
MOTORNERVE_TRAIN_WINDOWS = env.integer("KINETOGRAPH_MOTORNERVE_TRAIN_WINDOWS", 2048, minimum=64)
RUN_MAX_ARTIFACT_BYTES = env.integer(
    "KINETOGRAPH_RUN_MAX_ARTIFACT_BYTES", 1024 * 1024 * 1024, minimum=1024 * 1024
)

# --- Celery ------------------------------------------------------------------------------------

REDIS_URL = env.string("REDIS_URL")
if REDIS_URL:
    env.url("REDIS_URL", REDIS_URL, schemes=("redis", "rediss"))
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT = "webapp.runs.broker:Transport"  # kombu's, one fault mended
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
# Hosts, IPs or networks webhooks may POST to although not public (webapp.webhooks.egress).
WEBHOOK_ALLOW_HOSTS = env.words("KINETOGRAPH_WEBHOOK_ALLOW_HOSTS")

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
    "DEFAULT_PARSER_CLASSES": [
        "webapp.core.parsers.JSONParser",  # DRF's, refusing JSON nested past JSON_MAX_DEPTH
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_THROTTLE_CLASSES": [  # DRF's, failing open while the cache is down
        "webapp.core.throttling.AnonRateThrottle",
        "webapp.core.throttling.UserRateThrottle",
        "webapp.core.throttling.ScopedRateThrottle",
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
        "CutMethodEnum": "webapp.reviews.models.CutMethod",
        "ProposalStatusEnum": "webapp.reviews.models.Status",
    },
}

CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # A Redis that drops packets must not hold requests: the throttles fail open.
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
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
