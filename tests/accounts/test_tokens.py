"""API tokens' text and model: format, checksum, digest only, last use."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.tokens import text
from accounts.tokens.models import ApiToken


def a_token(user, **fields):
    expires_at = fields.pop("expires_at", timezone.now() + timedelta(days=30))
    scopes = fields.pop("scopes", ["flows:read"])
    return ApiToken.issue(user, fields.pop("name", "CI"), scopes, expires_at)


def test_a_token_has_its_type_30_random_characters_and_a_checksum():
    value = text.new_token()

    assert value.startswith("weir_pat_")
    assert len(value) == len("weir_pat_") + 30 + 6
    assert text.digest_of(value) is not None


def test_two_tokens_differ():
    assert text.new_token() != text.new_token()


def test_a_changed_character_fails_the_checksum():
    value = text.new_token()
    other = "A" if value[12] != "A" else "B"

    assert text.digest_of(value[:12] + other + value[13:]) is None


@pytest.mark.parametrize(
    "value",
    [
        "",
        "weir_pat_",
        "ghp_" + "a" * 36,
        "weir_pat_" + "a" * 35,
        "weir_pat_" + "é" * 36,
    ],
)
def test_malformed_text_has_no_digest(value):
    assert text.digest_of(value) is None


def test_only_the_digest_and_a_short_prefix_are_stored(alice):
    token, value = a_token(alice)

    token.refresh_from_db()
    assert token.digest == text.digest_of(value)
    assert token.prefix == value[:13]
    assert value not in str(vars(token))


def test_no_token_text_is_in_a_dump_of_the_database(alice):
    _, value = a_token(alice)
    dump = io.StringIO()

    call_command("dumpdata", stdout=dump)

    secret = value[len(text.display_prefix(value)) :]
    windows = {secret[i : i + 8] for i in range(len(secret) - 7)}
    assert "weir_pat_" in dump.getvalue()  # the dump does hold the token's row
    assert not any(window in dump.getvalue() for window in windows)


def test_scopes_keep_only_known_ones_in_a_fixed_order(alice):
    token, _ = a_token(alice, scopes=["runs:read", "admin:all", "flows:read"])

    assert token.scopes == ["flows:read", "runs:read"]


def test_usable_leaves_out_expired_and_revoked_tokens(alice):
    live, _ = a_token(alice, name="live")
    a_token(alice, name="old", expires_at=timezone.now() - timedelta(seconds=1))
    revoked, _ = a_token(alice, name="revoked")
    revoked.revoke()

    assert list(ApiToken.objects.usable()) == [live]


def test_last_use_is_written_once_within_a_minute(alice, django_assert_num_queries):
    token, _ = a_token(alice)

    with django_assert_num_queries(1):
        token.touch("192.0.2.1")
        token.touch("192.0.2.2")

    token.refresh_from_db()
    assert token.last_used_ip == "192.0.2.1"


def test_another_process_holding_an_old_copy_does_not_write_again(alice):
    token, _ = a_token(alice)
    copy = ApiToken.objects.get(pk=token.pk)
    token.touch("192.0.2.1")

    copy.touch("192.0.2.2")

    token.refresh_from_db()
    assert token.last_used_ip == "192.0.2.1"


def test_a_token_reaches_its_makers_personal_workspace(alice):
    token, _ = a_token(alice)

    assert token.workspace == alice.personal_workspace
