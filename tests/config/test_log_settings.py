"""The log settings: LOG_FORMAT, and the log stream's handler on the audit and
run loggers only when a destination is set; a malformed one is refused."""

from __future__ import annotations

import environ
import pytest
from django.core.exceptions import ImproperlyConfigured

from config import log_settings


def read(monkeypatch, **values) -> dict:
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return log_settings.read(environ.Env(), debug=False)


def test_without_a_destination_nothing_is_shipped(monkeypatch):
    settings = read(monkeypatch)

    assert settings["LOG_FORMAT"] == "json"
    assert "log_stream" not in settings["LOGGING"]["handlers"]
    assert "weir.audit" not in settings["LOGGING"]["loggers"]


def test_a_destination_puts_the_handler_on_audit_and_run_lines(monkeypatch):
    settings = read(
        monkeypatch,
        LOG_STREAM_SYSLOG_URL="tcp://logs.example.com:601",
        LOG_STREAM_HTTP_URL="https://logs.example.com/ingest",
        LOG_STREAM_QUEUE="500",
    )

    handler = settings["LOGGING"]["handlers"]["log_stream"]
    assert handler["syslog_url"] == "tcp://logs.example.com:601"
    assert handler["http_url"] == "https://logs.example.com/ingest"
    assert handler["capacity"] == 500
    for name in ("weir.audit", "weir.runs"):
        assert settings["LOGGING"]["loggers"][name]["handlers"] == ["log_stream"]


@pytest.mark.parametrize(
    "name, value",
    [
        ("LOG_STREAM_SYSLOG_URL", "logs.example.com:514"),
        ("LOG_STREAM_HTTP_URL", "ftp://logs.example.com/"),
        ("LOG_STREAM_QUEUE", "0"),
        ("LOG_FORMAT", "xml"),
    ],
)
def test_a_malformed_value_is_refused_naming_it(monkeypatch, name, value):
    with pytest.raises(ImproperlyConfigured, match=name.split("_URL")[0]):
        read(monkeypatch, **{name: value})
