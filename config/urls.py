"""Top-level routes: the API under /api/, pages, admin. Each app owns its routes."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config import api_auth, schema  # noqa: F401  (registers OpenAPI extensions)
from config.pages import AdminSignInForm, SignInView, SignOutView

api_patterns = [
    path("auth/csrf", api_auth.csrf, name="auth-csrf"),
    path("auth/login", api_auth.login_view, name="auth-login"),
    path("auth/logout", api_auth.logout_view, name="auth-logout"),
    path("auth/session", api_auth.session_view, name="auth-session"),
    path("schema", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file (?script), so
    # the docs page needs no inline script under the Content-Security-Policy.
    path("docs", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="docs"),
    path("", include("flows.api_urls")),
    path("", include("agents.api_urls")),
    path("", include("webhooks.urls")),
]

# The admin signs in through the same throttle as the site and the API.
admin.site.login_form = AdminSignInForm

urlpatterns = [
    path("api/", include(api_patterns)),
    path("admin/", admin.site.urls),
    path("login/", SignInView.as_view(), name="login"),
    path("logout/", SignOutView.as_view(), name="logout"),
    path("", include("agents.urls")),
    path("", include("flows.urls")),
]

handler404 = "config.api_errors.not_found_handler"
handler500 = "config.api_errors.server_error_handler"
