"""The JSON API of flows, runs, pins and schedules: serializers, viewsets, the
router (`urls.py`) and what only a request needs (run filters, export/import).
The engine below it knows nothing of requests."""
