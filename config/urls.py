"""Top-level routes: the API under /api/, pages, admin. Each app owns its routes."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config import schema  # noqa: F401  (registers OpenAPI extensions)

api_patterns = [
    path("", include("config.accounts.api_urls")),
    path("schema", SpectacularAPIView.as_view(), name="schema"),
    path("docs", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("", include("flows.api_urls")),
    path("", include("agents.api_urls")),
    path("", include("webhooks.urls")),
]

urlpatterns = [
    path("api/", include(api_patterns)),
    path("admin/", admin.site.urls),
    path("", include("config.accounts.urls")),
    path("", include("agents.urls")),
    path("", include("flows.urls")),
]

handler404 = "config.http.handlers.not_found_handler"
handler500 = "config.http.handlers.server_error_handler"
