"""The `/api/auth/*` endpoints: CSRF token, sign in, sign out, session (docs/api.md)."""

from __future__ import annotations

from django.contrib.auth import authenticate, login, logout
from django.middleware.csrf import get_token
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from accounts import login_throttle, password_sign_in, rights, sign_in_events
from accounts.authentication import enforce_csrf
from accounts.rights import requires
from accounts.two_factor import service as two_factor
from accounts.two_factor import sign_in as second_step
from accounts.workspaces.access import memberships_of
from core.http.errors import ApiError, Throttled


class LoginSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)
    code = serializers.CharField(
        max_length=64,
        required=False,
        allow_blank=True,
        help_text="With two-factor on: a code from the app, or a recovery code.",
    )


def user_body(user) -> dict:
    return {"id": user.pk, "username": user.get_username()}


UserSerializer = inline_serializer(
    "User", {"id": serializers.IntegerField(), "username": serializers.CharField()}
)


@extend_schema(
    responses=inline_serializer("Csrf", {"csrfToken": serializers.CharField()})
)
@requires(get=rights.PUBLIC)
@api_view(["GET"])
@permission_classes([AllowAny])
@ensure_csrf_cookie
def csrf(request):
    """Sets the `csrftoken` cookie; send its value back as `X-CSRFToken`."""
    return Response({"csrfToken": get_token(request)})


@extend_schema(request=LoginSerializer, responses=UserSerializer)
@requires(post=rights.PUBLIC)
@api_view(["POST"])
@permission_classes([AllowAny])
def login_view(request):
    """Signs in with username and password; the session cookie carries the login."""
    enforce_csrf(request._request)
    serializer = LoginSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    username = serializer.validated_data["username"]
    try:
        attempt = login_throttle.start_attempt(request._request, username)
    except login_throttle.LoginThrottled as throttled:
        raise Throttled(throttled.wait, throttled.message) from None
    user = authenticate(
        request._request,
        username=username,
        password=serializer.validated_data["password"],
    )
    if user is None or not password_sign_in.allows(user):
        sign_in_events.sign_in_failed(request._request, username)
        raise ApiError(
            password_sign_in.wrong_password_message(), code="invalid_credentials"
        )
    login_throttle.attempt_succeeded(attempt)
    if two_factor.is_on(user):
        _check_code(request._request, user, serializer.validated_data.get("code"))
    login(request._request, user)
    sign_in_events.signed_in(request._request, user)
    return Response(user_body(user))


def _check_code(request, user, code: str | None) -> None:
    if not code:
        raise ApiError(
            "This account signs in with a code from its authenticator app "
            "(or a recovery code): send it as `code`.",
            code="two_factor_required",
        )
    try:
        second_step.check_code(request, user, code)
    except login_throttle.LoginThrottled as throttled:
        raise Throttled(throttled.wait, throttled.message) from None
    except second_step.WrongCode:
        raise ApiError(
            "That code is wrong or was used already.", code="invalid_code"
        ) from None


@extend_schema(
    request=None,
    responses=inline_serializer("Success", {"success": serializers.BooleanField()}),
)
@requires(post=rights.PUBLIC)
@api_view(["POST"])
@permission_classes([AllowAny])
def logout_view(request):
    """Ends the session. Safe to call when already signed out."""
    enforce_csrf(request._request)
    logout(request._request)
    return Response({"success": True})


SessionSerializer = inline_serializer(
    "Session",
    {
        "id": serializers.IntegerField(
            allow_null=True,
            help_text="The user's id; null for a workspace token, which is no user.",
        ),
        "username": serializers.CharField(),
        "workspaces": inline_serializer(
            "SessionWorkspace",
            {
                "id": serializers.UUIDField(),
                "name": serializers.CharField(),
                "slug": serializers.CharField(),
                "personal": serializers.BooleanField(),
                "role": serializers.CharField(),
            },
            many=True,
        ),
    },
)


@extend_schema(responses=SessionSerializer)
@requires(get=rights.PUBLIC)
@api_view(["GET"])
def session_view(request):
    """The signed-in user with their workspaces and role in each, or 401.
    One query for the memberships."""
    memberships = memberships_of(request.user).select_related("workspace")
    workspaces = [
        {
            "id": m.workspace_id,
            "name": m.workspace.name,
            "slug": m.workspace.slug,
            "personal": m.workspace.is_personal,
            "role": m.role,
        }
        for m in sorted(
            memberships, key=lambda m: (not m.workspace.is_personal, m.workspace.name)
        )
    ]
    return Response({**user_body(request.user), "workspaces": workspaces})
