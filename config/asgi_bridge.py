"""Django's WSGI app behind an ASGI server, each request read whole before a thread.

Why (docs/decisions.md, "The web server"): a thread-per-request server hands a
connection to a thread as soon as it is readable, and the thread then waits
for the rest of the request. 24 clients trickling a webhook at a byte a second
held all of gunicorn's threads, and granian's own WSGI interface reads the
body on the thread too. Here the ASGI server (granian) parses the headers and
this bridge reads the body on the event loop, where a waiting client costs a
few hundred bytes; only a complete request takes one of `WEB_THREADS` threads,
and the answer goes back to the client from the event loop after the thread is
free, so a slow reader holds no thread either.

Also what gunicorn's `config.gunicorn.QueueStampingWorker` does: each request
is stamped (`weir.queued_at`) when it starts waiting for a thread, so
admission control can refuse a run that waited too long. The threads are a
fixed pool, so Django's persistent database connections work as under
gunicorn (Django's own ASGI handler gives each request a new thread).
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from core.http.admission import QUEUED_AT_KEY

# A large answer is sent in pieces of at most this many bytes, and a file's
# blocks are gathered into pieces this big.
FLUSH_BYTES = 256 * 1024
# A client that takes none of a piece for this long is let go.
SEND_TIMEOUT_SECONDS = 30
TOO_LARGE = json.dumps(
    {
        "error": {
            "code": "payload_too_large",
            "message": "The request body is too large.",
        }
    }
).encode()


BUSY = json.dumps(
    {
        "error": {
            "code": "unavailable",
            "message": "The server is reading as many request bodies as it can "
            "hold; try again shortly.",
        }
    }
).encode()


class ClientLeft(Exception):
    """The client closed the connection before its request was whole."""


class BuffersFull(Exception):
    """Reading this body would take the process past `max_buffered_bytes`."""


class BufferedWSGI:
    """An ASGI application running `wsgi_app` on a pool of `threads` threads."""

    def __init__(
        self,
        wsgi_app: Callable,
        *,
        threads: int,
        max_body_bytes: int,
        max_buffered_bytes: int | None = None,
    ):
        self.wsgi_app = wsgi_app
        self.max_body_bytes = max_body_bytes
        # The bodies of every request in hand together (being read, waiting for
        # a thread, running): without a bound, clients trickling bodies just
        # under the limit on the server's 512 connections per process held
        # gigabytes. Counted on the event loop only, so no lock.
        self.max_buffered_bytes = max_buffered_bytes or 16 * max_body_bytes
        self.buffered = 0
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="weir-web")

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # no websockets: the server answers 403
        held = [0]  # this request's bytes in `self.buffered`
        try:
            await self._serve(scope, receive, send, held)
        finally:
            self.buffered -= held[0]

    async def _serve(self, scope, receive, send, held: list[int]) -> None:
        try:
            body = await self._read_body(scope, receive, held)
        except ClientLeft:
            return  # nothing to answer, and nothing was run
        except BuffersFull:
            headers = [(b"content-type", b"application/json"), (b"retry-after", b"1")]
            await _answer(send, 503, headers, BUSY)
            return
        if body is None:
            await _answer(
                send, 413, [(b"content-type", b"application/json")], TOO_LARGE
            )
            return
        environ = wsgi_environ(scope, body)
        environ[QUEUED_AT_KEY] = time.time()
        loop = asyncio.get_running_loop()
        status, headers, rest = await loop.run_in_executor(
            self.pool, self._call, environ, send, receive, loop
        )
        if status is not None:  # else the thread relayed a stream
            await _answer(send, status, headers, rest)

    async def _read_body(self, scope, receive, held: list[int]) -> bytes | None:
        """The whole body, or None when it is larger than allowed; each chunk
        counted in `held` and `self.buffered` (BuffersFull past the budget)."""
        for name, value in scope["headers"]:
            if (
                name == b"content-length"
                and value.isdigit()
                and int(value) > self.max_body_bytes
            ):
                return None
        chunks = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise ClientLeft
            chunk = message.get("body", b"")
            if held[0] + len(chunk) > self.max_body_bytes:
                return None
            if self.buffered + len(chunk) > self.max_buffered_bytes:
                raise BuffersFull
            self.buffered += len(chunk)
            held[0] += len(chunk)
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _call(self, environ, send, receive, loop):
        """Run the WSGI app on this thread. Returns (status, headers, body) for
        the loop to send, or (None, None, None) once a streaming response was
        relayed from here."""
        answer: dict = {}

        def start_response(status, headers, exc_info=None):
            answer["status"] = int(status.split(" ", 1)[0])
            answer["headers"] = [
                (name.lower().encode("latin-1"), value.encode("latin-1"))
                for name, value in headers
            ]

        result = self.wsgi_app(environ, start_response)
        try:
            if not getattr(result, "streaming", False):
                # Whole in memory already: the loop sends it, so a client slow
                # to read it holds no thread.
                return answer["status"], answer["headers"], b"".join(result)
            _Relay(loop, send, receive, answer).relay(result)
            return None, None, None
        finally:
            if hasattr(result, "close"):
                result.close()  # a chat turn whose caller left stops here


class _Relay:
    """A streaming response sent from its thread as the app yields it.

    Each piece goes out at once (an SSE event must not wait for the next one),
    except a file's small blocks, gathered up to FLUSH_BYTES. From the first
    byte a task on the loop waits for the client to leave; the next piece then
    raises ClientLeft here, and closing the response stops the work behind it.
    """

    def __init__(self, loop, send, receive, answer: dict):
        self.loop, self.send, self.receive = loop, send, receive
        self.answer = answer
        self.gone: asyncio.Task | None = None

    def relay(self, result) -> None:
        gather = hasattr(result, "file_to_stream")
        pending, size = [], 0
        try:
            self._now(self._start())
            for chunk in result:
                pending.append(chunk)
                size += len(chunk)
                if size >= FLUSH_BYTES or (chunk and not gather):
                    self._now(self._piece(b"".join(pending), more=True))
                    pending, size = [], 0
            self._now(self._piece(b"".join(pending), more=False))
        except (ClientLeft, TimeoutError):
            pass  # nobody to send the rest to
        finally:
            if self.gone is not None:
                self.loop.call_soon_threadsafe(self.gone.cancel)

    def _now(self, coroutine) -> None:
        asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    async def _start(self) -> None:
        self.gone = asyncio.ensure_future(self.receive())
        await self.send(
            {
                "type": "http.response.start",
                "status": self.answer["status"],
                "headers": self.answer["headers"],
            }
        )

    async def _piece(self, body: bytes, more: bool) -> None:
        if self.gone.done():
            raise ClientLeft
        message = {"type": "http.response.body", "body": body, "more_body": more}
        await asyncio.wait_for(_awaited(self.send(message)), SEND_TIMEOUT_SECONDS)


async def _awaited(awaitable) -> None:
    """The server's `send` as a coroutine: granian's returns an awaitable that
    is not one, which `asyncio.wait_for` and `run_coroutine_threadsafe` refuse."""
    await awaitable


def wsgi_environ(scope, body: bytes) -> dict:
    """PEP 3333's environ for an ASGI HTTP scope and its whole body."""
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("", 0)
    environ = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": scope.get("root_path", "").encode().decode("latin-1"),
        "PATH_INFO": scope["path"].encode().decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": str(client[0]),
        "REMOTE_PORT": str(client[1]),
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.input_terminated": True,  # the whole body is in hand
    }
    for raw_name, raw_value in scope["headers"]:
        if b"_" in raw_name:
            # "X_Forwarded_For" would land on the key of the "X-Forwarded-For"
            # a proxy set, past a proxy that strips only the dashed spelling.
            # Dropped, as gunicorn, nginx and Django's runserver drop it.
            continue
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        if name == "CONTENT_LENGTH":
            continue  # the body's real length, set above
        key = name if name == "CONTENT_TYPE" else f"HTTP_{name}"
        if key in environ:  # a repeated header: one value, as a proxy would join it
            value = environ[key] + ("; " if key == "HTTP_COOKIE" else ",") + value
        environ[key] = value
    return environ


async def _answer(send, status: int, headers, body: bytes) -> None:
    """A whole answer. A large one goes in FLUSH_BYTES pieces, each given
    SEND_TIMEOUT_SECONDS to be taken: a client that stops reading is let go
    with its answer, not kept in memory for as long as it stays connected."""
    await send({"type": "http.response.start", "status": status, "headers": headers})
    if len(body) <= FLUSH_BYTES:
        await send({"type": "http.response.body", "body": body})
        return
    view = memoryview(body)
    for start in range(0, len(body), FLUSH_BYTES):
        piece = bytes(view[start : start + FLUSH_BYTES])
        more = start + FLUSH_BYTES < len(body)
        message = {"type": "http.response.body", "body": piece, "more_body": more}
        try:
            await asyncio.wait_for(_awaited(send(message)), SEND_TIMEOUT_SECONDS)
        except TimeoutError:
            return


async def _lifespan(receive, send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
