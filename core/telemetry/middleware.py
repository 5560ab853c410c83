"""The request id: taken from `X-Request-ID` when it is sane, else made here.

Set for the whole request (every log line carries it) and returned in the
response's `X-Request-ID`, so a client, a proxy and our logs name the same
request. A sender's id is accepted only if it is short and made of safe
characters: anything else could forge log fields or carry a secret.
"""

from __future__ import annotations

import re
import uuid

from django.core.signals import request_finished
from django.dispatch import receiver
from django_prometheus.middleware import Metrics, PrometheusAfterMiddleware
from django_prometheus.utils import Time, TimeSince

from core.telemetry import context

HEADER = "X-Request-ID"
SANE_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


def request_id_of(request) -> str:
    given = request.headers.get(HEADER, "")
    if SANE_ID.fullmatch(given):
        return given
    return uuid.uuid4().hex


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = request_id_of(request)
        request.request_id = request_id
        context.set_request_id(request_id)
        response = self.get_response(request)
        response[HEADER] = request_id
        return response


@receiver(request_finished)
def _forget_request_id(sender, **kwargs):
    context.set_request_id(None)


# Registered here, once, while Python holds this module's import lock:
# django-prometheus makes them on a middleware's first construction, without a
# lock, so threads loading Django's handler at once (a server's first
# requests) registered them twice: `DuplicateTimeseries`.
METRICS = Metrics.get_instance()


class RequestMetricsMiddleware(PrometheusAfterMiddleware):
    """django-prometheus' request metrics, trimmed to what an operator reads.

    Its two middlewares make twelve metric updates per request (bodies,
    charsets, transports, before/after latencies); this keeps two: responses
    by status, view and method, and latency by view and method. That halves
    the cost of counting on the webhook's hot path (bench/README.md,
    "Metrics on the hot path").
    """

    def __init__(self, get_response):
        super(PrometheusAfterMiddleware, self).__init__(get_response)
        self.metrics = METRICS

    def process_request(self, request):
        request.prometheus_after_middleware_event = Time()

    def process_view(self, request, view_func, *view_args, **view_kwargs):
        return None

    def process_template_response(self, request, response):
        return response

    def process_response(self, request, response):
        method = self._method(request)
        view = self._get_view_name(request)
        self.metrics.responses_by_status_view_method.labels(
            status=str(response.status_code), view=view, method=method
        ).inc()
        started = getattr(request, "prometheus_after_middleware_event", None)
        if started is not None:
            self.metrics.requests_latency_by_view_method.labels(
                view=view, method=method
            ).observe(TimeSince(started))
        return response

    def process_exception(self, request, exception):
        self.metrics.exceptions_by_type.labels(type=type(exception).__name__).inc()
