"""The accounts app's routes under /api/: `/api/auth/*`."""

from django.urls import path

from config.accounts import api

urlpatterns = [
    path("auth/csrf", api.csrf, name="auth-csrf"),
    path("auth/login", api.login_view, name="auth-login"),
    path("auth/logout", api.logout_view, name="auth-logout"),
    path("auth/session", api.session_view, name="auth-session"),
]
