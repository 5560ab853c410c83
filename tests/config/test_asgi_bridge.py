"""config.asgi_bridge: each request read whole on the event loop, then one thread."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

from config.asgi_bridge import FLUSH_BYTES, BufferedWSGI
from core.http.admission import QUEUED_AT_KEY


def scope(path="/api/webhooks/x", query=b"", headers=(), method="POST"):
    return {
        "type": "http",
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "root_path": "",
        "query_string": query,
        "headers": list(headers),
        "server": ("127.0.0.1", 8000),
        "client": ("10.0.0.7", 51000),
    }


class App:
    """A WSGI app that keeps the environ it saw and answers `body`."""

    def __init__(self, body=b'{"ok": true}'):
        self.environ = None
        self.body = body

    def __call__(self, environ, start_response):
        self.environ = environ
        self.read = environ["wsgi.input"].read()
        start_response("201 Created", [("Content-Type", "application/json")])
        return [self.body] if isinstance(self.body, bytes) else self.body


def run_loop(coroutine):
    """asyncio.run in a thread of its own: the suite's browser tests keep an
    event loop running in the main thread once they have started."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


class Sending:
    """What granian's `send` returns: an awaitable that is not a coroutine
    (`asyncio.run_coroutine_threadsafe` refused it: issue 35's 500s)."""

    def __await__(self):
        yield from ()


def serve(app, asgi_scope, messages, max_body_bytes=1000):
    """Run one request through the bridge: the messages it sent. Once
    `messages` are all received, `receive` waits, as for a client still there."""
    bridge = BufferedWSGI(app, threads=2, max_body_bytes=max_body_bytes)
    incoming = list(messages)
    sent = []

    async def receive():
        if not incoming:
            await asyncio.Event().wait()
        return incoming.pop(0)

    def send(message):
        sent.append(message)
        return Sending()

    run_loop(bridge(asgi_scope, receive, send))
    bridge.pool.shutdown()
    return sent


def body(chunk, more=False):
    return {"type": "http.request", "body": chunk, "more_body": more}


def test_the_app_gets_the_whole_body_and_a_wsgi_environ():
    app = App()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", b"13"),
        (b"x-request-id", b"abc"),
    ]

    sent = serve(
        app,
        scope(query=b"async=true", headers=headers),
        [body(b'{"name":', True), body(b' "Ada"}')],
    )

    assert app.read == b'{"name": "Ada"}'
    environ = app.environ
    assert environ["REQUEST_METHOD"] == "POST"
    assert environ["PATH_INFO"] == "/api/webhooks/x"
    assert environ["QUERY_STRING"] == "async=true"
    assert environ["CONTENT_TYPE"] == "application/json"
    assert environ["CONTENT_LENGTH"] == "15"  # what was read, not what was said
    assert environ["HTTP_X_REQUEST_ID"] == "abc"
    assert environ["REMOTE_ADDR"] == "10.0.0.7"
    assert environ["wsgi.url_scheme"] == "http"
    assert environ["wsgi.input_terminated"] is True
    assert isinstance(environ[QUEUED_AT_KEY], float)
    assert sent[0] == {
        "type": "http.response.start",
        "status": 201,
        "headers": [(b"content-type", b"application/json")],
    }
    assert sent[1]["body"] == b'{"ok": true}'


def test_a_non_ascii_path_reaches_django_as_wsgi_bytes():
    app = App()

    serve(app, scope(path="/caf\u00e9", method="GET"), [body(b"")])

    assert app.environ["PATH_INFO"].encode("latin-1").decode() == "/caf\u00e9"


def test_repeated_cookie_headers_are_joined_as_one():
    app = App()
    headers = [(b"cookie", b"a=1"), (b"cookie", b"b=2")]

    serve(app, scope(headers=headers, method="GET"), [body(b"")])

    assert app.environ["HTTP_COOKIE"] == "a=1; b=2"


def test_a_header_spelled_with_underscores_cannot_pose_as_another():
    # WSGI turns "-" into "_", so "X_Forwarded_For" would land on the same key
    # as the "X-Forwarded-For" a proxy sets (and does not strip under the other
    # spelling): behind Caddy, say, "real,spoofed" picks the spoofed address
    # for every per-address limit. gunicorn, nginx and Django's runserver drop
    # such headers; so does the bridge.
    app = App()
    headers = [
        (b"x-forwarded-for", b"10.0.0.1"),
        (b"x_forwarded_for", b"6.6.6.6"),
        (b"content_type", b"text/plain"),
    ]

    serve(app, scope(headers=headers, method="GET"), [body(b"")])

    assert app.environ["HTTP_X_FORWARDED_FOR"] == "10.0.0.1"
    assert "CONTENT_TYPE" not in app.environ


