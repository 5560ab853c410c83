"""The wait node: parks the run for a time, until a time, or until a callback.

The node never sleeps: it raises `Park` and the engine stores the run
`waiting`, holding no worker and no thread (flows/engine/waits.py). When the
run is woken (by the supervisor on time, or by a POST to its resume URL,
flows/engine/wake.py) a worker resumes it and the node runs again, this time
with `ctx.resume` set, and returns its output:

- duration, until: its input (`prev`), as a delay does;
- callback: `{approved, decision, values, comment, decided_by, body, query,
  received_at}` from the POST (the page's Approve / Reject, or a program);
- form: the same, from the page's one Submit button (`approved` true);
- callback that timed out: `{timed_out: true}` with `on_timeout: continue`,
  else it fails with `wait_timeout`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django.utils import timezone

from flows.forms.fields import spec_problems
from flows.nodes.base import FieldError, FormField, NodeContext, NodeError, NodeKind
from flows.nodes.checks import integer_between, text
from flows.nodes.errors import Park

MODES = ("duration", "until", "callback", "form")
LINKED = ("callback", "form")  # a resume link ends these waits
MAX_CONTEXT = 20
ON_TIMEOUT = ("fail", "continue")
MAX_WAIT_SECONDS = 30 * 24 * 3600  # 30 days
DEFAULT_TIMEOUT_SECONDS = 24 * 3600


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 time as an aware datetime (UTC without an offset), or None."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class WaitNode(NodeKind):
    type = "wait"
    label = "Wait"
    description = (
        "Pauses the run for a time, until a time, or until someone opens its "
        "resume link; the run holds no worker meanwhile."
    )
    form_fields = (
        FormField(
            "data.mode",
            "Wait for",
            widget="select",
            options=MODES,
            help="duration: a number of seconds. until: a time. callback: a POST "
            "to the run's resume URL ({{ run.resume_urls.<this node's id> }} in "
            "an earlier node's template), or Approve / Reject on its page. "
            "form: the page shows the fields below and one Submit button.",
        ),
        FormField(
            "data.context",
            "Shown on the page (callback, form)",
            widget="pairs",
            help="A label and a template each, like Amount → {{ input.amount }}; "
            "the value may use Markdown. Rendered when the run starts waiting.",
        ),
        FormField(
            "data.fields",
            "Asks for (callback, form)",
            widget="form-fields",
            help="Fields the person fills in; their values are the output's values.",
        ),
        FormField(
            "data.ask_comment",
            "Ask for a comment (callback)",
            widget="checkbox",
        ),
        FormField(
            "data.seconds",
            "Seconds (duration)",
            widget="number",
            min=1,
            help="Up to 30 days (2592000).",
        ),
        FormField(
            "data.until",
            "Until (until)",
            mono=True,
            help="An ISO 8601 time or a template giving one, like "
            "{{ input.remind_at }}; without an offset it is UTC. A time "
            "already past goes on at once.",
        ),
        FormField(
            "data.timeout_s",
            "Timeout, seconds (callback)",
            widget="number",
            min=1,
            help="How long the resume URL stays open (default one day, at most 30).",
        ),
        FormField(
            "data.on_timeout",
            "On timeout (callback)",
            widget="select",
            options=ON_TIMEOUT,
            help="fail: the node fails with wait_timeout. continue: its output is "
            "{timed_out: true}.",
        ),
    )
    default_data = {
        "mode": "callback",
        "seconds": 60,
        "until": "",
        "timeout_s": DEFAULT_TIMEOUT_SECONDS,
        "on_timeout": "fail",
        "context": [],
        "fields": [],
        "ask_comment": False,
    }

    def validate_data(self, data: dict) -> list[FieldError]:
        mode = data.get("mode")
        if mode not in MODES:
            return [
                FieldError("data.mode", "Choose duration, until, callback or form.")
            ]
        if mode == "duration":
            return integer_between(data, "seconds", 1, MAX_WAIT_SECONDS)
        if mode == "until":
            problems = text(data, "until", max_length=1000)
            until = data.get("until")
            if not problems and "{{" not in until and parse_time(until) is None:
                problems.append(
                    FieldError(
                        "data.until",
                        "Until must be an ISO 8601 time (2026-12-01T09:00:00Z) "
                        "or a {{ template }} giving one.",
                    )
                )
            return problems
        problems = integer_between(
            data, "timeout_s", 1, MAX_WAIT_SECONDS, required=False
        )
        problems += self.page_problems(data)
        if data.get("on_timeout", "fail") not in ON_TIMEOUT:
            problems.append(FieldError("data.on_timeout", "Choose fail or continue."))
        return problems

    def page_problems(self, data: dict) -> list[FieldError]:
        problems = [
            FieldError("data.fields", problem)
            for problem in spec_problems(data.get("fields", []))
        ]
        context = data.get("context", [])
        if (
            not isinstance(context, list)
            or len(context) > MAX_CONTEXT
            or not all(
                isinstance(row, dict)
                and isinstance(row.get("name"), str)
                and isinstance(row.get("value"), str)
                for row in context
            )
        ):
            problems.append(
                FieldError(
                    "data.context", f"Give up to {MAX_CONTEXT} labels with a template."
                )
            )
        return problems

    def page(self, data: dict, ctx: NodeContext) -> dict:
        """What the resume page shows and asks, its templates rendered now."""
        context = [
            {"label": row["name"], "value": str(ctx.render(row["value"]))[:5000]}
            for row in data.get("context", [])
        ]
        return {
            "context": context,
            "fields": data.get("fields", []),
            "ask_comment": bool(data.get("ask_comment")),
        }

    def run(self, data: dict, ctx: NodeContext) -> Any:
        if ctx.resume is not None:
            return self.resumed(data, ctx)
        now = timezone.now()
        mode = data["mode"]
        if mode == "duration":
            wake_at = now + timedelta(seconds=data["seconds"])
        elif mode == "until":
            wake_at = self.until(data, ctx, now)
            if wake_at <= now:
                return ctx.prev
        else:
            timeout = data.get("timeout_s", DEFAULT_TIMEOUT_SECONDS)
            wake_at = now + timedelta(seconds=timeout)
            raise Park(ctx.node_id, mode, wake_at, self.page(data, ctx))
        raise Park(ctx.node_id, mode, wake_at)

    def until(self, data: dict, ctx: NodeContext, now: datetime) -> datetime:
        rendered = ctx.render(data["until"])
        wake_at = parse_time(rendered)
        if wake_at is None:
            raise NodeError(
                "invalid_time",
                f"Until gave {str(rendered)[:100]!r}, not an ISO 8601 time.",
            )
        if wake_at > now + timedelta(seconds=MAX_WAIT_SECONDS):
            raise NodeError("invalid_time", "Until is more than 30 days away.")
        return wake_at

    def resumed(self, data: dict, ctx: NodeContext) -> Any:
        if data["mode"] not in LINKED:
            return ctx.prev
        if ctx.resume.get("timed_out"):
            if data.get("on_timeout", "fail") == "continue":
                return {"timed_out": True}
            seconds = data.get("timeout_s", DEFAULT_TIMEOUT_SECONDS)
            raise NodeError(
                "wait_timeout", f"Nobody resumed the run within {seconds:g} s."
            )
        return ctx.resume
