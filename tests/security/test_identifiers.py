"""A source ref or a claim's external id shows what it is: no control character and no
invisible formatting character (a bidirectional override, a zero-width space), refused
wherever it would be stored (``verifier.untrusted_input``, rule 3), nothing written."""

from __future__ import annotations

import pytest

from tests.factories import make_source
from tests.verifier.api.conftest import client_for
from verifier.models import Claim, MemoryTranscript, Source, SourceVersion
from verifier.services.sources import SourceInputError, source_upsert
from verifier.untrusted_input import identifier_problem

# "source:report<RLO>fdp.exe" is shown as "source:reportexe.pdf"
HIDDEN = {
    "right-to-left override": "source:report\u202efdp.exe",
    "isolate": "source:a\u2066b\u2069",
    "zero-width space": "source:mar\u200brow",
    "byte-order mark": "\ufeffsource:marrow",
    "tab": "source:mar\trow",
    "newline": "source:marrow\n",
    "C1 control": "source:mar\x85row",
}
TURNS = [{"speaker": "user", "text": "Send the report."}, {"speaker": "agent", "text": "Done."}]


@pytest.fixture
def api(workspace):
    return client_for(workspace)


def _counts() -> tuple[int, int, int, int]:
    return (
        Source.objects.count(),
        SourceVersion.objects.count(),
        Claim.objects.count(),
        MemoryTranscript.objects.count(),
    )


def test_identifier_problem_names_the_character_and_its_position():
    assert identifier_problem("source:report\u202efdp.exe") == (
        "contains the invisible character U+202E RIGHT-TO-LEFT OVERRIDE at position 13"
    )
    assert "U+0009" in (identifier_problem("a\tb") or "")
    for fine in ("source:marrow", "doc:Zürich/§4", "source:東京", "chat:1 (copy)"):
        assert identifier_problem(fine) is None


@pytest.mark.django_db
@pytest.mark.parametrize("ref", HIDDEN.values(), ids=HIDDEN.keys())
def test_the_source_service_refuses_a_hidden_character_in_a_ref(workspace, ref):
    with pytest.raises(SourceInputError) as refused:
        source_upsert(workspace=workspace, ref=ref, text="Sediment settles in the delta.")
    assert refused.value.code == "invalid_ref"
    assert not Source.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/connect/v1/sources", {"ref": HIDDEN["right-to-left override"], "text": "Silt."}),
        (
            "/connect/v1/claims/verify",
            {
                "sources": [{"ref": HIDDEN["zero-width space"], "text": "Silt settles."}],
                "claims": [{"text": "Silt settles.", "source": HIDDEN["zero-width space"]}],
            },
        ),
        (
            "/connect/v1/memory/transcripts",
            {"transcript": TURNS, "ref": "chat:\u202e1"},
        ),
        (
            "/connect/v1/ingest-jobs",
            {"sources": [{"ref": HIDDEN["isolate"], "text": "Silt settles in the delta."}]},
        ),
    ],
    ids=["sources", "claims-verify-inline-source", "memory-transcript", "ingest-job"],
)
def test_the_api_refuses_a_hidden_character_in_a_ref(api, workspace, url, body):
    make_source(workspace, ref="source:marrow", text="Sediment settles in the delta.")
    before = _counts()
    response = api.post(url, body, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert error["code"] == "invalid_ref" and "U+" in error["message"], error
    assert _counts() == before


@pytest.mark.django_db
def test_a_claim_with_a_hidden_character_in_its_external_id_is_refused(api, workspace):
    make_source(workspace, ref="source:marrow", text="Sediment settles in the delta.")
    before = _counts()
    response = api.post(
        "/connect/v1/claims/verify",
        {
            "claims": [
                {
                    "text": "Sediment settles in the delta.",
                    "source": "source:marrow",
                    "external_id": "answer-1\u202e2-rewsna",
                },
                {"text": "Sediment settles.", "source": "source:marrow", "external_id": "a-2"},
            ]
        },
        content_type="application/json",
    )
    assert response.status_code == 200, response.content[:300]
    refused, kept = response.json()["results"]
    assert refused["error"]["code"] == "invalid_external_id"
    assert "U+202E" in refused["error"]["message"]
    assert kept.get("error") is None
    assert Claim.objects.count() == before[2] + 1
    assert list(Claim.objects.values_list("external_id", flat=True)) == ["a-2"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("pack", "says"),
    [
        ("gen\u200beral", "U+200B ZERO WIDTH SPACE"),
        ("General", "“General” differs from the existing domain pack “general” only in letter"),
        ("m" * 65, "at most 64 characters"),
    ],
)
def test_a_new_sources_domain_pack_must_read_as_what_it_is(api, workspace, pack, says):
    make_source(workspace, ref="source:marrow", text="Sediment settles in the delta.")
    before = _counts()
    response = api.post(
        "/connect/v1/sources",
        {"ref": "source:new", "text": "Silt settles.", "domain_pack": pack},
        content_type="application/json",
    )
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert error["code"] in {"invalid_domain_pack", "invalid_request"}, error
    if error["code"] == "invalid_domain_pack":
        assert says in error["message"] and error["details"]["field"] == "domain_pack"
    assert _counts() == before


@pytest.mark.django_db
def test_a_known_or_new_plain_domain_pack_is_taken(workspace):
    make_source(workspace, ref="source:marrow", text="Sediment settles in the delta.")
    for ref, pack in (("source:a", "general"), ("source:b", "Medicine (UK)"), ("source:c", "طب")):
        assert source_upsert(workspace=workspace, ref=ref, text="Silt.", domain_pack=pack)
    # the new pack is now known: the same name again is that pack
    assert source_upsert(workspace=workspace, ref="source:d", text="Silt.", domain_pack="طب")


def test_domain_pack_problem_is_none_for_a_known_name_whatever_it_holds():
    from verifier.domain_packs import domain_pack_problem

    assert domain_pack_problem("Legacy\u200b", ["Legacy\u200b"]) is None
    assert domain_pack_problem("legal", ["Legal"]) is not None
    assert "space" in (domain_pack_problem(" medical", ["general"]) or "")


@pytest.mark.django_db
def test_a_title_may_hold_the_marks_writing_needs_but_not_a_reordering_control(api, workspace):
    fine = {"ref": "source:rtl", "text": "Silt.", "title": "\u05e9\u05dc\u05d5\u05dd\u200f (v2)"}
    assert api.post("/connect/v1/sources", fine, content_type="application/json").status_code == 201
    before = _counts()
    for title in ("\u202etxt.exe", "Report \u2067x\u2069"):
        response = api.post(
            "/connect/v1/sources",
            {"ref": "source:spoof", "text": "Silt.", "title": title},
            content_type="application/json",
        )
        assert response.status_code == 400, response.content[:300]
        error = response.json()["error"]
        assert error["code"] == "invalid_title" and "reorders how the text" in error["message"]
    assert _counts() == before
