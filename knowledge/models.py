"""A workspace's knowledge bases, their documents and the passages they became."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import F

from accounts.workspaces.owned import WorkspaceOwned


class KnowledgeBase(WorkspaceOwned):
    """Documents searched together, with one embedder (all its vectors are
    comparable). `version` grows whenever its passages change, so a process's
    cached vector index knows it is stale (knowledge/search.py).

    Reached through `objects.for_user`: another workspace's base does not
    exist (404). Unlike a flow it goes with its workspace (CASCADE)."""

    workspace = models.ForeignKey(
        "accounts.Workspace", on_delete=models.CASCADE, related_name="knowledge_bases"
    )
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    # `hash` (offline), `openai:<model>` or `ollama:<model>` (knowledge/embedders.py).
    embedder = models.CharField(max_length=200, default="hash")
    version = models.PositiveBigIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="knowledge_bases",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "name"], name="knowledge_base_name_unique"
            )
        ]

    def __str__(self) -> str:
        return self.name

    def changed(self) -> None:
        """Note that its passages changed (one UPDATE)."""
        KnowledgeBase.objects.filter(pk=self.pk).update(version=F("version") + 1)


class Document(models.Model):
    """One uploaded file or fetched URL; its bytes are kept so it can be indexed
    again when it (or the base's embedder) changes."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        INDEXING = "indexing"
        READY = "ready"
        FAILED = "failed"

    class Source(models.TextChoices):
        FILE = "file"
        URL = "url"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="documents"
    )
    name = models.CharField(max_length=300)
    source = models.CharField(max_length=10, choices=Source.choices)
    url = models.URLField(max_length=4000, blank=True, default="")
    content_type = models.CharField(max_length=200, blank=True, default="")
    content = models.BinaryField(default=b"")
    size_bytes = models.PositiveBigIntegerField(default=0)
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED
    )
    chunks_total = models.PositiveIntegerField(default=0)
    chunks_done = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    indexed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "id"]

    def __str__(self) -> str:
        return self.name


class Chunk(models.Model):
    """One passage of a document and its vector (float32 bytes).

    An integer key, unlike the UUIDs elsewhere: vector indexes key their
    entries by unsigned 64-bit integers, and this one is that key."""

    id = models.BigAutoField(primary_key=True)
    base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="chunks"
    )
    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="chunks"
    )
    position = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    text = models.TextField()
    vector = models.BinaryField()

    class Meta:
        ordering = ["document_id", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "position"], name="knowledge_chunk_position_unique"
            )
        ]
        # Building a base's index reads all its chunks.
        indexes = [models.Index(fields=["base", "id"], name="knowledge_chunk_base")]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.position}"
