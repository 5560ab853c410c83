"""The sign-in and sign-out pages."""

from django.urls import path

from config.accounts.views import SignInView, SignOutView

urlpatterns = [
    path("login/", SignInView.as_view(), name="login"),
    path("logout/", SignOutView.as_view(), name="logout"),
]
