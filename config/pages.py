"""Sign-out page. Sign-in is Django's own LoginView with our template."""

from __future__ import annotations

from django.contrib.auth.views import LogoutView
from django.shortcuts import redirect, render


class SignOutView(LogoutView):
    """POST signs out (Django's view); GET asks first instead of answering 405.

    Signing out on a plain GET would let any page log a user out with an
    `<img src="/logout/">`, so GET only shows a confirmation with a POST form.
    """

    http_method_names = ["get", "post", "options"]

    def get(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect("login")
        return render(request, "registration/logout.html")
