"""`/healthz` (liveness) and `/readyz` (readiness) for load balancers and probes.

A small view rather than django-health-check (docs/decisions.md, "Health
checks"): its checks and its output format do not match what this service
needs (the sandbox pool, one JSON shape, no error text), and its plug-in apps
would be more code than the checks themselves.

`/healthz` does no I/O: it answers while the process can answer. `/readyz`
runs every check in `CHECKS` and answers 503 when one fails. The checks of
shared services (database, Redis, task queue) are here; an app adds its own
from its `AppConfig.ready()` with `register_check()` (flows adds the sandbox),
so this module imports no app. Each check's time
is reported in milliseconds; a failure names only the exception's class, never
its message, which may hold host names, ports or connection strings.
No authentication: both are read by machines that hold no session.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import redis
from django.conf import settings
from django.db import connections
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

# How long a check may wait on its service before the process counts as unready.
CHECK_TIMEOUT_SECONDS = 2.0


def check_database() -> None:
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT 1")


@cache
def _redis_client(url: str) -> redis.Redis:
    return redis.Redis.from_url(
        url,
        socket_timeout=CHECK_TIMEOUT_SECONDS,
        socket_connect_timeout=CHECK_TIMEOUT_SECONDS,
    )


def check_redis() -> None:
    _redis_client(settings.REDIS_URL).ping()


def check_task_queue() -> None:
    """The background-run queue answers: its table (database engine) or its
    Redis (rq engine)."""
    if settings.TASKS_BACKEND == "rq":
        _redis_client(settings.TASKS_REDIS_URL).ping()
        return
    from django_tasks_db.models import DBTaskResult  # needs the app registry

    DBTaskResult.objects.exists()


@dataclass(frozen=True)
class Check:
    name: str
    run: Callable[[], None]
    # Whether the check applies with the current settings (Redis is optional).
    enabled: Callable[[], bool] = lambda: True


# One line per check; apps append theirs through register_check().
CHECKS = [
    Check("database", check_database),
    Check("redis", check_redis, enabled=lambda: bool(settings.REDIS_URL)),
    Check("task_queue", check_task_queue),
]


def register_check(check: Check) -> None:
    """Add an app's check to /readyz (from its AppConfig.ready(); once per name)."""
    if all(known.name != check.name for known in CHECKS):
        CHECKS.append(check)


def run_check(check: Check) -> dict:
    started = time.perf_counter()
    try:
        check.run()
        outcome = {"status": "ok"}
    except Exception as error:  # any failure means not ready, whatever its kind
        outcome = {"status": "fail", "error": type(error).__name__}
    outcome["ms"] = round((time.perf_counter() - started) * 1000, 2)
    return outcome


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    checks = {check.name: run_check(check) for check in CHECKS if check.enabled()}
    ready = all(result["status"] == "ok" for result in checks.values())
    return JsonResponse(
        {"status": "ok" if ready else "fail", "checks": checks},
        status=200 if ready else 503,
    )
