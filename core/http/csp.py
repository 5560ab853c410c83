"""The Content-Security-Policy header, built once instead of on every response.

django-csp's middleware rebuilds the policy string from the settings for every
response: 80 µs of CPU, a quarter of the bare Django view's whole cost
(bench/README.md, "Webhook hot path, round 2"). The policy only differs when a
view asks for another one (django-csp's decorators), a page uses a nonce, a
report-only policy or excluded prefixes are set, or DEBUG is on: those
responses take django-csp's own path. Every other response gets the header
built once for the policy setting.
"""

from __future__ import annotations

from csp.constants import HEADER
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings

# What django-csp's view decorators set on a response to change its policy.
PER_RESPONSE = (
    "_csp_exempt",
    "_csp_exempt_ro",
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
)


class CachedCSPMiddleware(CSPMiddleware):
    """django-csp's middleware, with an ordinary response's policy built once."""

    def __init__(self, get_response):
        super().__init__(get_response)
        self._policy_setting = None  # the setting the cached header was built from
        self._header = ""

    def process_response(self, request, response):
        policy = getattr(settings, "CONTENT_SECURITY_POLICY", None) or {}
        if (
            settings.DEBUG
            or getattr(request, "_csp_nonce", None) is not None
            or getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None)
            or policy.get("EXCLUDE_URL_PREFIXES")
            or any(hasattr(response, name) for name in PER_RESPONSE)
        ):
            return super().process_response(request, response)
        if policy is not self._policy_setting:
            self._header = build_policy()
            self._policy_setting = policy
        if self._header and HEADER not in response:
            response[HEADER] = self._header
        # As django-csp does: a nonce asked for after the header is written raises.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response
