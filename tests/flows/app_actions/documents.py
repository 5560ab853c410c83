"""Small OpenAPI documents for the apps tests, and a loopback server of them."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import yaml

WIDGETS = {
    "openapi": "3.1.0",
    "info": {"title": "Widgets", "version": "1"},
    "servers": [{"url": "https://widgets.example.com/v1"}],
    "components": {
        "securitySchemes": {"key": {"type": "apiKey", "in": "query", "name": "key"}},
        "schemas": {
            "Widget": {"type": "object", "properties": {"name": {"type": "string"}}}
        },
    },
    "security": [{"key": []}],
    "paths": {
        "/widgets/{id}": {
            "get": {
                "operationId": "getWidget",
                "summary": "Get a widget",
                "parameters": [
                    {
                        "name": "id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": {
                    "200": {
                        "description": "The widget.",
                        "content": {
                            "application/json": {
                                "schema": {"$ref": "#/components/schemas/Widget"}
                            }
                        },
                    }
                },
            }
        }
    },
}


def widgets_yaml(**info) -> bytes:
    document = {**WIDGETS, "info": {**WIDGETS["info"], **info}}
    return yaml.safe_dump(document).encode()


def looping() -> dict:
    document = yaml.safe_load(widgets_yaml(title="Loops"))
    document["components"]["schemas"]["Widget"] = {"$ref": "#/components/schemas/Part"}
    document["components"]["schemas"]["Part"] = {"$ref": "#/components/schemas/Widget"}
    return document


class DocumentServer(ThreadingHTTPServer):
    """Answers GET /<name> with `documents[name]` (404 for others);
    `requested` lists the paths asked for."""

    def __init__(self, documents: dict[str, bytes]):
        self.documents = documents
        self.requested: list[str] = []
        requested = self.requested

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802
                requested.append(self.path)
                body = documents.get(self.path.lstrip("/"))
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "application/yaml")
                self.end_headers()
                self.wfile.write(body or b"no such document")

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/{name}"
