"""A plugin kind's field as a serializer field, and `GET /api/credential-kinds`.

A field no built-in kind declares is checked by its widget: a number, a
choice, a list of strings, a JSON object, or text (a secret one write-only,
its whitespace kept).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.decorators import api_view
from rest_framework.response import Response

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


def kinds_answer() -> list[dict]:
    """Every registered kind, for the Credentials page's form."""
    return [kind.as_json() for kind in kinds.all_kinds()]


class KindFieldAnswer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    secret = serializers.BooleanField()
    required = serializers.BooleanField()
    widget = serializers.ChoiceField(choices=kinds.WIDGETS)
    choices = serializers.ListField(child=serializers.CharField(), required=False)
    placeholder = serializers.CharField(required=False)
    grant = serializers.CharField(required=False, help_text="oauth2 only.")


class KindAnswer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    docs = serializers.CharField()
    signs_http = serializers.BooleanField()
    builtin = serializers.BooleanField()
    fields = KindFieldAnswer(many=True)


@extend_schema(
    responses=KindAnswer(many=True),
    summary="The credential kinds: their fields and whether they sign HTTP.",
)
@api_view(["GET"])
def credential_kinds(request):
    """`[{name, label, docs, signs_http, builtin, fields: [{name, label,
    secret, required, widget, choices?, placeholder?, grant?}]}]`."""
    return Response(kinds_answer())
