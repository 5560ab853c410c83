"""The form trigger: a public page, `/f/<slug>`, whose submissions start runs.

Its data names the page's slug, its fields (flows/forms/fields.py), who may
submit (anyone, anyone with the password, or members of the flow's
workspace) and what the visitor sees after: a thank-you text, a redirect,
or the page the run's response node renders. The output is the run's input:
the values by field name (docs/forms.md).
"""

from __future__ import annotations

import re
from typing import Any

from flows.forms.fields import spec_problems
from flows.nodes.base import FieldError, FormField, NodeContext, NodeKind

SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{2,59}$")
ANSWERS = ("thank_you", "redirect", "response")
ACCESS = ("anyone", "password", "members")
MAX_TEXT = 5000


def form_settings(nodes: list) -> dict | None:
    """The data of a flow's form node (None when it has none)."""
    for node in nodes or []:
        if isinstance(node, dict) and node.get("type") == "form":
            data = node.get("data")
            return data if isinstance(data, dict) else {}
    return None


def form_slug(nodes: list) -> str | None:
    """The slug a flow's form page answers at, None without a valid one."""
    data = form_settings(nodes)
    slug = (data or {}).get("slug")
    return slug if isinstance(slug, str) and SLUG.match(slug) else None


class FormNode(NodeKind):
    type = "form"
    label = "Form"
    description = "Starts the flow from a public form page; its output is the values."
    is_trigger = True
    form_fields = (
        FormField(
            "data.slug",
            "Address",
            widget="form-slug",
            mono=True,
            help="The page is /f/<address>: 3 to 60 lower-case letters, digits "
            "and -, unique on this server. Empty: no page yet.",
        ),
        FormField("data.title", "Title"),
        FormField(
            "data.intro",
            "Introduction",
            widget="textarea",
            help="Shown above the fields; Markdown (bold, lists, links).",
        ),
        FormField(
            "data.fields",
            "Fields",
            widget="form-fields",
            help="The run's input is {name: value} for these fields.",
        ),
        FormField("data.submit_label", "Button"),
        FormField(
            "data.access",
            "Who may submit",
            widget="select",
            options=ACCESS,
            help="anyone; password: anyone who gives the password below; "
            "members: people signed in to this flow's workspace.",
        ),
        FormField(
            "data.password",
            "Password (password)",
            help="Kept hashed and never shown again: type a new one to change "
            "it; left empty, the one set stays. Until one is set the page is "
            "closed.",
        ),
        FormField(
            "data.answer",
            "After submitting",
            widget="select",
            options=ANSWERS,
            help="thank_you: the text below. redirect: go to the URL below. "
            "response: the page the run's response node gives (sanitised HTML).",
        ),
        FormField("data.thank_you", "Thank-you text", widget="textarea"),
        FormField("data.redirect_url", "Redirect to (redirect)", mono=True),
    )
    default_data = {
        "slug": "",
        "title": "",
        "intro": "",
        "fields": [
            {"name": "name", "label": "Your name", "kind": "text", "required": True}
        ],
        "submit_label": "Send",
        "access": "anyone",
        "password": "",
        "answer": "thank_you",
        "thank_you": "Thank you, we received your answers.",
        "redirect_url": "",
    }

    def validate_data(self, data: dict) -> list[FieldError]:
        errors = [
            FieldError("data.fields", p) for p in spec_problems(data.get("fields"))
        ]
        slug = data.get("slug", "")
        if not isinstance(slug, str) or (slug and not SLUG.match(slug)):
            errors.append(
                FieldError(
                    "data.slug",
                    "Give the page an address of 3 to 60 lower-case letters, "
                    "digits and -.",
                )
            )
        if data.get("access", "anyone") not in ACCESS:
            errors.append(FieldError("data.access", f"Choose {', '.join(ACCESS)}."))
        if data.get("answer", "thank_you") not in ANSWERS:
            errors.append(FieldError("data.answer", f"Choose {', '.join(ANSWERS)}."))
        url = data.get("redirect_url", "")
        if data.get("answer") == "redirect" and not (
            isinstance(url, str) and url.startswith(("https://", "http://", "/"))
        ):
            errors.append(
                FieldError("data.redirect_url", "Give an http(s) URL or a /path.")
            )
        for key in ("title", "intro", "thank_you", "submit_label", "password"):
            value = data.get(key, "")
            if not isinstance(value, str) or len(value) > MAX_TEXT:
                errors.append(
                    FieldError(f"data.{key}", f"At most {MAX_TEXT} characters.")
                )
        return errors

    def run(self, data: dict, ctx: NodeContext) -> Any:
        return ctx.input
