"""`/api/knowledge-bases`, their documents and search (docs/knowledge.md, "API")."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import transaction
from django.db.models import Count
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.settings import api_settings

from accounts import rights
from accounts.workspaces.access import person
from accounts.workspaces.fields import WorkspaceField
from accounts.workspaces.permissions import WorkspaceRole, require
from accounts.workspaces.personal import default_workspace
from core.http.errors import Conflict, PayloadTooLarge, ValidationFailed
from core.http.parsers import JSONParser
from knowledge import documents, embedders
from knowledge.models import Document, KnowledgeBase
from knowledge.search import MAX_RESULTS, as_data, search

DOCUMENT_ID = OpenApiParameter("document_id", OpenApiTypes.UUID, OpenApiParameter.PATH)


class KnowledgeBaseSerializer(serializers.ModelSerializer):
    # Any member's here: perform_create checks flows.edit once the body is valid.
    workspace = WorkspaceField()
    documents = serializers.SerializerMethodField()

    class Meta:
        model = KnowledgeBase
        fields = ["id", "name", "description", "embedder", "workspace", "documents"]
        read_only_fields = ["id", "documents"]
        # (workspace, name) is checked by `_check_name_free`: a 409, and the
        # workspace may be left out (the personal one).
        validators = []

    def get_documents(self, base) -> int:
        """How many documents it holds (the list's annotation, else one query)."""
        count = getattr(base, "document_count", None)
        return base.documents.count() if count is None else count

    def validate_embedder(self, value):
        try:
            provider, _ = embedders.parse(value)
        except ValueError as problem:
            raise serializers.ValidationError(str(problem)) from None
        kept = self.instance is not None and self.instance.embedder == value
        user = self.context["request"].user
        if provider in embedders.SERVER_KEY and not kept and not user.is_staff:
            raise serializers.ValidationError(
                f"{provider}: embeddings are paid with the server's key; only "
                "staff may use the server's key (hash and ollama: need none)."
            )
        return value


class DocumentSerializer(serializers.ModelSerializer):
    class Meta:
        model = Document
        fields = [
            "id",
            "name",
            "source",
            "url",
            "content_type",
            "size_bytes",
            "status",
            "chunks_done",
            "chunks_total",
            "error",
            "created_at",
            "indexed_at",
        ]
        read_only_fields = fields


class SearchSerializer(serializers.Serializer):
    query = serializers.CharField(max_length=2000)
    k = serializers.IntegerField(min_value=1, max_value=MAX_RESULTS, default=5)


class KnowledgeBaseViewSet(viewsets.ModelViewSet):
    """The knowledge bases of the caller's workspaces: members search them,
    editors add and remove documents; another workspace's do not exist (404)."""

    serializer_class = KnowledgeBaseSerializer
    permission_classes = [*api_settings.DEFAULT_PERMISSION_CLASSES, WorkspaceRole]
    parser_classes = [JSONParser, MultiPartParser]
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]
    rights = {
        "list": rights.FLOWS_VIEW,
        "retrieve": rights.FLOWS_VIEW,
        "search": rights.FLOWS_VIEW,
        "documents": rights.FLOWS_VIEW,
        "document": rights.FLOWS_VIEW,
        "create": rights.FLOWS_EDIT,
        "partial_update": rights.FLOWS_EDIT,
        "destroy": rights.FLOWS_EDIT,
        "add_document": rights.FLOWS_EDIT,
        "remove_document": rights.FLOWS_EDIT,
        "reindex": rights.FLOWS_EDIT,
    }

    def get_queryset(self):
        return KnowledgeBase.objects.for_user(self.request.user).annotate(
            document_count=Count("documents")
        )

    def perform_create(self, serializer):
        user = self.request.user
        workspace = serializer.validated_data.get("workspace") or default_workspace(
            user
        )
        require(user, workspace.pk, rights.FLOWS_EDIT)
        self._check_name_free(workspace, serializer.validated_data["name"])
        serializer.save(workspace=workspace, created_by=person(user))

    def perform_update(self, serializer):
        base = serializer.instance
        before = base.embedder
        name = serializer.validated_data.get("name", base.name)
        self._check_name_free(base.workspace, name, exclude=base.pk)
        with transaction.atomic():
            base = serializer.save()
            if base.embedder != before:
                documents.reindex_base(base)

    @staticmethod
    def _check_name_free(workspace, name, exclude=None):
        taken = KnowledgeBase.objects.filter(workspace=workspace, name=name)
        if taken.exclude(pk=exclude).exists():
            raise Conflict(
                f"This workspace already has a knowledge base named {name!r}."
            )

    @extend_schema(request=SearchSerializer, responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["post"])
    def search(self, request, pk=None):
        body = SearchSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        query = body.validated_data["query"]
        try:
            passages = search(self.get_object(), query, body.validated_data["k"])
        except embedders.EmbeddingFailed as error:
            raise ValidationFailed(str(error)) from None
        return Response(as_data(query, passages))

    @extend_schema(responses=DocumentSerializer(many=True))
    @action(detail=True, methods=["get"])
    def documents(self, request, pk=None):
        base = self.get_object()
        return Response(DocumentSerializer(base.documents.all(), many=True).data)

    @extend_schema(request=None, responses={202: DocumentSerializer})
    @documents.mapping.post
    def add_document(self, request, pk=None):
        """A file (multipart, field `file`) or a web page (JSON `{url}`)."""
        try:
            documents.refuse_large_body(request)
        except documents.DocumentRefused as refused:
            raise PayloadTooLarge(refused.message) from None
        base = self.get_object()
        upload = request.FILES.get("file")
        url = request.data.get("url") if hasattr(request.data, "get") else None
        try:
            if upload is not None:
                if upload.size > settings.KNOWLEDGE_MAX_DOCUMENT_BYTES:
                    raise documents.DocumentRefused(
                        "file", documents.too_large_message(), too_large=True
                    )
                document = documents.add_file(
                    base, upload.name, upload.read(), upload.content_type or ""
                )
            elif isinstance(url, str) and url:
                document = documents.add_url(base, url[:4000])
            else:
                raise documents.DocumentRefused(
                    "file", "Send a file (multipart field `file`) or a JSON `url`."
                )
        except documents.DocumentRefused as refused:
            if refused.too_large:
                raise PayloadTooLarge(refused.message) from None
            raise ValidationFailed(
                "The document was not added.",
                details={refused.field: [refused.message]},
            ) from None
        return Response(DocumentSerializer(document).data, status=202)

    @extend_schema(
        parameters=[DOCUMENT_ID],
        responses=DocumentSerializer,
        operation_id="knowledge_bases_document_retrieve",
    )
    @action(detail=True, methods=["get"], url_path=r"documents/(?P<document_id>[^/.]+)")
    def document(self, request, pk=None, document_id=None):
        return Response(DocumentSerializer(self._document(document_id)).data)

    @extend_schema(parameters=[DOCUMENT_ID], responses={204: None})
    @document.mapping.delete
    def remove_document(self, request, pk=None, document_id=None):
        documents.delete(self._document(document_id))
        return Response(status=204)

    @extend_schema(
        parameters=[DOCUMENT_ID], request=None, responses={202: DocumentSerializer}
    )
    @action(
        detail=True,
        methods=["post"],
        url_path=r"documents/(?P<document_id>[^/.]+)/reindex",
    )
    def reindex(self, request, pk=None, document_id=None):
        document = self._document(document_id)
        documents.reindex(document)
        document.refresh_from_db()
        return Response(DocumentSerializer(document).data, status=202)

    def _document(self, document_id) -> Document:
        """The base's document (the base checked first: another workspace's is 404)."""
        base = self.get_object()
        return get_object_or_404(base.documents.all(), pk=_uuid(document_id))


def _uuid(value):
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None
