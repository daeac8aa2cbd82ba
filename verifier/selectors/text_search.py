"""The console's and the API's text searches over claims and sources, one rule for all: the
query folded by ``verifier.text.search_fold`` (case, accents, Unicode form, whitespace
runs) is a substring of a stored folded column (``Claim.text_folded``,
``Source.ref_folded``, ``Source.title_folded``, which PostgreSQL writes by the same rule).
LIKE's wildcards in a query (``%``, ``_``, ``\\``) are matched as themselves."""

from __future__ import annotations

from django.db.models import Q

from verifier.text.search_fold import search_query


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
