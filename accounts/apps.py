from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Signing in and out: `/api/auth/*`, the login pages, their shared throttle,
    and API tokens (accounts/tokens/)."""

    name = "accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self):
        from django.contrib import admin

        # Connects the sign-in receiver that puts the person's theme in the session.
        import accounts.preferences.theme  # noqa: F401
        from accounts.tokens.text import SHAPE
        from accounts.two_factor.views import admin_login
        from core.redact import register_shape

        # The admin signs in through /login/: one throttle, one code step.
        admin.site.login = admin_login
        # A Weir API token a flow echoes is redacted like a credential value.
        register_shape(SHAPE)
