"""Server-rendered pages for agents."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from agents.models import Agent


@login_required
def agent_list(request):
    return render(request, "agents/list.html", {"agents": Agent.objects.active()})
