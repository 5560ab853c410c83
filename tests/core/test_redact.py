"""The redactor: values replaced by name, anywhere in a JSON value."""

from __future__ import annotations

import pytest

from accounts.tokens.text import PERSONAL, WORKSPACE, new_token
from core.redact import Redactor
from flows.engine import run_flow
from flows.models import FlowRun, RunStep
from tests.flows.graphs import chain_flow, code, trigger


def test_it_replaces_values_in_nested_strings_and_keys():
    redactor = Redactor()
    redactor.add("api", ["abcd1234"])

    value = {"x": ["Bearer abcd1234", {"abcd1234": 1}], "n": 5}

    assert redactor.redact(value) == {
        "x": ["Bearer [redacted:api]", {"[redacted:api]": 1}],
        "n": 5,
    }
    assert value["x"][0] == "Bearer abcd1234"  # the input is untouched


def test_the_longest_value_wins_over_a_part_of_it():
    redactor = Redactor()
    redactor.add("short", ["abcd"])
    redactor.add("long", ["abcdefgh"])

    assert redactor.text("abcdefgh abcd") == "[redacted:long] [redacted:short]"


def test_an_empty_redactor_returns_the_same_object():
    value = {"a": "b", "c": ["weir_pat_ alone is no token"]}

    assert Redactor().redact(value) is value
    assert not Redactor()


def test_values_with_regex_characters_are_matched_literally():
    redactor = Redactor()
    redactor.add("re", ["a.b*c+"])

    assert redactor.text("axbbc a.b*c+") == "axbbc [redacted:re]"


def test_200_credentials_of_8_kb_are_added_and_matched_in_well_under_a_second():
    import secrets
    import time

    values = [secrets.token_urlsafe(6200)[:8192] for _ in range(200)]
    text = ("x" * 1000 + values[7] + "y" * 1000) * 50  # 0.5 MB of output
    started = time.process_time()  # CPU: the shared machine's load does not count

    redactor = Redactor()
    for index, value in enumerate(values):  # one add per credential, as a run does
        redactor.add(f"c{index}", [value])
    redacted = redactor.text(text)

    assert time.process_time() - started < 1  # was minutes: a regex rebuilt per add
    assert values[7] not in redacted
    assert redacted.count("[redacted:c7]") == 50


def test_overlapping_values_are_replaced_leftmost_then_longest():
    redactor = Redactor()
    redactor.add("short", ["abc"])
    redactor.add("long", ["abcdef"])
    redactor.add("other", ["cde"])

    assert redactor.text("zabcdefg abcx cdez") == (
        "z[redacted:long]g [redacted:short]x [redacted:other]z"
    )


# Weir's own API token texts (accounts/tokens/text.py registers the
# shape): replaced whatever credentials a run opened.
PERSONAL_TOKEN = new_token(PERSONAL)
WORKSPACE_TOKEN = new_token(WORKSPACE)


def test_weir_api_tokens_are_redacted_without_any_credential():
    text = f"pat={PERSONAL_TOKEN}, wst={WORKSPACE_TOKEN}"

    assert Redactor().text(text) == "pat=[redacted], wst=[redacted]"


def test_a_word_that_only_starts_like_a_token_is_kept():
    assert Redactor().text("weir_pat_ is the prefix") == "weir_pat_ is the prefix"


@pytest.mark.django_db
def test_a_token_a_flow_echoes_shows_in_no_run_view(api, alice, alice_client):
    flow = chain_flow(
        trigger(),
        code(
            "echo",
            "console.log('got', input.token); throw new Error('bad ' + input.token);",
        ),
        created_by=alice,
    )
    echo = chain_flow(
        trigger(), code("echo", "return {again: input.token};"), created_by=alice
    )
    failed = run_flow(flow, {"token": PERSONAL_TOKEN}, FlowRun.Trigger.MANUAL)
    answered = run_flow(echo, {"token": PERSONAL_TOKEN}, FlowRun.Trigger.MANUAL)

    assert answered.results["echo"] == {"again": "[redacted]"}
    seen = [
        api.get(f"/api/runs/{failed.pk}").content.decode(),
        api.get(f"/api/runs/{answered.pk}").content.decode(),
        alice_client.get(f"/runs/{failed.pk}/").content.decode(),
        alice_client.get(f"/runs/{answered.pk}/").content.decode(),
        str(list(RunStep.objects.values_list("output", "error", "logs"))),
        str(list(FlowRun.objects.values_list("results", "error", "response"))),
    ]
    assert failed.status == FlowRun.Status.FAILED
    assert all(PERSONAL_TOKEN not in text for text in seen)
    assert all("[redacted]" in text for text in seen[:4])


def test_a_value_json_cannot_write_is_still_searched_for_tokens():
    value = {("a", 1): [f"key {PERSONAL_TOKEN}"]}

    assert Redactor().redact(value) == {("a", 1): ["key [redacted]"]}
