"""The Content-Security-Policy (django-csp) every page is sent with.

Scripts only from our own files, so a script that slips into a page (an inline
<script>, an onerror= attribute) does not run. Inline styles stay allowed: the
admin and the vendored graph editor set style attributes, and CSS cannot run
script. See docs/security.md. No environment variable changes it, so it is kept
out of config/settings.py, which imports it.
"""

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
