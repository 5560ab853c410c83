"""The Standard Webhooks scheme itself: what `verify` accepts and refuses."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from webhooks.signatures import (
    SignatureError,
    generate_secret,
    sign,
    signed_headers,
    verify,
)

NOW = 1_800_000_000
BODY = b'{"name": "Ada"}'


@pytest.fixture
def secret():
    return generate_secret()


def test_signature_is_hmac_sha256_of_id_timestamp_and_body(secret):
    key = base64.b64decode(secret.removeprefix("whsec_"))
    digest = hmac.new(key, b"msg_1.1800000000." + BODY, hashlib.sha256).digest()

    assert sign(secret, "msg_1", NOW, BODY) == "v1," + base64.b64encode(digest).decode()


def test_matches_the_standard_webhooks_reference_example():
    """The example in the Standard Webhooks specification."""
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"test": 2432232314}'

    assert (
        sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)
        == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )


def test_a_correctly_signed_request_passes_and_names_its_id(secret):
    headers = signed_headers(secret, BODY, msg_id="msg_1", timestamp=NOW)

    assert verify(secret, headers, BODY, now=NOW) == "msg_1"


def test_one_good_signature_among_several_is_enough(secret):
    headers = signed_headers(secret, BODY, msg_id="msg_1", timestamp=NOW)
    old = sign(generate_secret(), "msg_1", NOW, BODY)
    headers["webhook-signature"] = f"{old} {headers['webhook-signature']}"

    assert verify(secret, headers, BODY, now=NOW) == "msg_1"


def test_a_tampered_body_is_refused(secret):
    headers = signed_headers(secret, BODY, timestamp=NOW)

    with pytest.raises(SignatureError, match="does not match"):
        verify(secret, headers, b'{"name": "Eve"}', now=NOW)


def test_a_signature_made_with_another_secret_is_refused(secret):
    headers = signed_headers(generate_secret(), BODY, timestamp=NOW)

    with pytest.raises(SignatureError, match="does not match"):
        verify(secret, headers, BODY, now=NOW)


def test_changing_the_id_breaks_the_signature(secret):
    headers = signed_headers(secret, BODY, msg_id="msg_1", timestamp=NOW)
    headers["webhook-id"] = "msg_2"

    with pytest.raises(SignatureError, match="does not match"):
        verify(secret, headers, BODY, now=NOW)


@pytest.mark.parametrize("offset", [-301, 301, -86400])
def test_a_timestamp_more_than_five_minutes_off_is_refused(secret, offset):
    headers = signed_headers(secret, BODY, timestamp=NOW + offset)

    with pytest.raises(SignatureError, match="5 minutes"):
        verify(secret, headers, BODY, now=NOW)


@pytest.mark.parametrize("offset", [-300, 300])
def test_a_timestamp_at_the_edge_of_the_window_passes(secret, offset):
    headers = signed_headers(secret, BODY, msg_id="m", timestamp=NOW + offset)

    assert verify(secret, headers, BODY, now=NOW) == "m"


@pytest.mark.parametrize(
    "missing", ["webhook-id", "webhook-timestamp", "webhook-signature"]
)
def test_each_header_is_required(secret, missing):
    headers = signed_headers(secret, BODY, timestamp=NOW)
    del headers[missing]

    with pytest.raises(SignatureError, match="requires a signature"):
        verify(secret, headers, BODY, now=NOW)


@pytest.mark.parametrize("signature", ["v1,", "v1,AAAA", "v2,xyz", "garbage", "v1"])
def test_malformed_signatures_are_refused(secret, signature):
    headers = signed_headers(secret, BODY, timestamp=NOW)
    headers["webhook-signature"] = signature

    with pytest.raises(SignatureError):
        verify(secret, headers, BODY, now=NOW)


@pytest.mark.parametrize("text", ["yesterday", "+1800000000", "1_800_000_000", ""])
def test_a_timestamp_that_is_not_plain_digits_is_refused(secret, text):
    headers = signed_headers(secret, BODY, timestamp=NOW)
    headers["webhook-timestamp"] = text
    headers["webhook-signature"] = sign(secret, headers["webhook-id"], text, BODY)

    with pytest.raises(SignatureError, match="Unix seconds|requires a signature"):
        verify(secret, headers, BODY, now=NOW)


def test_the_timestamp_is_signed_as_sent(secret):
    """A zero-padded timestamp signed as sent passes; signed as a number, it fails."""
    headers = signed_headers(secret, BODY, msg_id="m", timestamp=NOW)
    headers["webhook-timestamp"] = f"0{NOW}"
    headers["webhook-signature"] = sign(secret, "m", NOW, BODY)

    with pytest.raises(SignatureError, match="does not match"):
        verify(secret, headers, BODY, now=NOW)

    headers["webhook-signature"] = sign(secret, "m", f"0{NOW}", BODY)
    assert verify(secret, headers, BODY, now=NOW) == "m"


def test_an_overlong_id_is_refused(secret):
    headers = signed_headers(secret, BODY, msg_id="m" * 300, timestamp=NOW)

    with pytest.raises(SignatureError, match="longer than"):
        verify(secret, headers, BODY, now=NOW)


def test_generated_secrets_differ():
    assert generate_secret() != generate_secret()
