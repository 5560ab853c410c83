"""The flow form in admin never shows the webhook signing secret: it is shown
once, in the builder, when it is made. Admins can replace or remove it."""

from __future__ import annotations

import json

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import Membership
from flows.models import Flow
from tests.factories import FlowFactory, UserFactory, make_credential
from tests.flows.graphs import chain, code, node, trigger

pytestmark = pytest.mark.django_db

SECRET = "whsec_do-not-show-me-0123456789"


@pytest.fixture
def admin_client():
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def flow():
    return FlowFactory(name="Signed", webhook_secret=SECRET)


def change_url(flow) -> str:
    return f"/admin/flows/flow/{flow.id}/change/"


def form_data(client, flow, **changes) -> dict:
    """What the browser would post back for the change form, plus `changes`."""
    form = client.get(change_url(flow)).context["adminform"].form
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value is True:
            data[name] = "on"
        elif value not in (None, False):
            data[name] = value
    data.update(changes)
    return data


def test_the_change_form_does_not_show_the_secret(admin_client, flow):
    response = admin_client.get(change_url(flow))

    assert response.status_code == 200
    assert SECRET not in response.text
    assert "A signing secret is set" in response.text


def test_saving_without_typing_a_secret_keeps_it(admin_client, flow):
    response = admin_client.post(
        change_url(flow), form_data(admin_client, flow, name="Renamed")
    )

    assert response.status_code == 302
    flow.refresh_from_db()
    assert flow.name == "Renamed"
    assert flow.webhook_secret == SECRET


def test_typing_a_new_secret_replaces_it(admin_client, flow):
    data = form_data(admin_client, flow, webhook_secret="whsec_new-one-0123456789")

    response = admin_client.post(change_url(flow), data)

    assert response.status_code == 302
    assert Flow.objects.get(pk=flow.pk).webhook_secret == "whsec_new-one-0123456789"


def test_ticking_remove_clears_the_secret(admin_client, flow):
    data = form_data(admin_client, flow, remove_webhook_secret="on")

    response = admin_client.post(change_url(flow), data)

    assert response.status_code == 302
    assert Flow.objects.get(pk=flow.pk).webhook_secret == ""
    assert SECRET not in admin_client.get(change_url(flow)).text


def test_view_only_staff_see_whether_a_secret_is_set_never_the_secret(flow):
    viewer = UserFactory(username="viewer", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_flow"))
    client = Client()
    client.force_login(viewer)

    page = client.get(change_url(flow))

    assert page.status_code == 200
    assert SECRET not in page.text
    assert "A signing secret is set" in page.text


# Secrets typed into a flow (docs/credentials.md, "Secrets typed into a node"):
# the admin shows them as exports do, and a save keeps what it did not show.
TYPED = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv"
CREDENTIAL_VALUE = "tok-typed-into-code-0123456789"


@pytest.fixture
def typed_flow():
    owner = UserFactory(username="alice")
    make_credential(owner, "stripe", secrets={"token": CREDENTIAL_VALUE})
    nodes, edges = chain(
        trigger(),
        node(
            "call",
            "http_request",
            method="GET",
            url="https://api.example.com/",
            headers={"Authorization": f"Bearer {TYPED}"},
        ),
        code("use", f'return "{CREDENTIAL_VALUE}";'),
    )
    return FlowFactory(
        created_by=owner,
        name="Typed",
        description=f"calls with {TYPED}",
        nodes=nodes,
        edges=edges,
    )


def test_the_change_form_masks_secrets_typed_into_the_flow(admin_client, typed_flow):
    page = admin_client.get(change_url(typed_flow))

    assert page.status_code == 200
    assert TYPED not in page.text
    assert CREDENTIAL_VALUE not in page.text
    assert "Bearer [redacted]" in page.text
    assert "[redacted:stripe]" in page.text


def test_saving_the_masked_form_keeps_the_typed_secrets(admin_client, typed_flow):
    before = (typed_flow.nodes, typed_flow.description)
    data = form_data(admin_client, typed_flow, name="Renamed")

    response = admin_client.post(change_url(typed_flow), data)

    assert response.status_code == 302
    typed_flow.refresh_from_db()
    assert typed_flow.name == "Renamed"
    assert (typed_flow.nodes, typed_flow.description) == before


def test_an_edit_beside_a_masked_secret_keeps_the_secret(admin_client, typed_flow):
    data = form_data(admin_client, typed_flow)
    nodes = json.loads(data["nodes"])
    nodes[1]["data"]["url"] = "https://api.example.com/v2"
    data["nodes"] = json.dumps(nodes)

    response = admin_client.post(change_url(typed_flow), data)

    assert response.status_code == 302
    typed_flow.refresh_from_db()
    assert typed_flow.nodes[1]["data"]["url"] == "https://api.example.com/v2"
    assert typed_flow.nodes[1]["data"]["headers"] == {
        "Authorization": f"Bearer {TYPED}"
    }
    assert CREDENTIAL_VALUE in typed_flow.nodes[2]["data"]["code"]


def test_a_secret_typed_over_the_mask_replaces_it(admin_client, typed_flow):
    data = form_data(admin_client, typed_flow)
    nodes = json.loads(data["nodes"])
    nodes[1]["data"]["headers"] = {"Authorization": "Bearer {{ secrets.stripe }}"}
    data["nodes"] = json.dumps(nodes)

    response = admin_client.post(change_url(typed_flow), data)

    assert response.status_code == 302
    typed_flow.refresh_from_db()
    headers = typed_flow.nodes[1]["data"]["headers"]
    assert headers == {"Authorization": "Bearer {{ secrets.stripe }}"}


@pytest.mark.parametrize("codename", ["change_flow", "view_flow"])
def test_staff_who_may_not_edit_the_graph_see_it_masked(typed_flow, codename):
    staff = UserFactory(username="staff", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename=codename))
    client = Client()
    client.force_login(staff)

    page = client.get(change_url(typed_flow))

    assert page.status_code == 200
    assert TYPED not in page.text
    assert CREDENTIAL_VALUE not in page.text
    assert "Bearer [redacted]" in page.text


