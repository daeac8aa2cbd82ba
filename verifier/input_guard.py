"""One input layer for what every request carries besides its body: the path, the query
string and (on the console) the form fields.

A NUL or a lone surrogate in any of them (``verifier.untrusted_input``'s rule) is
refused here with a 400 before a view, a query, an export or a renderer meets it:
PostgreSQL stores neither, and psycopg refuses to send them (a 500 — or, in a streamed
export, a body cut off mid-way). The API answers its JSON error body (``invalid_text``
with the field: ``path``, ``query.<name>[i]``, ``form.<name>[i]``, ``file name[i]``),
the console a 400 page that names the field in words and leads back to the form, where
the browser still holds what was typed (``static/js/error_back.js`` steps back through
the history; the link's own address is the page the form was sent from). The API's
parsers apply the same rule to JSON, form and multipart bodies
(``verifier.api.parsers``), and the console's forms meet theirs for bytes that are not
text in the form's charset (a multipart form is read by their ``StrictMultiPartParser``).
Nothing is stored.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from io import BytesIO
from typing import Final
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import DisallowedHost, TooManyFilesSent
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme

from verifier.api.errors import BODY_FIELD, error_body
from verifier.api.parsers import (
    StrictMultiPartParser,
    UndecodableFormField,
    charset_problem,
    undecodable_form_field,
)
from verifier.api.paths import is_api_path
from verifier.untrusted_input import text_problem, unstorable_location

FORM_CONTENT_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")

# ``details.field`` of a bad character in the request's path: a name, like the others.
PATH_FIELD: Final = "path"
# A form whose ``Content-Type`` names a charset that is none (``verifier.api.parsers``).
CHARSET_FIELD: Final = "charset"
# A form body whose bytes are not text in its charset, before any field is read out.
FORM_FIELD: Final = "form"


def unstorable_request_part(request: HttpRequest) -> tuple[str, str] | None:
    """``(where, problem)`` for the first unstorable character in the request's path,
    query string or (outside the API, whose parsers check bodies) form fields, or a form
    field whose bytes are not text in the form's charset (the API parsers' rule: Django
    would read them with U+FFFD in their place)."""
    problem = text_problem(request.path)
    if problem is not None:
        return PATH_FIELD, problem
    found = unstorable_location(dict(request.GET.lists()), root="query")
    if found is not None:
        return found
    if (
        request.method == "POST"
        and request.content_type in FORM_CONTENT_TYPES
        and not is_api_path(request.path)
    ):
        # before the form is read in it: a codec that is no character set (punycode's
        # decoder is quadratic) would run on the body of anyone's request
        charset = (request.content_params or {}).get("charset", "")
        if charset and charset_problem(charset) is not None:
            return CHARSET_FIELD, f"is “{charset[:40]}”"
        try:
            multipart_load_strict(request)
        except UndecodableFormField as exc:
            return f"form.{exc.name}[{exc.index}]", f"holds bytes that are not {exc.encoding} text"
        if request.content_type == FORM_CONTENT_TYPES[0]:  # the API's rule for a form body
            encoding = request.encoding or settings.DEFAULT_CHARSET
            where = undecodable_form_field(request.body, encoding)
            if where is not None:
                part = FORM_FIELD if where == BODY_FIELD else f"form.{where}"
                return part, f"holds bytes that are not {encoding} text"
        found = unstorable_location(dict(request.POST.lists()), root="form")
        if found is not None:
            return found
        # every file of every field (values() gives only the last file of a field)
        names = [upload.name or "" for _, uploads in request.FILES.lists() for upload in uploads]
        return unstorable_location(names, root="file name")
    return None


def multipart_load_strict(request: HttpRequest) -> None:
    """Read a multipart request's form as ``request.POST`` and ``request.FILES`` do, with
    the API's ``StrictMultiPartParser``: a field value whose bytes are not text in the
    body's charset raises ``UndecodableFormField`` instead of being read with U+FFFD.
    Nothing to do for another body, or one read already."""
    if request.content_type != "multipart/form-data" or hasattr(request, "_post"):
        return
    data = BytesIO(request._body) if hasattr(request, "_body") else request
    parser = StrictMultiPartParser(request.META, data, request.upload_handlers, request.encoding)
    try:
        request._post, request._files = parser.parse()  # type: ignore[attr-defined]
    except (MultiPartParserError, TooManyFilesSent):
        request._mark_post_parse_error()  # type: ignore[attr-defined]
        raise


_PART: Final = re.compile(r"^(query|form)\.(.*?)(\[\d+\])?$")


def where_in_words(where: str) -> str:
    """``unstorable_request_part``'s ``where`` for a person: ``query.source[0]`` is
    "The query parameter “source”", ``form.note[0]`` "The form field “note”"."""
    if where == PATH_FIELD:
        return "The address"
    if where == CHARSET_FIELD:
        return "The form's charset"
    if where == FORM_FIELD:
        return "The form"
    if where.startswith("file name"):
        return "A file name"
    found = _PART.match(where)
    if found is None:
        return where[:1].upper() + where[1:]
    kind = "query parameter" if found.group(1) == "query" else "form field"
    return f"The {kind} “{found.group(2)}”"


def same_site_path(request: HttpRequest, url: str) -> str | None:
    """``url``'s path and query when it is an address of this site; None for another
    host or scheme, a host this site does not serve, no path, or a path that is another
    site's address once it stands alone ("//host/…", "/\\host/…")."""
    try:
        host = request.get_host()
    except DisallowedHost:
        return None
    if not url_has_allowed_host_and_scheme(
        url, allowed_hosts={host}, require_https=request.is_secure()
    ):
        return None
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    if not path.startswith("/") or path.startswith(("//", "/\\")):
        return None
    return path


def page_sent_from(request: HttpRequest) -> str | None:
    """The console page the request was sent from (its ``Referer``, path and query),
    when it is on this site and is not the refused address itself (a form sent to its
    own page is refused at the same address: that page is the way back); None
    otherwise."""
    referer = request.headers.get("Referer", "")
    if not referer or text_problem(referer) is not None:
        return None
    back = same_site_path(request, referer)
    if back is None:
        return None
    # a form sent to its own page leads back there; a refused address does not
    if request.method in ("GET", "HEAD") and back == request.get_full_path():
        return None
    return back


def refusal(request: HttpRequest, where: str, problem: str) -> HttpResponse:
    if is_api_path(request.path):
        said = "The path" if where == PATH_FIELD else where
        message = f"{said} {problem}; it cannot be stored."
        return JsonResponse(error_body("invalid_text", message, {"field": where}), status=400)
    message = f"{where_in_words(where)} {problem}, which cannot be read as text."
    back = page_sent_from(request)
    context = {
        "message": message,
        # a form's field or a query parameter: what was typed is still in the page before
        "typed": where.startswith(("form.", "query.", "file name")),
        "back": back or "/",
        "came_from": back is not None,
    }
    # No request context: the page must not depend on the session or the database.
    return HttpResponseBadRequest(render_to_string("errors/400.html", context))


class InputGuardMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        found = unstorable_request_part(request)
        if found is not None:
            return refusal(request, *found)
        return self.get_response(request)
