"""Which request paths belong to the HTTP API (JSON errors) rather than the console
(HTML pages): everything under ``/connect/`` and ``/worker/``, except the worker's
console page ``/worker/console``."""

from __future__ import annotations

from typing import Final

API_PATH_PREFIXES: Final = ("/connect/", "/worker/")
# Console pages that live under an API prefix (config/urls.py).
CONSOLE_PATHS_UNDER_API: Final = ("/worker/console",)


def is_api_path(path: str) -> bool:
    return path.startswith(API_PATH_PREFIXES) and not path.startswith(CONSOLE_PATHS_UNDER_API)
