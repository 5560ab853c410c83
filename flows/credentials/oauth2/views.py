"""Connect: `GET /oauth/connect/<id>` sends the browser to the provider,
`GET /oauth/callback` brings it back and exchanges the code for tokens.

Both are pages for a signed-in person with `credentials.edit` in the
credential's workspace (someone else's credential is a 404). Whatever goes
wrong ends on a page saying so, with nothing connected.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.workspaces.access import can
from accounts.workspaces.roles import CREDENTIALS_EDIT
from flows.credentials.models import Credential
from flows.credentials.oauth2 import client, state
from flows.credentials.oauth2.tokens import AUTHORIZATION_CODE, store_tokens


def redirect_uri() -> str:
    """The callback's address, which the provider must have registered."""
    return settings.BASE_URL + reverse("flows:oauth_callback")


def not_connected(request, message: str, status: int, credential=None):
    return render(
        request,
        "credentials/oauth_error.html",
        {"message": message, "credential": credential},
        status=status,
    )


def _refused_right(request, credential) -> HttpResponse | None:
    if can(request.user, credential.workspace_id, CREDENTIALS_EDIT):
        return None
    return not_connected(
        request,
        "Connecting a credential needs the credentials.edit right in its "
        "workspace (editors, admins and owners).",
        403,
        credential,
    )


@login_required
@require_GET
def connect(request: HttpRequest, credential_id) -> HttpResponse:
    credential = Credential.objects.for_user(request.user).filter(pk=credential_id)
    credential = credential.first()
    if credential is None:
        raise Http404("No credential of yours has this id.")
    refused = _refused_right(request, credential)
    if refused is not None:
        return refused
    if (
        credential.kind != Credential.Kind.OAUTH2
        or credential.public.get("grant") != AUTHORIZATION_CODE
    ):
        return not_connected(
            request,
            f"{credential.name} is not an OAuth2 credential with the "
            "authorization_code grant; only those are connected in a browser.",
            400,
            credential,
        )
    if request.session.session_key is None:
        request.session.save()
    state_text, verifier = state.start(
        credential, request.user, request.session.session_key
    )
    return HttpResponseRedirect(
        client.authorization_url(
            credential.public, redirect_uri(), state_text, verifier
        )
    )


@login_required
@require_GET
def callback(request: HttpRequest) -> HttpResponse:
    try:
        attempt = state.consume(
            request.GET.get("state", ""), request.user, request.session.session_key
        )
    except state.StateRefused as error:
        return not_connected(request, str(error), 400)
    credential = attempt.credential
    refused = _refused_right(request, credential)
    if refused is not None:
        return refused
    if request.GET.get("error"):
        detail = request.GET.get("error_description", "")
        return not_connected(
            request,
            f"The provider did not authorize {credential.name}: "
            f"{request.GET['error']}{f' ({detail})' if detail else ''}.",
            400,
            credential,
        )
    if not request.GET.get("code"):
        return not_connected(
            request, "The provider sent back no authorization code.", 400, credential
        )
    return _exchange(request, credential, attempt.code_verifier)


def _exchange(request, credential: Credential, verifier: str) -> HttpResponse:
    try:
        token = client.exchange_code(
            credential.public,
            credential.secrets().get("client_secret"),
            request.GET["code"],
            verifier,
            redirect_uri(),
        )
    except client.TokenRefused as error:
        return not_connected(
            request,
            f"The provider refused to give {credential.name} its tokens: {error}.",
            400,
            credential,
        )
    except client.TokenUnreachable as error:
        return not_connected(request, str(error), 502, credential)
    with transaction.atomic():
        locked = Credential.objects.select_for_update().get(pk=credential.pk)
        locked.granted_scopes = []  # a new grant: what this answer says
        store_tokens(locked, locked.secrets(), token)
        record(
            "credential.connected",
            Actor.from_request(request),
            locked,
            changes={"scopes": locked.granted_scopes},
        )
    return HttpResponseRedirect(reverse("flows:credentials"))
