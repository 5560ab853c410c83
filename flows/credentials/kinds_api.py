"""`GET /api/credential-kinds`: every registered kind, for the Credentials
page's form and API clients (docs/credentials.md, "Kinds")."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import rights
from flows.credentials import kinds


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


class CredentialKindsView(APIView):
    """Whoever may see a workspace's credentials may see what kinds there are."""

    rights = {"get": rights.CREDENTIALS_VIEW}

    @extend_schema(
        operation_id="credential_kinds_list",
        responses=KindAnswer(many=True),
        summary="The credential kinds: their fields and whether they sign HTTP.",
    )
    def get(self, request):
        """`[{name, label, docs, signs_http, builtin, fields: [{name, label,
        secret, required, widget, choices?, placeholder?, grant?}]}]`."""
        return Response(kinds_answer())
