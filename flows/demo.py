"""The demo flow, written once, and the hooks that let other apps add to the demo.

`webhook_code_graph` is the smallest useful flow (a webhook trigger feeding one
code node); the demo seed, the benchmarks and the test factories all build it
here. `manage.py seed_demo` creates the demo user and the "Say hello" flow, then
calls every seed hook, so an app that extends flows (agents adds its demo agent)
seeds its part without flows importing it.
"""

from __future__ import annotations

from collections.abc import Callable

GREET_CODE = "return {greeting: 'hi ' + (input.name || 'there')};"
DEMO_FLOW_NAME = "Say hello"

# hook(user, flow, stdout): called by seed_demo with the demo user, the demo flow
# and the command's output stream, after both exist.
SeedHook = Callable[..., None]
SEED_HOOKS: list[SeedHook] = []


def webhook_code_graph(code: str = GREET_CODE) -> tuple[list[dict], list[dict]]:
    """`(nodes, edges)` of a webhook trigger feeding one JavaScript code node."""
    nodes = [
        {
            "id": "trigger",
            "type": "webhook",
            "name": "Webhook",
            "position": {"x": 40, "y": 80},
            "data": {"method": "POST"},
        },
        {
            "id": "greet",
            "type": "code",
            "name": "Greet",
            "position": {"x": 320, "y": 80},
            "data": {"language": "javascript", "code": code},
        },
    ]
    edges = [{"id": "e1", "source": "trigger", "target": "greet", "sourceHandle": None}]
    return nodes, edges


def register_seed_hook(hook: SeedHook) -> None:
    """Have `seed_demo` call `hook` too; registering the same hook twice is a no-op."""
    if hook not in SEED_HOOKS:
        SEED_HOOKS.append(hook)


def _node(node_id: str, type_: str, name: str, x: int, data: dict) -> dict:
    return {
        "id": node_id,
        "type": type_,
        "name": name,
        "position": {"x": x, "y": 80},
        "data": data,
    }


def _chain(nodes: list[dict]) -> tuple[list[dict], list[dict]]:
    edges = [
        {"id": f"e{i}", "source": a["id"], "target": b["id"], "sourceHandle": None}
        for i, (a, b) in enumerate(zip(nodes, nodes[1:], strict=False), 1)
    ]
    return nodes, edges


SIGNUPS_SQL = (
    "select count(*) as signups, count(distinct country) as countries\n"
    "from signups\n"
    "where created_at >= current_date - 1 and created_at < current_date"
)


def signup_summary_graph() -> tuple[list[dict], list[dict]]:
    """Every morning, count yesterday's signups in your database and post a
    summary (docs/engine.md, "Worked example: yesterday's signups"). Seeded
    with its schedule off: pick a PostgreSQL credential and a chat URL first."""
    return _chain(
        [
            _node(
                "morning",
                "schedule",
                "Every morning",
                40,
                {
                    "cron": "0 8 * * *",
                    "timezone": "UTC",
                    "missed": "skip",
                    "enabled": False,
                },
            ),
            _node(
                "signups",
                "postgres_query",
                "Yesterday's signups",
                300,
                {
                    "credential_id": None,
                    "query": SIGNUPS_SQL,
                    "params": {},
                    "access": "read",
                    "max_rows": 1,
                    "timeout_ms": 5000,
                },
            ),
            _node(
                "post",
                "http_request",
                "Post the summary",
                560,
                {
                    "method": "POST",
                    "url": "https://chat.example.com/hooks/signups",
                    "headers": {},
                    "body": {
                        "text": "Yesterday: {{ prev.rows[0].signups }} signups "
                        "from {{ prev.rows[0].countries }} countries."
                    },
                    "timeout_ms": 10000,
                    "credential_id": None,
                },
            ),
        ]
    )


def approval_graph() -> tuple[list[dict], list[dict]]:
    """A webhook asks a person by e-mail; the run waits for Approve or Reject
    on the mailed link, then answers with the decision."""
    return _chain(
        [
            _node("trigger", "webhook", "Webhook", 40, {"method": "POST"}),
            _node(
                "ask",
                "send_email",
                "E-mail the approver",
                300,
                {
                    "credential_id": None,
                    "to": "{{ input.approver }}",
                    "subject": "Approve the retry of order {{ input.order }}?",
                    "text": "Approve or reject: {{ run.resume_urls.approve }}",
                    "timeout_ms": 10000,
                },
            ),
            _node(
                "approve",
                "wait",
                "Wait for approval",
                560,
                {
                    "mode": "callback",
                    "timeout_s": 86400,
                    "on_timeout": "continue",
                    "context": [{"name": "Order", "value": "{{ input.order }}"}],
                    "ask_comment": True,
                },
            ),
            _node(
                "decision",
                "transform",
                "Decision",
                820,
                {"values": {"approved": "{{ prev.approved === true }}"}},
            ),
        ]
    )


DEMO_FORM_SLUG = "contact"


