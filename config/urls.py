"""Top-level routes: the API under /api/, pages, admin. Each app owns its routes."""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts import rights
from config import schema  # noqa: F401  (registers OpenAPI extensions)
from core.telemetry import health
from core.telemetry import views as telemetry_views
from webhooks import form_page
from webhooks import views as webhook_views


def favicon(request):
    """The icon's static URL, looked up per request (its hashed name exists
    only once collectstatic has run)."""
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


class SchemaView(SpectacularAPIView):
    rights = {"get": rights.PUBLIC}


class DocsView(SpectacularSwaggerSplitView):
    rights = {"get": rights.PUBLIC}


api_patterns = [
    path("", include("webhooks.urls")),
    path("", include("accounts.api_urls")),
    path("schema", SchemaView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file (?script), so
    # the docs page needs no inline script under the Content-Security-Policy.
    # A page for people: signed out, it sends them to sign in (not a JSON 401).
    path(
        "docs",
        login_required(DocsView.as_view(url_name="schema")),
        name="docs",
    ),
    path("", include("flows.api.urls")),
    path("", include("flows.git.urls")),
    path("", include("agents.api_urls")),
    path("", include("knowledge.api_urls")),
]

urlpatterns = [
    # First, and not under an include: the public webhook is the hot path, URLs
    # resolve in order, and each level of include made resolving its address
    # take three times as long (~25 µs of a webhook's CPU, bench/README.md,
    # "Round 9"). The rest of the path reaches the flow as `run.request.path`.
    path("api/webhooks/<str:flow_id>", webhook_views.receive, name="webhook"),
    path(
        "api/webhooks/<str:flow_id>/<path:path>",
        webhook_views.receive,
        name="webhook-path",
    ),
    path("api/", include(api_patterns)),
    # Tools that ask for /favicon.ico without reading the page's <link rel=icon>.
    path("favicon.ico", favicon),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", telemetry_views.metrics, name="metrics"),
    # A flow's public form page (webhooks/form_page.py, docs/forms.md).
    path("f/<slug:slug>", form_page.form_page, name="form-page"),
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
