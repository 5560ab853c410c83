"""The Run tab's first input (flows/run_sample.py), as the builder page shows it."""

from __future__ import annotations

import html
import json
import re

from accounts.models import Membership, Workspace
from flows.models import Flow
from flows.run_sample import schema_example
from tests.factories import FlowFactory, FlowRunFactory


def run_tab_input(client, flow) -> dict:
    page = client.get(f"/flows/{flow.id}/").content.decode()
    found = re.search(r'<textarea id="run-input"[^>]*>(.*?)</textarea>', page, re.S)
    return json.loads(html.unescape(found.group(1)))


def test_a_schema_example_takes_the_first_usable_type_and_stops_at_a_depth():
    assert schema_example({"type": ["null", "integer"]}) == 0
    assert schema_example({"const": "v1"}) == "v1"
    assert schema_example({"properties": {"a": {"type": "string"}}}) == {"a": "text"}
    deep = {"type": "string"}
    for _ in range(20):
        deep = {"type": "object", "properties": {"x": deep}}
    text = json.dumps(schema_example(deep))
    assert text.count('"x"') == 9 and "null" in text
    assert schema_example("not a schema") is None


def test_a_schema_that_is_no_object_gives_an_empty_input(alice_client, alice):
    flow = FlowFactory(created_by=alice, input_schema={"type": "string"})

    assert run_tab_input(alice_client, flow) == {}


def test_a_viewer_gets_the_schema_example_not_the_last_run_input(client, alice, bob):
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    Membership.objects.create(workspace=team, user=bob, role="viewer")
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    flow = FlowFactory(created_by=alice, workspace=team, input_schema=schema)
    Flow.objects.filter(pk=flow.pk).update(pins={"trigger": {"secret": "pinned"}})
    FlowRunFactory(flow=flow, input={"secret": "from a run"})
    client.force_login(bob)

    assert run_tab_input(client, flow) == {"q": "text"}
