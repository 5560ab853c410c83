"""The accounts app's routes under /api/: `/api/auth/*` and `/api/tokens`."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from config.accounts import api
from config.accounts.tokens.api import ApiTokenViewSet

router = SimpleRouter(trailing_slash=False)
router.register("tokens", ApiTokenViewSet, basename="token")

urlpatterns = [
    path("auth/csrf", api.csrf, name="auth-csrf"),
    path("auth/login", api.login_view, name="auth-login"),
    path("auth/logout", api.logout_view, name="auth-logout"),
    path("auth/session", api.session_view, name="auth-session"),
    *router.urls,
]
