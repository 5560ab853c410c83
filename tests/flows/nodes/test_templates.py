"""`{{ }}` templates: types, text, the fast path agreeing with JavaScript."""

from __future__ import annotations

import time

import pytest

import sandbox
from flows.nodes.errors import NodeError
from flows.nodes.templates import NOT_SIMPLE, lookup_path, render

VARIABLES = {
    "input": {
        "name": "Ada",
        "count": 7,
        "ratio": 1.5,
        "whole": 2.0,
        "ok": True,
        "none": None,
        "address": {"city": "Oslo"},
        "items": [{"id": 1}, {"id": 2}],
    },
    "prev": {"n": 1},
    "results": {"fetch": {"body": {"items": ["a", "b"]}}},
}


@pytest.mark.parametrize(
    "expression",
    [
        "input.name",
        "input.address.city",
        "input.items[1].id",
        "results.fetch.body.items[0]",
        "input.missing",
        "input.items[5]",
        "prev.n",
        "input.none",
    ],
)
def test_the_fast_path_agrees_with_javascript(expression):
    fast = lookup_path(expression, VARIABLES)
    [slow] = sandbox.evaluate([expression], VARIABLES)

    assert fast is not NOT_SIMPLE
    assert render("{{ " + expression + " }}", VARIABLES) == slow


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("input.items.length", 2),
        ("input.name.length", 3),
        ("input.constructor === Object", True),
        ("input.count * 6", 42),
        ("input.name.toUpperCase()", "ADA"),
    ],
)
def test_paths_javascript_answers_differently_go_to_the_sandbox(expression, expected):
    assert render("{{ " + expression + " }}", VARIABLES) == expected


def test_a_whole_template_keeps_the_json_type():
    values = {
        "n": "{{ input.count }}",
        "obj": "{{ input.address }}",
        "flag": "{{input.ok}}",
        "spaced": "  {{ input.count }}  ",
    }

    assert render(values, VARIABLES) == {
        "n": 7,
        "obj": {"city": "Oslo"},
        "flag": True,
        "spaced": 7,
    }


def test_embedded_templates_become_text_the_javascript_way():
    template = (
        "{{ input.name }}|{{ input.ratio }}|{{ input.whole }}|{{ input.ok }}|"
        "{{ input.none }}|{{ input.missing }}|{{ input.address }}|{{ input.count + 1 }}"
    )

    assert render(template, VARIABLES) == 'Ada|1.5|2|true|||{"city":"Oslo"}|8'


def test_two_templates_are_not_mistaken_for_one_whole_template():
    assert render("{{ input.count }} and {{ input.name }}", VARIABLES) == "7 and Ada"


def test_values_from_the_input_are_never_evaluated_again():
    variables = {
        "input": {"text": "{{ input.secret }}", "secret": "s3"},
        "prev": None,
        "results": {},
    }

    assert render("{{ input.text }}", variables) == "{{ input.secret }}"
    assert render("x {{ input.text }}", variables) == "x {{ input.secret }}"


def test_rendering_leaves_the_template_untouched():
    values = {"a": ["{{ input.count }}"]}

    render(values, VARIABLES)

    assert values == {"a": ["{{ input.count }}"]}


def test_an_empty_template_is_an_error():
    with pytest.raises(NodeError) as raised:
        render("{{ }}", VARIABLES)

    assert raised.value.code == "template_error"


def test_reading_through_undefined_is_a_template_error():
    with pytest.raises(NodeError) as raised:
        render("{{ input.missing.deeper }}", VARIABLES)

    assert raised.value.code == "template_error"
    assert "TypeError" in raised.value.message


def test_hostile_unclosed_braces_render_in_linear_time():
    text = "{{" * 200_000 + "x"

    started = time.perf_counter()
    assert render({"v": text}, VARIABLES) == {"v": text}
    assert time.perf_counter() - started < 1.0


def test_an_unclosed_template_is_left_as_text():
    assert render("a {{ input.count }} b {{ c", VARIABLES) == "a 7 b {{ c"
