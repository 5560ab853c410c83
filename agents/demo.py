"""The demo agent `manage.py seed_demo` adds, hooked in by `AgentsConfig.ready()`."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError

from agents.models import Agent, validate_model_string
from knowledge.demo import seed_weir_docs


def seed_demo_agent(user, flow, stdout) -> Agent:
    """The offline `Echo` agent, owned by `user`, with the demo `flow` as its tool
    and Weir's docs as its knowledge base, published at /c/echo.

    Created once; DEMO_AGENT_MODEL (one setting) moves it to a real model on
    any later seed, and unpublishes it: a stranger's chat would then spend the
    operator's money.
    """
    agent, created = Agent.objects.get_or_create(
        name="Echo",
        defaults={
            "created_by": user,
            "model": "echo:demo",
            "description": "Offline demo agent: answers without any network.",
            "system_prompt": "You are a helpful assistant.",
            "shared": True,
            "published": True,
            "public_slug": "echo",
            "allowed_origins": [_origin_of(settings.BASE_URL)],
        },
    )
    if created:
        agent.tools.add(flow)
        stdout.write(
            "  Demo agent 'Echo' (model echo:demo), published: "
            f"{settings.BASE_URL.rstrip('/')}/c/echo"
        )
    if not agent.knowledge_bases.exists():
        agent.knowledge_bases.add(seed_weir_docs(user, agent.workspace, stdout))
    _apply_demo_agent_model(agent, stdout)
    return agent


def _apply_demo_agent_model(agent: Agent, stdout) -> None:
    model = settings.DEMO_AGENT_MODEL
    if not model or agent.model == model:
        return
    try:
        validate_model_string(model)
    except ValidationError:
        raise CommandError(
            f"DEMO_AGENT_MODEL={model!r} is not provider:model-name."
        ) from None
    agent.model = model
    agent.published = False
    agent.save(update_fields=["model", "published", "updated_at"])
    stdout.write(f"  Demo agent '{agent.name}' now uses {model} (unpublished).")


def _origin_of(url: str) -> str:
    """The origin a browser sends for pages of `url` (scheme://host[:port])."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
