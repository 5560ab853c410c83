"""Only superusers change who is staff, superuser, or holds permissions.

Staff with the `change_user` permission manage users' names and e-mail, but
cannot raise anyone's rights, their own included.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.test import Client

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

FLAGS = ("is_superuser", "is_staff", "user_permissions", "groups")


@pytest.fixture
def helpdesk():
    """Staff, not superuser, allowed to view and change users."""
    user = UserFactory(username="helpdesk", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_user", "change_user"])
    )
    return user


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def posted(client, user, **changes) -> dict:
    form = client.get(f"/admin/auth/user/{user.pk}/change/").context["adminform"].form
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value is True:
            data[name] = "on"
        elif isinstance(value, datetime):  # the admin's split date and time
            data[f"{name}_0"] = value.date().isoformat()
            data[f"{name}_1"] = value.strftime("%H:%M:%S")
        elif isinstance(value, list):
            data[name] = [str(item) for item in value]
        elif value not in (None, False):
            data[name] = value
    data.update(changes)
    return data


def test_staff_cannot_make_themselves_superuser(helpdesk):
    client = client_for(helpdesk)
    everything = [str(p.pk) for p in Permission.objects.all()[:5]]
    group = Group.objects.create(name="admins")
    data = posted(
        client,
        helpdesk,
        first_name="Help",
        is_superuser="on",
        user_permissions=everything,
        groups=[str(group.pk)],
    )

    response = client.post(f"/admin/auth/user/{helpdesk.pk}/change/", data)

    assert response.status_code == 302
    helpdesk.refresh_from_db()
    assert helpdesk.first_name == "Help"
    assert helpdesk.is_superuser is False
    assert list(helpdesk.groups.all()) == []
    assert set(helpdesk.user_permissions.values_list("codename", flat=True)) == {
        "view_user",
        "change_user",
    }


def test_staff_cannot_make_another_user_staff(helpdesk):
    bob = UserFactory(username="bob")
    client = client_for(helpdesk)

    client.post(
        f"/admin/auth/user/{bob.pk}/change/", posted(client, bob, is_staff="on")
    )

    bob.refresh_from_db()
    assert bob.is_staff is False


def test_staff_see_the_permission_flags_read_only(helpdesk):
    response = client_for(helpdesk).get(f"/admin/auth/user/{helpdesk.pk}/change/")

    form = response.context["adminform"].form
    assert response.status_code == 200
    assert not set(FLAGS) & set(form.fields)


def test_a_superuser_can_still_grant_staff(db):
    root = UserFactory(username="root", is_staff=True, is_superuser=True)
    bob = UserFactory(username="bob")
    client = client_for(root)

    response = client.post(
        f"/admin/auth/user/{bob.pk}/change/", posted(client, bob, is_staff="on")
    )

    assert response.status_code == 302
    assert User.objects.get(pk=bob.pk).is_staff is True


@pytest.fixture
def root(db):
    return UserFactory(username="root", is_staff=True, is_superuser=True)


def test_staff_cannot_set_a_superusers_password_and_sign_in_as_them(helpdesk, root):
    client = client_for(helpdesk)

    response = client.post(
        f"/admin/auth/user/{root.pk}/password/",
        {"password1": "taken over 12345", "password2": "taken over 12345"},
    )

    assert response.status_code == 403
    assert not Client().login(username="root", password="taken over 12345")
    assert Client().login(username="root", password=PASSWORD)


def test_staff_cannot_change_or_deactivate_a_superuser(helpdesk, root):
    client = client_for(helpdesk)

    page = client.get(f"/admin/auth/user/{root.pk}/change/")
    client.post(
        f"/admin/auth/user/{root.pk}/change/",
        {"username": "root", "is_active": "", "email": "evil@example.com"},
    )

    root.refresh_from_db()
    assert (root.is_active, root.email) == (True, "root@example.com")
    assert page.status_code == 200  # still viewable
    assert page.context["has_change_permission"] is False
    deleting = client.post(f"/admin/auth/user/{root.pk}/delete/", {"post": "yes"})
    assert deleting.status_code == 403
    assert User.objects.filter(pk=root.pk).exists()


def test_a_superuser_can_set_another_superusers_password(root):
    other = UserFactory(username="other", is_staff=True, is_superuser=True)

    response = client_for(root).post(
        f"/admin/auth/user/{other.pk}/password/",
        {"password1": "a new one 12345", "password2": "a new one 12345"},
    )

    assert response.status_code == 302
    assert Client().login(username="other", password="a new one 12345")
