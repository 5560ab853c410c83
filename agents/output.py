"""Replies that parse: an agent's `output_schema` and the check of its reply.

Providers ask for JSON matching the schema in their own way (OpenAI's
`response_format` json_schema, Anthropic's forced `structured_output` tool,
see agents/providers/); whatever came back is checked here with `jsonschema`,
so a model that ignores the request fails clearly (`invalid_output`) instead of
handing a flow text it cannot use.
"""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from agents.providers import ProviderError


class InvalidOutput(ProviderError):
    """The model's final reply is not JSON matching the agent's output_schema."""

    code = "invalid_output"


def schema_problem(schema) -> str | None:
    """Why `schema` cannot be an output_schema, or None. The root must describe
    an object: OpenAI's structured outputs and Anthropic's tool input take no
    other."""
    if not isinstance(schema, dict):
        return "Must be a JSON Schema object."
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        return f"Not a valid JSON Schema: {error.message}"
    if schema.get("type") != "object":
        return 'The schema\'s root must be {"type": "object", ...}.'
    return None


def parse_reply(
    schema: dict | None, content: str
) -> tuple[object, InvalidOutput | None]:
    """The reply's JSON and None when it matches `schema`; (None, the error)
    when not. Without a schema there is nothing to parse: (None, None)."""
    if not schema:
        return None, None
    try:
        data = json.loads(content)
    except ValueError:
        return None, InvalidOutput("The reply is not JSON, as the output_schema asks.")
    error = next(iter(Draft202012Validator(schema).iter_errors(data)), None)
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "the reply"
        return None, InvalidOutput(
            f"The reply does not match the output_schema at {where}: {error.message}"
        )
    return data, None
