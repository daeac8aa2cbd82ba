"""Content negotiation: JSON for every API answer, and downloads whose ``?format=`` names
the file's format."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation


class IgnoreFormatParam(DefaultContentNegotiation):
    """``?format=`` names the export format here, not a DRF renderer: the view's first
    renderer answers."""

    def select_renderer(
        self, request: Any, renderers: Any, format_suffix: Any = None
    ) -> tuple[Any, str]:
        renderer = renderers[0]
        return renderer, renderer.media_type


class JsonUnlessAsked(DefaultContentNegotiation):
    """The API answers JSON (``docs/api.md``: every error is ``{"error": …}``): a client
    whose ``Accept`` or ``?format=`` names a type no renderer of the view makes (a
    browser's ``text/html``, ``?format=xml``) gets the view's first renderer, not a 406
    or a 404 that says nothing is at the address. A view with several renderers (the
    OpenAPI schema: YAML or JSON) still answers the one asked for."""

    def select_renderer(
        self, request: Any, renderers: Any, format_suffix: Any = None
    ) -> tuple[Any, str]:
        try:
            chosen: tuple[Any, str] = super().select_renderer(request, renderers, format_suffix)
            return chosen
        except (NotAcceptable, Http404):
            renderer = renderers[0]
            return renderer, renderer.media_type
