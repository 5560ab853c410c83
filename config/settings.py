"""Weir's settings: one module, every value read from the environment or `.env`.

Each variable is listed with its default in `.env.example` and the README.
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(env.str("WEIR_ENV_FILE", default=str(BASE_DIR / ".env")))

DEBUG = env.bool("DEBUG", default=False)
# Under pytest the suite's own settings apply (fast hasher, default SECRET_KEY).
TESTING = env.bool("WEIR_TESTING", default="pytest" in sys.modules)

if DEBUG or TESTING:
    SECRET_KEY = env("SECRET_KEY", default="weir-insecure-development-key-change-me")
else:
    # Required outside DEBUG: a missing key fails loudly at start-up.
    SECRET_KEY = env("SECRET_KEY")

BASE_URL = env("BASE_URL", default="http://127.0.0.1:8000").rstrip("/")
_base = urlsplit(BASE_URL)
ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=[_base.hostname or "127.0.0.1", "localhost", "127.0.0.1"]
)
CSRF_TRUSTED_ORIGINS = env.list(
    "CSRF_TRUSTED_ORIGINS", default=[f"{_base.scheme}://{_base.netloc}"]
)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "config.accounts",
    "django_tasks",
    "django_tasks_db",
    "flows",
    "agents",
    "webhooks",
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
    "config.http.handlers.ApiErrorMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # `make run` has web, workers and the supervisor writing one SQLite file:
    # WAL lets readers go on while one writes, and a writer waits for the lock
    # (up to 20 s) instead of failing with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "init_command": "PRAGMA journal_mode=WAL;"}
    )

REDIS_URL = env("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
if TESTING:
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Failed sign-ins allowed per client address and username before 429.
LOGIN_FAILURE_RATE = env("LOGIN_FAILURE_RATE", default="5/300s")

LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not (DEBUG or TESTING)
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG or TESTING

# Sessions and cookies (DESIGN section 2).
_https = _base.scheme == "https"
SESSION_COOKIE_AGE = env.int("SESSION_COOKIE_AGE", default=60 * 60 * 24 * 14)
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=_https)
CSRF_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=False)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = SECURE_HSTS_SECONDS > 0
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if env.bool("BEHIND_TLS_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "config.accounts.authentication.SessionAuthentication401"
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.http.parsers.JSONParser"],
    # Escape non-ASCII in answers: a stored odd string can never break one.
    "UNICODE_JSON": False,
    "EXCEPTION_HANDLER": "config.http.handlers.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Weir API",
    "DESCRIPTION": "Flows, runs, webhooks and agents. See DESIGN.md for the contract.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # DESIGN.md section 2: every endpoint but the webhook needs a session.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Runs and their steps both have a `status`; name the two enums apart.
    "ENUM_NAME_OVERRIDES": {
        "RunStatusEnum": "flows.models.FlowRun.Status",
        "StepStatusEnum": "flows.models.RunStep.Status",
    },
}

# Flows, runs and the sandbox (DESIGN sections 6 and 8).
RUN_TIMEOUT_SECONDS = env.float("RUN_TIMEOUT_SECONDS", default=30)
# A running run's lease: renewed by its executor while it lives; once it has
# expired the supervisor resumes (background) or interrupts (synchronous) it.
RUN_LEASE_SECONDS = env.float("RUN_LEASE_SECONDS", default=10)
CODE_TIMEOUT_MS = env.int("CODE_TIMEOUT_MS", default=1000)
CODE_MEMORY_MB = env.int("CODE_MEMORY_MB", default=64)
SANDBOX_WORKERS = env.int("SANDBOX_WORKERS", default=2)
HTTP_NODE_ALLOWLIST = env.list("HTTP_NODE_ALLOWLIST", default=[])
# Size caps (bytes of JSON): one node's output, and the whole run's results.
RUN_MAX_OUTPUT_BYTES = env.int("RUN_MAX_OUTPUT_BYTES", default=1024 * 1024)
RUN_MAX_RESULT_BYTES = env.int("RUN_MAX_RESULT_BYTES", default=4 * 1024 * 1024)
# What an http_request node reads of a response body before failing.
HTTP_NODE_MAX_RESPONSE_BYTES = env.int(
    "HTTP_NODE_MAX_RESPONSE_BYTES", default=1024 * 1024
)
FLOW_MAX_NODES = 1000
FLOW_MAX_EDGES = 5000
FLOW_MAX_GRAPH_BYTES = 2 * 1024 * 1024
# Largest API request body (413 above it; the webhook has its own limit): a
# graph at its limit plus room for the flow's name, description and schema.
DATA_UPLOAD_MAX_MEMORY_SIZE = FLOW_MAX_GRAPH_BYTES + 512 * 1024

# Background runs (DESIGN section 9): Django's tasks framework (the
# `django-tasks` backport on Django 5.2). `database` keeps the queue in the
# project's database (django-tasks-db; no extra service); `rq` puts it on
# Redis (django-tasks-rq). Either way `manage.py work` runs a worker.
TASKS_BACKEND = env("TASKS_BACKEND", default="database")
TASKS_REDIS_URL = env("TASKS_REDIS_URL", default="redis://127.0.0.1:6379/0")
# How often an idle database worker looks for a queued task.
WORKER_POLL_SECONDS = env.float("WORKER_POLL_SECONDS", default=0.2)
if TASKS_BACKEND == "database":
    TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
elif TASKS_BACKEND == "rq":
    INSTALLED_APPS += ["django_rq", "django_tasks_rq"]
    RQ_QUEUES = {"default": {"URL": TASKS_REDIS_URL}}
    TASKS = {"default": {"BACKEND": "django_tasks_rq.RQBackend"}}
else:
    raise ImproperlyConfigured(
        f"TASKS_BACKEND is {TASKS_BACKEND!r}; it must be 'database' or 'rq'."
    )
# How often the supervisor (`manage.py supervise`) looks for stranded runs.
SUPERVISE_INTERVAL_SECONDS = env.float("SUPERVISE_INTERVAL_SECONDS", default=5)

# Webhooks (DESIGN section 7).
WEBHOOK_MAX_BODY_BYTES = env.int("WEBHOOK_MAX_BODY_BYTES", default=1024 * 1024)
WEBHOOK_RATE_LIMIT = env("WEBHOOK_RATE_LIMIT", default="600/min")

# Agents and LLM providers (DESIGN section 4).
OPENAI_API_KEY = env("OPENAI_API_KEY", default="")
OPENAI_BASE_URL = env("OPENAI_BASE_URL", default="")
ANTHROPIC_API_KEY = env("ANTHROPIC_API_KEY", default="")
ANTHROPIC_BASE_URL = env("ANTHROPIC_BASE_URL", default="")
OLLAMA_BASE_URL = env("OLLAMA_BASE_URL", default="http://127.0.0.1:11434")
AGENT_TIMEOUT_SECONDS = env.float("AGENT_TIMEOUT_SECONDS", default=60)
AGENT_MAX_TOOL_STEPS = env.int("AGENT_MAX_TOOL_STEPS", default=5)
# Retries the SDKs make on connection errors, 429 and 5xx before giving up.
AGENT_MAX_RETRIES = env.int("AGENT_MAX_RETRIES", default=1)
# `seed_demo` (make run) puts the demo agent on this model; empty keeps echo:demo.
DEMO_AGENT_MODEL = env("DEMO_AGENT_MODEL", default="")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
}
CSRF_FAILURE_VIEW = "config.http.handlers.csrf_failure"
