""" "No domain pack chosen" reads one way on every page: ``verifier.vocabulary.ALL_PACKS``
("all packs"), never "all domain packs" (the built-in's activation message), "every pack"
(the activity log) or a bare "all" (the trace pages); and the activity log names a
webhook's events in the vocabulary's words, each with its code."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from verifier import domain_packs, vocabulary
from verifier.models import Trace

pytestmark = pytest.mark.django_db

OTHER_WORDINGS = ("all domain packs", "every pack", "every domain pack", "any pack")


def _text(page: str, tag: str = " ") -> str:
    """The page's text; ``tag=""`` joins inline elements to their neighbours."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", tag, page)).split())


def _says_all_packs_one_way(page: str) -> str:
    text = _text(page)
    for other in OTHER_WORDINGS:
        assert other not in text.casefold(), other
    return text


def test_the_phrase_is_the_vocabularys_and_no_pack_may_take_it():
    assert vocabulary.ALL_PACKS == "all packs"
    assert vocabulary.WORDS[vocabulary.ALL_PACKS].label == "All packs"
    assert "is how the console names all packs" in (
        domain_packs.domain_pack_problem(vocabulary.ALL_PACKS.upper(), []) or ""
    )


def test_activating_for_no_pack_says_all_packs_on_every_page(admin_client_ws, source):
    url = reverse("audit:rule-set-builtin-activate")
    confirm = admin_client_ws.post(url, {"policy": "strict", "domain_pack": ""}).content.decode()
    assert "For all packs with the Strict policy." in _says_all_packs_one_way(confirm)

    done = admin_client_ws.post(
        url, {"policy": "strict", "domain_pack": "", "confirm": "1"}, follow=True
    ).content.decode()
    text = _says_all_packs_one_way(done)  # the Rules page, with the flash
    assert "Activated Core v1 (built-in) for all packs with the Strict policy;" in text
    assert '<th scope="row">all packs (default)</th>' in done
    assert "(inherited from all packs)" in text  # the source's pack, "general"
    assert "<td>all packs</td><td>Core v1 (built-in)</td><td>Strict</td>" in done

    activity = admin_client_ws.get(reverse("audit:activity")).content.decode()
    # the policy in the vocabulary's words (``tests/audit/test_activity_words.py``)
    assert "for all packs, policy Strict" in _says_all_packs_one_way(activity)


def test_nothing_activated_says_all_packs_use_the_built_in(admin_client_ws):
    rules = admin_client_ws.get(reverse("audit:rules")).content.decode()
    assert "Nothing has been activated; all packs use Core v1 (built-in)" in _text(rules)


def test_a_trace_with_no_pack_says_all_packs(auditor_client, workspace):
    trace = Trace.objects.create(
        workspace=workspace, query="where does sediment settle?", document={"version": 1}
    )
    listing = auditor_client.get(reverse("audit:trace-list")).content.decode()
    assert "<td>all packs</td>" in listing and "<td>all</td>" not in listing
    detail = auditor_client.get(reverse("audit:trace-detail", args=[trace.trace_id]))
    assert "<dt>Domain pack</dt><dd>all packs</dd>" in detail.content.decode()


def test_the_activity_log_names_webhook_events_in_words_with_their_codes(admin_client_ws, settings):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    admin_client_ws.post(
        "/audit/webhooks/new/",
        {
            "url": "http://127.0.0.1:9/hook",
            "events": ["job.completed", "verification.completed"],
            "threshold": "80",
            "secret": "s3cret-for-the-console",
        },
    )
    page = admin_client_ws.get(reverse("audit:activity")).content.decode()
    assert (
        "Ingest job finished (job.completed); Verification finished "
        "(verification.completed) · threshold 80"
    ) in _text(page, tag="")
    assert "<code>job.completed</code>" in page
    explained = vocabulary.explanation("webhook_event", "job.completed")
    assert f'title="{html.escape(explained)}"' in page