def contact_form_graph() -> tuple[list[dict], list[dict]]:
    """A public form page (/f/contact, docs/forms.md) whose run tidies the
    answers; the visitor sees the thank-you text."""
    fields = [
        {"name": "name", "label": "Your name", "kind": "text", "required": True},
        {"name": "email", "label": "E-mail", "kind": "email", "required": True},
        {"name": "topic", "label": "Topic", "kind": "select",
         "options": ["Question", "Bug", "Idea"]},
        {"name": "message", "label": "Message", "kind": "long_text",
         "required": True},
    ]  # fmt: skip
    form = {
        "slug": DEMO_FORM_SLUG, "title": "Contact us",
        "intro": "Ask us **anything**; we answer within a day.",
        "fields": fields, "submit_label": "Send", "access": "anyone",
        "password": "", "answer": "thank_you", "redirect_url": "",
        "thank_you": "Thank you, we will write back soon.",
    }  # fmt: skip
    summary = {"values": {"from": "{{ input.name }} <{{ input.email }}>",
                          "about": "{{ input.topic }}"}}  # fmt: skip
    return _chain(
        [
            _node("form", "form", "Contact form", 40, form),
            _node("summary", "transform", "Summary", 300, summary),
        ]
    )


FULFIL_CODE = (
    "if (!input.sku) throw new Error('order ' + input.id + ' has no sku');\n"
    "return {shipped: input.id};"
)


def fulfilment_graph() -> tuple[list[dict], list[dict]]:
    """One order's work; a code node stands in for the warehouse's API."""
    return _chain(
        [
            _node("order", "webhook", "Order", 40, {"method": "POST"}),
            _node(
                "ship", "code", "Ship it", 300,
                {"language": "javascript", "code": FULFIL_CODE},
            ),
        ]
    )  # fmt: skip


def orders_graph(fulfil_flow_id: str) -> tuple[list[dict], list[dict]]:
    """For each order in the webhook body, call the fulfilment flow; if any
    fail, e-mail a link to approve a retry, wait for it, then retry them."""
    loop = {"on_error": "continue", "max_items": 500, "pause_ms": 0}
    nodes = [
        _node("orders", "webhook", "Orders", 40, {"method": "POST"}),
        _node("fulfil_each", "for_each", "Fulfil each order", 260, {
            "items": "{{ input.orders }}", "flow_id": fulfil_flow_id,
            "input": "{{ item }}", "collect": "summary", **loop}),
        _node("any_failed", "switch", "Any failed?", 480, {"mode": "first", "cases": [
            {"handle": "some_failed", "expression": "prev.failed > 0"}]}),
        _node("all_done", "response", "All fulfilled", 700, {
            "status": 200, "body": {"fulfilled": "{{ prev.count }}"}}),
        _node("ask", "send_email", "Ask to retry", 700, {
            "credential_id": None, "to": "{{ input.approver }}",
            "subject": "{{ prev.failed }} of {{ prev.count }} orders failed",
            "text": "Approve a retry: {{ run.resume_urls.approve }}",
            "timeout_ms": 10000}),
        _node("approve", "wait", "Wait for approval", 920, {
            "mode": "callback", "timeout_s": 86400, "on_timeout": "continue"}),
        _node("approved", "condition", "Approved?", 1140, {
            "expression": "prev.approved === true"}),
        _node("retry", "for_each", "Retry the failed ones", 1360, {
            "items": "{{ results.fulfil_each.errors }}", "flow_id": fulfil_flow_id,
            "input": "{{ input.orders[item.index] }}", "collect": "outputs", **loop}),
    ]  # fmt: skip
    nodes[3]["position"]["y"], nodes[4]["position"]["y"] = 0, 200  # two branches
    links = [
        ("orders", "fulfil_each", None),
        ("fulfil_each", "any_failed", None),
        ("any_failed", "all_done", "default"),
        ("any_failed", "ask", "some_failed"),
        ("ask", "approve", None),
        ("approve", "approved", None),
        ("approved", "retry", "true"),
    ]
    edges = [
        {"id": f"e{i}", "source": a, "target": b, "sourceHandle": handle}
        for i, (a, b, handle) in enumerate(links, 1)
    ]
    return nodes, edges


def issue_to_slack_graph() -> tuple[list[dict], list[dict]]:
    """A webhook opens a GitHub issue and posts its link to a Slack channel:
    two app actions (docs/apps.md), seeded without their credentials, which
    the builder asks for on each node."""
    action = {"credential_id": None, "server_url": "", "timeout_ms": 10000}
    return _chain(
        [
            _node("report", "webhook", "Bug report", 40, {"method": "POST"}),
            _node("issue", "app_action", "Open the issue", 300, {
                "app": "github", "operation": "issues/create", **action,
                "params": {"owner": "{{ input.owner }}", "repo": "{{ input.repo }}",
                           "body": {"title": "{{ input.title }}",
                                    "body": "{{ input.details }}"}}}),
            _node("tell", "app_action", "Tell Slack", 560, {
                "app": "slack", "operation": "chat.postMessage", **action,
                "params": {"body": {"channel": "#issues",
                                    "text": "New issue: {{ prev.body.html_url }}"}}}),
        ]
    )  # fmt: skip
