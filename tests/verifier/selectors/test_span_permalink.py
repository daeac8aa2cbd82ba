"""Every reader links a bound span the same way (``verifier.selectors.permalinks``)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.selectors.claim_page import claim_audit
from tests.factories import make_claim, make_source
from verifier.selectors.claim_verification import claim_result
from verifier.selectors.permalinks import binding_permalink
from verifier.services.binding import claim_bind

pytestmark = pytest.mark.django_db

TEXT = "Lighthouses were automated in the 1980s. The Halden Point lamp was electrified in 1923."
QUOTE = "The Halden Point lamp was electrified in 1923."


def test_the_claim_page_and_the_api_give_one_span_permalink(workspace):
    source = make_source(workspace, ref="source:halden", text=TEXT)
    claim = make_claim(source, QUOTE)
    binding = claim_bind(claim=claim, quote=QUOTE).binding
    assert binding is not None
    page = reverse("audit:source-version", args=[source.pk, binding.source_version.sha256])
    expected = f"{page}?span={binding.start}-{binding.end}#seg-{binding.start}"
    assert binding_permalink(binding) == expected
    assert claim_audit(workspace=workspace, public_id=claim.public_id).permalinks == {
        binding.pk: expected
    }
    assert claim_result(claim)["span"]["permalink"] == expected
