"""The demo (flows/demo.py, `manage.py seed_demo`): a demo user and the "Say hello"
flow built from the one demo graph. The demo agent: tests/agents/test_demo.py."""

from __future__ import annotations

from django.core.management import call_command

from flows.demo import approval_graph, webhook_code_graph
from flows.engine import run_flow
from flows.engine.waits import resume_urls
from flows.graph import validate_graph
from flows.models import Flow


def test_seed_demo_creates_the_user_and_the_flow_once(db, capsys):
    call_command("seed_demo")
    first = capsys.readouterr().out
    call_command("seed_demo")
    second = capsys.readouterr().out

    assert "Sign in at /login/ as  demo / " in first
    assert "Demo flow 'Say hello': http" in first
    assert "demo /" not in second and "Demo flow" not in second
    flow = Flow.objects.get(name="Say hello", created_by__username="demo")
    assert (flow.nodes, flow.edges) == webhook_code_graph()
    # An MCP client signed in as demo finds it at once; the other examples wait
    # for their owner to offer them.
    offered = Flow.objects.filter(created_by__username="demo", mcp_offered=True)
    assert list(offered.values_list("name", flat=True)) == ["Say hello"]


def test_seed_demo_creates_no_user_when_users_exist(alice, capsys):
    call_command("seed_demo")

    assert "Demo user created" not in capsys.readouterr().out
    assert not Flow.objects.filter(created_by__username="demo").exists()


def test_the_demo_flow_greets_whoever_is_named_and_someone_otherwise(db):
    call_command("seed_demo")
    flow = Flow.objects.get(name="Say hello")

    named = run_flow(flow, {"name": "Ada"}, "manual")
    anonymous = run_flow(flow, {}, "manual")

    assert named.results["greet"] == {"greeting": "hi Ada"}
    assert anonymous.results["greet"] == {"greeting": "hi there"}


def test_the_demo_graph_with_any_code_is_a_valid_flow():
    nodes, edges = webhook_code_graph("return 1;")

    assert not validate_graph(nodes, edges)
    assert nodes[1]["data"] == {"language": "javascript", "code": "return 1;"}


def test_seed_demo_adds_the_worked_examples_once_and_valid(db):
    call_command("seed_demo")
    call_command("seed_demo")

    for name in ("Yesterday's signups", "Approve by e-mail", "Fulfil order", "Orders"):
        flow = Flow.objects.get(name=name, created_by__username="demo")
        assert not validate_graph(flow.nodes, flow.edges), name
        flow.full_clean()  # the admin's checks too (credentials, graph)
    signups = Flow.objects.get(name="Yesterday's signups")
    assert [n["type"] for n in signups.nodes] == [
        "schedule",
        "postgres_query",
        "http_request",
    ]
    assert signups.has_schedule and signups.nodes[0]["data"]["enabled"] is False


def test_the_approval_example_waits_with_a_link_in_its_mail(db, alice):
    nodes, edges = approval_graph()
    flow = Flow.objects.create(created_by=alice, name="A", nodes=nodes, edges=edges)

    assert list(resume_urls("r", flow.nodes)) == ["approve"]
    assert "run.resume_urls.approve" in nodes[1]["data"]["text"]


def test_the_seeded_orders_flow_calls_the_seeded_fulfilment_flow(db):
    call_command("seed_demo")

    orders = Flow.objects.get(name="Orders", created_by__username="demo")
    fulfil = Flow.objects.get(name="Fulfil order", created_by__username="demo")
    loops = [node for node in orders.nodes if node["type"] == "for_each"]
    assert [node["data"]["flow_id"] for node in loops] == [str(fulfil.id)] * 2


def test_seed_demo_adds_a_contact_form_page_once(db, client):
    call_command("seed_demo")
    call_command("seed_demo")

    flow = Flow.objects.get(form_slug="contact")
    assert flow.name == "Contact form"
    assert not validate_graph(flow.nodes, flow.edges)
    page = client.get("/f/contact").content.decode()
    assert "Contact us" in page and 'name="message"' in page


def test_the_seeded_app_flow_opens_a_github_issue_and_tells_slack(db):
    call_command("seed_demo")

    flow = Flow.objects.get(name="GitHub issue to Slack", created_by__username="demo")
    assert not validate_graph(flow.nodes, flow.edges)
    actions = [node["data"] for node in flow.nodes if node["type"] == "app_action"]
    assert [(a["app"], a["operation"]) for a in actions] == [
        ("github", "issues/create"),
        ("slack", "chat.postMessage"),
    ]
    # Seeded without credentials: the builder asks for one on each node.
    assert [a["credential_id"] for a in actions] == [None, None]
