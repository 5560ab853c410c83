"""Weir's settings plus the benchmark's reference view; loaded only by bench/webhook.sh.

Production never imports this module, so the unauthenticated `/bench/bare`
endpoint exists only on the throwaway server the benchmark starts.
"""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.bench_urls"
