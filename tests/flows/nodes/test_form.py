"""The form trigger node's settings, and its slug kept on the flow."""

from __future__ import annotations

import pytest

from flows.nodes.form import FormNode, form_slug
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node

pytestmark = pytest.mark.django_db


def problems(**data) -> dict[str, str]:
    kind = FormNode()
    merged = {**kind.default_data, "slug": "contact", **data}
    return {error.field: error.message for error in kind.validate_data(merged)}


def test_the_default_data_with_a_slug_is_valid():
    assert problems() == {}


def test_a_form_without_an_address_is_valid_but_has_no_page():
    assert problems(slug="") == {}
    assert form_slug([{"type": "form", "data": {"slug": ""}}]) is None


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"slug": "A b"}, "data.slug"),
        ({"slug": "ab"}, "data.slug"),
        ({"access": "friends"}, "data.access"),
        ({"access": "password", "password": "x" * 5001}, "data.password"),
        ({"answer": "email"}, "data.answer"),
        (
            {"answer": "redirect", "redirect_url": "javascript:alert(1)"},
            "data.redirect_url",
        ),
        ({"fields": [{"name": "x", "kind": "colour"}]}, "data.fields"),
        ({"title": "x" * 5001}, "data.title"),
    ],
)
def test_bad_settings_name_their_field(data, field):
    assert field in problems(**data)


def test_the_flow_keeps_its_forms_slug_and_drops_it_with_the_node(alice):
    nodes, edges = chain(node("form", "form", slug="join-us", fields=[]))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    assert flow.form_slug == "join-us" == form_slug(flow.nodes)
    flow.nodes = [node("hook", "webhook")]
    flow.save()
    flow.refresh_from_db()
    assert flow.form_slug is None


def test_a_bad_form_is_a_400_on_save_naming_its_field(api):
    nodes, edges = chain(node("form", "form", slug="x", fields=[]))
    payload = {"name": "F", "nodes": nodes, "edges": edges}
    response = api.post("/api/flows", payload, format="json")
    assert response.status_code == 400
    assert "address of 3 to 60" in response.content.decode()


def test_a_restored_slug_another_flow_holds_gives_no_page_and_a_warning(
    alice, bob, api
):
    nodes, edges = chain(node("form", "form", slug="join-us", fields=[]))
    FlowFactory(created_by=bob, nodes=nodes, edges=edges)
    mine = FlowFactory(created_by=alice, nodes=nodes, edges=edges)  # as a restore
    assert mine.form_slug is None
    warnings = api.get(f"/api/flows/{mine.pk}").json()["warnings"]
    assert any("/f/join-us" in warning for warning in warnings)
