from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Signing in and out: `/api/auth/*`, the login pages, their shared throttle."""

    name = "config.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self):
        from django.contrib import admin

        from config.accounts.views import AdminSignInForm

        # The admin signs in through the same throttle as the site and the API.
        admin.site.login_form = AdminSignInForm
