"""A FALSE verdict is bound to the evidence item that decided it (the one contradicting
the claim), not to the top-ranked item: the stored claim cites it and the console names
it; a verdict no item decides names none."""

from __future__ import annotations

import pytest

from tests.verifier.api.conftest import client_for
from tests.verifier.claim_worker.test_worker_verify_api import corpus, verify  # noqa: F401
from verifier.claim_worker.package import deciding_item
from verifier.claim_worker.trust import Stance
from verifier.models import Claim

# Ranked first: "The Halden Point lighthouse was built in 1871." (the judge abstains);
# ranked third: "Its lamp was electrified in 1923." (the judge finds it contradicts).
CLAIM = "The Halden Point lighthouse lamp was electrified in 1871."
DECIDING = "Its lamp was electrified in 1923."

E, C, A = "entailed", "contradicted", "abstained"


def _items(*rows: tuple[tuple[str, float], ...]) -> list[dict[int, Stance]]:
    return [{i: Stance(label, conf) for i, (label, conf) in enumerate(row)} for row in rows]


@pytest.mark.parametrize(
    ("verdict", "items", "expected"),
    [
        # FALSE: the contradicting item, not the top one
        ("FALSE", _items(((A, 0.3),), ((A, 1.0),), ((C, 0.84),)), 2),
        # FALSE: the strongest contradiction, the better ranked on a tie
        ("FALSE", _items(((C, 0.6),), ((C, 0.9),), ((C, 0.9),)), 1),
        # FALSE over an item that entails another part: still the contradicting one
        ("FALSE", _items(((E, 0.9), (A, 0.5)), ((A, 0.5), (C, 0.8))), 1),
        ("FALSE", _items(((A, 0.3),), ((A, 1.0),)), None),
        # TRUE / PARTIALLY_TRUE: the best-ranked supporting item
        ("TRUE", _items(((A, 0.3),), ((E, 0.7),), ((E, 0.9),)), 1),
        ("PARTIALLY_TRUE", _items(((C, 0.9), (A, 0.1)), ((A, 0.1), (E, 0.8))), 1),
        ("TRUE", _items(((A, 0.3),)), None),
        ("TRUE", [], None),
    ],
)
def test_deciding_item(verdict, items, expected):
    assert deciding_item(verdict, items) == expected


def test_false_verdict_is_stored_against_the_contradicting_item(corpus):  # noqa: F811
    body = verify(client_for(corpus), claim=CLAIM).json()
    assert body["verdict"] == "FALSE", body["reconciliation_reasons"]
    stances = [e["stance"] for e in body["evidence"]]
    deciding = next(e for e in body["evidence"] if e["quote"] == DECIDING)
    # the situation this guards: the top item is not the one that contradicts
    assert body["evidence"][0]["quote"] != DECIDING and stances[0] == "neutral"
    assert deciding["stance"] == "contradicts"
    stored = Claim.objects.get(public_id=body["stored_claim_id"])
    assert stored.submitted_quote == DECIDING
    assert stored.source.ref == deciding["source_ref"]
    binding = stored.bindings.get(is_active=True)
    assert (binding.start, binding.end) == (deciding["start"], deciding["end"])
    # the one chain, judging the deciding span, agrees with the worker's verdict
    assert stored.state == "contradicted"


def test_console_names_the_item_the_verdict_rests_on(reviewer_client, corpus):  # noqa: F811
    html = reviewer_client.post(
        "/worker/console", {"claim": CLAIM, "top_k": 5, "domain": "general"}
    ).content.decode()
    assert "Verdict: False</h2>" in html
    rests_on = html[html.index('id="verdict-rests-on"') :]
    rests_on = rests_on[: rests_on.index("</dd>")]
    assert DECIDING in rests_on
    assert "The Halden Point lighthouse was built in 1871." not in rests_on
    row = html[html.index('aria-current="true"') :]
    assert DECIDING in row[: row.index("</tr>")]
    assert "the verdict rests on this item" in row[: row.index("</tr>")]


def test_console_names_no_item_for_an_unverifiable_verdict(reviewer_client, corpus):  # noqa: F811
    html = reviewer_client.post(
        "/worker/console",
        {"claim": "Jupiter has ninety-five known moons.", "top_k": 5, "domain": "general"},
    ).content.decode()
    assert "Verdict: Cannot be verified</h2>" in html
    assert 'aria-current="true"' not in html[html.index("step4-h") :]
    rests_on = html[html.index('id="verdict-rests-on"') :]
    assert rests_on[: rests_on.index("</dd>")].split(">", 1)[1].startswith("nothing")
