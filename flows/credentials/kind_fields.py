"""A plugin kind's field as a serializer field.

A field no built-in kind declares is checked by its widget: a number, a
choice, a list of strings, a JSON object, or text (a secret one write-only,
its whitespace kept).
"""

from __future__ import annotations

from rest_framework import serializers

from flows.credentials import kinds

MAX_TEXT = 8 * 1024


def plugin_field(one: kinds.KindField) -> serializers.Field:
    """The serializer field for `one`; never required here (the serializer
    says what a kind requires, on create only)."""
    common = {"required": False, "write_only": one.secret, "help_text": one.label}
    if one.choices:
        return serializers.ChoiceField(choices=one.choices, **common)
    if one.widget == "number":
        return serializers.IntegerField(**common)
    if one.widget == "list":
        child = serializers.CharField(max_length=500)
        return serializers.ListField(child=child, max_length=100, **common)
    if one.widget == "json":
        child = serializers.CharField(trim_whitespace=False)
        return serializers.DictField(child=child, **common)
    return serializers.CharField(
        max_length=MAX_TEXT, trim_whitespace=not one.secret, **common
    )
