"""/healthz and /readyz: no authentication, each check timed, 503 when one fails."""

from __future__ import annotations

import pytest
from django.db import connections
from django.db.utils import load_backend

from core.telemetry import health
from sandbox import health as sandbox_health


@pytest.fixture
def unreachable_database(closed_port, monkeypatch):
    """The check's `default` is a second connection whose server is down.

    The shared server and the suite's own connection are untouched.
    """
    settings_dict = dict(connections["default"].settings_dict)
    if settings_dict["ENGINE"].endswith("postgresql"):
        settings_dict.update(HOST="127.0.0.1", PORT=closed_port)
        settings_dict["OPTIONS"] = {**settings_dict["OPTIONS"], "connect_timeout": 2}
    else:  # SQLite: a file in a directory that does not exist
        settings_dict["NAME"] = "/nonexistent-weir-dir/db.sqlite3"
    wrapper = load_backend(settings_dict["ENGINE"]).DatabaseWrapper(
        settings_dict, alias="unreachable"
    )
    monkeypatch.setattr(health, "connections", {"default": wrapper})
    yield closed_port
    wrapper.close()


def test_liveness_answers_without_a_session(anon):
    response = anon.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readiness_is_200_with_each_check_timed_when_all_is_well(anon, settings):
    settings.REDIS_URL = ""

    response = anon.get("/readyz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "task_queue", "sandbox"}
    for result in body["checks"].values():
        assert result["status"] == "ok"
        assert isinstance(result["ms"], float) and result["ms"] >= 0


def test_readiness_checks_redis_when_it_is_configured(anon, settings):
    settings.REDIS_URL = "redis://127.0.0.1:6379/15"

    response = anon.get("/readyz")

    assert response.status_code == 200
    assert response.json()["checks"]["redis"]["status"] == "ok"


def test_readiness_is_503_when_redis_is_unreachable(anon, settings, closed_port):
    settings.REDIS_URL = f"redis://:hunter2@127.0.0.1:{closed_port}/0"

    response = anon.get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "fail"
    assert body["checks"]["redis"]["status"] == "fail"
    assert body["checks"]["redis"]["error"] == "ConnectionError"
    assert body["checks"]["database"]["status"] == "ok"
    assert str(closed_port) not in response.content.decode()
    assert "hunter2" not in response.content.decode()


@pytest.mark.django_db
def test_readiness_is_503_when_the_rq_task_queue_is_unreachable(
    anon, settings, closed_port
):
    settings.TASKS_BACKEND = "rq"
    settings.TASKS_REDIS_URL = f"redis://127.0.0.1:{closed_port}/0"

    response = anon.get("/readyz")

    assert response.status_code == 503
    assert response.json()["checks"]["task_queue"]["status"] == "fail"
    assert str(closed_port) not in response.content.decode()


def test_readiness_is_503_when_the_database_is_unreachable(
    anon, settings, unreachable_database
):
    settings.REDIS_URL = ""

    response = anon.get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["database"]["status"] == "fail"
    assert body["checks"]["database"]["error"] == "OperationalError"
    assert body["checks"]["sandbox"]["status"] == "ok"
    assert str(unreachable_database) not in response.content.decode()


def test_readiness_is_503_when_the_sandbox_cannot_answer(anon, settings, monkeypatch):
    settings.REDIS_URL = ""

    def broken(*args, **kwargs):
        raise OSError("cannot spawn")

    monkeypatch.setattr(sandbox_health, "evaluate", broken)

    response = anon.get("/readyz")

    assert response.status_code == 503
    assert response.json()["checks"]["sandbox"] == {
        "status": "fail",
        "error": "OSError",
        "ms": response.json()["checks"]["sandbox"]["ms"],
    }


def test_probes_refuse_other_methods(anon):
    assert anon.post("/healthz").status_code == 405
    assert anon.post("/readyz").status_code == 405


def test_a_check_an_app_registers_is_run_by_readiness(anon, settings, monkeypatch):
    settings.REDIS_URL = ""
    monkeypatch.setattr(health, "CHECKS", list(health.CHECKS))

    def full_disk():
        raise OSError("/var/lib/weir is full")

    health.register_check(health.Check("disk", full_disk))
    health.register_check(health.Check("disk", lambda: None))  # once per name

    response = anon.get("/readyz")

    assert response.status_code == 503
    assert response.json()["checks"]["disk"]["error"] == "OSError"
    assert "/var/lib/weir" not in response.content.decode()


def test_flows_registers_the_sandbox_check_after_the_shared_services():
    names = [check.name for check in health.CHECKS]

    assert names == ["database", "redis", "task_queue", "sandbox"]
