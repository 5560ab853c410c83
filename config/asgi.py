"""ASGI entry point: `granian --interface asgi config.asgi:application`.

Django's WSGI app behind `config.asgi_bridge.BufferedWSGI`: the server and
the event loop read each request whole, and `WEB_THREADS` threads run Django
(docs/decisions.md, "The web server"). `python -m config.serve` starts granian
with this and the settings' sizes.
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from django.conf import settings  # noqa: E402

from config.asgi_bridge import BufferedWSGI  # noqa: E402
from config.wsgi import application as wsgi_application  # noqa: E402

# Past this the bridge answers 413 itself; each endpoint's own, smaller limit
# (webhooks, the API) answers in Django first.
MAX_BODY_BYTES = 2 * max(
    settings.WEBHOOK_MAX_BODY_BYTES, settings.DATA_UPLOAD_MAX_MEMORY_SIZE
)

application = BufferedWSGI(
    wsgi_application, threads=settings.WEB_THREADS, max_body_bytes=MAX_BODY_BYTES
)
