from django.apps import AppConfig


class TwoFactorConfig(AppConfig):
    """TOTP two-factor sign-in for every account (docs/security.md)."""

    name = "accounts.two_factor"
    label = "two_factor"
    verbose_name = "Two-factor sign-in"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from accounts.two_factor.models import TwoFactor
        from core import crypto

        # Encrypted with CREDENTIALS_KEY: rotated by `rotate_credentials_key`.
        crypto.register_encrypted("two-factor secret", TwoFactor, "secret_encrypted")
