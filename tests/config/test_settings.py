"""Production settings: `check --deploy` is clean and SECRET_KEY is required."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION_ENV = {
    "DEBUG": "false",
    "WEIR_TESTING": "false",
    "WEIR_ENV_FILE": "/dev/null",
    "SECRET_KEY": "x7!" + "q" * 60 + "Zr9$kLmN2@pW",
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


def test_check_deploy_is_clean_with_production_settings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_settings_mark_cookies_secure_for_https():
    result = manage(
        "shell",
        "-v",
        "0",
        "-c",
        "from django.conf import settings as s;"
        "print(s.SESSION_COOKIE_SECURE, s.SESSION_COOKIE_HTTPONLY,"
        " s.SESSION_COOKIE_SAMESITE, s.CSRF_COOKIE_SECURE)",
        env=PRODUCTION_ENV,
    )

    assert result.stdout.split() == ["True", "True", "Lax", "True"], result.stderr


def test_missing_secret_key_refuses_to_start_outside_debug():
    env = {key: value for key, value in PRODUCTION_ENV.items() if key != "SECRET_KEY"}

    result = manage("check", env=env)

    assert result.returncode != 0
    assert "Set the SECRET_KEY environment variable" in result.stderr


def test_debug_runs_without_a_secret_key():
    env = {key: value for key, value in PRODUCTION_ENV.items() if key != "SECRET_KEY"}

    result = manage("check", env={**env, "DEBUG": "true"})

    assert result.returncode == 0, result.stderr
