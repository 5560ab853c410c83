"""Top-level routes: the API under /api/, pages, admin. Each app owns its routes."""

from django.conf import settings
from django.contrib import admin
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path

from config import schema  # noqa: F401  (registers OpenAPI extensions)
from core.telemetry import health
from core.telemetry import views as telemetry_views


def favicon(request):
    """The icon's static URL, looked up per request (its hashed name exists
    only once collectstatic has run)."""
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


api_patterns = [
    path("", include("webhooks.urls")),
    path("", include("accounts.api_urls")),
    path("", include("flows.api.urls")),
    path("", include("flows.git.urls")),
    path("", include("agents.api_urls")),
    path("", include("knowledge.api_urls")),
]

urlpatterns = [
    # First: the public webhook is the hot path (webhooks/public_urls.py).
    path("", include("webhooks.public_urls")),
    path("api/", include(api_patterns)),
    # Tools that ask for /favicon.ico without reading the page's <link rel=icon>.
    path("favicon.ico", favicon),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", telemetry_views.metrics, name="metrics"),
    path(settings.ADMIN_URL, admin.site.urls),
    path("", include("accounts.urls")),
    path("", include("accounts.oidc.urls")),
    path("", include("accounts.two_factor.urls")),
    path("", include("agents.urls")),
    path("", include("agents.public.urls")),
    path("", include("knowledge.urls")),
    path("", include("flows.urls")),
    path("", include("flows.git.page_urls")),
]

handler404 = "core.http.handlers.not_found_handler"
handler500 = "core.http.handlers.server_error_handler"
