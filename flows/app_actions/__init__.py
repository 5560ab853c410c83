"""Apps: OpenAPI 3.0/3.1 documents whose operations are the app_action node's
actions (docs/apps.md). Vendored documents live in `flows/app_actions/documents/`,
uploaded ones in `UploadedApp`, plugins' come from the `weir.apps` entry points."""
