"""One search rule for every list that searches claims or sources
(``verifier.selectors.text_search``): the review queue, the auditor's claim list, the
source list and the relations awaiting review each answer the same table of cases on the
real database, and the database folds every character as the query's side does."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

import pytest
from django.db import connection
from django.test import Client

from tests.factories import make_claim, make_source
from tests.review.conftest import queue_claim
from verifier.models import Claim, ClaimRelation, Source, Workspace
from verifier.text.search_fold import search_fold, search_fold_sql

# a claim's link on the claim list (carrying the list's own filters back: ?list=)
CLAIM_LINK = r'href="/audit/claims/(claim:[a-z0-9]+)/(?:\?list=[^"]*)?"'
pytestmark = pytest.mark.django_db

NFC = lambda text: unicodedata.normalize("NFC", text)  # noqa: E731
NFD = lambda text: unicodedata.normalize("NFD", text)  # noqa: E731

# Listed with every case; no query of the table finds it.
OTHER_TEXT = "Sediment settles where the current slows."

CASES = [
    # (what, the stored text, the query, found)
    ("letter case", "Kurt Gödel proved it.", "KURT GÖDEL", True),
    ("accent dropped", "Kurt Gödel proved it.", "godel", True),
    ("accent in the query only", "Kurt Godel proved it.", "Gödel", True),
    ("decomposed text, composed query", NFD("Ödön Lechner built it."), NFC("ödön"), True),
    ("composed text, decomposed query", NFC("Béla Bartók wrote it."), NFD("BARTÓK"), True),
    ("stacked marks", "Nguyễn Du wrote it.", "nguyen du", True),
    ("stroke letters", "Ørsted went to Łódź.", "orsted went to lodz", True),
    ("sharp s as ss", "Die Straße ist lang.", "strasse", True),
    ("capital sharp s", "Die Strasse ist lang.", "STRAẞE", True),
    ("ligature æ", "Æsir and elves.", "aesir", True),
    ("final sigma", "ΟΔΟΣ ΑΘΗΝΑΣ", "οδος", True),
    ("compatibility ligature", "A clear deﬁnition.", "definition", True),
    ("whitespace runs in the text", "café \t\n au\u00a0 lait", "cafe au lait", True),
    ("whitespace runs in the query", "café au lait", "  cafe   au\tlait ", True),
    ("percent found as itself", "a 100% gain", "100%", True),
    ("percent is no wildcard", "a 100x gain", "100%", False),
    ("underscore is no wildcard", "the taxbill", "a_b", False),
    ("backslash found as itself", "path c:\\data", "c:\\d", True),
    ("backslash escapes nothing", "path c:data", "c:\\d", False),
    ("a letter of its own", "Þór's hammer", "thor", False),
    ("a Hangul syllable is matched whole", "각 장", "가", False),
    ("punctuation kept", "a coop store", "co-op", False),
    ("other words", "Kurt Gödel proved it.", "Escher", False),
]
IDS = [case[0] for case in CASES]


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _listed(pattern: str, client: Client, url: str, query: str) -> set[str]:
    response = client.get(url, {"q": query})
    assert response.status_code == 200
    return set(re.findall(pattern, response.content.decode()))


@pytest.fixture
def lists(reviewer, workspace: Workspace) -> dict[str, Callable[[str, str], tuple[set, set]]]:
    """Per list: (text, query) -> (what it lists, what it should list when found)."""
    client = _client(reviewer)
    source = make_source(workspace, ref="source:marrow_delta")

    def review_queue(text: str, query: str) -> tuple[set, set]:
        claim = queue_claim(source, "abstained", text=text)
        queue_claim(source, "abstained", text=OTHER_TEXT)
        listed = _listed(r'<tr data-claim="(claim:[a-z0-9]+)"', client, "/review/", query)
        return listed, {claim.public_id}

    def claim_list(text: str, query: str) -> tuple[set, set]:
        claim = make_claim(source, text)
        make_claim(source, OTHER_TEXT)
        listed = _listed(CLAIM_LINK, client, "/audit/claims/", query)
        return listed, {claim.public_id}

    def source_list(text: str, query: str) -> tuple[set, set]:
        found = make_source(workspace, ref="source:searched")
        Source.objects.filter(pk=found.pk).update(title=text)
        Source.objects.filter(pk=source.pk).update(title=OTHER_TEXT)
        listed = _listed(r'href="/audit/sources/(\d+)/"', client, "/audit/sources/", query)
        return listed, {str(found.pk)}

    def relations(text: str, query: str) -> tuple[set, set]:
        ends = [make_claim(source, t) for t in (text, OTHER_TEXT, OTHER_TEXT, OTHER_TEXT)]
        found, other = (
            ClaimRelation.objects.create(
                workspace=workspace,
                from_claim=a,
                to_claim=b,
                kind="supports",
                confidence=0.5,
                needs_review=True,
            )
            for a, b in (ends[:2], ends[2:])
        )
        listed = _listed(r'id="relation-(\d+)"', client, "/review/relations/", query)
        assert str(other.pk) not in listed
        return listed, {str(found.pk)}

    return {
        "review_queue": review_queue,
        "claim_list": claim_list,
        "source_list": source_list,
        "relations": relations,
    }


@pytest.mark.parametrize("which", ["review_queue", "claim_list", "source_list", "relations"])
@pytest.mark.parametrize(("what", "text", "query", "found"), CASES, ids=IDS)
def test_every_list_searches_by_the_one_rule(
    lists, which: str, what: str, text: str, query: str, found: bool
) -> None:
    listed, expected = lists[which](text, query)
    assert listed == (expected if found else set())


def test_the_database_folds_every_character_as_the_query_is_folded() -> None:
    """Every character of the Basic Multilingual Plane, alone and between two letters,
    folded by the stored columns' SQL and by Python alike (beyond it Python's older
    Unicode tables lag PostgreSQL's for characters assigned since)."""
    chars = [chr(c) for c in range(1, 0x10000) if not 0xD800 <= c <= 0xDFFF]
    samples = chars + [f"A{c}b" for c in chars] + ["ΟΔΟΣ ΑΣ", "Σ"]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {search_fold_sql('c')} FROM unnest(%s::text[]) WITH ORDINALITY AS u(c, n) "
            "ORDER BY n",
            [samples],
        )
        folded = [row[0] for row in cursor.fetchall()]
    differ = [
        (f"U+{ord(s[-2] if len(s) == 3 else s[0]):04X}", s, db, search_fold(s))
        for s, db in zip(samples, folded, strict=True)
        if db != search_fold(s)
    ]
    assert differ == []


