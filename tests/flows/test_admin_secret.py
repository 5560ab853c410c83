"""The flow form in admin never shows the webhook signing secret: it is shown
once, in the builder, when it is made. Admins can replace or remove it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from flows.models import Flow
from tests.factories import FlowFactory, UserFactory

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