def test_the_flow_list_masks_a_secret_typed_into_a_name(admin_client):
    FlowFactory(name=f"Calls {TYPED}")

    page = admin_client.get("/admin/flows/flow/")

    assert page.status_code == 200
    assert TYPED not in page.text
    assert "Calls [redacted]" in page.text


def test_the_change_page_names_the_flow_by_its_masked_name(admin_client):
    flow = FlowFactory(name=f"Calls {TYPED}")

    page = admin_client.get(change_url(flow))

    assert page.status_code == 200
    assert TYPED not in page.text
    assert "Calls [redacted]" in page.text


def test_saving_names_the_flow_masked_in_the_message_and_the_log(admin_client):
    flow = FlowFactory(name=f"Calls {TYPED}")

    response = admin_client.post(
        change_url(flow), form_data(admin_client, flow), follow=True
    )

    assert response.status_code == 200
    assert TYPED not in response.text
    assert "Calls [redacted]" in response.text
    assert TYPED not in LogEntry.objects.get(object_id=str(flow.pk)).object_repr
    assert Flow.objects.get(pk=flow.pk).name == f"Calls {TYPED}"


def test_the_change_page_opens_the_workspaces_credentials_once(typed_flow):
    staff = UserFactory(username="staff", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="change_flow"))
    client = Client()
    client.force_login(staff)
    client.get(change_url(typed_flow))  # warm: sessions, content types

    with CaptureQueriesContext(connection) as queries:
        page = client.get(change_url(typed_flow))

    assert page.status_code == 200
    credential_reads = [
        query for query in queries if 'FROM "flows_credential"' in query["sql"]
    ]
    assert len(credential_reads) == 1


def test_the_flow_list_opens_each_workspaces_credentials_once(admin_client):
    owner = UserFactory(username="carol")
    make_credential(owner, "stripe", secrets={"token": CREDENTIAL_VALUE})
    for index in range(5):
        FlowFactory(created_by=owner, name=f"Flow {index} {CREDENTIAL_VALUE}")

    with CaptureQueriesContext(connection) as queries:
        page = admin_client.get("/admin/flows/flow/")

    assert page.status_code == 200
    assert CREDENTIAL_VALUE not in page.text
    assert page.text.count("[redacted:stripe]") == 10  # names and checkbox labels
    reads = [query for query in queries if 'FROM "flows_credential"' in query["sql"]]
    assert len(reads) == 1


def test_searching_finds_no_flow_by_a_masked_secret(admin_client, typed_flow):
    """Else staff would read a typed secret a character at a time."""
    probe = admin_client.get("/admin/flows/flow/", {"q": TYPED[:12]})
    shown = admin_client.get("/admin/flows/flow/", {"q": "calls with"})

    assert probe.status_code == shown.status_code == 200
    assert change_url(typed_flow) not in probe.text
    assert change_url(typed_flow) in shown.text


def test_view_only_staff_see_the_graph_masked_even_as_its_editors(typed_flow):
    staff = UserFactory(username="staff", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_flow"))
    Membership.objects.create(workspace=typed_flow.workspace, user=staff, role="editor")
    client = Client()
    client.force_login(staff)

    page = client.get(change_url(typed_flow))

    assert page.status_code == 200
    assert TYPED not in page.text
    assert CREDENTIAL_VALUE not in page.text
    assert "Bearer [redacted]" in page.text
