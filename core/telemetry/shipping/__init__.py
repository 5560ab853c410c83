"""Log streaming (docs/operations.md, "Log streaming"): audit events and run
outcomes also sent to a syslog server (RFC 5424 over UDP or TCP) or an HTTP
endpoint (JSON lines), batched and retried, never blocking the caller.

`handler.ShippingHandler` is a logging handler on the `weir.audit` and
`weir.runs` loggers (config/log_stream_settings.py adds it to LOGGING); each
destination has its own `shipper.Shipper`, a bounded in-process queue drained
by a background thread; `destinations` speaks the protocols.
"""
