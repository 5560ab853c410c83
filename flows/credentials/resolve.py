"""Run-time access to the run's workspace's credentials, for the engine only.

Nothing is read or decrypted until a node asks: `credential(id)` for an
http_request node's `credential_id`, `template_values()` for a node whose own
template or code mentions `secrets`. Each decrypted credential is added to the
run's `Redactor` and stamped with its last use.

An oauth2 credential opened by id has a current access token (renewed first
when it is about to expire, flows/credentials/oauth2/tokens.py), and
`send_signed` renews it once more when the API answers 401; every token it
ever held in the run is redacted. Templates read its token as stored.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone

from core.crypto import UndecryptableValue
from core.redact import Redactor
from flows.credentials import kinds
from flows.credentials.models import Credential
from flows.credentials.oauth2 import tokens
from flows.nodes.errors import NodeError


def mentions_secrets(data: Any) -> bool:
    """Whether a node's data names `secrets` anywhere (a template or its code)."""
    return "secrets" in json.dumps(data, ensure_ascii=False)


class RunSecrets:
    """One run's view of its flow's workspace's credentials (whoever started
    it: a run acts for the workspace, not for a person)."""

    def __init__(self, workspace_id):
        self.workspace_id = workspace_id
        self.redactor = Redactor()
        self._opened: dict[Any, dict] = {}  # credential id → its secrets
        self._template_values: dict | None = None

    def credential(self, credential_id, node_label: str) -> tuple[Credential, dict]:
        """The workspace's credential and its secrets; `credential_missing` if
        gone (or planted from another workspace)."""
        try:
            credential = Credential.objects.get(
                pk=credential_id, workspace_id=self.workspace_id
            )
        except (Credential.DoesNotExist, ValidationError, ValueError):
            raise NodeError(
                "credential_missing",
                f"Node {node_label} uses a credential that does not exist "
                "(deleted, or not of this workspace); pick another one.",
            ) from None
        if kinds.get(credential.kind) is None:
            raise NodeError(
                "credential_kind_unknown",
                f"Node {node_label}: credential {credential.name!r}: "
                f"{kinds.missing_message(credential.kind)}",
            )
        secrets = self._open(credential, node_label)
        if credential.kind == Credential.Kind.OAUTH2:
            secrets = self._renewed(credential, node_label, tokens.usable_secrets)
        return credential, secrets

    def send_signed(self, credential_id, node_label: str, url, headers, send):
        """`send(url, headers)` with the credential applied (its header
        replacing one of the same name, its query parameter appended). An
        oauth2 credential refused with a 401 is renewed and the request sent
        once more, when it can be renewed without a person."""
        credential, secrets = self.credential(credential_id, node_label)
        answer = send(*credential.signed(secrets, url, headers))
        if (
            answer.get("status") == 401
            and credential.kind == Credential.Kind.OAUTH2
            and tokens.can_renew(credential, secrets)
        ):
            refused = secrets.get("access_token")
            secrets = self._renewed(
                credential, node_label, lambda c: tokens.renew(c, stale=refused)
            )
            answer = send(*credential.signed(secrets, url, headers))
        return answer

    def _renewed(self, credential: Credential, node_label: str, get) -> dict:
        """`get(credential)`'s secrets, their new token redacted from now on;
        a token problem fails the node with its code, naming the credential."""
        try:
            secrets = get(credential)
        except tokens.TokenProblem as problem:
            raise NodeError(
                problem.code, f"Node {node_label}: {problem.message}"
            ) from None
        except UndecryptableValue as error:
            raise NodeError(
                "credential_undecryptable",
                f"Node {node_label}: credential {credential.name!r} cannot be "
                f"decrypted. {error}",
            ) from error
        self.redactor.add(credential.name, credential.redaction_values(secrets))
        self._opened[credential.pk] = secrets
        return secrets

    def template_values(self, node_label: str) -> dict:
        """`secrets` for templates and code: every credential's value by name."""
        if self._template_values is None:
            values = {}
            for credential in Credential.objects.filter(workspace_id=self.workspace_id):
                if kinds.get(credential.kind) is None:  # its plugin is gone
                    continue
                secrets = self._open(credential, node_label)
                values[credential.name] = credential.template_value(secrets)
            self._template_values = values
        return self._template_values

    def _open(self, credential: Credential, node_label: str) -> dict:
        if credential.pk not in self._opened:
            try:
                secrets = credential.secrets()
            except UndecryptableValue as error:
                raise NodeError(
                    "credential_undecryptable",
                    f"Node {node_label}: credential {credential.name!r} cannot be "
                    f"decrypted. {error}",
                ) from error
            self.redactor.add(credential.name, credential.redaction_values(secrets))
            self._opened[credential.pk] = secrets
            Credential.objects.filter(pk=credential.pk).update(
                last_used_at=timezone.now()
            )
        return self._opened[credential.pk]
