"""Sign-in and sign-out pages; the throttle is shared with the API's login."""

from __future__ import annotations

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView, LogoutView
from django.shortcuts import redirect, render

from config.accounts import login_throttle, sign_in_events


class ThrottledLoginMixin:
    """Counts each sign-in attempt before the password is checked (see
    `config.accounts.login_throttle`); over the limit the form says so and
    checks nothing."""

    throttled = False

    def clean(self):
        username = self.cleaned_data.get("username")
        if not username or not self.cleaned_data.get("password"):
            return super().clean()
        try:
            attempt = login_throttle.start_attempt(self.request, username)
        except login_throttle.LoginThrottled as throttled:
            self.throttled = True
            minutes = max(1, round(throttled.wait / 60))
            raise forms.ValidationError(
                "Too many failed sign-in attempts. "
                f"Try again in about {minutes} minute{'s' if minutes > 1 else ''}.",
                code="throttled",
            ) from None
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            sign_in_events.sign_in_failed(self.request, username)
            raise
        login_throttle.attempt_succeeded(attempt)
        sign_in_events.signed_in(self.request, self.get_user())
        return cleaned


class SignInForm(ThrottledLoginMixin, AuthenticationForm):
    pass


class AdminSignInForm(ThrottledLoginMixin, AdminAuthenticationForm):
    pass


class SignInView(LoginView):
    """Django's login page with the shared throttle; 429 while it holds."""

    form_class = SignInForm
    redirect_authenticated_user = True

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.throttled:
            response.status_code = 429
        return response


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
