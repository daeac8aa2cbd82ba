"""What the audit lists say: right-to-left claim text isolated from the row around it,
empty lists that offer only what the reader's role can do, the diff page's re-check
words true of the two versions compared, and a claim search across Unicode forms."""

from __future__ import annotations

import re
import unicodedata

import pytest
from django.urls import reverse

from tests.factories import make_binding, make_claim, make_source
from verifier.models import Claim
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

ARABIC = "يترسب الطمي حيث يبطؤ التيار (1998)."
HEBREW_REF = "source:נהר"
QUOTE = "Sediment settles where the current slows."


def _isolated(html: str, text: str) -> bool:
    """Whether ``text`` is the whole content of an element that isolates its direction."""
    return bool(re.search(r'<(a|td|q|code)\b[^>]*\bdir="auto"[^>]*>' + re.escape(text) + "<", html))


def test_right_to_left_text_in_the_claim_and_source_lists_is_isolated(auditor_client, workspace):
    source = make_source(workspace, ref=HEBREW_REF)
    claim = make_claim(source, ARABIC)
    make_binding(claim, QUOTE)
    Claim.objects.filter(pk=claim.pk).update(exclusion_reason="מקור לא אמין")

    claims = auditor_client.get(reverse("audit:claim-list")).content.decode()
    assert _isolated(claims, ARABIC)
    assert _isolated(claims, HEBREW_REF)
    assert _isolated(claims, "מקור לא אמין")

    page = auditor_client.get(reverse("audit:source-detail", args=[source.pk])).content.decode()
    side = page[page.index('id="span-claims"') :]
    assert _isolated(side, ARABIC)

    sources = auditor_client.get(reverse("audit:source-list")).content.decode()
    assert _isolated(sources, HEBREW_REF)
    assert _isolated(sources, "A document")  # the title's cell


def test_an_empty_claim_list_offers_ingest_only_to_a_role_that_can_ingest(
    auditor_client, reviewer_client, workspace
):
    url = reverse("audit:claim-list")
    seen_by_auditor = auditor_client.get(url).content.decode()
    assert "Ingest a source" not in seen_by_auditor
    assert "once a reviewer or an admin ingests a source" in seen_by_auditor

    seen_by_reviewer = reviewer_client.get(url).content.decode()
    assert f'<a href="{reverse("ingest:upload")}">Ingest a source</a> to extract some' in (
        seen_by_reviewer
    )


def test_an_empty_source_list_offers_ingest_only_to_a_role_that_can_ingest(
    auditor_client, reviewer_client, workspace
):
    url = reverse("audit:source-list")
    seen_by_auditor = auditor_client.get(url).content.decode()
    assert "Ingest some" not in seen_by_auditor
    assert "once a reviewer or an admin ingests some" in seen_by_auditor
    seen_by_reviewer = reviewer_client.get(url).content.decode()
    assert f'<a href="{reverse("ingest:upload")}">Ingest some</a>' in seen_by_reviewer


def test_diff_recheck_words_name_the_versions_compared(auditor_client, workspace):
    base = "The river floods each spring. " + QUOTE + " Grass grows."
    source = make_source(workspace, ref="source:three", text=base)
    claim = make_claim(source, "Silt settles in slow water.")
    make_binding(claim, QUOTE)  # bound in v1
    source_upsert(workspace=workspace, ref=source.ref, text=base + " Second.")
    source_upsert(workspace=workspace, ref=source.ref, text=base + " Third.")  # v3: current
    url = reverse("audit:source-diff", args=[source.pk])

    html = auditor_client.get(url, {"from": "1", "to": "2"}).content.decode()
    table = html[html.index('id="stale-h"') : html.index('id="diff-h"')]
    assert "current version" not in table
    assert "newer version" not in table
    # the span still holds in v2: said of v2, and only where spans that hold are listed
    held = table[table.index('id="held-h"') :]
    assert "Spans unchanged in v2 (1)" in held and "Span holds in v2" in held
    assert "Spans that no longer hold in v2 (0)" in table


def test_claim_search_matches_across_unicode_forms(auditor_client, source):
    composed = unicodedata.normalize("NFC", "Ödön Lechner designed the museum.")
    decomposed = unicodedata.normalize("NFD", "Béla Bartók wrote the opera.")
    make_claim(source, composed)
    make_claim(source, decomposed)
    url = reverse("audit:claim-list")

    found = auditor_client.get(url, {"q": unicodedata.normalize("NFD", "ödön")}).content.decode()
    assert "Lechner designed" in found and "Bartók" not in unicodedata.normalize("NFC", found)
    found = auditor_client.get(url, {"q": unicodedata.normalize("NFC", "Bartók")}).content.decode()
    assert "wrote the opera" in found
    # the stored text is left as it came
    assert Claim.objects.filter(text=decomposed).exists()


def test_source_search_matches_across_unicode_forms(auditor_client, workspace):
    make_source(workspace, ref=unicodedata.normalize("NFC", "source:ödön"))
    url = reverse("audit:source-list")
    found = auditor_client.get(url, {"q": unicodedata.normalize("NFD", "Ödön")}).content.decode()
    assert "No source matches" not in found
