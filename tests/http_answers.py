"""A loopback API that pages, throttles, errs, serves files and takes
uploads, for the http_request node's pagination, Retry-After, response
formats, error answers and files: fixture `api_server` (with
`allow_loopback` from tests/http_server.py).

Its listings hold ITEMS numbered 1 to 5, PER_PAGE to a page. Every request's
path and headers are kept in `server.seen`, in order (a POST's raw body too).
"""

from __future__ import annotations

import json
import re
import threading
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.http_server import Handler, QuietServer

ITEMS = [{"n": n} for n in range(1, 6)]
PNG_BYTES = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"
PER_PAGE = 2


class ApiHandler(Handler):
    def do_GET(self):
        parts = urlsplit(self.path)
        self.server.seen.append({"path": self.path, "headers": dict(self.headers)})
        query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        answer = getattr(
            self,
            "answer_" + re.sub(r"[-/.]", "_", parts.path.strip("/")),
            None,
        )
        if answer is None:
            self.reply(404, b'{"error": "nope"}')
        else:
            answer(query, parts.query)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        self.server.seen.append(
            {
                "path": self.path,
                "headers": dict(self.headers),
                "body": self.rfile.read(length),
            }
        )
        self.send_json({"received": length})

    do_PUT = do_POST

    def send_json(self, value, status=200, extra=()):
        self.reply(status, json.dumps(value).encode(), extra=extra)

    def answer_echo(self, query, raw_query):
        self.send_json({"query": raw_query})

    # Listings ----------------------------------------------------------------

    def answer_link(self, query, raw_query):
        """The page's items as a bare list; Link names the next and the last."""
        page = int(query.get("page", 1))
        links = [f'</link?page={(len(ITEMS) + PER_PAGE - 1) // PER_PAGE}>; rel="last"']
        if page * PER_PAGE < len(ITEMS):
            links.insert(0, f'<link?page={page + 1}>; rel="next prefetch"')
        self.send_json(_page(page), extra=[("Link", ", ".join(links))])

    def answer_link_away(self, query, raw_query):
        port = self.server.server_address[1]
        next_page = f'<http://localhost:{port}/link?page=2>; rel="next"'
        self.send_json(_page(1), extra=[("Link", next_page)])

    def answer_cursor(self, query, raw_query):
        """`{data: {rows}, meta: {next}}`; the cursor is the next item's number."""
        start = int(query.get("after", 0))
        rows = ITEMS[start : start + PER_PAGE]
        after = start + PER_PAGE if start + PER_PAGE < len(ITEMS) else None
        self.send_json({"data": {"rows": rows}, "meta": {"next": after}})

    def answer_cursor_object(self, query, raw_query):
        self.send_json({"rows": [1], "next": {"token": "x"}})

    def answer_pages(self, query, raw_query):
        """`{results}` for page 1 on; pages past the items are empty."""
        self.send_json({"results": _page(int(query.get("page", 1)))})

    def answer_endless(self, query, raw_query):
        page = int(query.get("page", 1))
        self.send_json(
            {"results": [page], "next": page + 1},
            extra=[("Link", f'</endless?page={page + 1}>; rel="next"')],
        )

    def answer_fail_on_page_2(self, query, raw_query):
        if query.get("page") == "2":
            self.send_json({"error": "page 2 is broken"}, status=500)
        else:
            self.send_json({"results": [1]})

    # Errors, throttling, formats ---------------------------------------------

    def answer_status(self, query, raw_query):
        """Status `code` with `body` as text (or `size` bytes of "e")."""
        body = query.get("body", "e" * int(query.get("size", 0)))
        self.reply(int(query["code"]), body.encode(), "text/plain")

    def answer_throttled(self, query, raw_query):
        """`code` (429) with Retry-After `after` for the first `times` calls."""
        calls = sum(
            1 for hit in self.server.seen if hit["path"].startswith("/throttled")
        )
        if calls <= int(query.get("times", 1)):
            after = query.get("after")
            if after == "date":
                when = datetime.now(UTC) + timedelta(seconds=2)
                after = format_datetime(when, usegmt=True)
            extra = [("Retry-After", after)] if after is not None else []
            self.send_json(
                {"slow": "down"}, status=int(query.get("code", 429)), extra=extra
            )
        else:
            self.send_json({"call": calls})

    def answer_bad_json(self, query, raw_query):
        self.reply(200, b"{not json", "application/json")

    def answer_json_as_text(self, query, raw_query):
        self.reply(200, b'{"a": 1}', "text/plain")

    def answer_empty(self, query, raw_query):
        self.reply(200, b"", "text/plain")

    # Files ---------------------------------------------------------------------

    def answer_files_chart_png(self, query, raw_query):
        """PNG_BYTES as `type` (image/png) with `status` (200) and Content-Disposition
        `disposition` (none)."""
        extra = (
            [("Content-Disposition", query["disposition"])]
            if ("disposition" in query)
            else []
        )
        status, content_type = int(query.get("status", 200)), query.get("type")
        self.reply(status, PNG_BYTES, content_type or "image/png", extra=extra)

    def answer_files_big_bin(self, query, raw_query):
        self.reply(200, b"\0" * int(query["size"]), "application/octet-stream")


def _page(page: int) -> list:
    return ITEMS[(page - 1) * PER_PAGE : page * PER_PAGE] if page > 0 else []


@pytest.fixture
def api_server():
    httpd = QuietServer(("127.0.0.1", 0), ApiHandler)
    httpd.seen = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
