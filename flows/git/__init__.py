"""Flows as files (docs/git.md): a workspace's flows as a directory of JSON
files that can live in git, written by `manage.py flows export-dir` and applied
by `flows import-dir` or `POST /api/workspaces/:id/sync`. `files` is the file
format, `sync` the plan and its application, `api` the endpoint for CI."""
