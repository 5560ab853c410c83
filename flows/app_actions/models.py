"""Apps that admins added by uploading an OpenAPI document or giving its URL.

Registered with Django through `flows.models`, which imports it.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class UploadedApp(models.Model):
    """An OpenAPI document an admin added; every workspace sees it as an app.

    Not a workspace's: an app is a description of a public API, and the
    credentials that call it stay each workspace's own. `document` is stored
    as checked (`flows.app_actions.documents.checked`, its `$ref`s resolved).
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    slug = models.SlugField(max_length=60, unique=True)
    document = models.JSONField()
    source_url = models.URLField(max_length=2000, blank=True)
    icon = models.URLField(max_length=2000, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="uploaded_apps",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self):
        return self.slug

    @property
    def name(self) -> str:
        return str((self.document.get("info") or {}).get("title") or self.slug)
