"""The stylesheets: each at most 400 lines with one job, and every page given
all of them in one order (a later file wins a tie, so the order is part of the
look: base, builder, runs, agents, pages, then theme and phone)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

STATIC_CSS = Path(settings.BASE_DIR) / "static" / "css"
TEMPLATES = Path(settings.BASE_DIR) / "templates"
SHARED = ["base", "builder", "runs", "agents", "pages"]
LINK = re.compile(
    r"""<link rel="stylesheet" href="[^"]*?css/(\w+)(?:\.[0-9a-f]+)?\.css"""
)


def test_no_stylesheet_is_longer_than_400_lines():
    lengths = {
        path.name: len(path.read_text().splitlines())
        for path in STATIC_CSS.glob("*.css")
    }

    assert lengths and max(lengths.values()) <= 400, lengths


@pytest.mark.django_db
def test_a_page_loads_every_stylesheet_in_order(anon):
    html = anon.get("/login/").content.decode()

    assert LINK.findall(html) == [*SHARED, "theme", "phone"]
    assert all((STATIC_CSS / f"{name}.css").is_file() for name in SHARED)


def test_the_hosted_chat_loads_the_shared_stylesheets_in_the_same_order():
    page = (TEMPLATES / "agents" / "public_chat.html").read_text()

    assert LINK.findall(page) == SHARED
