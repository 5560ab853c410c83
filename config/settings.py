"""Weir's settings: one module, every value read from the environment or `.env`.

Each variable is listed with its default in `.env.example` and the README.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured
from redis.backoff import NoBackoff
from redis.retry import Retry

from config import (
    admission_settings,
    api_settings,
    csp_settings,
    env_values,
    knowledge_settings,
    log_settings,
    oidc_settings,
    quota_settings,
    storage_settings,
    webhook_settings,
)

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(env.str("WEIR_ENV_FILE", default=str(BASE_DIR / ".env")))

DEBUG = env.bool("DEBUG", default=False)
# The suite's own settings (fast hasher, default SECRET_KEY), only when asked
# for: `make test` sets WEIR_TESTING=1, and tests/conftest.py refuses to run
# without it rather than guess from what is imported.
TESTING = env.bool("WEIR_TESTING", default=False)

if DEBUG or TESTING:
    SECRET_KEY = env("SECRET_KEY", default="weir-insecure-development-key-change-me")
else:
    # Required outside DEBUG: a missing key fails loudly at start-up.
    SECRET_KEY = env("SECRET_KEY")

# Credentials (docs/credentials.md): Fernet keys, comma-separated; the first
# encrypts, all decrypt. Required outside DEBUG, like SECRET_KEY; in DEBUG and
# tests a key derived from SECRET_KEY stands in.
if DEBUG or TESTING:
    CREDENTIALS_KEY = env(
        "CREDENTIALS_KEY", default=env_values.fernet_key_from(SECRET_KEY)
    )
else:
    CREDENTIALS_KEY = env("CREDENTIALS_KEY")

# The port `make run` serves on; unless BASE_URL is set, webhook URLs follow it.
PORT = env.int("PORT", default=8000)
BASE_URL = env("BASE_URL", default=f"http://127.0.0.1:{PORT}").rstrip("/")
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
    "csp",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "accounts.two_factor",
    "django_tasks",
    "django_tasks_db",
    "flows",
    "knowledge",
    "agents",
    "webhooks",
    "flows.plugins.apps.PluginsConfig",  # last: after every app's own node kinds
]

MIDDLEWARE = [
    "core.telemetry.middleware.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "core.http.csp.CachedCSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "core.http.body_charset.BodyCharsetMiddleware",  # before anything decodes a body
    "core.http.sessionless.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "core.http.sessionless.AuthenticationMiddleware",
    "core.http.sessionless.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.http.admin_gate.AdminGateMiddleware",
    "accounts.two_factor.middleware.RequireStaffTwoFactorMiddleware",
    "core.http.handlers.ApiErrorMiddleware",
    "core.telemetry.middleware.RequestMetricsMiddleware",
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
                # The header's workspace switcher and role badge.
                "accounts.workspaces.current.workspaces",
                "accounts.preferences.theme.theme",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# A database that stops answering must not hold request threads (the API answers
# 503 `unavailable`): DB_CONNECT_TIMEOUT_SECONDS to connect, DB_STATEMENT_TIMEOUT_MS.
DB_CONNECT_TIMEOUT_SECONDS = env.int("DB_CONNECT_TIMEOUT_SECONDS", default=5)
DB_STATEMENT_TIMEOUT_MS = env.int("DB_STATEMENT_TIMEOUT_MS", default=30_000)
# The run store's hot statements are prepared (flows/engine/sql.py, operations.md).
DB_PREPARED_STATEMENTS = env.bool("DB_PREPARED_STATEMENTS", default=True)
PRELOAD_SDKS = env.bool("PRELOAD_SDKS", default=True)  # core/startup.py
POSTGRES_OPTIONS = {
    "connect_timeout": DB_CONNECT_TIMEOUT_SECONDS,
    "options": f"-c statement_timeout={DB_STATEMENT_TIMEOUT_MS}",
    # Only statements asked to be are prepared: none reaches this count.
    "prepare_threshold": 2**31 - 1 if DB_PREPARED_STATEMENTS else None,
}
if DATABASES["default"]["ENGINE"].startswith("django.db.backends.postgresql"):
    DATABASES["default"]["ENGINE"] = "config.db.postgresql"  # its health check
    DATABASES["default"].setdefault("OPTIONS", {}).update(POSTGRES_OPTIONS)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Concurrent writers on the default setup (docs/operations.md): every
    # transaction takes the write lock when it begins (IMMEDIATE), so none fails
    # upgrading a read lock; WAL lets readers run beside the writer; a writer
    # waits up to SQLITE_BUSY_TIMEOUT_SECONDS for the lock instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": env.float("SQLITE_BUSY_TIMEOUT_SECONDS", default=20),
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

REDIS_URL = env("REDIS_URL", default="")
# Redis holds only rate-limit counters and the webhook replay window, and both
# fail open when it is away (docs/operations.md): so every call gives up after
# REDIS_TIMEOUT_MS, without retries, rather than holding a request thread.
REDIS_TIMEOUT_SECONDS = env.int("REDIS_TIMEOUT_MS", default=50) / 1000
REDIS_CACHE_OPTIONS = {
    "socket_connect_timeout": REDIS_TIMEOUT_SECONDS,
    "socket_timeout": REDIS_TIMEOUT_SECONDS,
    "retry": Retry(NoBackoff(), 0),
}
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
if REDIS_URL:
    CACHES["default"] = dict(
        BACKEND="django.core.cache.backends.redis.RedisCache",
        LOCATION=REDIS_URL,
        OPTIONS=REDIS_CACHE_OPTIONS,
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
if TESTING:
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The longest an API token may live, in days (its expiry is required).
API_TOKEN_MAX_DAYS = env.int("API_TOKEN_MAX_DAYS", default=366)

# Failed sign-ins allowed per client address and username before 429.
LOGIN_FAILURE_RATE = env("LOGIN_FAILURE_RATE", default="5/300s")
# Reverse proxies in front of the app that append to X-Forwarded-For; the client
# address for per-address limits is read through exactly this many (0: ignore
# the header, the peer's address is the client's).
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
RATE_LIMIT_IPV6_PREFIX = env.int("RATE_LIMIT_IPV6_PREFIX", default=64)  # /64 = 1 client

# The admin's path, and the networks it answers from (empty: everywhere).
ADMIN_URL = env("ADMIN_URL", default="admin/")
ADMIN_ALLOWED_NETWORKS = env.list("ADMIN_ALLOWED_NETWORKS", default=[])
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

# Two-factor sign-in (TOTP). Staff without it reach only its set-up page; on by
# default in production, off in DEBUG and tests (docs/security.md).
REQUIRE_2FA_FOR_STAFF = env.bool(
    "REQUIRE_2FA_FOR_STAFF", default=not (DEBUG or TESTING)
)
TWO_FACTOR_ISSUER = env("TWO_FACTOR_ISSUER", default="Weir")  # the app's label
TWO_FACTOR_PENDING_SECONDS = 300  # from the right password to the code

# Single sign-on with OpenID Connect (config/oidc_settings.py): OIDC_*.
globals().update(oidc_settings.read(env))
# False: only superusers sign in with a password (the break-glass account).
PASSWORD_SIGN_IN = env.bool("PASSWORD_SIGN_IN", default=True)
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "accounts.oidc.backend.OidcBackend",
]

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
# Content-Security-Policy: fixed, so kept apart (config/csp_settings.py).
CONTENT_SECURITY_POLICY = csp_settings.CONTENT_SECURITY_POLICY
if env.bool("BEHIND_TLS_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# What DRF and drf-spectacular are told: fixed, so kept apart (config/api_settings.py).
REST_FRAMEWORK = api_settings.REST_FRAMEWORK
SPECTACULAR_SETTINGS = api_settings.SPECTACULAR_SETTINGS

# Flows, runs and the sandbox (DESIGN sections 6 and 8).
RUN_TIMEOUT_SECONDS = env.float("RUN_TIMEOUT_SECONDS", default=30)
# A running run's lease: renewed by its executor while it lives; once it has
# expired the supervisor resumes (background) or interrupts (synchronous) it.
RUN_LEASE_SECONDS = env.float("RUN_LEASE_SECONDS", default=10)
CODE_TIMEOUT_MS = env.int("CODE_TIMEOUT_MS", default=1000)
SAVE_CHECK_SECONDS = env.float(
    "SAVE_CHECK_SECONDS", default=2
)  # compiling a save's code
CODE_MEMORY_MB = env.int("CODE_MEMORY_MB", default=64)
SANDBOX_WORKERS = env.int("SANDBOX_WORKERS", default=2)
HTTP_NODE_ALLOWLIST = env.list("HTTP_NODE_ALLOWLIST", default=[])
# Size caps (bytes of JSON): one node's output, and the whole run's results.
RUN_MAX_OUTPUT_BYTES = env.int("RUN_MAX_OUTPUT_BYTES", default=1024 * 1024)
RUN_MAX_RESULT_BYTES = env.int("RUN_MAX_RESULT_BYTES", default=4 * 1024 * 1024)
# Files in runs' data (docs/engine.md, "Files"): bytes on disk, or in an S3
# store once RUN_FILES_S3_BUCKET is set; limits per file and per run (413, or
# a node's `file_too_large`); a file no run claimed goes after an hour.
RUN_FILES_DIR = Path(env("RUN_FILES_DIR", default="") or BASE_DIR / "var" / "run_files")
STORAGES["run_files"] = storage_settings.run_files_storage(env, RUN_FILES_DIR)
RUN_FILE_MAX_BYTES = env.int("RUN_FILE_MAX_BYTES", default=25 * 1024 * 1024)
RUN_FILES_MAX_BYTES = env.int("RUN_FILES_MAX_BYTES", default=100 * 1024 * 1024)
RUN_FILES_UNCLAIMED_SECONDS = env.int("RUN_FILES_UNCLAIMED_SECONDS", default=3600)
# Console lines a run stores across all its steps (characters); past it, dropped.
RUN_MAX_LOG_CHARS = env.int("RUN_MAX_LOG_CHARS", default=1024 * 1024)
# What an http_request node reads of a response body before failing.
HTTP_NODE_MAX_RESPONSE_BYTES = env.int(
    "HTTP_NODE_MAX_RESPONSE_BYTES", default=1024 * 1024
)
FLOW_MAX_NODES = 1000
FLOW_MAX_EDGES = 5000
FLOW_MAX_GRAPH_BYTES = 2 * 1024 * 1024
# call_flow and for_each (docs/engine.md): how deep runs may call runs, and the
# most items one for_each may take.
FLOW_CALL_MAX_DEPTH = env.int("FLOW_CALL_MAX_DEPTH", default=5)
# Called runs (call_flow, for_each items) one root run may start, at every depth.
FLOW_CALL_MAX_CHILDREN = env.int("FLOW_CALL_MAX_CHILDREN", default=1000)
FOR_EACH_MAX_ITEMS = env.int("FOR_EACH_MAX_ITEMS", default=1000)
# Largest API request body (413 above it; the webhook has its own limit): a
# graph at its limit plus room for the flow's name, description and schema.
DATA_UPLOAD_MAX_MEMORY_SIZE = FLOW_MAX_GRAPH_BYTES + 512 * 1024

# Run history (docs/operations.md, "Retention"): the supervisor (every
# PRUNE_INTERVAL_SECONDS) and `manage.py prune_runs` delete finished, unpinned
# runs older than this many days, and past this many per flow. 0: no limit.
RUN_RETENTION_DAYS = env_values.count(env, "RUN_RETENTION_DAYS", 30)
RUN_RETENTION_MAX_PER_FLOW = env_values.count(env, "RUN_RETENTION_MAX_PER_FLOW", 10_000)
PRUNE_INTERVAL_SECONDS = env.float("PRUNE_INTERVAL_SECONDS", default=900)
# The audit log (docs/history.md): events older than this many days are
# deleted by the same supervisor pass. 0: kept forever.
AUDIT_RETENTION_DAYS = env_values.count(env, "AUDIT_RETENTION_DAYS", 365)
# The share of its time the prune may spend deleting; it sleeps the rest, so
# webhooks keep their latency while it runs (flows/engine/retention.py).
PRUNE_WORK_SHARE = env_values.share(env, "PRUNE_WORK_SHARE", 0.25)

# Background runs (DESIGN section 9): Django's tasks framework (the
# `django-tasks` backport on Django 5.2). `database` keeps the queue in the
# project's database (django-tasks-db; no extra service); `rq` puts it on
# Redis (django-tasks-rq). Either way `manage.py work` runs a worker.
TASKS_BACKEND = env("TASKS_BACKEND", default="database")
TASKS_REDIS_URL = env("TASKS_REDIS_URL", default="redis://127.0.0.1:6379/0")
# How often an idle database worker looks for a queued task without being told:
# on PostgreSQL NOTIFY wakes it at once (flows/engine/queue_listener.py) and this is
# the fallback; SQLite has no NOTIFY, so there it polls often (a small read).
WORKER_POLL_SECONDS = env.float(
    "WORKER_POLL_SECONDS",
    default=0.02 if DATABASES["default"]["ENGINE"].endswith("sqlite3") else 0.2,
)
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
# The supervisor looks for due schedule ticks this often (flows/schedules/scheduler.py).
SCHEDULE_INTERVAL_SECONDS = env.float("SCHEDULE_INTERVAL_SECONDS", default=1)
# A tick the scheduler sees later than this is "missed" (skipped, or run once).
SCHEDULE_GRACE_SECONDS = env.float("SCHEDULE_GRACE_SECONDS", default=60)
# What one workspace or account may hold (config/quota_settings.py).
globals().update(quota_settings.read(env))
# Tests only: a 6th (seconds) cron field, for per-second schedules.
SCHEDULE_ALLOW_SECONDS = env.bool("SCHEDULE_ALLOW_SECONDS", default=False)

# Webhooks (config/webhook_settings.py): WEBHOOK_*.
globals().update(webhook_settings.read(env))

# Admission (config/admission_settings.py), knowledge bases (knowledge_settings.py).
globals().update(admission_settings.read(env))
globals().update(knowledge_settings.read(env))

# Agents and LLM providers (DESIGN section 4).
OPENAI_API_KEY = env("OPENAI_API_KEY", default="")
OPENAI_BASE_URL = env("OPENAI_BASE_URL", default="")
ANTHROPIC_API_KEY = env("ANTHROPIC_API_KEY", default="")
ANTHROPIC_BASE_URL = env("ANTHROPIC_BASE_URL", default="")
OLLAMA_BASE_URL = env("OLLAMA_BASE_URL", default="http://127.0.0.1:11434")
# Ollama streams tool calls since 0.8; False sends requests with tools blocking.
OLLAMA_STREAM_TOOLS = env.bool("OLLAMA_STREAM_TOOLS", default=True)
# The echo model waits this long between words, so demos and benchmarks stream.
ECHO_WORD_DELAY_MS = env.int("ECHO_WORD_DELAY_MS", default=0)
# A streamed chat (Accept: text/event-stream) sends a comment this often when
# nothing else went out, so proxies keep the connection.
AGENT_STREAM_PING_SECONDS = env.float("AGENT_STREAM_PING_SECONDS", default=15)
AGENT_TIMEOUT_SECONDS = env.float("AGENT_TIMEOUT_SECONDS", default=60)
AGENT_MAX_TOOL_STEPS = env.int("AGENT_MAX_TOOL_STEPS", default=5)
# Retries the SDKs make on connection errors, 429 and 5xx before giving up.
AGENT_MAX_RETRIES = env.int("AGENT_MAX_RETRIES", default=1)
# Messages to agents (chat API and agent nodes alike) per user and per agent.
AGENT_USER_RATE = env("AGENT_USER_RATE", default="30/min")
AGENT_RATE = env("AGENT_RATE", default="120/min")
EMAIL_NODE_RATE = env("EMAIL_NODE_RATE", default="100/hour")  # per flow owner
# Credential tests (POST /api/credentials/:id/test) per user: each one reaches out.
CREDENTIAL_TEST_RATE = env("CREDENTIAL_TEST_RATE", default="30/min")
# `seed_demo` (make run) puts the demo agent on this model; empty keeps echo:demo.
DEMO_AGENT_MODEL = env("DEMO_AGENT_MODEL", default="")

# GET /metrics (docs/operations.md, "Metrics"): open to `Authorization: Bearer
# <METRICS_TOKEN>` or to a client address in METRICS_ALLOWED_IPS; 404 otherwise.
METRICS_TOKEN = env("METRICS_TOKEN", default="")
METRICS_ALLOWED_IPS = env_values.networks(env, "METRICS_ALLOWED_IPS")

# Logs: JSON lines in production, human lines with DEBUG (LOG_FORMAT); audit
# events and run outcomes also to syslog or HTTP when set (config/log_settings.py).
globals().update(log_settings.read(env, DEBUG))
CSRF_FAILURE_VIEW = "core.http.handlers.csrf_failure"
