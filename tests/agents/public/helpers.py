"""A published agent and a visitor's calls to its public routes (no sign-in)."""

from __future__ import annotations

from django.test import Client

from tests.factories import AgentFactory

HOST_SITE = "https://shop.example.com"


def published_agent(**fields):
    fields = {
        "name": "Helper",
        "model": "echo:demo",
        "published": True,
        "public_slug": "helper",
        "allowed_origins": [HOST_SITE],
        "shared": False,
        **fields,
    }
    return AgentFactory(**fields)


class Visitor:
    """A browser with no Weir account: a token from the agent's session route."""

    def __init__(self, agent, origin: str | None = None):
        self.client = Client()
        self.slug = agent.public_slug
        self.origin = origin
        self.token = self.session().json()["token"]

    def headers(self, **extra) -> dict:
        headers = {"X-Visitor-Token": getattr(self, "token", ""), **extra}
        if self.origin:
            headers["Origin"] = self.origin
        return headers

    def session(self):
        return self.client.post(f"/c/{self.slug}/session", headers=self.headers())

    def chat(self, content, conversation_id=None, **headers):
        body = {"content": content}
        if conversation_id:
            body["conversation_id"] = conversation_id
        return self.client.post(
            f"/c/{self.slug}/chat",
            body,
            content_type="application/json",
            headers=self.headers(**headers),
        )

    def conversation(self, conversation_id):
        return self.client.get(
            f"/c/{self.slug}/conversations/{conversation_id}", headers=self.headers()
        )
