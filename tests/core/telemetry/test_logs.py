"""Log lines: JSON with the context ids, human lines for DEBUG, secrets scrubbed."""

from __future__ import annotations

import json
import logging

from core.telemetry import context
from core.telemetry.logs import ContextFilter, HumanFormatter, scrub
from webhooks import signatures

logger = logging.getLogger("weir.test")


def lines_of(stream) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_a_json_line_has_the_time_level_logger_message_and_ids(json_logs):
    with context.bound(run_id="r1", flow_id="f1", node_id="n1"):
        logger.warning("Node %s is slow", "n1")

    (line,) = lines_of(json_logs)
    assert line["level"] == "WARNING"
    assert line["logger"] == "weir.test"
    assert line["message"] == "Node n1 is slow"
    assert (line["run_id"], line["flow_id"], line["node_id"]) == ("r1", "f1", "n1")
    assert line["time"].endswith("+00:00")


def test_a_json_line_outside_a_run_has_no_run_ids(json_logs):
    logger.warning("Idle")

    (line,) = lines_of(json_logs)
    assert "run_id" not in line and "node_id" not in line


def test_a_traceback_stays_inside_its_one_json_line(json_logs):
    try:
        raise ValueError("boom")
    except ValueError:
        logger.exception("It failed")

    (line,) = lines_of(json_logs)
    assert "ValueError: boom" in line["exception"]


def test_a_human_line_names_the_ids_after_the_message():
    record = logging.LogRecord("weir.test", logging.INFO, __file__, 1, "Hi", (), None)
    with context.bound(request_id="abc", run_id="r1"):
        ContextFilter().filter(record)

    line = HumanFormatter().format(record)

    assert line.endswith("INFO weir.test: Hi [request_id=abc run_id=r1]")


def test_a_logged_webhook_secret_and_signature_never_reach_the_log(
    api, alice_flow, json_logs
):
    secret = signatures.generate_secret()
    alice_flow.webhook_secret = secret
    alice_flow.save()
    body = b'{"name": "Ada"}'
    headers = signatures.signed_headers(secret, body)
    forged = {**headers, "webhook-signature": "v1," + "A" * 43 + "="}

    logger.warning("Delivery with headers %s for secret %s", headers, secret)
    logger.warning(
        "Raw header line webhook-signature: %s", headers["webhook-signature"]
    )
    response = api.post(
        alice_flow.webhook_path,
        body,
        content_type="application/json",
        headers=forged,
    )

    assert response.status_code == 401
    text = json_logs.getvalue()
    assert "Unauthorized" in text  # Django's own line about the 401 was written
    assert secret not in text
    assert secret.removeprefix("whsec_") not in text
    assert headers["webhook-signature"].removeprefix("v1,") not in text
    assert forged["webhook-signature"].removeprefix("v1,") not in text


def test_credentials_in_urls_headers_and_key_values_are_scrubbed():
    text = scrub(
        "postgres://weir:s3cr3t-pw@db:5432/weir Authorization: Bearer tok.en-123 "
        'api_key=sk-abcdefghijkl {"password": "hunter2"}'
    )

    for secret in ("s3cr3t-pw", "tok.en-123", "sk-abcdefghijkl", "hunter2"):
        assert secret not in text
    assert "postgres://weir:[redacted]@db:5432/weir" in text


def test_weir_api_tokens_are_scrubbed_wherever_they_stand():
    from accounts.tokens.text import PERSONAL, WORKSPACE, new_token

    personal, workspace = new_token(PERSONAL), new_token(WORKSPACE)
    text = scrub(f"KeyError: '{personal}' while reading ({workspace})")

    assert personal not in text and workspace not in text
    assert text == "KeyError: 'weir_[redacted]' while reading (weir_[redacted])"


def test_an_ordinary_message_is_left_alone():
    text = "Run 5f0c finished in 12.5 ms with 3 nodes (v1,2,3)"

    assert scrub(text) == text
