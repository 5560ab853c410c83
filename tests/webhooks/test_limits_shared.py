"""With REDIS_URL the per-flow limit is one budget for every process."""

from __future__ import annotations

import pytest
import redis

from tests.factories import FlowFactory
from tests.processes import run_python
from tests.webhooks.conftest import webhook_runs

pytestmark = pytest.mark.processes

REDIS_URL = "redis://127.0.0.1:6379/14"

# Run by a separate Python process with its own Redis client and Django setup.
SPEND_BUDGET = """
import sys
import django
django.setup()
from core.http.errors import Throttled
from webhooks.limits import check_rate

for _ in range(int(sys.argv[2])):
    check_rate(sys.argv[1])
try:
    check_rate(sys.argv[1])
except Throttled:
    print("throttled")
"""


@pytest.fixture
def flow(alice, settings):
    """A flow allowed 3 requests a day (no window edge mid-test), counted in Redis."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
        }
    }
    settings.WEBHOOK_RATE_LIMIT = "3/d"
    flow = FlowFactory(created_by=alice)
    yield flow
    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(f"*webhook:{flow.id}*"):
        client.delete(key)


def spend_in_another_process(flow, count: int) -> str:
    """Spend `count` of the flow's budget elsewhere; "throttled" if one more is over."""
    env = {"REDIS_URL": REDIS_URL, "WEBHOOK_RATE_LIMIT": "3/d"}
    output = run_python(SPEND_BUDGET, str(flow.id), str(count), env=env, timeout=60)
    return output.strip()


def test_requests_counted_by_another_process_throttle_this_one(sender, flow):
    other_process = spend_in_another_process(flow, 1)  # 2 of 3 spent there
    first = sender.post_json(f"/api/webhooks/{flow.id}", {"name": "Ada"})
    second = sender.post_json(f"/api/webhooks/{flow.id}", {"name": "Ada"})

    assert other_process == ""
    assert first.status == 200
    assert second.status == 429
    assert second.error_code == "throttled"
    assert int(second.headers["Retry-After"]) >= 1
    assert webhook_runs(flow) == 1


def test_this_process_spending_the_budget_throttles_another(sender, flow):
    statuses = [
        sender.post_json(f"/api/webhooks/{flow.id}", {"name": "Ada"}).status
        for _ in range(3)
    ]

    assert statuses == [200, 200, 200]
    assert spend_in_another_process(flow, 0) == "throttled"
    assert webhook_runs(flow) == 3


def test_the_counter_in_redis_expires_with_its_window(sender, flow):
    sender.post_json(f"/api/webhooks/{flow.id}", {"name": "Ada"})

    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(f"*webhook:{flow.id}*"))
    assert len(keys) == 1
    assert client.get(keys[0]) == b"1"
    assert 0 < client.ttl(keys[0]) <= 86400 + 1
