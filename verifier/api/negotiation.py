"""Content negotiation for downloads whose ``?format=`` names the file's format."""

from __future__ import annotations

from typing import Any

from rest_framework.negotiation import DefaultContentNegotiation


class IgnoreFormatParam(DefaultContentNegotiation):
    """``?format=`` names the export format here, not a DRF renderer: the view's first
    renderer answers."""

    def select_renderer(
        self, request: Any, renderers: Any, format_suffix: Any = None
    ) -> tuple[Any, str]:
        renderer = renderers[0]
        return renderer, renderer.media_type
