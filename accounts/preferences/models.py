"""A person's settings for the pages: kept per user, so they follow the
person to another browser."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Preference(models.Model):
    """One row per user who changed a setting; no row means the defaults.

    The pages read the theme from the session (`preferences.theme`), filled
    from here at sign-in, so no page pays a query for it."""

    class Theme(models.TextChoices):
        SYSTEM = "system", "Like the system"
        LIGHT = "light", "Light"
        DARK = "dark", "Dark"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="preference",
    )
    theme = models.CharField(max_length=8, choices=Theme.choices, default=Theme.SYSTEM)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user}: {self.theme}"
