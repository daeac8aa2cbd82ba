"""``{% page_query request.GET page_number %}``: the query string of another page of a
numbered list: every parameter of this page kept, keys and values (all of a repeated
key's values) percent-encoded, with ``page`` set to the number asked for. Used by
``templates/partials/pagination.html``, so a key holding ``&``, ``=``, ``#`` or a space
cannot break the link or smuggle in another parameter. ``key=`` names another page
parameter, for a page that shows two lists paged on their own (the source diff's
``lost_page`` and ``held_page``)."""

from __future__ import annotations

from django import template
from django.http import QueryDict

register = template.Library()


@register.simple_tag
def page_query(params: QueryDict, number: int, key: str = "page") -> str:
    query = params.copy()
    query.pop(key, None)
    query[key] = str(number)
    return query.urlencode()
