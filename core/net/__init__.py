"""Outbound networking behind one wall: HTTP, SMTP, PostgreSQL and MCP
clients that refuse private addresses unless allowed (docs/security.md)."""
