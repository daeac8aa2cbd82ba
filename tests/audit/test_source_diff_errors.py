"""The source diff page says which version field it cannot use (walk finding: ``?from=abc``,
``?to=abc`` or a version the source does not have showed the form and nothing else)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import DEFAULT_TEXT
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_versions(source):
    source_upsert(
        workspace=source.workspace,
        ref=source.ref,
        text=DEFAULT_TEXT.replace("Sediment settles", "Sediment drifts"),
    )
    return source


def _get(client, source, query: str) -> str:
    response = client.get(reverse("audit:source-diff", args=[source.pk]) + query)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        ("?from=abc&to=2", "from", "From: “abc” is not a version of this source"),
        ("?from=1&to=abc", "to", "To: “abc” is not a version of this source"),
        ("?from=9&to=2", "from", "From: “9” is not a version of this source"),
        ("?from=1&to=0", "to", "To: “0” is not a version of this source"),
        ("?from=1", "to", "To: choose a version."),
    ],
)
def test_a_version_field_it_cannot_use_is_a_form_error_naming_it(
    auditor_client, two_versions, query, field, words
):
    html = _get(auditor_client, two_versions, query)
    assert 'class="form-error" role="alert"' in html
    assert f'<span class="form-error" id="diff-{field}-error">{words}' in html
    assert f'name="{field}" aria-invalid="true" aria-describedby="diff-{field}-error"' in html
    assert "its versions are v1 to v2." in html or words.endswith("choose a version.")
    other = "to" if field == "from" else "from"
    assert f'id="diff-{other}-error"' not in html
    assert 'id="diff-h"' not in html  # no diff is shown for a request it cannot read


def test_valid_versions_show_the_diff_without_an_error(auditor_client, two_versions):
    html = _get(auditor_client, two_versions, "?from=1&to=2")
    assert "<del>settles</del>" in html and 'role="alert"' not in html
    assert '<option value="1" selected>v1</option>' in html
    assert '<option value="2" selected>v2</option>' in html
    assert "form-error" not in html