def test_a_body_over_the_limit_is_413_and_never_reaches_the_app():
    app = App()

    sent = serve(app, scope(), [body(b"x" * 600, True), body(b"x" * 600)])

    assert app.environ is None
    assert sent[0]["status"] == 413
    assert json.loads(sent[1]["body"])["error"]["code"] == "payload_too_large"


def test_a_declared_length_over_the_limit_is_413_before_reading():
    app = App()
    headers = [(b"content-length", b"5000")]

    sent = serve(app, scope(headers=headers), [])  # nothing to receive

    assert sent[0]["status"] == 413
    assert app.environ is None


def test_clients_trickling_big_bodies_cannot_make_a_process_hold_past_its_budget():
    # Each body is read whole before a thread takes it, so without a budget
    # granian's 512 connections per process, each trickling a body just under
    # the limit (5 MB by default), held 2.5 GB per process.
    app = App()
    bridge = BufferedWSGI(app, threads=2, max_body_bytes=1000)  # budget 16,000

    async def request(chunks, finish: asyncio.Event | None = None):
        incoming = list(chunks)
        sent = []

        async def receive():
            if finish is not None and len(incoming) < len(chunks):
                await finish.wait()  # a client that stops after its first chunk
            return incoming.pop(0)

        async def send(message):
            sent.append(message)

        await bridge(scope(), receive, send)
        return sent

    async def scenario():
        finish = asyncio.Event()
        slow = [
            asyncio.create_task(request([body(b"x" * 950, True), body(b"")], finish))
            for _ in range(16)
        ]
        await asyncio.sleep(0.05)
        refused = await request([body(b"y" * 900)])
        finish.set()
        served = await asyncio.gather(*slow)
        after = await request([body(b"z" * 900)])
        return refused, served, after

    refused, served, after = run_loop(scenario())
    bridge.pool.shutdown()

    assert refused[0]["status"] == 503
    assert ("retry-after", "1") in [
        (name.decode(), value.decode()) for name, value in refused[0]["headers"]
    ]
    assert json.loads(refused[1]["body"])["error"]["code"] == "unavailable"
    assert [sent[0]["status"] for sent in served] == [201] * 16
    assert after[0]["status"] == 201
    assert bridge.buffered == 0


def test_a_client_that_leaves_mid_body_runs_nothing():
    app = App()

    sent = serve(app, scope(), [body(b"{", True), {"type": "http.disconnect"}])

    assert app.environ is None
    assert sent == []


class Stream(App):
    """A streaming response (Django's `streaming`): `pieces` yielded one by
    one, each counted as produced; `closed` once the bridge closes it."""

    def __init__(self, pieces, file=False):
        super().__init__(body=self)
        self.pieces, self.produced, self.closed = pieces, 0, False
        self.streaming = True
        if file:
            self.file_to_stream = object()  # as Django's FileResponse has

    def __iter__(self):
        for piece in self.pieces:
            self.produced += 1
            yield piece

    def close(self):
        self.closed = True


def test_a_big_answer_goes_out_in_pieces_and_whole():
    piece = b"y" * (FLUSH_BYTES // 2)
    app = App(body=[piece] * 5)

    sent = serve(app, scope(method="GET"), [body(b"")])

    assert sent[0]["status"] == 201
    parts = [message["body"] for message in sent[1:]]
    assert len(parts) > 1
    assert b"".join(parts) == piece * 5
    assert [message["more_body"] for message in sent[1:]][-1] is False


def test_each_piece_of_a_stream_goes_out_as_it_is_made():
    events = [b"event: token\ndata: %d\n\n" % n for n in range(3)]
    app = Stream(events)

    sent = serve(app, scope(method="GET"), [body(b"")])

    assert sent[0]["status"] == 201
    assert [m["body"] for m in sent[1:4]] == events
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    assert app.closed


def test_a_files_small_blocks_are_gathered_into_big_pieces():
    block = b"z" * 4096
    app = Stream([block] * 200, file=True)

    sent = serve(app, scope(method="GET"), [body(b"")])

    parts = [m["body"] for m in sent[1:]]
    assert b"".join(parts) == block * 200
    assert len(parts) == 4  # 800 KiB: three full pieces and the rest
    assert max(len(part) for part in parts) <= FLUSH_BYTES + len(block)


def test_a_stream_whose_client_left_is_closed_without_making_the_rest():
    app = Stream([b"data: %d\n\n" % n for n in range(100)])

    sent = serve(app, scope(method="GET"), [body(b""), {"type": "http.disconnect"}])

    assert sent[0]["type"] == "http.response.start"
    assert app.closed
    assert app.produced < 100


def test_the_servers_lifespan_messages_are_acknowledged():
    messages = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]

    sent = serve(App(), {"type": "lifespan"}, messages)

    assert [m["type"] for m in sent] == [
        "lifespan.startup.complete",
        "lifespan.shutdown.complete",
    ]
