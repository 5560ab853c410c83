"""The two steps of a single sign-on (under /login/, which the staff
two-factor gate leaves open)."""

from django.urls import path

from accounts.oidc.views import CallbackView, StartView

urlpatterns = [
    path("login/oidc/", StartView.as_view(), name="oidc-start"),
    path("login/oidc/callback/", CallbackView.as_view(), name="oidc-callback"),
]