def test_the_folded_columns_follow_every_write(workspace: Workspace) -> None:
    """Written by PostgreSQL on insert and on any update of the text (remediation
    rewrites a claim's text with an UPDATE), whoever writes it."""
    source = make_source(workspace, ref="source:Łódź_notes")
    claim = make_claim(source, "Kurt Gödel proved it.")
    Source.objects.filter(pk=source.pk).update(title="Études")
    row = Claim.objects.values("text_folded", "source__ref_folded", "source__title_folded").get(
        pk=claim.pk
    )
    assert row == {
        "text_folded": "kurt godel proved it.",
        "source__ref_folded": "source:lodz_notes",
        "source__title_folded": "etudes",
    }
    Claim.objects.filter(pk=claim.pk).update(text="M. C. Escher drew it.")
    assert Claim.objects.values_list("text_folded", flat=True).get(pk=claim.pk) == (
        "m. c. escher drew it."
    )


def test_the_review_queue_also_finds_a_claim_by_its_source_or_its_id(reviewer, workspace) -> None:
    client = _client(reviewer)
    paris = make_source(workspace, ref="source:Łódź_notes")
    Source.objects.filter(pk=paris.pk).update(title="Études urbaines")
    found = queue_claim(paris, "abstained", text="The city grew.")
    other = queue_claim(make_source(workspace, ref="source:other"), "abstained", text="x")
    pattern = r'<tr data-claim="(claim:[a-z0-9]+)"'
    assert _listed(pattern, client, "/review/", "LODZ") == {found.public_id}
    assert _listed(pattern, client, "/review/", "etudes urb") == {found.public_id}
    assert _listed(pattern, client, "/review/", f" {other.public_id} ") == {other.public_id}


@pytest.mark.parametrize("query", ["", "   ", "\u0301"])
def test_a_query_with_nothing_to_look_for_lists_everything(reviewer, workspace, query) -> None:
    client = _client(reviewer)
    source = make_source(workspace, ref="source:marrow_delta")
    claims = {make_claim(source, text).public_id for text in ("Gödel.", "Escher.")}
    pattern = CLAIM_LINK
    assert _listed(pattern, client, "/audit/claims/", query) == claims
