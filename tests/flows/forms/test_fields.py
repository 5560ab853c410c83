"""Form fields: definitions checked on save, values checked on submit."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import QueryDict
from django.utils.datastructures import MultiValueDict

from flows.forms.fields import Upload, clean, spec_problems

FIELDS = [
    {"name": "name", "kind": "text", "required": True},
    {"name": "email", "kind": "email"},
    {"name": "age", "kind": "number"},
    {"name": "team", "kind": "select", "options": ["red", "blue"]},
    {"name": "tags", "kind": "multi_select", "options": ["a", "b"]},
    {"name": "agree", "kind": "checkbox", "required": True},
    {"name": "day", "kind": "date"},
    {"name": "note", "kind": "long_text"},
    {"name": "cv", "kind": "file"},
]


def sent(text: str, files=None):
    return clean(FIELDS, QueryDict(text), MultiValueDict(files or {}))


def test_good_definitions_have_no_problems():
    assert spec_problems(FIELDS) == []


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ("nope", "must be a list"),
        ([{"name": "Bad Name", "kind": "text"}], "lower-case letters"),
        ([{"name": "website", "kind": "text"}], "not csrfmiddlewaretoken"),
        (
            [{"name": "a", "kind": "text"}, {"name": "a", "kind": "text"}],
            "already named a",
        ),
        ([{"name": "a", "kind": "colour"}], "kind must be one of"),
        ([{"name": "a", "kind": "select"}], "needs 1 to 100 options"),
        ([{"name": "a", "kind": "text", "required": "yes"}], "true or false"),
        ([{"name": "a", "kind": "text", "label": "x" * 201}], "at most 200"),
        ([{"name": f"f{i}", "kind": "text"} for i in range(51)], "at most 50"),
    ],
)
def test_bad_definitions_say_what_is_wrong(fields, says):
    assert says in " ".join(spec_problems(fields))


def test_valid_values_are_typed():
    upload = SimpleUploadedFile("cv.pdf", b"%PDF", content_type="application/pdf")
    values, errors = sent(
        "name=Ada&email=ada@example.com&age=36&team=red&tags=b&tags=a&agree=on"
        "&day=2026-12-31&note=hi",
        {"cv": [upload]},
    )
    assert errors == {}
    assert values["age"] == 36
    assert values["tags"] == ["a", "b"]
    assert values["agree"] is True
    assert values["day"] == "2026-12-31"
    assert values["cv"] == Upload("cv.pdf", "application/pdf", b"%PDF")


def test_empty_optional_fields_are_none_or_empty():
    values, errors = sent("name=Ada&agree=on")
    assert errors == {}
    assert values["email"] is None and values["tags"] == [] and values["cv"] is None


@pytest.mark.parametrize(
    ("text", "field", "says"),
    [
        ("agree=on", "name", "This field is required."),
        ("name=A", "agree", "Tick this box"),
        ("email=nope", "email", "e-mail address"),
        ("age=1e999", "age", "finite number"),
        ("age=ten", "age", "Enter a number"),
        ("team=green", "team", "Choose one of the options"),
        ("tags=z", "tags", "Choose from the options"),
        ("day=31/12/2026", "day", "date like 2026-12-31"),
        ("note=" + "x" * 10_001, "note", "At most 10000"),
        ("name=" + "x" * 1001, "name", "At most 1000"),
    ],
)
def test_each_bad_value_gets_its_own_error(text, field, says):
    _, errors = sent(text)
    assert says in errors[field]
