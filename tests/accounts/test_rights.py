"""The route census: every action and method under /api declares a right."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver, include, path
from rest_framework import viewsets
from rest_framework.routers import SimpleRouter
from rest_framework.views import APIView

from accounts import rights
from accounts.permissions import TokenScopes

IGNORED_METHODS = {"options", "head", "trace"}


def api_routes(patterns, prefix=""):
    """(route, view callback) for every URL pattern, with its full route."""
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from api_routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield route, pattern.callback


def census(patterns) -> dict[str, str]:
    """`"METHOD route" -> right` for every route under api/; raises
    ImproperlyConfigured naming the first route that declares nothing."""
    found = {}
    factory = RequestFactory()
    for route, callback in api_routes(patterns):
        if not route.startswith("api/"):
            continue
        for method, view in views_by_method(callback):
            request = getattr(factory, method)("/")
            try:
                right = rights.required(view, request)
            except ImproperlyConfigured as undeclared:
                where = f"{method} {readable(route)}"
                raise ImproperlyConfigured(f"{where}: {undeclared}") from None
            found[f"{method.upper()} {readable(route)}"] = right
    return found


def readable(route: str) -> str:
    """`api/^flows/(?P<pk>[^/.]+)$` (a router's regex) as `api/flows/<pk>`."""
    named = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<\1>", route)
    return named.replace("^", "").replace("$", "")


def views_by_method(callback):
    """A view instance for each method the route answers, as DRF builds it."""
    cls = getattr(callback, "cls", None)
    actions = getattr(callback, "actions", None)
    if cls is None:  # a plain Django view: its declared methods, and at least one
        declared = getattr(callback, "rights", None)
        for method in declared or ("get",):
            yield method, plain_view(declared, method)
        return
    if actions:
        for method, action in actions.items():
            if method in cls.http_method_names and method not in IGNORED_METHODS:
                view = cls(action_map=actions, action=action)
                yield method, view
        return
    for method in cls.http_method_names:
        if method not in IGNORED_METHODS and hasattr(cls, method):
            yield method, cls()


def plain_view(declared, method):
    """A stand-in for a plain Django view answering `method`, so `required`
    reads its declared rights as it reads a DRF view's."""
    view = type("PlainView", (), {"rights": declared, method: None})()
    view.http_method_names = [method]
    return view


def test_every_api_route_declares_a_right_for_each_method():
    found = census(get_resolver().url_patterns)

    assert set(found.values()) <= rights.ALL
    # The census saw the routes it should (a sample of each kind of view).
    assert found["PATCH api/flows/<pk>"] == rights.FLOWS_EDIT
    assert found["GET api/flows/<pk>/versions/<number>/diff"] == rights.FLOWS_VIEW
    assert found["POST api/flows/<pk>/run"] == rights.RUNS_START
    assert found["POST api/flows/<str:pk>/webhook-secret"] == rights.FLOWS_EDIT
    assert found["POST api/webhooks/<str:flow_id>"] == rights.PUBLIC
    assert found["GET api/auth/session"] == rights.PUBLIC
    assert found["POST api/agents/<pk>/chat"] == rights.AGENTS_CHAT
    assert found["GET api/audit"] == rights.AUDIT_READ
    assert found["GET api/schema"] == rights.PUBLIC
    assert found["GET api/credentials"] == rights.CREDENTIALS_VIEW
    assert found["GET api/credentials/<pk>"] == rights.CREDENTIALS_VIEW
    assert found["POST api/credentials"] == rights.CREDENTIALS_EDIT


class Undeclared(viewsets.ViewSet):
    rights = {"list": rights.FLOWS_VIEW}

    def list(self, request):
        raise AssertionError("never called")

    def create(self, request):
        raise AssertionError("never called")


class Bare(APIView):
    def get(self, request):
        raise AssertionError("never called")


def plain(request):
    raise AssertionError("never called")


def test_the_census_fails_on_a_viewset_action_without_a_right():
    router = SimpleRouter(trailing_slash=False)
    router.register("things", Undeclared, basename="thing")
    patterns = [path("api/", include(router.urls))]

    with pytest.raises(ImproperlyConfigured, match="post api/things.*'create'"):
        census(patterns)


def test_the_census_fails_on_an_api_view_without_rights():
    with pytest.raises(ImproperlyConfigured, match="get api/bare.*Bare"):
        census([path("api/bare", Bare.as_view())])


def test_the_census_fails_on_a_plain_view_without_rights():
    with pytest.raises(ImproperlyConfigured, match="get api/plain"):
        census([path("api/plain", plain)])


def test_a_plain_view_declares_through_requires():
    marked = rights.requires(post=rights.PUBLIC)(lambda request: None)

    assert census([path("api/hook", marked)]) == {"POST api/hook": rights.PUBLIC}


def test_requires_refuses_a_right_that_does_not_exist():
    with pytest.raises(ImproperlyConfigured, match="flows.admin"):
        rights.requires(get="flows.admin")


def test_a_method_the_view_does_not_handle_needs_nothing():
    request = RequestFactory().put("/")

    assert rights.required(Bare(), request) == rights.PUBLIC


def test_scopes_grant_the_union_of_their_rights_and_never_session_only():
    granted = rights.granted_by(["flows:read", "runs:read", "nonsense"])

    assert granted == {rights.FLOWS_VIEW, rights.CREDENTIALS_VIEW, rights.RUNS_DATA}
    assert rights.SESSION_ONLY not in rights.granted_by(rights.SCOPE_RIGHTS)


def test_every_api_view_with_a_right_to_check_checks_token_scopes():
    unchecked = set()
    for route, callback in api_routes(get_resolver().url_patterns):
        cls = getattr(callback, "cls", None)
        declared = set((getattr(cls, "rights", None) or {}).values())
        checked = cls is None or TokenScopes in cls.permission_classes
        if route.startswith("api/") and declared - {rights.PUBLIC} and not checked:
            unchecked.add(readable(route))

    assert unchecked == set()
