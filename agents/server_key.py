"""Who may spend the server-wide provider keys (OPENAI_API_KEY, ANTHROPIC_API_KEY).

An agent with no credential of its own calls its provider with the server's
key, and the operator pays. Only staff may make such an agent (issue 27): every
save is checked (`require_own_key`), and so is every turn
(`server_key_refusal`), because a credential can go after the save.
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

    A user deleted the credential their agent named (no flow used it), the
    agent's credential became empty, and its next turn was paid with the
    server's key (a review of `main`, 2026-12-06). So: an agent naming a
    credential it cannot use (of another workspace now) is refused, and so is
    one with none whose maker is not staff.
    """
    if not uses_server_key(agent.model):
        return None
    if agent.credential_id is not None:
        return (
            "This agent's API key credential is not of its workspace, or holds "
            "no key: choose another. The server's key is not used in its place."
        )
    if agent.created_by_id is not None and not agent.created_by.is_staff:
        return (
            "This agent has no API key credential (was it deleted?): choose one. "
            "Only staff's agents use the server's key."
        )
    return None
