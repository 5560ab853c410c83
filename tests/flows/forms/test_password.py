"""A form page's password is kept hashed on the flow, never in its nodes: no
export, git file, version or promotion diff carries it, and a flow written
over keeps its own (docs/forms.md, "The password")."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from accounts.audit.models import AuditEvent
from flows.git.files import export_workspace
from flows.history.models import FlowVersion
from flows.models import Flow
from tests.flows.graphs import chain, node

pytestmark = pytest.mark.django_db

SECRET = "correct-horse-7"
FIELDS = [{"name": "name", "kind": "text"}]


def form_graph(password=None, title="Payroll"):
    data = {"slug": "payroll", "fields": FIELDS, "access": "password", "title": title}
    if password is not None:
        data["password"] = password
    nodes, edges = chain(node("form", "form", **data))
    return {"name": "Payroll", "nodes": nodes, "edges": edges}


def submit(password: str):
    browser_ = Client()
    return browser_.post("/f/payroll", {"name": "Ada", "form_password": password})


def saved_with_password(api) -> Flow:
    response = api.post("/api/flows", form_graph(SECRET), format="json")
    assert response.status_code == 201
    assert SECRET not in response.content.decode()
    return Flow.objects.get(pk=response.json()["id"])


def test_a_typed_password_leaves_the_node_and_is_kept_hashed(api):
    flow = saved_with_password(api)
    assert "password" not in flow.nodes[0]["data"]
    assert flow.form_password and SECRET not in flow.form_password
    assert submit("guess").status_code == 403
    assert submit(SECRET).status_code == 200
    assert AuditEvent.objects.filter(action="flow.form_password_set").count() == 1


def test_no_version_holds_the_password(api):
    flow = saved_with_password(api)
    edit = form_graph(SECRET + "-2", title="Payroll 2")
    assert api.patch(f"/api/flows/{flow.id}", edit, format="json").status_code == 200
    listed = api.get(f"/api/flows/{flow.id}/versions").content.decode()
    one = api.get(f"/api/flows/{flow.id}/versions/1").content.decode()
    diff = api.get(f"/api/flows/{flow.id}/versions/2/diff").content.decode()
    for text in (listed, one, diff):
        assert SECRET not in text
    assert SECRET not in json.dumps(list(FlowVersion.objects.values("nodes")))
    assert submit(SECRET + "-2").status_code == 200


def test_a_save_without_the_password_keeps_it(api):
    flow = saved_with_password(api)
    edit = form_graph(title="Renamed")  # the builder sends no password back
    assert api.patch(f"/api/flows/{flow.id}", edit, format="json").status_code == 200
    blank = form_graph("", title="Blank")
    assert api.patch(f"/api/flows/{flow.id}", blank, format="json").status_code == 200
    assert submit(SECRET).status_code == 200


def test_the_export_does_not_carry_the_password(api):
    flow = saved_with_password(api)
    exported = api.get(f"/api/flows/{flow.id}/export")
    assert exported.status_code == 200
    assert SECRET not in exported.content.decode()
    assert flow.form_password not in exported.content.decode()
    assert "password" not in exported.json()["nodes"][0]["data"]


def test_a_git_file_does_not_carry_the_password(api, alice):
    flow = saved_with_password(api)
    files = export_workspace(flow.workspace)
    assert all(SECRET not in text for text in files.values())
    assert all(flow.form_password not in text for text in files.values())


def test_an_imported_new_flow_asking_for_a_password_is_closed_until_one_is_set(api):
    document = {"weir_version": 1, **form_graph()}
    response = api.post("/api/flows/import", document, format="json")
    assert response.status_code == 201
    assert any("no" in w and "password" in w for w in response.json()["warnings"])
    assert Client().get("/f/payroll").status_code == 404
    assert submit("").status_code == 404
    flow_id = response.json()["id"]
    set_it = api.patch(f"/api/flows/{flow_id}", form_graph(SECRET), format="json")
    assert set_it.status_code == 200
    assert not any("password" in w for w in set_it.json()["warnings"])
    assert Client().get("/f/payroll").status_code == 200
    assert submit(SECRET).status_code == 200
