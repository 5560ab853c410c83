"""The colour theme: `POST /account/theme/` stores the choice on the user's
`Preference` and in the session; every page's `<html data-theme>` reads the
session (the context processor `theme`), filled again at each sign-in."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from accounts.preferences.models import Preference
from core.http.errors import error_body

SESSION_KEY = "theme"
THEMES = Preference.Theme.values


def theme(request: HttpRequest) -> dict:
    """Template context: `theme` is "system", "light" or "dark"."""
    session = getattr(request, "session", None)
    chosen = session.get(SESSION_KEY) if session is not None else None
    return {"theme": chosen if chosen in THEMES else Preference.Theme.SYSTEM}


@receiver(user_logged_in)
def remember_theme_at_sign_in(sender, request, user, **kwargs):
    """One query per sign-in, none per page."""
    if request is None or not hasattr(request, "session"):
        return
    stored = Preference.objects.filter(user=user).values_list("theme", flat=True)
    request.session[SESSION_KEY] = stored.first() or Preference.Theme.SYSTEM


@login_required
@require_POST
def set_theme(request: HttpRequest) -> HttpResponse:
    """A form post (the header's theme menu): back to `next`, or JSON for
    the script that changes the page in place. An unknown theme is a 400."""
    chosen = request.POST.get("theme", "")
    wants_json = "application/json" in request.headers.get("Accept", "")
    if chosen not in THEMES:
        message = f"Choose one of: {', '.join(THEMES)}."
        if wants_json:
            body = error_body("validation_error", message, {"theme": [message]})
            return JsonResponse(body, status=400)
        return HttpResponse(message, status=400, content_type="text/plain")
    Preference.objects.update_or_create(user=request.user, defaults={"theme": chosen})
    request.session[SESSION_KEY] = chosen
    if wants_json:
        return JsonResponse({"theme": chosen})
    target = request.POST.get("next", "")
    safe = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return redirect(target if safe else "/")
