"""The one check of a JSON body that must be an object or nothing."""

from __future__ import annotations

import pytest
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from core.http.body import object_body
from core.http.errors import ValidationFailed


def request_with(body: str | None) -> Request:
    factory = APIRequestFactory()
    if body is None:
        return Request(factory.post("/"), parsers=[JSONParser()])
    raw = factory.post("/", body, content_type="application/json")
    return Request(raw, parsers=[JSONParser()])


def test_an_empty_body_is_none():
    assert object_body(request_with(None)) is None


def test_an_object_is_returned_as_parsed():
    assert object_body(request_with('{"name": "Ada"}')) == {"name": "Ada"}


@pytest.mark.parametrize("body", ["[1, 2]", '"text"', "3", "null"])
def test_anything_but_an_object_is_a_validation_error(body):
    with pytest.raises(ValidationFailed, match="must be a JSON object"):
        object_body(request_with(body))


def test_the_callers_own_check_refuses_with_its_message():
    def no_names(body):
        if "name" in body:
            raise ValueError("Names are not stored here.")

    with pytest.raises(ValidationFailed, match="Names are not stored here."):
        object_body(request_with('{"name": "Ada"}'), check=no_names)
