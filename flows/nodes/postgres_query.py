"""The postgres_query node: literal SQL with named parameters on the owner's
PostgreSQL credential (the connection and its guards: core/net/postgres.py).

The SQL is written once, in the node, and never rendered: `{{` in it is
refused at save, so no input can become SQL. Values come in through
`params`, a name -> template map used as `%(name)s`; `%(idempotency_key)s`
(`<run id>:<node id>`, the same on every attempt) is always there too, for
writes that must not repeat when a node runs again.
"""

from __future__ import annotations

import re
import time
from typing import Any

from django.conf import settings

from core.net import postgres
from flows.nodes import checks
from flows.nodes.base import (
    FieldError,
    FormField,
    NodeContext,
    NodeError,
    NodeKind,
    NodeTimeout,
)
from flows.nodes.checks import integer_between, text

ACCESS = ("read", "write")
DEFAULT_MAX_ROWS = 1000
MAX_ROWS = 10_000
DEFAULT_TIMEOUT_MS = 10_000
PARAM_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class PostgresQueryNode(NodeKind):
    type = "postgres_query"
    label = "Postgres query"
    description = "Runs one SQL statement on a PostgreSQL database; rows out."
    form_fields = (
        FormField(
            "data.credential_id",
            "Database",
            widget="credential",
            kinds=("postgres",),
            help="A PostgreSQL credential (host, port, database, user); add one on "
            "the Credentials page.",
        ),
        FormField(
            "data.query",
            "SQL",
            widget="textarea",
            mono=True,
            help="One statement, written literally: values go in as %(name)s from "
            "Parameters, never as {{ templates }}. Write %% for a literal %.",
        ),
        FormField(
            "data.params",
            "Parameters",
            widget="keyvalue",
            help="name -> value; templates allowed: email -> {{ input.email }}. "
            "%(idempotency_key)s is always available.",
        ),
        FormField(
            "data.access",
            "Access",
            widget="select",
            options=ACCESS,
            help="read: a READ ONLY transaction, a write fails. write: it may change "
            "data.",
        ),
        FormField("data.max_rows", "Max rows", widget="number", min=1),
        FormField("data.timeout_ms", "Timeout (ms)", widget="number", min=1),
    )
    default_data = {
        "credential_id": None,
        "query": "select now() as now",
        "params": {},
        "access": "read",
        "max_rows": DEFAULT_MAX_ROWS,
        "timeout_ms": DEFAULT_TIMEOUT_MS,
    }

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = text(data, "query", max_length=100_000)
        if not problems and "{{" in data["query"]:
            problems.append(
                FieldError(
                    "data.query",
                    "SQL cannot hold {{ templates }}: pass values as Parameters and "
                    "write %(name)s.",
                )
            )
        params = data.get("params", {})
        if not isinstance(params, dict):
            problems.append(
                FieldError("data.params", "Parameters map names to values.")
            )
        else:
            for name in params:
                if not PARAM_NAME.match(name) or name == "idempotency_key":
                    problems.append(
                        FieldError(
                            "data.params",
                            f"{name[:40]!r} is not a parameter name (letters, digits, "
                            "underscores; idempotency_key is taken).",
                        )
                    )
        if data.get("access", "read") not in ACCESS:
            problems.append(FieldError("data.access", "Choose read or write."))
        problems += checks.credential_id(data)
        run_ms = int(settings.RUN_TIMEOUT_SECONDS * 1000)
        problems += integer_between(data, "max_rows", 1, MAX_ROWS, required=False)
        problems += integer_between(data, "timeout_ms", 1, run_ms, required=False)
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        credential, secrets = ctx.credential_of_kind(
            data.get("credential_id"),
            "postgres",
            "a database",
            "a PostgreSQL credential",
        )
        params = dict(ctx.render(data.get("params") or {}))
        params["idempotency_key"] = ctx.idempotency_key
        timeout = data.get("timeout_ms", DEFAULT_TIMEOUT_MS) / 1000
        deadline = min(ctx.deadline, time.monotonic() + timeout)
        try:
            return postgres.run_query(
                credential.public,
                secrets.get("password", ""),
                data["query"],
                params,
                read_only=data.get("access", "read") == "read",
                max_rows=data.get("max_rows", DEFAULT_MAX_ROWS),
                deadline=deadline,
            )
        except postgres.QueryError as error:
            if error.timed_out:
                code = "run_timeout" if deadline >= ctx.deadline else error.code
                raise NodeTimeout(code, error.message) from None
            raise NodeError(error.code, error.message) from None
