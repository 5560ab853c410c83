"""`/api/apps`: the apps a flow may use and their operations (signed in, by
session or token), and adding one (admins only). docs/apps.md."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import rights
from core.http.errors import Conflict, NotFound, ValidationFailed
from core.http.parsers import JSONParser
from flows.app_actions import upload
from flows.app_actions.catalogue import all_apps, get_app, uploaded_app
from flows.app_actions.documents import DocumentProblem

APP = {
    "slug": serializers.CharField(),
    "name": serializers.CharField(),
    "description": serializers.CharField(),
    "icon": serializers.CharField(allow_null=True),
    "operations_count": serializers.IntegerField(),
    "auth": serializers.ListField(child=serializers.DictField()),
    "source": serializers.CharField(),
}
OPERATION = {
    "id": serializers.CharField(),
    "summary": serializers.CharField(),
    "method": serializers.CharField(),
    "path": serializers.CharField(),
    "parameters": serializers.ListField(child=serializers.DictField()),
    "request_body_schema": serializers.DictField(allow_null=True),
}
NEW_APP = inline_serializer(
    "NewApp",
    {
        "document": serializers.JSONField(required=False),
        "url": serializers.URLField(required=False),
        "slug": serializers.SlugField(required=False),
    },
)


class AppListView(APIView):
    parser_classes = [JSONParser, MultiPartParser]
    rights = {"get": rights.FLOWS_VIEW, "post": rights.FLOWS_EDIT}

    @extend_schema(
        operation_id="apps_list",
        responses={200: inline_serializer("App", APP, many=True)},
        tags=["apps"],
    )
    def get(self, request):
        """Every app: `[{slug, name, description, icon, operations_count, auth}]`."""
        return Response([app.summary() for app in all_apps()])

    @extend_schema(
        operation_id="apps_create",
        request=NEW_APP,
        responses={201: inline_serializer("NewAppAnswer", APP)},
        tags=["apps"],
    )
    def post(self, request):
        """Add an app (admins): a `document` file, or JSON with `document`
        (its text or object) or `url`, and an optional `slug`."""
        if not request.user.is_superuser:
            raise PermissionDenied("Only an admin can add apps.")
        body = request.data
        url = body.get("url") if hasattr(body, "get") else None
        try:
            if "document" in request.FILES:
                raw = request.FILES["document"].read(
                    upload.documents.MAX_DOCUMENT_BYTES + 1
                )
            elif url:
                raw = upload.fetched(url)
            elif hasattr(body, "get") and body.get("document"):
                raw = body["document"]
            else:
                raise ValidationFailed(
                    "Send the document as a file (document), as JSON "
                    '{"document": ...} or {"url": ...}.',
                    details={"document": ["This field is required."]},
                )
            row = upload.add_app(
                raw, slug=body.get("slug"), source_url=url or "", user=request.user
            )
        except DocumentProblem as problem:
            raise ValidationFailed(problem.message, code=problem.code) from None
        except upload.SlugTaken as error:
            raise Conflict(str(error)) from None
        return Response(uploaded_app(row).summary(), status=201)


class AppOperationsView(APIView):
    rights = {"get": rights.FLOWS_VIEW}

    @extend_schema(
        operation_id="apps_operations_list",
        responses={200: inline_serializer("AppOperation", OPERATION, many=True)},
        tags=["apps"],
    )
    def get(self, request, slug):
        """The app's operations: `[{id, summary, method, path, parameters,
        request_body_schema}]`."""
        app = get_app(slug)
        if app is None:
            raise NotFound(f"There is no app {slug[:60]!r}.")
        return Response([operation.as_json() for operation in app.operations.values()])
