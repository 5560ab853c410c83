"""The redactor: values replaced by name, anywhere in a JSON value."""

from __future__ import annotations

from flows.credentials.redact import Redactor


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
    value = {"a": "b"}

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
