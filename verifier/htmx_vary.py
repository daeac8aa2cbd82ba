"""django-htmx's ``request.htmx``, and a ``Vary`` header naming each htmx header read.

A URL that answers htmx with a part of its page (a chip's results, a RAG claim, a job's
panel polling its page's own URL) answers the same URL with the whole page otherwise.
Unless the answer says it varies on ``HX-Request``, the browser's HTTP cache keeps the
part fetched by htmx as the answer for that URL, and Back or Forward from another page
(or a restored tab) shows the bare part: no layout, no navigation, no styles.

Whatever reads an htmx header (a view's ``if request.htmx``, a template's
``{% if request.htmx %}``, ``request.htmx.target``) made the answer depend on it, so the
answer varies on it: the rule is kept here once, as Django's ``SessionMiddleware`` adds
``Vary: Cookie`` when the session was read, and no view can forget it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils.cache import patch_vary_headers
from django_htmx.middleware import HtmxDetails


class VaryingHtmxDetails(HtmxDetails):
    """``request.htmx``, remembering which of the request's htmx headers were read."""

    def __init__(self, request: HttpRequest) -> None:
        super().__init__(request)
        self.headers_read: list[str] = []

    def _get_header_value(self, name: str) -> str | None:
        if name not in self.headers_read:
            self.headers_read.append(name)
        return super()._get_header_value(name)


class HtmxVaryMiddleware:
    """In place of django-htmx's ``HtmxMiddleware``: sets ``request.htmx`` the same way,
    and adds to the answer's ``Vary`` each htmx header that was read while making it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        htmx = VaryingHtmxDetails(request)
        request.htmx = htmx  # type: ignore[attr-defined]
        response = self.get_response(request)
        if htmx.headers_read:
            patch_vary_headers(response, htmx.headers_read)
        return response
