"""The `$file` marker in JSON: what is one, finding them, files to be made."""

from __future__ import annotations

import uuid

import pytest

from flows.files import FileRefused, files_in, is_file
from flows.files.markers import as_file_list, is_new_file, new_file_parts


def marker(name="a.txt"):
    return {"$file": {"id": str(uuid.uuid4()), "name": name, "type": "", "size": 1}}


@pytest.mark.parametrize(
    "value",
    [
        {"$file": {"id": "not-a-uuid"}},
        {"$file": {"name": "a"}},
        {"$file": "x"},
        {"$file": {"id": str(uuid.uuid4())}, "other": 1},
        [{"$file": {"id": str(uuid.uuid4())}}],
        "$file",
        None,
    ],
)
def test_only_an_object_with_one_file_member_and_a_uuid_is_a_file(value):
    assert not is_file(value)


def test_every_file_in_a_value_is_found_once_in_order():
    first, second = marker("first"), marker("second")
    value = {"a": first, "b": [second, {"again": first}], "c": "text"}

    assert files_in(value) == [first, second]


def test_a_list_of_files_or_one_file_is_a_list_and_nothing_else_is():
    one = marker()

    assert as_file_list(one, "attachments") == [one]
    assert as_file_list([one, one], "attachments") == [one, one]
    assert as_file_list("", "attachments") == []
    with pytest.raises(FileRefused) as refused:
        as_file_list(["report.csv"], "attachments")
    assert refused.value.message == "attachments must be a file or a list of files."


def test_a_file_to_make_has_text_or_base64_and_no_id():
    assert is_new_file({"$file": {"name": "a", "text": "hi"}})
    assert is_new_file({"$file": {"name": "a", "base64": "aGk="}})
    assert not is_new_file({"$file": {"name": "a"}})
    assert not is_new_file(marker())


def test_a_text_file_is_utf8_with_a_text_type_by_default():
    assert new_file_parts({"$file": {"name": "é.txt", "text": "é"}}) == (
        "é.txt",
        "text/plain; charset=utf-8",
        "é".encode(),
    )


@pytest.mark.parametrize(
    "spec",
    [
        {"name": 1, "text": "a"},
        {"name": "a", "type": 5, "text": "a"},
        {"name": "a", "text": 5},
        {"name": "a", "base64": 5},
        {"name": "a", "base64": "no!"},
    ],
)
def test_a_malformed_file_to_make_is_refused(spec):
    with pytest.raises(FileRefused) as refused:
        new_file_parts({"$file": spec})

    assert refused.value.code == "invalid_file"
