"""Production settings: `check --deploy` is clean; SECRET_KEY and CREDENTIALS_KEY
are required."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes


ROOT = Path(__file__).resolve().parents[2]

PRODUCTION_ENV = {
    "DEBUG": "false",
    "WEIR_TESTING": "false",
    "WEIR_ENV_FILE": "/dev/null",
    "SECRET_KEY": "x7!" + "q" * 60 + "Zr9$kLmN2@pW",
    "CREDENTIALS_KEY": "pprJJ-F0rBC5dcPCxs_O6wFSRYvFdRED9N10OP4co3w=",
    "BASE_URL": "https://weir.example.com",
    "ALLOWED_HOSTS": "weir.example.com",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_HSTS_SECONDS": "31536000",
    "DATABASE_URL": "sqlite:////tmp/weir-deploy-check.sqlite3",
}


def manage(*args, env):
    """Runs manage.py in a clean process with only the given settings."""
    base = {
        key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def print_settings(expressions: str, env) -> subprocess.CompletedProcess:
    """`print(<expressions>)` with `s` the settings, in a clean process."""
    code = f"from django.conf import settings as s; print({expressions})"
    return manage("shell", "-v", "0", "-c", code, env=env)


def test_check_deploy_is_clean_with_production_settings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_settings_mark_cookies_secure_for_https():
    result = print_settings(
        "s.SESSION_COOKIE_SECURE, s.SESSION_COOKIE_HTTPONLY,"
        " s.SESSION_COOKIE_SAMESITE, s.CSRF_COOKIE_SECURE",
        env=PRODUCTION_ENV,
    )

    assert result.stdout.split() == ["True", "True", "Lax", "True"], result.stderr


def test_production_settings_require_two_factor_for_staff_debug_does_not():
    production = print_settings("s.REQUIRE_2FA_FOR_STAFF", env=PRODUCTION_ENV)
    debug = print_settings(
        "s.REQUIRE_2FA_FOR_STAFF", env={**PRODUCTION_ENV, "DEBUG": "true"}
    )

    assert production.stdout.split() == ["True"], production.stderr
    assert debug.stdout.split() == ["False"], debug.stderr


def test_missing_secret_key_refuses_to_start_outside_debug():
    env = {key: value for key, value in PRODUCTION_ENV.items() if key != "SECRET_KEY"}

    result = manage("check", env=env)

    assert result.returncode != 0
    assert "Set the SECRET_KEY environment variable" in result.stderr


def test_missing_credentials_key_refuses_to_start_outside_debug():
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != "CREDENTIALS_KEY"}

    result = manage("check", env=env)

    assert result.returncode != 0
    assert "Set the CREDENTIALS_KEY environment variable" in result.stderr


def test_a_malformed_credentials_key_fails_the_checks():
    result = manage("check", env={**PRODUCTION_ENV, "CREDENTIALS_KEY": "short"})

    assert result.returncode != 0
    assert "flows.E001" in result.stderr
    assert "CREDENTIALS_KEY must be Fernet keys" in result.stderr


def test_debug_runs_without_a_secret_key():
    env = {key: value for key, value in PRODUCTION_ENV.items() if key != "SECRET_KEY"}

    result = manage("check", env={**env, "DEBUG": "true"})

    assert result.returncode == 0, result.stderr


def admission_caps(**env) -> str:
    result = print_settings(
        "s.SYNC_RUNS_PER_PROCESS, s.SYNC_RUNS_PER_OWNER, s.SYNC_RUNS_PER_FLOW",
        env={"WEIR_TESTING": "true", "WEIR_ENV_FILE": "/dev/null", **env},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_admission_caps_follow_the_thread_count_when_left_empty():
    empty = {"SYNC_RUNS_PER_PROCESS": "", "SYNC_RUNS_PER_OWNER": ""}

    assert admission_caps(WEB_THREADS="8", **empty) == "6 5 4"
    assert admission_caps(WEB_THREADS="2") == "1 1 1"
    assert admission_caps(WEB_THREADS="8", SYNC_RUNS_PER_FLOW="2") == "6 5 2"


@pytest.mark.parametrize(
    ("name", "value"),
    [("RUN_RETENTION_DAYS", "thirty"), ("RUN_RETENTION_MAX_PER_FLOW", "-5")],
)
def test_a_malformed_retention_setting_stops_start_up_with_a_clear_message(name, value):
    result = manage("check", env={**PRODUCTION_ENV, name: value})

    assert result.returncode != 0
    assert f"{name} must be a whole number of 0 or more" in result.stderr
    assert repr(value) in result.stderr


@pytest.mark.parametrize("value", ["0", "1.5", "half"])
def test_a_prune_work_share_outside_0_to_1_stops_start_up(value):
    result = manage("check", env={**PRODUCTION_ENV, "PRUNE_WORK_SHARE": value})

    assert result.returncode != 0
    assert "PRUNE_WORK_SHARE must be a number above 0 and at most 1" in result.stderr


def test_an_unknown_log_format_stops_start_up():
    result = manage("check", env={**PRODUCTION_ENV, "LOG_FORMAT": "xml"})

    assert result.returncode != 0
    assert "LOG_FORMAT must be json or human, not 'xml'" in result.stderr


def print_base_url(env):
    result = print_settings(
        "s.BASE_URL, s.CSRF_TRUSTED_ORIGINS",
        env={"WEIR_ENV_FILE": "/dev/null", "DEBUG": "true", **env},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_webhook_urls_follow_the_port_served_unless_base_url_is_set():
    assert print_base_url({"PORT": "8123"}) == [
        "http://127.0.0.1:8123",
        "['http://127.0.0.1:8123']",
    ]
    assert print_base_url({"PORT": "8123", "BASE_URL": "https://weir.example.com"})[
        0
    ] == ("https://weir.example.com")


def test_make_run_hands_its_port_to_the_settings():
    result = subprocess.run(
        ["make", "-n", "run", "PORT=8123"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )

    commands = result.stdout.splitlines()
    assert any(
        line.startswith("PORT=8123 ") and "seed_demo" in line for line in commands
    )
    assert any("WEB_PORT=8123 " in line and "honcho start" in line for line in commands)


def test_workers_poll_briefly_on_sqlite_and_rely_on_notify_on_postgresql():
    postgres = {**PRODUCTION_ENV, "DATABASE_URL": "postgres://weir@db.invalid/weir"}

    on_sqlite = print_settings("s.WORKER_POLL_SECONDS", env=PRODUCTION_ENV)
    on_postgres = print_settings("s.WORKER_POLL_SECONDS", env=postgres)

    assert on_sqlite.stdout.split() == ["0.02"], on_sqlite.stderr
    assert on_postgres.stdout.split() == ["0.2"], on_postgres.stderr
