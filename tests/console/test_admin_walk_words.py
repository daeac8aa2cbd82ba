"""Words and markup seen walking the console as an admin and as an auditor: the home
page names roles in the vocabulary's words, the API docs page has its own h1 and main
landmark, and the Check pages name themselves for what an auditor may do there."""

from __future__ import annotations

import re

import pytest

from tests.factories import make_user, make_workspace
from verifier.models import Membership

pytestmark = pytest.mark.django_db


def test_home_names_the_role_in_the_vocabularys_words(client, workspace):
    user = make_user("ada", workspace=workspace, role="admin")
    other = make_workspace("globex")
    Membership.objects.create(workspace=other, user=user, role="reviewer")
    client.force_login(user)
    html = client.get("/").content.decode()
    assert re.search(r'id="next-role">As Admin in', html), html
    assert f"{workspace.name} (Admin)</option>" in html
    assert f"{other.name} (Reviewer)</option>" in html
    assert "(admin)" not in html and "(reviewer)" not in html


def test_api_docs_page_is_named_and_has_landmarks_without_javascript(client):
    html = client.get("/connect/v1/docs").content.decode()
    assert "<title>API docs · Spanproof</title>" in html
    assert '<header class="docs-back"><nav aria-label="Console">' in html
    # Swagger UI renders the h1 and main with JavaScript; without it, the noscript does
    noscript = html.split("<noscript>")[1].split("</noscript>")[0]
    assert noscript.count("<h1>") == 1 and noscript.count("<main") == 1
    assert "Spanproof Connect API</h1>" in noscript
    assert 'href="/connect/v1/schema?format=json"' in noscript
    assert html.count("<h1") == 1 and html.count("<main") == 1


def _main(html: str) -> str:
    return html.split('<main id="main"')[1].split("</main>")[0]


def _title(html: str) -> str:
    return re.search(r"<title>([^<]*)</title>", html).group(1)


def test_an_auditor_is_not_offered_to_verify_claims(auditor_client, reviewer_client, workspace):
    from tests.factories import make_source

    make_source(workspace, ref="source:harbour", text="The harbour wall is 412 metres long.")
    made = reviewer_client.post(
        "/verify/", {"claims": '{"text": "It is 412 metres long.", "source": "source:harbour"}'}
    )
    job_url = made["Location"]

    page = auditor_client.get("/verify/").content.decode()
    assert _title(page) == "Verifications · Spanproof"
    main = _main(page)
    assert "<h1>Verifications</h1>" in main and "Verify claims" not in main
    assert "Check claims you already have" not in main
    job = auditor_client.get(job_url).content.decode()
    assert "← Verifications</a>" in _main(job) and "Verify claims" not in _main(job)

    # a reviewer still gets the action's name
    page = reviewer_client.get("/verify/").content.decode()
    assert "<h1>Verify claims</h1>" in page and _title(page) == "Verify claims · Spanproof"
    assert "← Verify claims</a>" in reviewer_client.get(job_url).content.decode()


def test_an_auditor_is_not_offered_the_worker_and_is_told_where_its_results_are(
    auditor_client, reviewer_client
):
    page = auditor_client.get("/worker/console").content.decode()
    assert _title(page) == "Claim worker · Spanproof"
    main = _main(page)
    assert "<h1>Claim worker</h1>" in main and "Verify a claim" not in main
    assert 'href="/audit/traces/">Traces</a>' in main and 'href="/audit/claims/">Claims</a>' in main
    page = reviewer_client.get("/worker/console").content.decode()
    assert "<h1>Verify a claim against the corpus</h1>" in page
    assert "worker-read-instead" not in page
