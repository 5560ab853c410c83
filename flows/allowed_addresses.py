"""`AllowedAddress`: a private host, address or network the HTTP request,
send_email and postgres_query nodes may reach, kept by an admin in the
database and merged with `HTTP_NODE_ALLOWLIST` by the outbound wall
(core/net/allowlist.py): a change needs no restart."""

from __future__ import annotations

import ipaddress
import re

from django.core.exceptions import ValidationError
from django.db import models

from core.net import allowlist

HOST_NAME = re.compile(
    r"^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$"
)


def validate_entry(value: str) -> None:
    entry = value.strip().lower()
    try:
        ipaddress.ip_network(entry, strict=False)
        return
    except ValueError:
        pass
    if not HOST_NAME.match(entry):
        raise ValidationError(
            "Give a host name (db.internal), an address (10.0.0.5) or a network "
            "(10.0.0.0/8)."
        )


class AllowedAddress(models.Model):
    """One allowlist entry an admin added: the outbound wall lets nodes reach
    it although it is private or loopback (within seconds, in every process)."""

    entry = models.CharField(
        max_length=255,
        unique=True,
        validators=[validate_entry],
        help_text="A host name, an address or a network (CIDR), e.g. 10.0.0.0/8.",
    )
    note = models.CharField(max_length=200, blank=True, help_text="What it is for.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "flows"
        ordering = ["entry"]
        verbose_name = "private address allowed"
        verbose_name_plural = "private addresses allowed"

    def __str__(self):
        return self.entry

    def save(self, *args, **kwargs):
        self.entry = self.entry.strip().lower()
        super().save(*args, **kwargs)
        allowlist.forget()

    def delete(self, *args, **kwargs):
        result = super().delete(*args, **kwargs)
        allowlist.forget()
        return result


def stored_entries() -> list[str]:
    """The entries for the outbound wall (one query)."""
    return list(AllowedAddress.objects.values_list("entry", flat=True))
