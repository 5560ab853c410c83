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
