"""A system check: a malformed CREDENTIALS_KEY stops `migrate` and `check`,
instead of failing the first run that opens a credential."""

from __future__ import annotations

from django.core.checks import Error, register
from django.core.exceptions import ImproperlyConfigured

from core import crypto


@register()
def credentials_key_is_usable(app_configs, **kwargs):
    try:
        crypto.fernet()
    except ImproperlyConfigured as error:
        return [Error(str(error), id="flows.E001")]
    return []
