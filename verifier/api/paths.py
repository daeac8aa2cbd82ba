"""Which request paths belong to the HTTP API (JSON errors) rather than the console
(HTML pages): ``/connect/v1/...`` and ``POST /worker/verify``."""

from __future__ import annotations

from typing import Final

API_PATH_PREFIXES: Final = ("/connect/", "/worker/verify")


def is_api_path(path: str) -> bool:
    return path.startswith(API_PATH_PREFIXES)
