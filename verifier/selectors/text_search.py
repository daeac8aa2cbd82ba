"""The console's and the API's text searches over claims and sources, one rule for all: the
query folded by ``verifier.text.search_fold`` (case, accents, Unicode form, whitespace
runs) is a substring of a stored folded column (``Claim.text_folded``,
``Source.ref_folded``, ``Source.title_folded``, which PostgreSQL writes by the same rule).
LIKE's wildcards in a query (``%``, ``_``, ``\\``) are matched as themselves.

A query is at most ``SEARCH_MAX_CHARS`` characters, as typed and as compared (folded:
"ß" compares as two, "ﷺ" as eighteen): a substring match costs up to the query's length
times the text's per row, so a query of 4,000 "_" held the database 6 s per search over
100 claims of 20,000 "_" (0.5 s at 200). The claim searches (the review queue's, the
claim list's, an audit pack's scope) refuse a longer one, their field's ``max_length``
and ``search_query_validator``: a form error, the API's 400."""

from __future__ import annotations

from typing import Final

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import Q

from verifier.text.search_fold import search_query

SEARCH_MAX_CHARS: Final = 200


def search_query_validator(query: str) -> None:
    """``ValidationError`` when ``query`` compares as more than ``SEARCH_MAX_CHARS``
    characters though it is typed in fewer (a field's ``max_length`` of
    ``SEARCH_MAX_CHARS`` refuses a longer one as typed, once)."""
    typed = len(query.strip())
    compared = len(search_query(query))
    if typed <= SEARCH_MAX_CHARS < compared:
        raise ValidationError(
            f"Search for at most {SEARCH_MAX_CHARS:,} characters: this one compares as "
            f"{compared:,}, its ligatures and compatibility characters spelled out.",
            code="max_length",
        )


def search_query_error(query: str) -> str:
    """What a search field says of ``query`` ("" when it may be searched): over
    ``SEARCH_MAX_CHARS`` characters as typed (stripped) or as compared, by the claim
    searches' own field rule. For the searches that read ``q`` straight from the request
    (the source list, the relations review), which list nothing then."""
    field = forms.CharField(
        required=False, max_length=SEARCH_MAX_CHARS, validators=[search_query_validator]
    )
    try:
        field.clean(query)
    except ValidationError as exc:
        return " ".join(exc.messages)
    return ""


def text_search(query: str, *folded_fields: str) -> Q | None:
    """Rows one of whose ``folded_fields`` (lookup paths to stored folded columns, such as
    ``"text_folded"`` or ``"source__title_folded"``) contains ``query`` by the rule; None
    when the query folds to nothing (blank, or accents alone): nothing to narrow by."""
    folded = search_query(query)
    if not folded:
        return None
    match = Q()
    for field in folded_fields:
        # ``contains`` escapes %, _ and \ in the value: a LIKE on the folded column
        match |= Q(**{f"{field}__contains": folded})
    return match
