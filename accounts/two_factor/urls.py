"""The code step of signing in and the account's two-factor page."""

from django.urls import path

from accounts.two_factor import views

urlpatterns = [
    path("login/code/", views.code_page, name="login-code"),
    path("account/two-factor/", views.account_page, name="two-factor"),
]
