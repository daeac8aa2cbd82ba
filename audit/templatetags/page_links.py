"""``{% page_query request.GET page_number %}``: the query string of another page of a
numbered list: every parameter of this page kept, keys and values (all of a repeated
key's values) percent-encoded, with ``page`` set to the number asked for. Used by
``templates/partials/pagination.html``, so a key holding ``&``, ``=``, ``#`` or a space
cannot break the link or smuggle in another parameter."""

from __future__ import annotations

from django import template
from django.http import QueryDict

register = template.Library()


@register.simple_tag
def page_query(params: QueryDict, number: int) -> str:
    query = params.copy()
    query.pop("page", None)
    query["page"] = str(number)
    return query.urlencode()
