"""Who may spend the server-wide provider keys (OPENAI_API_KEY, ANTHROPIC_API_KEY).

An agent with no credential of its own calls its provider with the server's
key, and the operator pays. Only staff may make such an agent (issue 27): every
save is checked (`require_own_key`); an agent's credential cannot be deleted
from under it, and a turn never falls back from a credential it cannot use
(`server_key_refusal`).
"""

from __future__ import annotations

from rest_framework import serializers

# Providers whose calls fall back to a server-wide key when the agent names no
# credential: someone pays for them.
SERVER_KEY_PROVIDERS = ("openai", "anthropic")


def uses_server_key(model: str) -> bool:
    """Whether `model`'s calls, without a key of the agent's own, are paid
    with the server-wide key."""
    return model.partition(":")[0] in SERVER_KEY_PROVIDERS


def require_own_key(model: str, credential, user) -> None:
    """Only staff may spend the server's key; anyone else names a credential.

    Without this, any signed-in user could make an agent with no credential
    and chat on the operator's bill (issue 27).
    """
    if credential is None and uses_server_key(model) and not user.is_staff:
        provider = model.partition(":")[0]
        raise serializers.ValidationError(
            {
                "credential": [
                    f"{provider} models need a credential of yours holding the API "
                    "key; only staff may use the server's key."
                ]
            }
        )


def server_key_refusal(agent) -> str | None:
    """Why `agent`, having no usable key of its own, may not be paid for with
    the server's key; None when it may.

    An agent that names a credential but cannot use it (the credential is of
    another workspace now, or holds no key) never falls back to the server's
    key: someone chose to pay with their own. A credential an agent uses cannot
    be deleted from under it (`Agent.credential` is RESTRICT: the API answers
    409), which is how a user once moved their agent onto the server's key (a
    review of `main`, 2026-12-06; docs/security.md, S20).
    """
    if uses_server_key(agent.model) and agent.credential_id is not None:
        return (
            "This agent's API key credential is not of its workspace, or holds "
            "no key: choose another. The server's key is not used in its place."
        )
    return None
