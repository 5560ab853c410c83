"""The admin's path is a setting (ADMIN_URL), and ADMIN_ALLOWED_NETWORKS keeps
it to some addresses (issue 27): scanners looking for /admin/ find nothing."""

from __future__ import annotations

import importlib

import pytest
from django.urls import clear_url_caches

import config.urls

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_at(settings):
    def move(path: str):
        settings.ADMIN_URL = path
        clear_url_caches()
        importlib.reload(config.urls)

    yield move
    settings.ADMIN_URL = "admin/"
    clear_url_caches()
    importlib.reload(config.urls)


def test_the_admin_lives_at_admin_url_and_not_at_admin(admin_at, admin_client):
    admin_at("backstage-7f3a/")

    assert admin_client.get("/backstage-7f3a/").status_code == 200
    assert admin_client.get("/admin/").status_code == 404


def test_outside_the_allowed_networks_the_admin_does_not_exist(settings, admin_client):
    settings.ADMIN_ALLOWED_NETWORKS = ["10.0.0.0/8"]

    outside = admin_client.get("/admin/", REMOTE_ADDR="203.0.113.9")
    inside = admin_client.get("/admin/", REMOTE_ADDR="10.1.2.3")

    assert outside.status_code == 404
    assert inside.status_code == 200


def test_with_no_allowed_networks_every_address_reaches_it(settings, admin_client):
    settings.ADMIN_ALLOWED_NETWORKS = []

    assert admin_client.get("/admin/", REMOTE_ADDR="203.0.113.9").status_code == 200
