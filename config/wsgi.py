"""WSGI entry point for gunicorn: `gunicorn config.wsgi`."""

import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

from core.startup import freeze_what_was_loaded

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

# Import the URLconf, and with it every view, and the LLM and MCP SDKs (about
# 2 s of imports, more on a busy machine; core/startup.py) while the worker
# boots instead of inside the first request it serves: they stalled each new
# worker's first requests for seconds (bench/README.md, "Webhook").
get_resolver().url_patterns  # noqa: B018
if settings.PRELOAD_SDKS:
    import_module("agents.mcp_server")  # /api/mcp's protocol, else on first call
freeze_what_was_loaded()
