"""The foundation: HTTP plumbing, telemetry, crypto, redaction and outbound
networking. It imports no app (docs/architecture.md)."""
