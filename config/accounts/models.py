"""The accounts app's one model, API tokens (config/accounts/tokens/)."""

from config.accounts.tokens.models import ApiToken

__all__ = ["ApiToken"]
